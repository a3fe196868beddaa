"""torch.serialization: `torch.save` / `torch.load` in PyTorch's own zip format, both ways.

A file is a zip archive with one folder holding `data.pkl` (the object, pickled with protocol 2, tensors
as `torch._utils._rebuild_tensor_v2` calls on persistent-id storages), `byteorder`, `version`,
`.format_version`, `.storage_alignment`, `.data/serialization_id` and one record `data/<key>` per storage,
each aligned to 64 bytes. Real torch loads what `save` writes, with `weights_only=True`, and `load` reads
what real torch writes, without importing torch (see `_pickling` for the names). The default
`weights_only=True` unpickler builds only allow-listed types and calls only allow-listed functions.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import secrets
import sys
import warnings

import numpy as np

from . import _pickling as P
from . import _unpickler as U
from . import _zipformat as Z
from ._device import CPU, META, gpus
from ._device import device as _device

__all__ = ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals",
           "get_unsafe_globals_in_checkpoint", "default_restore_location", "DEFAULT_PROTOCOL", "StorageType"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
StorageType = P.StorageType

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


# ---------------------------------------------------------------------------- allow-list


def add_safe_globals(safe_globals: list) -> None:
    """Allow `weights_only=True` loads to build/call these globals: objects, or (object, "dotted.name")."""
    U._user_safe.extend(g for g in safe_globals if g not in U._user_safe)


def get_safe_globals() -> list:
    return list(U._user_safe)


def clear_safe_globals() -> None:
    U._user_safe.clear()


class safe_globals:
    """Context manager: `with torch.serialization.safe_globals([MyClass]): torch.load(...)`."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        self.added = [g for g in self.safe_globals if g not in U._user_safe]
        U._user_safe.extend(self.added)

    def __exit__(self, *exc):
        for g in self.added:
            U._user_safe.remove(g)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals a checkpoint names that a weights-only load would refuse (read without running anything)."""
    with _open_read(f) as fh:
        data = Z.ZipReader(fh, _name_of(f)).get_record("data.pkl")
    allowed = {**U.WeightsUnpickler(io.BytesIO(), None).allowed(), **U._user_names()}
    return sorted({g for g in U.globals_in(data) if g not in allowed})


# ---------------------------------------------------------------------------- save


def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save `obj` to `f` (a path, os.PathLike or binary file object) in PyTorch's zip format.

    A path is written atomically: the archive goes to a temporary file beside it, which replaces the target
    only once complete, so an interrupted save leaves any previous file intact.
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if not _use_new_zipfile_serialization:
        raise RuntimeError("torch.save(..., _use_new_zipfile_serialization=False): the legacy (pre-1.6) format is "
                           "not supported for writing by facade; use the default zip format")
    if pickle_module is not pickle:
        raise RuntimeError("torch.save: facade writes checkpoints with the standard pickle module only, got "
                           f"pickle_module={getattr(pickle_module, '__name__', pickle_module)!r}")
    buf = io.BytesIO()
    pickler = P.Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    records = [("data.pkl", buf.getbuffer()), (".format_version", "1"), (".storage_alignment", str(Z.ALIGNMENT))]
    if not _disable_byteorder_record:
        records.append(("byteorder", sys.byteorder))
    arrays = [(f"data/{ref.key}", ref) for ref in pickler.storages.values()]
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        with _atomic_write(path) as fh:
            _write_archive(fh, _archive_name(path), records, arrays)
    else:
        _write_archive(f, "archive", records, arrays)


def _archive_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem if stem and all(c.isalnum() or c in "_-." for c in stem) else "archive"


def _write_archive(fh, prefix, records, arrays):
    w = Z.ZipWriter(fh, prefix)
    for name, data in records:
        w.write_record(name, data)
    for name, ref in arrays:
        w.write_record(name, ref.array())
    w.write_record("version", "3\n")
    w.write_record(".data/serialization_id", f"{secrets.randbits(64):020d}{secrets.randbits(64):020d}")
    w.close()
    fh.flush()


@contextlib.contextmanager
def _atomic_write(path):
    target = os.path.realpath(path)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise RuntimeError(f"Parent directory {os.path.dirname(path) or parent} does not exist.")
    tmp = os.path.join(parent, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------- load


def _wo_message(message: str) -> str:
    """torch's wrapping of a weights-only refusal: what happened and the two ways forward."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
                + _DOCS_MESSAGE)
    out = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        out += ("Please file an issue with the following so that we can make `weights_only=True` compatible with "
                "your use case: WeightsUnpickler error: ")
    return out + "\n\n" + message + _DOCS_MESSAGE


def _resolve_weights_only(weights_only):
    not_set = weights_only is None
    if not_set:
        weights_only = True
    true = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)
        return False
    return bool(weights_only)


