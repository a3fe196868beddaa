"""torch.distributed.checkpoint (save / load, FileSystemWriter / Reader, async_save, the state_dict helpers)
against real torch: the same checkpoint directory format both ways, the same keys and values.

Three child runs start together (module fixture `runs`): one DDP script with 2 processes under real torch
(torchrun, gloo) and under facade's launcher, and facade's FSDP / fully_shard on 4 simulated CPU devices.
Real torch runs in this process in a 1-process gloo world (fixture `gloo`).
"""

import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.distributed as tdist
import torch.distributed.checkpoint as tdcp
from torch.distributed.checkpoint import state_dict as tsd

import facade
import facade.distributed.checkpoint as fdcp
from facade.distributed.checkpoint import state_dict as fsd

from . import _simulated
from .test_ddp import _env, _finish, _free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMON = '''
import json, os, sys
import torch
import torch.nn as nn
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict, StateDictOptions
from torch.distributed.checkpoint.stateful import Stateful


def build(k):
    m = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 16))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i) + k)
    return m


def flat(ts):
    return [v for t in ts for v in t.detach().reshape(-1).tolist()]


def train(model, opt, x, steps=1):
    for _ in range(steps):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()


class App(Stateful):  # the pattern of torch's DCP tutorial
    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def state_dict(self):
        msd, osd = get_state_dict(self.model, self.opt)
        return {"model": msd, "optim": osd}

    def load_state_dict(self, sd):
        set_state_dict(self.model, self.opt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
'''

DDP_SCRIPT = COMMON + '''
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

out = sys.argv[1]
dist.init_process_group("gloo")
rank = dist.get_rank()
x = torch.linspace(-1.0, 1.0, 32).reshape(8, 4)[rank * 4:(rank + 1) * 4]
model = build(0.0)
ddp = DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
train(ddp, opt, x, 2)
ckpt = os.path.join(out, "ckpt")
dcp.save({"app": App(ddp, opt), "epoch": 2}, checkpoint_id=ckpt)
fresh = build(5.0)
fddp = DDP(fresh)
fopt = torch.optim.Adam(fddp.parameters(), lr=0.01)
state = {"app": App(fddp, fopt), "epoch": 0}
dcp.load(state, checkpoint_id=ckpt)
msd, osd = get_state_dict(ddp, opt)
report = {"keys": list(msd), "osd_keys": list(osd["state"]), "osd_params": osd["param_groups"][0]["params"],
          "epoch": state["epoch"], "params": flat(model.parameters()), "loaded": flat(fresh.parameters()),
          "opt_state": flat(v for st in fopt.state.values() for v in st.values())}
train(ddp, opt, x)
train(fddp, fopt, x)
report["after"] = [flat(model.parameters()), flat(fresh.parameters())]
with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
    json.dump(report, f)
dist.destroy_process_group()
'''

FSDP_SCRIPT = COMMON + '''
import jax
from torch.distributed import _spmd
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard

out = sys.argv[1]
x = torch.linspace(-1.0, 1.0, 32).reshape(8, 4)
report = {}
for kind, wrap in (("fsdp", FSDP), ("fully_shard", fully_shard)):
    model = wrap(build(0.0))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    train(model, opt, x)
    msd, osd = get_state_dict(model, opt)
    full, _ = get_state_dict(model, opt, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    ckpt = os.path.join(out, kind)
    dcp.save({"model": msd, "optim": osd}, checkpoint_id=ckpt)

    fresh = wrap(build(5.0))
    fopt = torch.optim.Adam(fresh.parameters(), lr=0.01)
    m2, o2 = get_state_dict(fresh, fopt)
    dcp.load({"model": m2, "optim": o2}, checkpoint_id=ckpt)
    set_state_dict(fresh, fopt, model_state_dict=m2, optim_state_dict=o2)
    plain = build(9.0)
    psd = plain.state_dict()
    dcp.load({"model": psd}, checkpoint_id=ckpt)

    layout = lambda ps: [str(_spmd.sharding_of(p).spec) for p in ps]
    state = lambda o: [v for st in o.state.values() for v in st.values()]
    report[kind] = {
        "keys": list(msd), "osd_keys": list(osd["state"]), "sharded": [_spmd.is_sharded(v) for v in msd.values()],
        "full_sharded": [_spmd.is_sharded(v) for v in full.values()], "full_equal": all(
            bool(torch.equal(full[k], msd[k])) for k in msd),
        "params": flat(model.parameters()), "loaded": flat(fresh.parameters()), "plain": flat(plain.parameters()),
        "layout": layout(model.parameters()), "loaded_layout": layout(fresh.parameters()),
        "opt_state": flat(state(opt)), "loaded_opt_state": flat(state(fopt)),
        "opt_layout": layout(state(opt)), "loaded_opt_layout": layout(state(fopt))}
    train(model, opt, x)
    train(fresh, fopt, x)
    report[kind]["after"] = [flat(model.parameters()), flat(fresh.parameters())]
print("REPORT " + json.dumps(report), flush=True)
'''


