"""torch.distributed: one script doing every collective, run on 2 and 4 loopback processes under real
torch (gloo) and under facade, results compared rank by rank; world_size 1 in process; the error cases."""

import datetime
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch as real_torch
import torch.distributed as real_dist

import facade
import facade.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The same text runs with lib=torch and lib=facade. Values depend on the rank so each result says who sent what.
SCRIPT = textwrap.dedent('''
    import datetime, json, os, sys, time
    if os.environ["LIB"] == "torch":
        import torch
    else:
        import facade as torch
    dist = torch.distributed
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    r, n = dist.get_rank(), dist.get_world_size()
    out = {"rank": r, "world": n, "backend": str(dist.get_backend()), "init": dist.is_initialized()}

    def rec(name, v):
        if isinstance(v, torch.Tensor):
            v = {"v": v.tolist(), "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)}
        elif isinstance(v, list) and v and isinstance(v[0], torch.Tensor):
            v = [t.tolist() for t in v]
        out[name] = v

    def base(dtype=torch.float32):
        return (torch.arange(6, dtype=dtype).reshape(2, 3) + 1) * (r + 1) - r

    R = dist.ReduceOp
    for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG"):
        x = base(); dist.all_reduce(x, op=getattr(R, op)); rec("all_reduce_" + op, x)
    for op in ("SUM", "MAX", "BAND", "BOR", "BXOR"):
        x = base(torch.int64); dist.all_reduce(x, op=getattr(R, op)); rec("all_reduce_int_" + op, x)
    x = torch.tensor(2.5 * r); dist.all_reduce(x); rec("all_reduce_0d", x)
    b = base(torch.float64); dist.all_reduce(b[1:]); rec("all_reduce_f64_row_view", b)  # torch gloo: contiguous only
    x = base(); w = dist.all_reduce(x, async_op=True); rec("async_wait", w.wait()); rec("async_done", w.is_completed())
    rec("async", x)
    tl = [torch.zeros(2, 3) for _ in range(n)]; dist.all_gather(tl, base()); rec("all_gather", tl)
    o = torch.zeros(2 * n, 3); dist.all_gather_into_tensor(o, base()); rec("all_gather_into_tensor", o)
    o = torch.zeros(n * 2, 3); dist.all_gather_single(o, base() - 1); rec("all_gather_single", o)
    o = torch.zeros(2, 3); dist.reduce_scatter_tensor(o, torch.arange(6 * n, dtype=torch.float32).reshape(2 * n, 3)
                                                      * (r + 1)); rec("reduce_scatter_tensor", o)
    o = torch.zeros(2, 3); dist.reduce_scatter_tensor(o, base().repeat(n, 1), op=R.MAX); rec("reduce_scatter_max", o)
    x = base(torch.int64); dist.broadcast(x, src=n - 1); rec("broadcast", x)
    top = min(1, n - 1)
    x = base(); dist.reduce(x, dst=top, op=R.SUM); rec("reduce", x if r == top else None)  # gloo scribbles on others
    x = torch.zeros(2, 3)
    dist.scatter(x, [base() * 10 + i for i in range(n)] if r == 0 else None, src=0); rec("scatter", x)
    gl = [torch.zeros(2, 3) for _ in range(n)] if r == 0 else None
    dist.gather(base(), gl, dst=0); rec("gather", gl)
    ol = [torch.zeros(2) for _ in range(n)]
    dist.all_to_all(ol, [torch.full((2,), 10.0 * r + j) for j in range(n)]); rec("all_to_all", ol)
    o = torch.zeros(2 * n); dist.all_to_all_single(o, torch.arange(2.0 * n) + 100 * r); rec("all_to_all_single", o)
    if os.environ["LIB"] == "facade":  # blocks of other shapes: NCCL's all_to_all, which gloo refuses
        ol = [torch.zeros(i + 1, r + 2) for i in range(n)]  # rank r sends rank j a (r + 1) x (j + 2) block
        dist.all_to_all(ol, [torch.full((r + 1, j + 2), 10.0 * r + j) for j in range(n)])
        out["_all_to_all_uneven"] = [t.tolist() for t in ol]
    ins, outs = [r + j + (j == 1) for j in range(n)], [i + r + (r == 1) for i in range(n)]  # rank 0 sends 0 rows to 0
    o = torch.zeros(sum(outs), 2)
    dist.all_to_all_single(o, torch.arange(2.0 * sum(ins)).reshape(-1, 2) + 100 * r, outs, ins)
    rec("all_to_all_single_uneven", o)
    for k, (no, ni) in enumerate(((n + 1, n), (n, n + 1))):  # a list of the wrong length: torch gloo's own message
        try:
            dist.all_to_all([torch.zeros(2) for _ in range(no)], [torch.ones(2) for _ in range(ni)])
        except RuntimeError as e:
            out[f"all_to_all_wrong_length_{k}"] = str(e).splitlines()[0]
    objs = [None] * n; dist.all_gather_object(objs, {"rank": r, "pad": "x" * (3 * r)}); rec("all_gather_object", objs)
    bl = [1, "two", {"r": r}] if r == top else [None, None, None]
    dist.broadcast_object_list(bl, src=top); rec("broadcast_object_list", bl)
    dist.barrier()
    if n > 1:
        sub = dist.new_group([0, 1])
        rec("non_member", sub == dist.GroupMember.NON_GROUP_MEMBER)
        x = base()
        if r in (0, 1):
            dist.all_reduce(x, group=sub)
            rec("subgroup", [dist.get_rank(sub), dist.get_world_size(sub), dist.get_process_group_ranks(sub)])
        rec("subgroup_all_reduce", x)
        x = base()
        if r in (0, 1):
            dist.broadcast(x, src=1, group=sub)
        rec("subgroup_broadcast", x)
        if r not in (0, 1):
            import warnings
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rec("non_member_call", [dist.all_reduce(x, group=sub), [str(w.message) for w in caught]])
    x = torch.ones(4)
    for _ in range(10):
        dist.all_reduce(x)
    t0 = time.perf_counter()
    for _ in range(100):
        dist.all_reduce(x)
    float(x.sum())
    out["_latency_us"] = (time.perf_counter() - t0) / 100 * 1e6
    if hasattr(torch.compiler, "metrics"):  # facade's compile counter: repeated collectives compile nothing
        for i in range(3):
            if i == 1:
                before = torch.compiler.metrics().compiles
            dist.all_reduce(x); dist.broadcast(x, 0); dist.all_gather(tl, base()); dist.barrier()
            dist.all_gather_object([None] * n, {"step": i, "pad": "y" * (i * 5)})  # one padded size
        out["_compiles"] = torch.compiler.metrics().compiles - before
    if os.environ.get("CHECK_MISMATCH"):
        try:
            dist.all_reduce(torch.ones(3 + r))
        except RuntimeError as e:
            out["_mismatch"] = str(e)
        outs = [1 + (r == 1 and i == 0) for i in range(n)]  # rank 1 expects 2 rows of rank 0, which sends 1
        try:
            dist.all_to_all_single(torch.zeros(sum(outs), 2), torch.ones(n, 2), outs, [1] * n)
        except RuntimeError as e:
            out["_split_mismatch"] = str(e)
        x = torch.ones(2); dist.all_reduce(x); out["_after_mismatch"] = x.tolist()
    print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()
''')

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(script, n, lib, timeout=90, **extra):
    """Run `script` as `n` ranks (env:// rendezvous on loopback); [(returncode, stdout, stderr)] per rank."""
    port = _free_port()
    env = {**os.environ, "LIB": lib, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(n),
           "JAX_PLATFORMS": "cpu", "PYTHONPATH": ROOT, **extra}
    env.pop("XLA_FLAGS", None)
    procs = []
    try:
        for r in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", script], env={**env, "RANK": str(r),
                                          "LOCAL_RANK": str(r)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, cwd=ROOT))
        deadline, results = time.monotonic() + timeout, []
        for p in procs:
            out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
            results.append((p.returncode, out, err))
        return results
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def _results(runs):
    """The RESULT record each rank printed (failing with the rank's stderr if it did not)."""
    recs = []
    for r, (code, out, err) in enumerate(runs):
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert code == 0 and lines, f"rank {r} exited {code}:\n{err[-3000:]}"
        recs.append(json.loads(lines[0][len("RESULT "):]))
    return recs


