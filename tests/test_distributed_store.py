"""torch.distributed stores (HashStore, FileStore, TCPStore, PrefixStore) against real torch's: one sequence of
operations in one process, value by value and error by error; then init_process_group(store=...) across two
loopback processes, the same script under torch and facade."""

import datetime
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch.distributed as real_dist

import facade.distributed as dist
from tests.test_distributed import _free_port, _launch, _results

MS = 200


def _make(d, kind, tmp_path):
    timeout = datetime.timedelta(milliseconds=MS)
    if kind == "hash":
        s = d.HashStore()
    elif kind == "file":
        s = d.FileStore(str(tmp_path / f"{d.__name__}.store"), 1)
    elif kind == "tcp":
        s = d.TCPStore("127.0.0.1", 0, 1, True, timeout=timeout)
    else:
        s = d.PrefixStore("pre", d.HashStore())
    s.set_timeout(timeout)
    return s


def _ops(s):
    """Every operation of torch's Store API, with the bad inputs; what each returned or raised."""
    out = []

    def rec(name, f):
        try:
            out.append((name, "ok", f()))
        except Exception as e:
            # pybind's TypeError text names torch's C++ classes: the type is what must agree there
            out.append((name, type(e).__name__, None if isinstance(e, TypeError) else str(e)))

    rec("timeout", lambda: s.timeout)
    rec("num_keys0", s.num_keys)
    rec("set str", lambda: s.set("a", "x"))
    rec("set bytes", lambda: s.set("b", b"\x00\xff"))
    rec("set int", lambda: s.set("c", 5))
    rec("get a", lambda: s.get("a"))
    rec("get b", lambda: s.get("b"))
    rec("get missing", lambda: s.get("zz"))
    rec("add new", lambda: s.add("n", 3))
    rec("add again", lambda: s.add("n", -1))
    rec("get n", lambda: s.get("n"))
    rec("add to a set int", lambda: (s.set("m", "7"), s.add("m", 1), s.get("m")))
    if not isinstance(s, (real_dist.TCPStore, dist.TCPStore)):  # torch's TCPStore server dies on this one
        rec("add to text", lambda: s.add("a", 1))
    rec("add float", lambda: s.add("n", 1.5))
    rec("compare_set missing, ''", lambda: (s.compare_set("cs", "", "v1"), s.get("cs")))
    rec("compare_set missing, 'q'", lambda: (s.compare_set("cs2", "q", "v1"), s.check(["cs2"])))
    rec("compare_set wrong", lambda: s.compare_set("cs", "nope", "v2"))
    rec("compare_set right", lambda: (s.compare_set("cs", "v1", b"v2"), s.get("cs")))
    rec("check", lambda: (s.check(["a", "n"]), s.check(["a", "zz"])))
    rec("check str", lambda: s.check("a"))
    rec("wait", lambda: s.wait(["a", "n"]))
    rec("wait missing", lambda: s.wait(["zz"]))
    rec("wait missing, timeout", lambda: s.wait(["zz", "a"], datetime.timedelta(milliseconds=50)))
    rec("num_keys", s.num_keys)
    rec("delete", lambda: (s.delete_key("a"), s.delete_key("a"), s.num_keys(), s.check(["a"])))
    rec("append", lambda: (s.append("ap", "x"), s.append("ap", b"y"), s.get("ap")))
    rec("multi", lambda: (s.multi_set(["k1", "k2"], ["1", b"2"]), s.multi_get(["k1", "k2"])))
    rec("extended", s.has_extended_api)
    rec("set_timeout int", lambda: s.set_timeout(5))
    rec("get int key", lambda: s.get(5))
    return out


@pytest.mark.parametrize("kind", ["hash", "file", "tcp", "prefix"])
def test_store_api_matches_torch(kind, tmp_path):
    want, got = _ops(_make(real_dist, kind, tmp_path)), _ops(_make(dist, kind, tmp_path))
    assert [w[0] for w in want] == [g[0] for g in got]
    for w, g in zip(want, got):
        assert g == w, (g, w)


def test_get_blocks_until_the_timeout_or_a_set(tmp_path):
    for d in (real_dist, dist):
        s = d.HashStore()
        s.set_timeout(datetime.timedelta(milliseconds=300))
        t0 = time.monotonic()
        with pytest.raises(d.DistStoreError, match="Wait timeout"):
            s.get("k")
        assert 0.29 < time.monotonic() - t0 < 2
        s.set_timeout(datetime.timedelta(seconds=10))
        setter = threading.Timer(0.2, s.set, ("k", "v"))
        setter.start()
        t0 = time.monotonic()
        assert s.get("k") == b"v" and time.monotonic() - t0 < 5
        setter.join()