def _launch(module, script, out, cwd):
    args = [sys.executable, "-m", module, "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port",
            str(_free_port()), str(script), str(out)]
    return subprocess.Popen(args, env=_env(), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The DDP script under torch and facade (2 processes each) and the FSDP script (4 simulated devices)."""
    base = tmp_path_factory.mktemp("dcp")
    (base / "ddp.py").write_text(DDP_SCRIPT)
    (base / "fsdp.py").write_text(FSDP_SCRIPT)
    dirs = {k: base / k for k in ("torch", "facade", "fsdp")}
    for d in dirs.values():
        d.mkdir()
    procs = [_launch("torch.distributed.run", base / "ddp.py", dirs["torch"], base),
             _launch("facade.distributed.run", base / "ddp.py", dirs["facade"], base)]
    try:
        rc, out, err = _simulated.run([sys.executable, "-m", "facade", str(base / "fsdp.py"), str(dirs["fsdp"])],
                                      env=_env(XLA_FLAGS="--xla_force_host_platform_device_count=4"), cwd=base,
                                      timeout=150)
    finally:
        _finish(procs, timeout=150)  # the DDP runs: waited for, killed if still running, each must succeed
    assert rc == 0, (out + err)[-4000:]
    fsdp = json.loads(next(line for line in out.splitlines() if line.startswith("REPORT "))[7:])
    ddp = {k: [json.load(open(dirs[k] / f"rank{r}.json")) for r in range(2)] for k in ("torch", "facade")}
    return {"dirs": dirs, "ddp": ddp, "fsdp": fsdp}


@pytest.fixture(scope="module")
def gloo():
    """Real torch in a 1-process gloo world on loopback."""
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    try:
        yield
    finally:
        tdist.destroy_process_group()


def _metadata(path):
    with open(os.path.join(path, ".metadata"), "rb") as f:
        return pickle.load(f)  # real torch's classes: what torch's reader sees


def _close(a, b, what=""):
    np.testing.assert_allclose(np.array(a, dtype=float), np.array(b, dtype=float), rtol=2e-5, atol=2e-6,
                               err_msg=what)


def _model(lib, k):
    m = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 4))  # (a bias before BatchNorm has no gradient)
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.3 + 0.2 * i) + k + 0.1)
    return m


def _loss(lib, m, x):  # every gradient well away from 0: Adam's first steps turn rounding noise into updates
    return (m(x) * lib.linspace(-1.0, 2.0, 20).reshape(5, 4).cos()).sum()


def _trained(lib, k=0.0, path=None):
    """A model and its Adam after one step, trained by torch; facade's copy loads torch's torch.save file, so
    both libraries start from the same bits."""
    m, x = _model(torch, k), torch.arange(15.0).reshape(5, 3).mul(0.7).sin() * 2
    opt = torch.optim.Adam(m.parameters(), lr=0.01)
    _loss(torch, m, x).backward()
    opt.step()
    opt.zero_grad()
    if lib is torch:
        return m, opt, x
    torch.save({"model": m.state_dict(), "optim": opt.state_dict()}, path)
    state = facade.load(path)
    fm = _model(facade, 0.0)
    fm.load_state_dict(state["model"])
    fopt = facade.optim.Adam(fm.parameters(), lr=0.01)
    fopt.load_state_dict(state["optim"])
    return fm, fopt, facade.tensor(x.numpy())


def _values(sd):
    """Every leaf of a (nested) state dict by flattened key (torch's rule; the lists here hold no tensors),
    tensors as float arrays."""
    flat, _ = fdcp._nested.flatten_state_dict(dict(enumerate(sd)) if isinstance(sd, tuple) else sd)
    return {k: (np.asarray(v.detach().cpu().double().tolist()) if hasattr(v, "detach") else v) for k, v in flat.items()}


def _assert_same_values(a, b):
    va, vb = _values(a), _values(b)
    assert list(va) == list(vb)
    for k in va:
        if isinstance(va[k], np.ndarray):
            _close(va[k], vb[k], k)
        else:
            assert va[k] == vb[k], k


def test_plain_model_and_optimizer_checkpoints_move_both_ways(gloo, tmp_path):
    """The same model and Adam state saved by torch and by facade: the same .metadata (keys, tensor metadata,
    planner paths, item kinds); each library loads the other's directory in place and trains on identically."""
    dirs = {"torch": tmp_path / "t", "facade": tmp_path / "f"}
    sds = {}
    for name, lib, dcp, sd in (("torch", torch, tdcp, tsd), ("facade", facade, fdcp, fsd)):
        m, opt, _ = _trained(lib, path=tmp_path / "start.pt")
        msd, osd = sd.get_state_dict(m, opt)
        sds[name] = {"model": msd, "optim": osd, "meta": {"epoch": 3, "tag": "run", "lrs": [0.1, 0.01]}}
        with warnings.catch_warnings(record=True):
            md = dcp.save(sds[name], checkpoint_id=str(dirs[name]))
        assert type(md).__name__ == "Metadata"
    _assert_same_values(sds["facade"], sds["torch"])
    got, want = _metadata(dirs["facade"]), _metadata(dirs["torch"])
    assert type(got) is type(want)
    assert got.state_dict_metadata == want.state_dict_metadata
    assert got.planner_data == want.planner_data and got.version == want.version
    assert sorted(map(repr, got.storage_data)) == sorted(map(repr, want.storage_data))
    assert sorted(os.listdir(dirs["facade"])) == sorted(os.listdir(dirs["torch"])) == [".metadata", "__0_0.distcp"]

    for name, lib, dcp, sd, other in (("torch", torch, tdcp, tsd, "facade"), ("facade", facade, fdcp, fsd, "torch")):
        m, opt, x = _trained(lib, k=3.0, path=tmp_path / "other.pt")  # other values: the load overwrites them
        msd, osd = sd.get_state_dict(m, opt)
        target = {"model": msd, "optim": osd, "meta": {"epoch": 0, "tag": "", "lrs": []}}
        weight = msd["1.weight"]
        with warnings.catch_warnings(record=True):
            dcp.load(target, checkpoint_id=str(dirs[other]))
        assert target["model"]["1.weight"] is weight  # in place, as torch
        _assert_same_values(target, sds["torch"])
        sd.set_state_dict(m, opt, model_state_dict=target["model"], optim_state_dict=target["optim"])
        _loss(lib, m, x).backward()
        opt.step()
        sds[f"{name}_after"] = [p.detach().tolist() for p in m.parameters()]
    for a, b in zip(sds["facade_after"], sds["torch_after"]):
        _close(a, b)


def test_state_dict_helpers_match_torch(gloo, tmp_path):
    """get/set_state_dict of a plain and a compiled model: keys, values, param_groups, options, as torch."""
    res = {}
    for lib, sd in ((torch, tsd), (facade, fsd)):
        m, opt, _ = _trained(lib, path=tmp_path / "start.pt")
        unstepped = _model(lib, 0.0)
        fresh = lib.optim.SGD(unstepped.parameters(), lr=0.5, momentum=0.9)  # no state yet: torch makes it
        frozen = _model(lib, 1.0)
        frozen[1].bias.requires_grad_(False)
        opts = sd.StateDictOptions
        out = {
            "plain": sd.get_state_dict(m, opt),
            "full_cpu": sd.get_model_state_dict(m, options=opts(full_state_dict=True, cpu_offload=True)),
            "fresh_sgd": sd.get_optimizer_state_dict(unstepped, fresh),
            "frozen": list(sd.get_model_state_dict(frozen, options=opts(ignore_frozen_params=True))),
        }
        target = _model(lib, 2.0)
        out["set"] = tuple(sd.set_model_state_dict(target, out["plain"][0]))
        with pytest.raises(RuntimeError) as e:
            sd.set_model_state_dict(target, {"0.weight": out["plain"][0]["0.weight"]})
        out["strict_error"] = str(e.value).splitlines()[0]
        out["not_strict"] = tuple(sd.set_model_state_dict(target, {"0.weight": out["plain"][0]["0.weight"]},
                                                          options=opts(strict=False)))
        res[lib.__name__] = out
    got, want = res["facade"], res["torch"]
    for k in ("plain", "full_cpu", "fresh_sgd"):
        _assert_same_values(got[k], want[k])
    for k in ("frozen", "set", "strict_error", "not_strict"):
        assert got[k] == want[k], k
    # torch.compile's `_orig_mod.` is dropped: the keys of the plain model (real torch's compile is left out: its
    # import alone takes seconds)
    assert list(fsd.get_model_state_dict(facade.compile(_model(facade, 0.0)))) == list(want["plain"][0])


def test_async_save_and_file_system_storage(gloo, tmp_path):
    """async_save returns a Future of the Metadata; FileSystemWriter/Reader and the deprecated names write and
    read the same directory; torch reads what facade wrote."""
    m, opt, _ = _trained(facade, path=tmp_path / "start.pt")
    with warnings.catch_warnings(record=True):
        fut = fdcp.async_save({"model": m.state_dict()}, checkpoint_id=str(tmp_path / "a"))
        md = fut.result(timeout=60)
        fdcp.save_state_dict({"model": m.state_dict()}, fdcp.FileSystemWriter(str(tmp_path / "b")))
    assert sorted(md.state_dict_metadata) == sorted(f"model.{k}" for k in m.state_dict())
    for sub in ("a", "b"):
        t = _model(torch, 7.0).state_dict()
        with warnings.catch_warnings(record=True):
            tdcp.load({"model": t}, storage_reader=tdcp.FileSystemReader(str(tmp_path / sub)))
        _assert_same_values({"model": t}, {"model": {k: torch.tensor(np.asarray(v.tolist()), dtype=t[k].dtype)
                                                     for k, v in m.state_dict().items()}})
    f = _model(facade, 7.0).state_dict()
    with warnings.catch_warnings(record=True):
        fdcp.load_state_dict({"model": f}, fdcp.FileSystemReader(str(tmp_path / "b")))
    assert all(bool((f[k] == v).all()) for k, v in m.state_dict().items())


def _failure(lib, dcp, fn):
    with warnings.catch_warnings(record=True), pytest.raises(BaseException) as e:
        fn(lib, dcp)
    assert type(e.value).__name__ == "CheckpointException"
    (rank, (exc, _)), = e.value.failures.items()
    return rank, type(exc).__name__, str(exc)


ERRORS = {
    "missing_directory": lambda lib, dcp, d: dcp.load({"a": lib.zeros(3)}, checkpoint_id=str(d / "nowhere")),
    "missing_key": lambda lib, dcp, d: dcp.load({"a": lib.zeros(3), "zz": lib.zeros(2)}, checkpoint_id=str(d / "c")),
    "size_mismatch": lambda lib, dcp, d: dcp.load({"a": lib.zeros(4)}, checkpoint_id=str(d / "c")),
    "not_overwriting": lambda lib, dcp, d: dcp.save({"a": lib.zeros(3)}, storage_writer=dcp.FileSystemWriter(
        str(d / "c"), overwrite=False)),
    "a_file_as_directory": lambda lib, dcp, d: dcp.save({"a": lib.zeros(3)}, checkpoint_id=str(d / "c" /
                                                                                               ".metadata")),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_checkpoints_raise_torchs_errors(gloo, tmp_path, case):
    for lib, dcp in ((torch, tdcp), (facade, fdcp)):
        with warnings.catch_warnings(record=True):
            dcp.save({"a": lib.arange(3.0), "b": 2}, checkpoint_id=str(tmp_path / "c"))
    got, want = (_failure(lib, dcp, lambda lib, dcp: ERRORS[case](lib, dcp, tmp_path))
                 for lib, dcp in ((facade, fdcp), (torch, tdcp)))
    assert got == want
    partial = {"a": facade.zeros(3), "zz": facade.zeros(2)}
    with warnings.catch_warnings(record=True):
        fdcp.load(partial, checkpoint_id=str(tmp_path / "c"), planner=fdcp.DefaultLoadPlanner(allow_partial_load=True))
    assert partial["a"].tolist() == [0.0, 1.0, 2.0] and partial["zz"].tolist() == [0.0, 0.0]
    for dcp in (tdcp, fdcp):
        with pytest.raises(RuntimeError, match="`checkpoint_id` must be specified"):
            dcp.load({})


def test_ddp_script_saves_from_every_rank_like_torch(runs, gloo):
    """2 processes: the same keys (no `module.`), values and reloaded training as torch; the same files, each
    item written by the same rank as torch's dedup picks; each library loads the other's checkpoint."""
    got, want = runs["ddp"]["facade"], runs["ddp"]["torch"]
    for g, w in zip(got, want):
        for k in ("keys", "osd_keys", "osd_params", "epoch"):
            assert g[k] == w[k], k
        for k in ("params", "loaded", "opt_state", "after"):
            _close(g[k], w[k], k)
        assert g["loaded"] == g["params"] and g["after"][0] == g["after"][1]
    f, t = (_metadata(runs["dirs"][k] / "ckpt") for k in ("facade", "torch"))
    assert f.state_dict_metadata == t.state_dict_metadata and f.planner_data == t.planner_data
    assert {repr(k): v.relative_path for k, v in f.storage_data.items()} == {
        repr(k): v.relative_path for k, v in t.storage_data.items()}
    assert sorted(os.listdir(runs["dirs"]["facade"] / "ckpt")) == sorted(os.listdir(runs["dirs"]["torch"] / "ckpt"))
    for lib, dcp, sd, other in ((torch, tdcp, tsd, "facade"), (facade, fdcp, fsd, "torch")):
        m = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 16))
        opt = lib.optim.Adam(m.parameters(), lr=0.01)
        msd, osd = sd.get_state_dict(m, opt)
        state = {"app": {"model": msd, "optim": osd}, "epoch": 0}
        with warnings.catch_warnings(record=True):
            dcp.load(state, checkpoint_id=str(runs["dirs"][other] / "ckpt"))
        sd.set_state_dict(m, opt, model_state_dict=msd, optim_state_dict=osd)
        _close([v for p in m.parameters() for v in p.detach().reshape(-1).tolist()], want[0]["params"])
        assert state["epoch"] == 2


def test_fsdp_sharded_checkpoints(runs, gloo):
    """facade's FSDP and fully_shard on 4 devices: sharded state dicts under the plain model's keys (torch's FSDP
    keys), saved shard by shard and loaded back into the target's layout; torch loads the sharded directory."""
    from torch.distributed.fsdp import FullyShardedDataParallel as TFSDP

    keys = {}
    for kind, wrap in (("fsdp", lambda m: TFSDP(m, use_orig_params=True, device_id=torch.device("cpu"))),
                       ("fully_shard", lambda m: m)):  # torch's fully_shard names as a plain model does
        m = wrap(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 16)))
        opt = torch.optim.Adam(m.parameters(), lr=0.01)
        m(torch.ones(2, 4)).sum().backward()
        opt.step()
        msd, osd = tsd.get_state_dict(m, opt)
        keys[kind] = list(msd), list(osd["state"])
    for kind, r in runs["fsdp"].items():
        assert (r["keys"], r["osd_keys"]) == keys[kind], kind
        assert all(r["sharded"]) and not any(r["full_sharded"]) and r["full_equal"], kind
        assert r["loaded"] == r["params"] == r["plain"] and r["loaded_layout"] == r["layout"], kind
        assert r["loaded_opt_state"] == r["opt_state"] and r["loaded_opt_layout"] == r["opt_layout"], kind
        assert r["after"][0] == r["after"][1], kind
        md = _metadata(runs["dirs"]["fsdp"] / kind)
        assert [len(c.chunks) for c in md.state_dict_metadata.values() if hasattr(c, "chunks")][:4] == [4, 4, 4, 4]
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 16))
        topt = torch.optim.Adam(model.parameters(), lr=0.01)
        msd, osd = tsd.get_state_dict(model, topt)
        with warnings.catch_warnings(record=True):
            tdcp.load({"model": msd, "optim": osd}, checkpoint_id=str(runs["dirs"]["fsdp"] / kind))
        _close([v for p in msd.values() for v in p.reshape(-1).tolist()], r["params"], kind)
        _close([v for st in osd["state"].values() for v in st.values() for v in v.reshape(-1).tolist()],
               r["opt_state"], kind)
