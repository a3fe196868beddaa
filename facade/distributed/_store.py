"""torch.distributed's key-value stores: Store, HashStore, FileStore, TCPStore, PrefixStore.

Values are bytes (a str is stored as its UTF-8 bytes); `add` keeps the value as a decimal string, as torch
does, so get() after add() reads b"5". Each store says where its keys live through four primitives
(_try_get, _set, _update: an atomic read-modify-write, _delete) and a blocking `_wait`; the public API
(torch's names, argument checks, timeouts and errors) is written once here on top of them.

- HashStore: a dict in this process, guarded by a condition variable.
- FileStore: one file shared by the processes that open it, read and rewritten under an exclusive flock.
- TCPStore: JAX's coordination service key-value store (the runtime's client: key_value_set /
  blocking_key_value_get / key_value_increment / key_value_delete / key_value_dir_get) once this process
  joined JAX's distributed runtime (init_process_group, also with store=TCPStore(...)); its keys live under
  facade/tcpstore/<port>/. Before that, the TCPStores of one process with the same port share one in-process
  table (the master's), so the single-process uses of TCPStore work with no runtime. compare_set, append
  and delete_key need a read-modify-write the coordination service has no primitive for: they hold a lock
  key, made with the service's create-if-absent (key_value_set without overwrite).
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import socket
import threading
import time

__all__ = ["Store", "HashStore", "FileStore", "TCPStore", "PrefixStore"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _errors():
    from . import DistNetworkError, DistStoreError  # the package defines them; it imports this module

    return DistStoreError, DistNetworkError


def _check(fn, arg, value, types, want):
    if not isinstance(value, types):
        raise TypeError(f"{fn}(): incompatible function arguments: {arg} must be {want}, got "
                        f"{type(value).__name__} {value!r}")


def _bytes(fn, value) -> bytes:
    _check(fn, "value", value, (str, bytes, bytearray), "str or bytes")
    return value.encode() if isinstance(value, str) else bytes(value)


def _keys(fn, keys) -> list[str]:
    _check(fn, "keys", keys, (list, tuple), "a list of str")
    for k in keys:
        _check(fn, "key", k, str, "str")
    return list(keys)


def _int_of(old: bytes | None) -> int:
    try:
        return int(old) if old is not None else 0
    except ValueError:
        raise ValueError("stoll") from None  # torch parses the stored text with std::stoll


class Store:
    """torch.distributed.Store: the key-value API every store shares (a store of its own is a subclass)."""

    _INTERNAL_KEYS = 0  # keys torch's store of this kind keeps for itself and counts in num_keys()

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = timeout

    # -- what each store provides
    def _try_get(self, key: str) -> bytes | None:
        raise NotImplementedError

    def _set(self, key: str, value: bytes) -> None:
        raise NotImplementedError

    def _update(self, key: str, fn):
        """Atomically: (new, result) = fn(old value or None); store `new` unless it is None; return result."""
        raise NotImplementedError

    def _delete(self, key: str) -> bool:
        raise NotImplementedError

    def _count(self) -> int:
        raise NotImplementedError

    def _wait(self, keys, seconds) -> bool:
        """Block until every key exists (True) or `seconds` passed (False)."""
        raise NotImplementedError

    def _timed_out(self, keys, ms, op):
        return _errors()[0]("Wait timeout")

    # -- torch's API
    @property
    def timeout(self) -> datetime.timedelta:
        return self._timeout

    def set_timeout(self, timeout) -> None:
        _check("set_timeout", "timeout", timeout, datetime.timedelta, "a datetime.timedelta")
        self._timeout = timeout

    def set(self, key, value) -> None:
        _check("set", "key", key, str, "str")
        self._set(key, _bytes("set", value))

    def get(self, key) -> bytes:
        _check("get", "key", key, str, "str")
        self._block([key], self.timeout, "get")
        return self._try_get(key)

    def add(self, key, amount) -> int:
        _check("add", "key", key, str, "str")
        if isinstance(amount, bool) or not isinstance(amount, int):
            _check("add", "amount", amount, int, "int")
        return self._add(key, int(amount))

    def _add(self, key, amount):
        def bump(old):
            new = _int_of(old) + amount
            return str(new).encode(), new

        return self._update(key, bump)

    def compare_set(self, key, expected_value, desired_value) -> bytes:
        """Set `key` to `desired_value` when it holds `expected_value` (or is missing and expected is empty);
        return the value it holds after (torch returns `expected_value` for a missing key it did not set)."""
        _check("compare_set", "key", key, str, "str")
        expected, desired = _bytes("compare_set", expected_value), _bytes("compare_set", desired_value)

        def swap(old):
            if old is None:
                return (desired, desired) if expected == b"" else (None, expected)
            return (desired, desired) if old == expected else (None, old)

        return self._update(key, swap)

    def append(self, key, value) -> None:
        _check("append", "key", key, str, "str")
        tail = _bytes("append", value)
        self._update(key, lambda old: ((old or b"") + tail, None))

    def wait(self, keys, timeout=None) -> None:
        keys = _keys("wait", keys)
        if timeout is not None:
            _check("wait", "timeout", timeout, datetime.timedelta, "a datetime.timedelta")
        self._block(keys, self.timeout if timeout is None else timeout, "wait")

    def _block(self, keys, timeout, op):
        seconds = timeout.total_seconds()
        if not self._wait(keys, seconds):
            raise self._timed_out(keys, int(seconds * 1000), op)

    def check(self, keys) -> bool:
        return all(self._try_get(k) is not None for k in _keys("check", keys))

    def delete_key(self, key) -> bool:
        _check("delete_key", "key", key, str, "str")
        return self._delete(key)

    def num_keys(self) -> int:
        return self._count() + self._INTERNAL_KEYS

    def multi_get(self, keys) -> list[bytes]:
        keys = _keys("multi_get", keys)
        self._block(keys, self.timeout, "get")
        return [self._try_get(k) for k in keys]

    def multi_set(self, keys, values) -> None:
        keys = _keys("multi_set", keys)
        for k, v in zip(keys, values, strict=True):
            self._set(k, _bytes("multi_set", v))

    def has_extended_api(self) -> bool:
        return True


class _Table:
    """A dict with a condition variable: HashStore's storage, and TCPStore's before a runtime exists."""

    def __init__(self):
        self.data, self.cond = {}, threading.Condition()

    def try_get(self, key):
        with self.cond:
            return self.data.get(key)

    def set(self, key, value):
        with self.cond:
            self.data[key] = value
            self.cond.notify_all()

    def update(self, key, fn):
        with self.cond:
            new, result = fn(self.data.get(key))
            if new is not None:
                self.data[key] = new
                self.cond.notify_all()
            return result

    def delete(self, key):
        with self.cond:
            return self.data.pop(key, None) is not None

    def count(self):
        with self.cond:
            return len(self.data)

    def wait(self, keys, seconds):
        with self.cond:
            return self.cond.wait_for(lambda: all(k in self.data for k in keys), timeout=seconds)


class HashStore(Store):
    """torch.distributed.HashStore: a store in this process's memory (threads share it)."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _try_get(self, key):
        return self._table.try_get(key)

    def _set(self, key, value):
        self._table.set(key, value)

    def _update(self, key, fn):
        return self._table.update(key, fn)

    def _delete(self, key):
        return self._table.delete(key)

    def _count(self):
        return self._table.count()

    def _wait(self, keys, seconds):
        return self._table.wait(keys, seconds)


