"""DistributedDataParallel, nn.DataParallel and DistributedSampler against real torch.

The multi-process test runs one ordinary PyTorch DDP script three times: with 2 processes under real
torch (torchrun, gloo) and under facade's launcher, and as one process with the full batch under
facade. Every rank writes what it saw to a JSON file; the runs must agree.
"""

import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import facade

from . import _simulated

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The model both scripts train, and how they start it and read it back
_MODEL = '''

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
        self.register_buffer("scale", torch.ones(3))

    def forward(self, x):
        return self.net(x) * self.scale


def start_values(model, k):
    # the same start under either library; rank-dependent, so DDP's broadcast from rank 0 is what aligns them
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-2.0, 2.0, p.numel()).reshape(p.shape).cos() * (0.3 + 0.1 * i) * (1 + k))
        for b in model.buffers():
            b.fill_(1.0 + k)


def flat(tensors):
    return [v for t in tensors for v in t.detach().reshape(-1).tolist()]
'''

DDP_SCRIPT = '''
"""An ordinary PyTorch DDP training script (runs under torchrun and under facade's launcher)."""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

out_dir = sys.argv[1]
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
report = {"rank": rank, "world": world, "initialized": dist.is_initialized()}

''' + _MODEL + '''

model = MLP()
start_values(model, rank)
ddp = DDP(model)
report["module_is_model"] = ddp.module is model
report["repr"] = repr(ddp)
report["keys"] = list(ddp.state_dict())
report["start"] = flat(model.parameters()) + flat(model.buffers())

n, global_batch = 32, 8
x = torch.sin(torch.arange(n * 4, dtype=torch.float32).reshape(n, 4) * 0.37)
y = torch.arange(n) % 3
ds = TensorDataset(x, y)
sampler = DistributedSampler(ds, shuffle=False)
report["sampler"] = [len(sampler), list(sampler)]
loader = DataLoader(ds, batch_size=global_batch // world, sampler=sampler)
loss_fn = nn.CrossEntropyLoss()


def metric(loss):
    t = loss.detach().clone()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return (t / world).item()


losses = []
opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
sampler.set_epoch(0)
for step, (xb, yb) in enumerate(loader):
    if step == 2 and rank == 1:
        model.scale.mul_(3.0)  # a rank-local buffer change: the next forward's broadcast from rank 0 undoes it
    opt.zero_grad()
    loss = loss_fn(ddp(xb), yb)
    loss.backward()
    opt.step()
    losses.append(metric(loss))
report["sgd_losses"] = losses
report["grads_after_sync"] = flat(p.grad for p in model.parameters())

# gradient accumulation: two micro-batches per step, the first one under no_sync
opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
sampler.set_epoch(1)
batches, losses = list(loader), []
for step in range(0, len(batches), 2):
    opt.zero_grad()
    with ddp.no_sync():
        (xb, yb) = batches[step]
        loss_a = loss_fn(ddp(xb), yb) / 2
        loss_a.backward()
    if step == 0:
        report["local_grads_in_no_sync"] = flat(p.grad for p in model.parameters())
    (xb, yb) = batches[step + 1]
    loss_b = loss_fn(ddp(xb), yb) / 2
    loss_b.backward()
    opt.step()
    losses.append(metric(loss_a + loss_b))
report["adam_losses"] = losses
report["params"] = flat(model.parameters()) + flat(model.buffers())

ckpt = os.path.join(out_dir, f"ckpt_{world}.pt")
if rank == 0:
    torch.save({"model": ddp.state_dict(), "optimizer": opt.state_dict()}, ckpt)
dist.barrier()
state = torch.load(ckpt, map_location="cpu")
fresh = DDP(MLP())
fresh.load_state_dict(state["model"])
report["loaded"] = flat(fresh.module.parameters()) == flat(model.parameters())


class Branchy(nn.Module):  # rank 0 never uses `b`; no rank uses `c`
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2)

    def forward(self, x):
        return self.a(x) + self.b(x) if rank > 0 else self.a(x)


br = Branchy()
start_values(br, 0)
unused = DDP(br, find_unused_parameters=True)
unused(torch.ones(3, 2)).pow(2).sum().backward()
report["unused_grads"] = [None if p.grad is None else flat([p.grad]) for p in br.parameters()]

strict = DDP(Branchy())
strict(torch.ones(3, 2)).sum().backward()
try:
    strict(torch.ones(3, 2))
    report["unfinished_error"] = None
except RuntimeError as e:
    report["unfinished_error"] = str(e)

with open(os.path.join(out_dir, f"rank{rank}_of{world}.json"), "w") as f:
    json.dump(report, f)
dist.destroy_process_group()
'''