_RUNS = {}


def _both(n):
    """torch's and facade's records for `n` ranks, the two launched side by side (once per n, shared)."""
    if n not in _RUNS:
        with ThreadPoolExecutor(2) as pool:
            want = pool.submit(_launch, SCRIPT, n, "torch")
            got = pool.submit(_launch, SCRIPT, n, "facade", CHECK_MISMATCH="1")
            _RUNS[n] = _results(want.result()), _results(got.result())
    return _RUNS[n]


def _same(want, got):
    w = {k: v for k, v in want.items() if not k.startswith("_")}
    g = {k: v for k, v in got.items() if not k.startswith("_")}
    assert g.keys() == w.keys()
    for k in w:
        assert g[k] == pytest.approx(w[k]) if isinstance(w[k], float) else g[k] == w[k], (k, g[k], w[k])


@pytest.mark.parametrize("n", [2, 4])
def test_every_collective_matches_torch(n):
    want, got = _both(n)
    for r in range(n):
        _same(want[r], got[r])
        assert got[r]["_compiles"] == 0
        # torch's definition, which gloo cannot run for blocks of different shapes: block i comes from rank i
        assert got[r]["_all_to_all_uneven"] == [[[10.0 * i + r] * (r + 2)] * (i + 1) for i in range(n)]
    print(f"\nsmall all_reduce latency, {n} ranks: facade {got[0]['_latency_us']:.0f} us, "
          f"torch gloo {want[0]['_latency_us']:.0f} us")