def _poll(ready, seconds) -> bool:
    """ready() within `seconds`, polled with a growing pause (1 ms to 20 ms)."""
    deadline, pause = time.monotonic() + seconds, 0.001
    while not ready():
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
    return True


class FileStore(Store):
    """torch.distributed.FileStore: a store in file `file_name`, shared by every process that opens it. The
    file holds JSON (its own format, not torch's); each operation locks it (flock) for its read and write."""

    _INTERNAL_KEYS = 1  # torch's FileStore counts its cleanup key

    def __init__(self, file_name, world_size=-1):
        _check("FileStore", "file_name", file_name, (str, os.PathLike), "a path")
        super().__init__()
        self.path, self.world_size = os.fspath(file_name), world_size
        open(self.path, "a").close()

    def _locked(self, fn, write):
        with open(self.path, "r+" if write else "r") as f:
            fcntl.flock(f, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            text = f.read()
            data = {k: v.encode("latin-1") for k, v in json.loads(text).items()} if text else {}
            out, changed = fn(data)
            if write and changed:
                f.seek(0)
                f.truncate()
                f.write(json.dumps({k: v.decode("latin-1") for k, v in data.items()}))
                f.flush()
            return out

    def _try_get(self, key):
        return self._locked(lambda d: (d.get(key), False), write=False)

    def _set(self, key, value):
        self._locked(lambda d: (d.__setitem__(key, value), True), write=True)

    def _update(self, key, fn):
        def step(d):
            new, result = fn(d.get(key))
            if new is not None:
                d[key] = new
            return result, new is not None

        return self._locked(step, write=True)

    def _delete(self, key):
        self._locked(lambda d: (d.pop(key, None), True), write=True)
        return True  # torch's FileStore answers True whether or not the key existed

    def _count(self):
        return self._locked(lambda d: (len(d), False), write=False)

    def _wait(self, keys, seconds):
        return _poll(lambda: self._locked(lambda d: (all(k in d for k in keys), False), write=False), seconds)

    def _timed_out(self, keys, ms, op):
        return RuntimeError(f"Timeout waiting for key: {keys[0]} after {ms} ms" if op == "get" else "Wait timeout")

    def has_extended_api(self) -> bool:
        return False


_LOCAL_TABLES: dict[int, _Table] = {}  # port -> the in-process table of the TCPStores made before a runtime


def _client():
    from jax._src import distributed  # the runtime's client and its key-value store

    return distributed.global_state.client


def _free_port(host) -> int:
    with socket.socket() as s:
        s.bind((host if host not in ("localhost", "") else "127.0.0.1", 0))
        return s.getsockname()[1]


class _Service:
    """TCPStore's keys in JAX's coordination service, under facade/tcpstore/<port>/."""

    def __init__(self, client, port):
        self.client, self.dir, self.locks = client, f"facade/tcpstore/{port}/", f"facade/tcpstore-lock/{port}/"

    def try_get(self, key):
        try:
            return self.client.key_value_try_get_bytes(self.dir + key)
        except Exception as e:  # noqa: BLE001 - the service's NOT_FOUND is "no such key"
            if "NOT_FOUND" in str(e):
                return None
            raise

    def set(self, key, value):
        self.client.key_value_set_bytes(self.dir + key, value, allow_overwrite=True)

    def add(self, key, amount):
        try:
            return self.client.key_value_increment(self.dir + key, amount)
        except Exception as e:  # noqa: BLE001 - a value that is no integer
            if "INVALID_ARGUMENT" in str(e):
                raise ValueError("stoll") from None
            raise

    def update(self, key, fn, seconds):
        lock = self.locks + key
        if not _poll(lambda: self._take(lock), seconds):
            raise _errors()[0](f"wait timeout after {int(seconds * 1000)}ms, keys: {lock}")
        try:
            new, result = fn(self.try_get(key))
            if new is not None:
                self.set(key, new)
            return result
        finally:
            self.client.key_value_delete(lock)

    def _take(self, lock):
        try:
            self.client.key_value_set(lock, "1", allow_overwrite=False)
            return True
        except Exception as e:  # noqa: BLE001 - ALREADY_EXISTS: another process holds it
            if "ALREADY_EXISTS" in str(e):
                return False
            raise

    def delete(self, key):
        existed = self.try_get(key) is not None  # the service's delete says nothing; a racing set may slip in
        self.client.key_value_delete(self.dir + key)
        return existed

    def count(self):
        return len(self.client.key_value_dir_get_bytes(self.dir))

    def wait(self, keys, seconds):
        deadline = time.monotonic() + seconds
        for k in keys:
            ms = max(1, int((deadline - time.monotonic()) * 1000))
            try:
                self.client.blocking_key_value_get_bytes(self.dir + k, ms)
            except Exception as e:  # noqa: BLE001 - DEADLINE_EXCEEDED: the key did not come in time
                if "DEADLINE_EXCEEDED" in str(e):
                    return False
                raise
        return True


class TCPStore(Store):
    """torch.distributed.TCPStore(host_name, port, world_size, is_master, timeout, ...): a store every process
    of a job reaches; here JAX's coordination service key-value store once the process joined JAX's
    distributed runtime (see the module docstring), an in-process table before."""

    _INTERNAL_KEYS = 1  # torch's TCPStore counts its init key

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        _check("TCPStore", "host_name", host_name, str, "str")
        _check("TCPStore", "port", port, int, "int")
        _check("TCPStore", "timeout", timeout, datetime.timedelta, "a datetime.timedelta")
        super().__init__(timeout)
        if is_master and port == 0:
            port = _free_port(host_name)
        self.host, self.port, self.world_size, self.libuvBackend = host_name, port, world_size, bool(use_libuv)
        self._is_master = bool(is_master)
        if is_master and _client() is None:
            _LOCAL_TABLES.setdefault(port, _Table())

    def _where(self):
        client = _client()
        if client is not None:
            return _Service(client, self.port)
        if self.port in _LOCAL_TABLES:
            return _LOCAL_TABLES[self.port]
        ms = int(self._timeout.total_seconds() * 1000)
        raise _errors()[1](f"The client socket has timed out after {ms}ms while trying to connect to ({self.host}, "
                           f"{self.port}). facade's TCPStore reaches other processes through JAX's coordination "
                           f"service: call init_process_group (store=this store works) before using it")

    def _seconds(self):
        return self._timeout.total_seconds()

    def _try_get(self, key):
        return self._where().try_get(key)

    def _set(self, key, value):
        self._where().set(key, value)

    def _add(self, key, amount):
        where = self._where()
        return where.add(key, amount) if isinstance(where, _Service) else super()._add(key, amount)

    def _update(self, key, fn):
        where = self._where()
        return where.update(key, fn, self._seconds()) if isinstance(where, _Service) else where.update(key, fn)

    def _delete(self, key):
        where = self._where()
        return where.delete(key)

    def _count(self):
        return self._where().count()

    def _wait(self, keys, seconds):
        return self._where().wait(keys, seconds)

    def _timed_out(self, keys, ms, op):
        return _errors()[0](f"wait timeout after {ms}ms, keys: " + ", ".join("/" + k for k in keys))

    def _publish_local(self):
        """Once the runtime runs: the keys this process set before it, into the coordination service."""
        table = _LOCAL_TABLES.pop(self.port, None)
        if table is not None and _client() is not None:
            service = _Service(_client(), self.port)
            for k, v in table.data.items():
                service.set(k, v)

    def __repr__(self):
        return f"TCPStore(host={self.host!r}, port={self.port}, is_master={self._is_master})"


class PrefixStore(Store):
    """torch.distributed.PrefixStore(prefix, store): `store`'s keys under "<prefix>/"."""

    def __init__(self, prefix, store):
        _check("PrefixStore", "prefix", prefix, str, "str")
        _check("PrefixStore", "store", store, Store, "a torch.distributed.Store")
        super().__init__()
        self.underlying_store, self._prefix = store, prefix

    def _k(self, key):
        return f"{self._prefix}/{key}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def _try_get(self, key):
        return self.underlying_store._try_get(self._k(key))

    def _set(self, key, value):
        self.underlying_store._set(self._k(key), value)

    def _add(self, key, amount):
        return self.underlying_store._add(self._k(key), amount)

    def _update(self, key, fn):
        return self.underlying_store._update(self._k(key), fn)

    def _delete(self, key):
        return self.underlying_store._delete(self._k(key))

    def _count(self):
        return self.underlying_store.num_keys()

    def _wait(self, keys, seconds):
        return self.underlying_store._wait([self._k(k) for k in keys], seconds)

    def _timed_out(self, keys, ms, op):
        return self.underlying_store._timed_out([self._k(k) for k in keys], ms, op)

    def has_extended_api(self) -> bool:
        return self.underlying_store.has_extended_api()


def coordinator(store, rank, world_size):
    """(host, port) of JAX's coordination service for init_process_group(store=...): a TCPStore's own address;
    with another store, rank 0 picks a free port and publishes it in the store for the others."""
    base = store
    while isinstance(base, PrefixStore):
        base = base.underlying_store
    if isinstance(base, TCPStore):
        return base.host, base.port
    if isinstance(base, HashStore) and world_size > 1:
        raise ValueError("init_process_group(store=HashStore()) with world_size > 1: a HashStore lives in one "
                         "process, and each rank of facade's process group is a process (use a TCPStore or "
                         "FileStore)")
    key = "facade/jax_coordinator"
    if rank == 0:
        host = os.environ.get("MASTER_ADDR", "127.0.0.1")
        store.set(key, f"{host}:{_free_port(host)}")
    host, port = store.get(key).decode().rsplit(":", 1)
    return host, int(port)