EXACT = ("rank", "world", "initialized", "module_is_model", "repr", "keys", "sampler", "loaded", "unfinished_error")
CLOSE = ("start", "sgd_losses", "grads_after_sync", "local_grads_in_no_sync", "adam_losses", "params")
SAME_AS_FULL_BATCH = ("start", "sgd_losses", "adam_losses", "params", "grads_after_sync")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                            "MASTER_PORT", "XLA_FLAGS", "PYTEST_CURRENT_TEST")}
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""), **extra)
    return env


def _start(cmd, env, cwd):
    return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _finish(procs, timeout):
    """Wait for every process; whatever is still running at the timeout (or on an error) is killed."""
    try:
        outs = [p.communicate(timeout=timeout)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
                p.communicate()
    for p, out in zip(procs, outs):
        assert p.returncode == 0, out[-4000:]


def _reports(folder, world):
    return [json.load(open(os.path.join(folder, f"rank{r}_of{world}.json"))) for r in range(world)]


def _close(a, b, what):
    np.testing.assert_allclose(np.array(a, dtype=float), np.array(b, dtype=float), rtol=2e-5, atol=2e-6,
                               err_msg=what)


@pytest.fixture(scope="module")
def ddp_runs(tmp_path_factory):
    """The script: 2 processes under torch, 2 under facade, 1 (full batch) under facade, run side by side."""
    base = tmp_path_factory.mktemp("ddp")
    script = base / "train.py"
    script.write_text(DDP_SCRIPT)
    dirs = {k: base / k for k in ("torch2", "facade2", "facade1")}
    for d in dirs.values():
        d.mkdir()
    launch = ["--nproc-per-node", "2", "--master-addr", "127.0.0.1"]
    procs = [
        _start([sys.executable, "-m", "torch.distributed.run", *launch, "--master-port", str(_free_port()),
                str(script), str(dirs["torch2"])], _env(), base),
        _start([sys.executable, "-m", "facade.distributed.run", *launch, "--master-port", str(_free_port()),
                str(script), str(dirs["facade2"])], _env(), base),
        _start([sys.executable, "-m", "facade", str(script), str(dirs["facade1"])],
               _env(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port())),
               base),
    ]
    _finish(procs, timeout=150)
    return {"torch2": _reports(dirs["torch2"], 2), "facade2": _reports(dirs["facade2"], 2),
            "facade1": _reports(dirs["facade1"], 1)}


def test_ddp_script_matches_torch_rank_by_rank(ddp_runs):
    for ref, got in zip(ddp_runs["torch2"], ddp_runs["facade2"]):
        for k in EXACT:
            assert got[k] == ref[k], k
        for k in CLOSE:
            _close(got[k], ref[k], k)
        assert [g is None for g in got["unused_grads"]] == [g is None for g in ref["unused_grads"]]
        _close([v for g in got["unused_grads"] if g for v in g], [v for g in ref["unused_grads"] if g for v in g],
               "unused_grads")


def test_ddp_script_on_four_processes_matches_torch_and_the_full_batch_run(ddp_runs, tmp_path):
    """The same script on 4 loopback processes under torchrun and under facade's launcher."""
    script = tmp_path / "train.py"
    script.write_text(DDP_SCRIPT)
    launch = ["--nproc-per-node", "4", "--master-addr", "127.0.0.1"]
    runs = {}
    for lib, launcher in (("torch", "torch.distributed.run"), ("facade", "facade.distributed.run")):
        (tmp_path / lib).mkdir()
        runs[lib] = _start([sys.executable, "-m", launcher, *launch, "--master-port", str(_free_port()), str(script),
                            str(tmp_path / lib)], _env(), tmp_path)
    _finish(list(runs.values()), timeout=240)
    want, got = _reports(tmp_path / "torch", 4), _reports(tmp_path / "facade", 4)
    for ref, rec in zip(want, got):
        for k in EXACT:
            assert rec[k] == ref[k], k
        for k in CLOSE:
            _close(rec[k], ref[k], k)
    (single,) = ddp_runs["facade1"]
    for k in SAME_AS_FULL_BATCH:
        _close(got[0][k], single[k], k)