def test_mismatched_shapes_raise_on_every_rank():
    _, got = _both(2)
    for r, rec in enumerate(got):
        mine, theirs = ([3], [4]) if r == 0 else ([4], [3])
        assert rec["_mismatch"] == (f"all_reduce: tensor shapes differ across ranks: rank {1 - r} has {theirs}, this "
                                    f"rank ({r}) has {mine}")
        assert rec["_split_mismatch"] == ("all_to_all_single: rank 0 sends 2 elements to rank 1, which expects 4 "
                                          "from it: the blocks' sizes must agree across ranks")
        assert rec["_after_mismatch"] == [2.0, 2.0]  # the group still works


@pytest.fixture
def world1(monkeypatch):
    """env:// for a world of one rank; whatever a test initialises is destroyed after it."""
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(_free_port()))
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    yield
    for d in (dist, real_dist):
        if d.is_initialized():
            d.destroy_process_group()


def _run_in_process(lib, monkeypatch, capsys):
    monkeypatch.setenv("LIB", lib)
    exec(compile(SCRIPT, "<script>", "exec"), {"__name__": "__script__"})
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("RESULT ")]
    return json.loads(line[len("RESULT "):])


@pytest.mark.filterwarnings("ignore:`torch.distributed:FutureWarning")  # the script calls the deprecated names too
def test_world_size_one_matches_torch(world1, monkeypatch, capsys):
    want = _run_in_process("torch", monkeypatch, capsys)
    got = _run_in_process("facade", monkeypatch, capsys)
    _same(want, got)
    assert got["_compiles"] == 0 and not dist.is_initialized() and dist.group.WORLD is None


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


def _both_raise(name, make_args, prefix_free=False):
    """facade.distributed.<name> raises what torch.distributed.<name> raises (message after 'fn: ' if asked)."""
    want = _error(getattr(real_dist, name), *make_args(real_torch))
    got = _error(getattr(dist, name), *make_args(facade))
    if prefix_free:
        want, got = (want[0], want[1].split(": ", 1)[1]), (got[0], got[1].split(": ", 1)[1])
    assert got == want


@pytest.mark.parametrize("name, make_args", [
    ("all_reduce", lambda t: (t.ones(2),)), ("broadcast", lambda t: (t.ones(2), 0)), ("barrier", lambda t: ()),
    ("get_rank", lambda t: ()), ("get_world_size", lambda t: ()), ("get_backend", lambda t: ()),
    ("new_group", lambda t: ()), ("all_gather_object", lambda t: ([None], 1)), ("destroy_process_group", lambda t: ()),
])
def test_before_init_process_group(name, make_args):
    assert not dist.is_initialized() and not real_dist.is_initialized()
    _both_raise(name, make_args)