def test_tcpstore_attributes_and_a_client_in_the_same_process():
    timeout = datetime.timedelta(seconds=5)
    for d in (real_dist, dist):
        master = d.TCPStore("127.0.0.1", 0, 2, True, timeout=timeout, wait_for_workers=False)
        client = d.TCPStore("127.0.0.1", master.port, 2, False, timeout=timeout)
        assert master.port > 0 and (master.host, client.port) == ("127.0.0.1", master.port)
        assert master.libuvBackend and master.timeout == timeout
        client.set("from client", "1")
        assert master.get("from client") == b"1" and master.add("count", 2) == client.add("count", 3) - 3


def test_tcpstore_with_no_master_anywhere():
    timeout = datetime.timedelta(milliseconds=200)
    port = _free_port()
    with pytest.raises(real_dist.DistNetworkError, match=f"timed out after 200ms while trying to connect to "
                                                        f"\\(127.0.0.1, {port}\\)"):
        real_dist.TCPStore("127.0.0.1", port, 2, False, timeout=timeout)
    store = dist.TCPStore("127.0.0.1", port, 2, False, timeout=timeout)  # it connects when first used
    with pytest.raises(dist.DistNetworkError, match=f"timed out after 200ms while trying to connect to "
                                                   f"\\(127.0.0.1, {port}\\).*call init_process_group"):
        store.get("k")


@pytest.mark.parametrize("kwargs", [
    {"init_method": "env://", "rank": 0, "world_size": 1}, {"rank": 0}, {"world_size": 1},
])
def test_init_process_group_store_arguments(kwargs):
    errors = []
    for d in (real_dist, dist):
        try:
            d.init_process_group("gloo", store=d.HashStore(), **kwargs)
        except AssertionError as e:
            errors.append(str(e))
    assert errors[0] == errors[1]


def test_init_process_group_with_a_store_in_one_process():
    for d in (real_dist, dist):
        store = d.HashStore()
        d.init_process_group("gloo", store=store, rank=0, world_size=1)
        try:
            assert (d.get_rank(), d.get_world_size()) == (0, 1)
            store.set("after", "init")
            assert store.get("after") == b"init"
        finally:
            d.destroy_process_group()


# Two ranks rendezvous through a store they made, then use it and the group. STORE picks TCPStore or FileStore.
SCRIPT = '''
import datetime, json, os, sys, time
if os.environ["LIB"] == "torch":
    import torch
else:
    import facade as torch
dist = torch.distributed
r, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
timeout = datetime.timedelta(seconds=20)
if os.environ["STORE"] == "tcp":
    store = dist.TCPStore("127.0.0.1", int(os.environ["MASTER_PORT"]), n, r == 0, timeout=timeout)
else:
    store = dist.FileStore(os.environ["STORE_FILE"], n)
dist.init_process_group("gloo", store=store, rank=r, world_size=n, timeout=timeout)
out = {}
store.set(f"hello/{r}", f"from {r}")
out["other"] = store.get(f"hello/{1 - r}").decode()
out["add"] = store.add("counter", r + 1)  # the order of the two adds is free: the sum is what both see at the end
dist.barrier()
out["total"] = store.get("counter").decode()
won = store.compare_set("leader", "", f"rank {r}")
dist.barrier()
out["leader_same"] = store.get("leader") == won or store.get("leader").decode().startswith("rank")
store.wait([f"hello/{1 - r}"])
out["check"] = store.check([f"hello/0", f"hello/1"])
x = torch.tensor([float(r + 1)]); dist.all_reduce(x); out["all_reduce"] = x.tolist()
p = dist.PrefixStore("sub", store); p.set(f"k{r}", "v"); dist.barrier()
out["prefix"] = [p.get(f"k{1 - r}").decode(), store.get(f"sub/k{1 - r}").decode()]
dist.barrier()
print("RESULT " + json.dumps(out), flush=True)
dist.destroy_process_group()
'''


@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_init_process_group_with_a_store_across_processes(kind, tmp_path):
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(_launch, SCRIPT, 2, lib, timeout=60, STORE=kind, STORE_FILE=str(tmp_path / lib))
                for lib in ("torch", "facade")]
        want, got = (_results(r.result()) for r in runs)
    for w, g in zip(want, got):
        assert {k: v for k, v in g.items() if k != "add"} == {k: v for k, v in w.items() if k != "add"}
    assert sorted(g["add"] for g in got) in ([1, 3], [2, 3])
    assert got[0]["total"] == "3" and got[0]["all_reduce"] == [3.0]