def test_ddp_ranks_agree_and_match_the_full_batch_run(ddp_runs):
    r0, r1 = ddp_runs["facade2"]
    for k in ("start", "sgd_losses", "adam_losses", "params", "grads_after_sync", "unused_grads"):
        assert r0[k] == r1[k], k  # broadcast at construction and averaged gradients: bit-identical replicas
    assert r0["local_grads_in_no_sync"] != r1["local_grads_in_no_sync"]  # no_sync: each rank's own gradient
    (single,) = ddp_runs["facade1"]
    for k in SAME_AS_FULL_BATCH:
        _close(r0[k], single[k], k)
    assert sorted(r0["sampler"][1] + r1["sampler"][1]) == single["sampler"][1] == list(range(32))


COMPILED_DDP_SCRIPT = '''
import json, os, sys
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
''' + _MODEL + '''

def run(compiled):
    model = MLP()
    start_values(model, rank)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
        opt.step()
        sched.step()
        return loss

    fn = torch.compile(step) if compiled else step
    losses, synced = [], None
    for i in range(6):
        x = torch.sin(torch.arange(8 * 4, dtype=torch.float32).reshape(8, 4) * (0.37 + 0.1 * i + rank))
        y = (torch.arange(8) + i + rank) % 3
        if i == 3 and rank == 1:
            model.scale.mul_(3.0)  # undone by the next forward's buffer broadcast from rank 0
        if i == 5:  # the last step on each rank's own gradients: a new guard, a program without the all_reduce
            synced = flat(model.parameters())
            with ddp.no_sync():
                losses.append(fn(x, y).item())
        else:
            losses.append(fn(x, y).item())
    return losses, flat(model.parameters()), synced


eager = run(False)
compiled = run(True)
from torch._dynamo.utils import counters
report = {"eager": eager, "compiled": compiled, "breaks": dict(counters["graph_break"]),
          "graphs": counters["stats"]["unique_graphs"]}


def bn_run(compiled):  # torch.compile(ddp) of a model with buffers: the compiled module inside DDP's eager forward
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    ddp = DDP(model)
    net = torch.compile(ddp) if compiled else ddp
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for i in range(4):
        x = torch.sin(torch.arange(32, dtype=torch.float32).reshape(8, 4) * (0.3 + i + rank))
        y = (torch.arange(8) + i + rank) % 3
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, flat(model.state_dict().values()), list(net.state_dict())


report["bn_eager"], report["bn_compiled"] = bn_run(False), bn_run(True)
report["bn_breaks"] = dict(counters["graph_break"])
model = MLP()
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)


@torch.compile
def step(x):
    opt.zero_grad()
    ddp(x).sum().backward()
    opt.step()


step(torch.ones(2, 4))  # the eager warm-up call
try:  # ranks with other shapes: an error on each rank before the program runs, not a hang inside it
    step(torch.ones(4 + rank, 4))
    report["mismatch"] = None
except RuntimeError as e:
    report["mismatch"] = str(e)
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as f:
    json.dump(report, f)
dist.destroy_process_group()
'''


def test_compiled_ddp_step_is_one_program_and_trains_like_eager_ddp(tmp_path):
    """facade's torch.compile of a whole DDP step (clipping, momentum, a scheduler, a rank-local buffer change that
    the forward's broadcast undoes) on 2 processes: one program per rank with the all_reduce inside it (no graph
    break), eager DDP's numbers (itself checked against torch above); other shapes on each rank raise. Not always
    its bits: XLA compiles the whole step as one program, whose fused reductions may round otherwise than the eager
    ops' (1 ulp in some of the values on an AVX2-only AMD EPYC; bit-equal on the machines before), as inductor's
    may on torch."""
    script = tmp_path / "train.py"
    script.write_text(COMPILED_DDP_SCRIPT)
    launch = ["--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(_free_port())]
    _finish([_start([sys.executable, "-m", "facade.distributed.run", *launch, str(script), str(tmp_path)], _env(),
                    tmp_path)], timeout=150)
    r0, r1 = (json.load(open(tmp_path / f"rank{r}.json")) for r in range(2))
    for r in (r0, r1):
        assert r["breaks"] == {} and r["graphs"] == 2  # the synced step and the one under no_sync()
        for got, want in zip(r["compiled"], r["eager"]):  # losses, parameters, parameters before no_sync()
            _close(got, want, "compiled vs eager DDP")
        assert "torch.compile: ranks disagree: rank" in r["mismatch"]
    for r in (r0, r1):  # torch.compile(ddp): no graph break (its broadcast stays eager), eager's numbers
        assert r["bn_breaks"] == {}
        for got, want in zip(r["bn_compiled"][:2], r["bn_eager"][:2]):
            _close(got, want, "torch.compile(ddp) vs eager")
        assert r["bn_compiled"][2] == ["_orig_mod." + k for k in r["bn_eager"][2]]
    assert r0["compiled"][2] == r1["compiled"][2]  # averaged gradients: identical replicas
    assert r0["compiled"][1] != r1["compiled"][1]  # until a step under no_sync()
    assert r0["compiled"][0] != r1["compiled"][0]  # each rank's loss on its own batch


def test_ddp_before_init_process_group_raises_torchs_error():
    errors = []
    for lib in (torch, facade):
        with pytest.raises(Exception) as e:
            lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2))
        errors.append((type(e.value).__name__, str(e.value)))
    assert errors[0] == errors[1]