@pytest.mark.parametrize("missing", ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"])
def test_env_rendezvous_needs_its_variables(world1, monkeypatch, missing):
    monkeypatch.delenv(missing)
    _both_raise("init_process_group", lambda t: ("gloo",))


@pytest.mark.filterwarnings("ignore:Device capability of foo unknown")
def test_init_twice_and_backends(world1):
    url = f"tcp://127.0.0.1:{_free_port()}"
    for d in (real_dist, dist):
        d.init_process_group("gloo", init_method=url, rank=0, world_size=1, timeout=datetime.timedelta(seconds=20))
    _both_raise("init_process_group", lambda t: ("gloo",))
    assert (dist.get_backend(), dist.get_rank(), dist.get_world_size()) == ("gloo", 0, 1)
    assert dist.is_available() and dist.is_gloo_available() and dist.group.WORLD is dist.GroupMember.WORLD
    for d in (real_dist, dist):
        d.destroy_process_group()
    assert _error(dist.init_process_group, "foo", rank=0, world_size=1) == _error(
        real_dist.init_process_group, "foo", init_method=url, rank=0, world_size=1)
    for backend in ("gloo", None):
        for d in (real_dist, dist):
            d.init_process_group(backend, init_method="env://")
        assert dist.get_backend() == real_dist.get_backend()
        for d in (real_dist, dist):
            d.destroy_process_group()
    # accepted everywhere: JAX's collectives stand in for NCCL here (torch's CPU build has none: no oracle)
    for backend in ("nccl", "cpu:gloo,cuda:nccl"):
        dist.init_process_group(backend)
        x = facade.ones(2)
        dist.all_reduce(x)
        assert x.tolist() == [1.0, 1.0] and not dist.is_nccl_available()
        dist.destroy_process_group()


@pytest.mark.parametrize("name, make_args, prefix_free", [
    ("all_reduce", lambda t: ([1, 2],), False),
    ("all_reduce", lambda t: (t.ones(2), t.distributed.ReduceOp.BAND), False),
    ("all_reduce", lambda t: (t.tensor([3, 4]), t.distributed.ReduceOp.AVG), False),
    ("broadcast", lambda t: (t.ones(2), 3), True),
    ("all_gather", lambda t: ([t.ones(2), t.ones(2)], t.ones(2)), True),
    ("scatter", lambda t: (t.ones(2), None, 0), False),
    ("gather", lambda t: (t.ones(2), None, 0), False),
])
def test_bad_arguments(world1, name, make_args, prefix_free):
    real_dist.init_process_group("gloo")
    dist.init_process_group("gloo")
    _both_raise(name, make_args, prefix_free)


def test_in_place_writes_bump_the_version_and_keep_views(world1):
    dist.init_process_group("gloo")
    base = facade.arange(6.0).reshape(2, 3)
    row = base[1]
    v = base._version
    work = dist.all_reduce(row, op=dist.ReduceOp.MAX, async_op=True)
    assert isinstance(work, dist.Work) and work.wait() and work.is_completed()
    assert work.result()[0] is row and base._version > v  # facade's in-place path (torch's c10d skips the bump)
    leaf = facade.ones(2, requires_grad=True)
    dist.all_reduce(leaf)  # torch allows collectives on leaves that require grad
    assert leaf.requires_grad and leaf.grad_fn is None


def test_collective_inside_compile_runs_eagerly(world1):
    dist.init_process_group("gloo")

    def step(x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1

    with pytest.warns(UserWarning, match="graph break.*torch.distributed collectives run eagerly"):
        assert facade.compile(step)(facade.ones(2)).tolist() == [3.0, 3.0]
    with pytest.raises(Exception, match="collectives run eagerly"):
        facade.compile(step, fullgraph=True)(facade.ones(2))


def test_init_after_the_first_tensor_is_refused_clearly():
    facade.ones(1)  # JAX's backends are up in this process: its distributed runtime can no longer start
    with pytest.raises(RuntimeError, match="call init_process_group first"):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=2)
    assert not dist.is_initialized()