def default_restore_location(storage, location: str):
    """Place a loaded CPU storage on the device its location tag ('cpu', 'cuda:1', 'meta') names."""
    if location == "cpu":
        return storage.to(CPU)
    if location == "meta":
        return storage.to(META)
    if re.match(r"cuda(:|[0-9]+|$)", location):
        index = int(location[5:]) if location[5:].isdigit() else 0
        n = len(gpus())
        if not n:
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        if index >= n:
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                               f"torch.cuda.device_count() is {n}. Please use torch.load with map_location to map "
                               "your storages to an existing device.")
        return storage.to(_device("cuda", index))
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{location})")


def _restorer(map_location):
    """location tag -> storage -> storage on its device, for each form of map_location."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, str(map_location.get(loc, loc)))
    if isinstance(map_location, (str, bytes, _device)):
        where = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda s, loc: default_restore_location(s, where)
    if not callable(map_location):
        raise TypeError(f"map_location should be a string, torch.device, dict or callable, got "
                        f"{type(map_location).__name__}")

    def restore(s, loc):
        out = map_location(s, loc)
        if out is None:
            return default_restore_location(s, loc)
        if not isinstance(out, P.TypedStorage):
            raise TypeError(f"map_location must return a storage or None, got {type(out).__name__}")
        return out
    return restore


def _is_meta(map_location):
    return (isinstance(map_location, str) and map_location == "meta") or (
        isinstance(map_location, _device) and map_location.type == "meta")


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args):
    """Load an object saved with torch.save (by real PyTorch or by facade).

    map_location: None (each storage back to its saved device), a device or string (all there), a dict
    remapping location tags ({'cuda:1': 'cuda:0'}), or a callable(storage, location) returning a storage or
    None. weights_only=True (the default) builds only tensors, containers, numbers, strings, dtypes, devices,
    sizes and `add_safe_globals` types; anything else is refused before it runs. mmap=True maps the file
    and lets tensors read their bytes from the mapping as they are used.
    """
    weights_only = _resolve_weights_only(weights_only)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    pickle_module = pickle_module or pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(os.fspath(f), map_location)
    restore = _restorer(map_location)
    with _open_read(f) as fh:
        if Z.is_zipfile(fh):
            reader = Z.ZipReader(fh, _name_of(f))
            if reader.has_record("constants.pkl"):
                raise RuntimeError("torch.load: this is a TorchScript archive (torch.jit.save), which facade cannot "
                                   "load")
            mapped = None
            if mmap:
                if not isinstance(f, (str, os.PathLike)):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                mapped = np.memmap(os.fspath(f), mode="c") if os.path.getsize(f) else None
            return _guarded(weights_only, lambda: _load_zip(reader, restore, _is_meta(map_location), mapped,
                                                             weights_only, pickle_module, pickle_load_args))
        if mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), please torch.save your "
                               "checkpoint with this option in order to use mmap.")
        return _guarded(weights_only, lambda: _load_legacy(fh, _name_of(f), restore, weights_only, pickle_module,
                                                           pickle_load_args))


def _guarded(weights_only, run):
    if not weights_only:
        return run()
    try:
        return run()
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_wo_message(str(e))) from None


def _name_of(f):
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the checkpoint"


@contextlib.contextmanager
def _open_read(f):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            yield fh
        return
    if not hasattr(f, "read"):
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'read' attribute, got "
                             f"{type(f).__name__}")
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError, OSError) as e:
        raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please pre-load the data into a "
                      "buffer like io.BytesIO and try to load from it instead.") from None
    yield f


def _unpickler(data, persistent_load, weights_only, pickle_module, pickle_load_args):
    fh = io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
    if weights_only:
        return U.WeightsUnpickler(fh, persistent_load, encoding=pickle_load_args.get("encoding", "utf-8"))
    u = U.full_unpickler(pickle_module)(fh, **pickle_load_args)
    u.persistent_load = persistent_load
    return u


def _run(unpickler, restore):
    P._CTX.restore = lambda loc: restore(P.TypedStorage(None, P.D.uint8), loc).device
    try:
        return unpickler.load()
    finally:
        P._CTX.restore = None


def _load_zip(reader, restore, meta, mapped, weights_only, pickle_module, pickle_load_args):
    swap = False
    if reader.has_record("byteorder"):
        order = reader.get_record("byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode(errors="replace"))
        swap = order.decode() != sys.byteorder
    loaded, crc = {}, Z.CrcCheck()

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or len(saved_id) != 5:
            raise pickle.UnpicklingError(f"unexpected persistent id {saved_id!r} (expected a storage)")
        typename, storage_type, key, location, numel = saved_id
        if (typename.decode() if isinstance(typename, bytes) else typename) != "storage" or \
                not isinstance(storage_type, P.StorageType) or not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"unexpected persistent id {saved_id!r} (expected a storage)")
        key = key.decode() if isinstance(key, bytes) else str(key)
        location = location.decode() if isinstance(location, bytes) else str(location)
        dtype = storage_type.dtype
        if key in loaded:
            return loaded[key]._typed(dtype)
        name, nbytes = f"data/{key}", numel * dtype.itemsize
        size = reader.record_size(name)
        if size != nbytes:
            raise RuntimeError(f"torch.load: storage record {name} holds {size} bytes but the checkpoint's pickle "
                               f"expects {nbytes} ({numel} x {dtype}); the file is corrupted")
        if meta:
            arr = np.empty(0, dtype.np)  # no bytes are read for the meta device
            storage = P.TypedStorage(np.lib.stride_tricks.as_strided(arr, (numel,), (0,)), dtype, META)
        else:
            if mapped is not None and (off := reader.data_offset(name)) is not None:
                raw = mapped[off:off + nbytes]
                if off + nbytes > mapped.size:
                    raise RuntimeError(f"torch.load: storage record {name} runs past the end of the file")
            else:
                raw = Z.aligned_empty(nbytes)
                reader.read_into(name, raw, crc)
            arr = raw.view(dtype.np)
            if swap and dtype.itemsize > 1:
                arr = arr.byteswap()
            storage = restore(P.TypedStorage(arr, dtype, CPU), location)
        loaded[key] = storage
        return storage

    data = reader.get_record("data.pkl")
    try:
        result = _run(_unpickler(data, persistent_load, weights_only, pickle_module, pickle_load_args), restore)
    except BaseException:
        crc.close()
        raise
    crc.verify()  # nothing is returned before every storage's bytes are known intact
    return result


def _load_legacy(fh, name, restore, weights_only, pickle_module, pickle_load_args):
    """The pre-1.6 format: magic number, protocol, sys info, the object, its storage keys, then raw storages."""
    start = fh.tell()
    head = fh.read(512)
    fh.seek(start)
    if not head:
        raise EOFError(f"torch.load: {name} is empty (0 bytes), not a checkpoint")
    if len(head) > 262 and head[257:262] == b"ustar":
        raise RuntimeError(f"torch.load: {name} is a legacy .tar checkpoint (torch < 0.4), which facade cannot load")
    if head[:1] != pickle.PROTO:
        raise RuntimeError(f"torch.load: {name} is not a checkpoint: it is neither a zip archive (torch.save since "
                           f"1.6) nor a legacy pickle (it starts with {head[:16]!r})")

    def header():
        return U.WeightsUnpickler(fh, None).load()

    try:
        magic = header()
    except pickle.UnpicklingError:
        raise RuntimeError("Invalid magic number; corrupt file?") from None
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol = header()
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol}")
    sys_info = header()
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    body = fh.tell()
    # The storages' bytes follow the object's pickle, so list them first with a pickle walk that runs nothing.
    found = {}

    def note(saved_id):
        if isinstance(saved_id, tuple) and len(saved_id) == 6 and saved_id[0] in ("storage", b"storage"):
            _, st, key, location, numel, _view = saved_id
            found.setdefault(str(key), (st, str(location), numel))
        return None

    U.ScanUnpickler(fh, note).load()
    keys = header()
    roots = {}
    for key in keys:
        st, location, numel = found[str(key)]
        dtype = st.dtype
        count = np.frombuffer(fh.read(8), "<i8")
        if count.size != 1 or int(count[0]) != numel:
            raise RuntimeError(f"torch.load: legacy storage {key} is truncated or corrupted")
        raw = Z.aligned_empty(numel * dtype.itemsize)
        if Z._readinto(fh, memoryview(raw)) != raw.nbytes:
            raise RuntimeError(f"torch.load: legacy storage {key} is truncated")
        arr = raw.view(dtype.np)
        if little != (sys.byteorder == "little") and dtype.itemsize > 1:
            arr = arr.byteswap()
        roots[str(key)] = restore(P.TypedStorage(arr, dtype, CPU), location)
    end = fh.tell()

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or not saved_id:
            raise pickle.UnpicklingError(f"unexpected persistent id {saved_id!r}")
        kind = saved_id[0].decode() if isinstance(saved_id[0], bytes) else saved_id[0]
        if kind == "module" and not weights_only:
            return saved_id[1]
        if kind != "storage" or len(saved_id) != 6:
            raise pickle.UnpicklingError(f"Unknown saved id type: {kind}")
        _, st, key, _loc, _numel, view = saved_id
        storage = roots[str(key)]._typed(st.dtype)
        if view is not None:
            _view_key, offset, size = view
            sub = P.TypedStorage(storage._array[offset:offset + size], storage.dtype, storage.device)
            return sub
        return storage

    fh.seek(body)
    result = _run(_unpickler(fh, persistent_load, weights_only, pickle_module, pickle_load_args), restore)
    fh.seek(end)
    return result


def _load_safetensors(path, map_location):
    if isinstance(map_location, dict):
        raise RuntimeError("Loading safetensors file with dict map_location is not supported. Use a device string "
                           "or torch.device instead.")
    if callable(map_location) and not isinstance(map_location, _device):
        raise RuntimeError("Loading safetensors file with callable map_location is not supported. Use a device "
                           "string or torch.device instead.")
    from . import _safetensors

    return _safetensors.load_file(path, device=str(map_location) if map_location is not None else "cpu")