def test_distributed_sampler_without_a_process_group_raises_torchs_error():
    errors = []
    for lib in (torch, facade):
        for kwargs in ({}, {"num_replicas": 2}):
            with pytest.raises(Exception) as e:
                lib.utils.data.DistributedSampler(range(5), **kwargs)
            errors.append((lib.__name__, type(e.value).__name__, str(e.value)))
    assert [e[1:] for e in errors[:2]] == [e[1:] for e in errors[2:]], errors


def test_data_parallel_on_one_device_runs_the_module_like_torch_without_cuda():
    ref = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    got = facade.nn.Sequential(facade.nn.Linear(3, 4), facade.nn.ReLU(), facade.nn.Linear(4, 2))
    got.load_state_dict({k: facade.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    dp_ref, dp_got = torch.nn.DataParallel(ref), facade.nn.DataParallel(got)
    assert dp_got.module is got and dp_got.device_ids == dp_ref.device_ids == []
    assert list(dp_got.state_dict()) == list(dp_ref.state_dict())
    assert repr(dp_got) == repr(dp_ref)
    x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_allclose(dp_got(facade.tensor(x)).detach().numpy(), dp_ref(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["data_parallel", "replicate", "scatter", "gather", "parallel_apply"])
def test_parallel_helpers_raise_naming_the_torch_api(name):
    with pytest.raises(NotImplementedError, match=f"^torch\\.nn\\.parallel\\.{name} is not supported by facade"):
        getattr(facade.nn.parallel, name)(None)


DP_SCRIPT = textwrap.dedent('''
    import copy, json
    import facade as torch
    from facade import nn

    seen = []
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 2))
    plain = copy.deepcopy(model)
    model[0].register_forward_pre_hook(lambda m, args: seen.append(len(args[0]._data.sharding.device_set)))
    dp = nn.DataParallel(model)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (dp, plain)]
    losses = [[], []]
    for step in range(5):
        x, y = torch.randn(8, 3), torch.randn(8, 2)
        for k, (m, opt) in enumerate(zip((dp, plain), opts)):
            opt.zero_grad()
            out = m(x)
            loss = nn.functional.mse_loss(out, y)
            loss.backward()
            opt.step()
            losses[k].append(loss.item())
    flat = [[v for t in m.state_dict().values() for v in t.reshape(-1).tolist()] for m in (model, plain)]
    odd = [tuple(dp(torch.randn(b, 3)).shape) for b in (6, 5)]
    print(json.dumps({"device_ids": dp.device_ids, "keys": list(dp.state_dict()), "seen": seen,
                      "losses": losses, "state": flat, "odd": odd, "out_device": str(out.device)}))
''')


def test_data_parallel_over_four_devices_trains_like_plain_training():
    rc, out, err = _simulated.run([sys.executable, "-c", DP_SCRIPT], timeout=120, cwd=ROOT,
                                  env=_env(XLA_FLAGS="--xla_force_host_platform_device_count=4"))
    assert rc == 0, err[-4000:]
    got = json.loads(out.splitlines()[-1])
    assert got["device_ids"] == [0, 1, 2, 3] and got["out_device"] == "cpu"
    ref = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.BatchNorm1d(8), torch.nn.Tanh(),
                                                    torch.nn.Linear(8, 2)))
    assert got["keys"] == list(ref.state_dict())
    # forward of model[0]: 5 training steps over 4 devices, then a batch of 6 (3 devices) and of 5 (one)
    assert got["seen"] == [4] * 5 + [3, 1]
    assert got["odd"] == [[6, 2], [5, 2]]
    _close(got["losses"][0], got["losses"][1], "losses")
    _close(got["state"][0], got["state"][1], "parameters and BatchNorm statistics")
