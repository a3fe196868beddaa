"""Single-process SPMD (facade.distributed._spmd, device_mesh, fsdp) on 8 CPU-simulated devices.

Every check runs in ONE child process started with XLA_FLAGS=--xla_force_host_platform_device_count=8 (this
file run as a script with --child); each test below reports one check's outcome. Oracles: single-device facade
training for the values (the same seed, data and steps), real torch (FSDP / fully_shard / DeviceMesh in a
one-process gloo world) for names, dtypes and error messages.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
N = 8
STEPS = 10
CHECKS = ["dp_mlp_eager", "dp_mlp_compiled", "fsdp_mlp_eager", "fsdp_mlp_compiled", "dp_gpt_eager",
          "dp_gpt_compiled", "fsdp_gpt_eager", "fsdp_gpt_compiled", "batch_layout", "state_dict", "mixed_precision",
          "device_mesh", "multi_process_refused"]


@pytest.fixture(scope="module")
def results():
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={N}", "JAX_PLATFORMS": "cpu"}
    from . import _simulated  # here: this file also runs as the child script, outside the package

    rc, out, err = _simulated.run([sys.executable, __file__, "--child"], cwd=ROOT, env=env, timeout=300)
    lines = [x for x in out.splitlines() if x.startswith("RESULTS ")]
    assert lines, f"child failed (rc={rc}):\n{out[-3000:]}\n{err[-3000:]}"
    return json.loads(lines[-1][len("RESULTS "):])


@pytest.mark.parametrize("name", CHECKS)
def test_spmd(results, name):
    assert results.get(name) == "ok", results.get(name)


# ---------------------------------------------------------------------------- the child
def _train(torch, make, data, layout, compiled):
    """Losses and final parameters of STEPS training steps; `layout` None (one device), 'dp' or 'fsdp'."""
    from benchmarks.compile_models import train_step
    from facade.distributed import _spmd
    from facade.distributed.fsdp import FullyShardedDataParallel, fully_shard

    torch.manual_seed(0)
    model, make_opt = make()
    if layout == "dp":
        _spmd.data_parallel(model)
    elif layout == "fsdp" and hasattr(model, "blocks"):  # FSDP2: each block, then the root
        for b in model.blocks:
            fully_shard(b)
        fully_shard(model)
    elif layout == "fsdp":
        model = FullyShardedDataParallel(model)
    opt = make_opt(model.parameters())

    step = train_step(torch, model, opt)
    fn = torch.compile(step) if compiled else step
    losses = []
    for x, y in data:
        x, y = torch.tensor(x), torch.tensor(y)
        if layout == "dp":
            x, y = _spmd.shard_batch((x, y))
        losses.append(fn(x, y).item())
    if compiled:
        assert len(fn._entries) == 1, f"the compiled step compiled {len(fn._entries)} programs"
    return losses, model, opt


def _check_training(torch, model_name, layout, compiled):
    import numpy as np
    from jax.sharding import PartitionSpec

    from benchmarks.compile_models import gpt, mlp
    from facade.distributed import _spmd

    rng = np.random.default_rng(0)
    if model_name == "mlp":
        make = lambda: mlp(torch, [16, 32, 4], 32)  # noqa: E731
        data = [(rng.standard_normal((32, 16), np.float32), rng.integers(0, 4, 32)) for _ in range(STEPS)]
    else:  # 2 layers, 2 heads, 16 dims, context 8, vocab 32, dropout 0.1
        make = lambda: gpt(torch, 2, 2, 16, 8, 32, 8, 0.1)  # noqa: E731
        tokens = [rng.integers(0, 32, (8, 9)) for _ in range(STEPS)]
        data = [(t[:, :-1], t[:, 1:]) for t in tokens]
    ref, ref_model, _ = _train(torch, make, data, None, compiled)
    got, model, opt = _train(torch, make, data, layout, compiled)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    ref_params = dict(ref_model.named_parameters())
    params = {n.replace("_fsdp_wrapped_module.", ""): p for n, p in model.named_parameters()}
    assert params.keys() == ref_params.keys()
    sharded = 0
    for name, p in params.items():
        # np.asarray of the array: .numpy() would re-back a CPU tensor by host memory (dropping its layout).
        # atol = Adam's lr: a gradient that is zero up to rounding (the attention's key bias: softmax ignores a
        # shift) gets Adam steps of about lr from noise alone, whose sign depends on the summation order.
        np.testing.assert_allclose(np.asarray(p._data), np.asarray(ref_params[name]._arr()), rtol=1e-4, atol=1e-3,
                                   err_msg=name)
        a = p._data
        assert len(a.sharding.device_set) == N, (name, a.sharding)
        st = opt.state[p]
        if layout == "dp":
            assert a.is_fully_replicated, (name, a.sharding)
        else:
            spec = _spmd.fsdp_spec(p.shape, _spmd.local_mesh())
            assert a.sharding.spec == spec, (name, a.sharding.spec, spec)
            if spec != PartitionSpec():
                sharded += 1
                dim = len(spec) - 1
                shards = a.addressable_shards
                assert len(shards) == N and all(s.data.shape[dim] == p.shape[dim] // N for s in shards), name
                assert p.grad._data.sharding == a.sharding, (name, "grad", p.grad._data.sharding)
        assert st["exp_avg"]._data.sharding == a.sharding, (name, "exp_avg", st["exp_avg"]._data.sharding)
    if layout == "fsdp":
        assert sharded >= len(params) // 2, f"only {sharded} of {len(params)} parameters sharded"


def _check_batch_layout(torch):
    from facade.distributed import _spmd

    x = torch.randn(16, 3, requires_grad=True)
    xs = _spmd.shard_batch(x)
    a = xs._data
    assert _spmd.is_sharded(xs) and len(a.addressable_shards) == N
    assert {s.data.shape for s in a.addressable_shards} == {(2, 3)}
    assert abs((xs * 2).sum().item() - (x * 2).sum().item()) < 1e-4
    (xs * 3).sum().backward()  # the layout is recorded by autograd: the gradient reaches x
    assert torch.equal(x.grad, torch.full((16, 3), 3.0))
    odd = _spmd.shard_batch({"a": [torch.ones(5, 2)], "b": 3})  # 5 rows do not divide by 8: replicated
    assert odd["b"] == 3 and odd["a"][0]._data.is_fully_replicated and len(odd["a"][0]._data.sharding.device_set) == N
    full = _spmd.gather(xs)
    assert len(full._data.devices()) == 1 and torch.equal(full, x.detach())


def _torch_fsdp_names(real):
    """named_parameters / state_dict / optim_state_dict keys of real torch's FSDP and fully_shard, world size 1."""
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel as TFSDP
    from torch.distributed.fsdp import fully_shard as tfully_shard

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        w = TFSDP(_seq(real), use_orig_params=True, device_id=real.device("cpu"))
        w(real.randn(2, 4)).sum().backward()
        opt = real.optim.Adam(w.parameters())
        opt.step()
        osd = TFSDP.optim_state_dict(w, opt)
        m = tfully_shard(_seq(real))
        return ([n for n, _ in w.named_parameters()], list(w.state_dict()), list(osd["state"]),
                osd["param_groups"][0]["params"], list(m.state_dict()), type(m).__name__)
    finally:
        dist.destroy_process_group()


def _seq(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 16))


def _check_state_dict(torch):
    import torch as real

    from facade.distributed import _spmd
    from facade.distributed.fsdp import (
        FullStateDictConfig,
        FullyShardedDataParallel,
        ShardedStateDictConfig,
        StateDictType,
        fully_shard,
    )

    names, keys, okeys, ogroup, fs_keys, fs_cls = _torch_fsdp_names(real)
    torch.manual_seed(0)
    w = FullyShardedDataParallel(_seq(torch), use_orig_params=True)
    assert [n for n, _ in w.named_parameters()] == names
    full = w.state_dict()
    assert list(full) == keys
    for k, v in full.items():
        p = w.module.get_parameter(k)
        assert len(v._data.devices()) == 1 and torch.equal(v, p.detach()), k
    with FullyShardedDataParallel.state_dict_type(w, StateDictType.SHARDED_STATE_DICT, ShardedStateDictConfig()):
        sharded = w.state_dict()
        assert list(sharded) == keys and _spmd.is_sharded(sharded["0.weight"])
    assert FullyShardedDataParallel.get_state_dict_type(w).state_dict_type is StateDictType.FULL_STATE_DICT
    with FullyShardedDataParallel.state_dict_type(w, StateDictType.FULL_STATE_DICT,
                                                  FullStateDictConfig(offload_to_cpu=True, rank0_only=True)):
        assert len(w.state_dict()["0.weight"]._data.devices()) == 1
    try:
        FullyShardedDataParallel.set_state_dict_type(w, StateDictType.FULL_STATE_DICT, ShardedStateDictConfig())
    except RuntimeError as e:
        assert "Expected state_dict_config of type" in str(e)
    else:
        raise AssertionError("a mismatched state_dict_config was accepted")
    torch.manual_seed(1)
    w2 = FullyShardedDataParallel(_seq(torch))
    w2.load_state_dict(full)
    for p, q in zip(w.parameters(), w2.parameters()):
        assert torch.equal(p, q) and q._data.sharding == p._data.sharding and _spmd.is_sharded(q) == _spmd.is_sharded(p)
    w(torch.randn(8, 4)).sum().backward()
    opt = torch.optim.Adam(w.parameters())
    opt.step()
    osd = FullyShardedDataParallel.optim_state_dict(w, opt)
    assert list(osd["state"]) == okeys and osd["param_groups"][0]["params"] == ogroup
    back = FullyShardedDataParallel.optim_state_dict_to_load(w, opt, osd)
    assert sorted(back["state"]) == sorted(opt.state_dict()["state"])
    m = fully_shard(_seq(torch))
    assert list(m.state_dict()) == fs_keys and type(m).__name__ == fs_cls
    assert isinstance(m, torch.distributed.fsdp.FSDPModule) and _spmd.is_sharded(m.state_dict()["2.weight"])


def _check_mixed_precision(torch):
    import numpy as np

    from facade.distributed import _spmd
    from facade.distributed.fsdp import FullyShardedDataParallel, MixedPrecision, MixedPrecisionPolicy, fully_shard

    torch.manual_seed(0)
    plain = _seq(torch)
    w = FullyShardedDataParallel(_seq(torch), mixed_precision=MixedPrecision(
        param_dtype=torch.bfloat16, reduce_dtype=torch.float32, buffer_dtype=torch.bfloat16))
    w.load_state_dict(plain.state_dict())
    x = torch.randn(8, 4)
    out = w(x)
    assert out.dtype == torch.bfloat16  # real torch's FSDP: bfloat16 output, float32 parameters and grads
    out.float().sum().backward()
    for n, p in w.named_parameters():
        assert p.dtype == torch.float32 and p.grad.dtype == torch.float32, n
    low = _seq(torch).to(torch.bfloat16)
    low.load_state_dict({k: v.to(torch.bfloat16) for k, v in plain.state_dict().items()})
    np.testing.assert_allclose(out.detach().float().numpy(), low(x.to(torch.bfloat16)).detach().float().numpy(),
                               rtol=1e-2, atol=1e-2)
    m = fully_shard(_seq(torch), mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                                                output_dtype=torch.float32))
    y = m(x)
    assert y.dtype == torch.float32 and _spmd.is_sharded(m[2].weight)
    y.sum().backward()
    assert m[0].weight.grad.dtype == torch.float32


def _check_device_mesh(torch):
    from facade.distributed.device_mesh import DeviceMesh, init_device_mesh

    m = init_device_mesh("cpu", (N,))
    assert repr(m) == f"DeviceMesh(({N},), 'cpu', stride=(1,))" and m.mesh_dim_names is None
    assert m.shape == (N,) and m.ndim == 1 and m.size() == N and m.get_rank() == 0 and m.get_local_rank() == 0
    assert m.mesh.dtype == torch.int32 and m.mesh.tolist() == list(range(N))
    m2 = init_device_mesh("cpu", (2, 4), mesh_dim_names=("dp", "tp"))
    assert repr(m2) == "DeviceMesh((dp=2, tp=4), 'cpu', stride=(4, 1))"  # torch's format, checked on (2, 2)
    assert m2.size(1) == 4 and m2.size("dp") == 2 and m2.jax_mesh.shape == {"dp": 2, "tp": 4}
    sub = m2["tp"]
    assert isinstance(sub, DeviceMesh) and sub.mesh.tolist() == [0, 1, 2, 3] and sub.mesh_dim_names == ("tp",)
    cases = [(lambda: init_device_mesh("cpu", (2 * N,)), RuntimeError,
              f"Mesh should not be bigger than default world size {N}, but found {2 * N} ranks!"),
             (lambda: init_device_mesh("cpu", (2, 2), mesh_dim_names=("a",)), RuntimeError,
              "mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): 1 and "
              "len(mesh_shape):2."),
             (lambda: init_device_mesh("cpu", (2, 2), mesh_dim_names=("a", "a")), RuntimeError,
              "Each mesh_dim_name must be unique. Found repeated mesh_dim_name in mesh_dim_names ('a', 'a')"),
             (lambda: m2["xx"], KeyError, "Invalid mesh_dim_names ('xx',) specified. Valid mesh_dim_names are "
              "['dp', 'tp']."),
             (lambda: m2.get_local_rank(), RuntimeError, "Optional kwarg `mesh_dim` needs to be specified")]
    for fn, exc, msg in cases:  # torch's messages (checked against real torch on a 4-process gloo world)
        try:
            fn()
        except exc as e:
            assert msg in str(e), (str(e), msg)
        else:
            raise AssertionError(f"no {exc.__name__}: {msg}")
    model = _seq(torch)
    torch.distributed.fsdp.fully_shard(model, mesh=init_device_mesh("cpu", (4,)))
    assert len(model[0].weight._data.sharding.device_set) == 4


def _check_multi_process_refused(torch):
    import jax

    from facade.distributed.device_mesh import init_device_mesh
    from facade.distributed.fsdp import FullyShardedDataParallel, fully_shard

    orig = jax.process_count
    jax.process_count = lambda *a: 2
    try:
        for fn in (lambda: FullyShardedDataParallel(_seq(torch)), lambda: fully_shard(_seq(torch)),
                   lambda: init_device_mesh("cpu", (2,))):
            try:
                fn()
            except NotImplementedError as e:
                assert "over several processes is not supported" in str(e) and "one process" in str(e), str(e)
            else:
                raise AssertionError("a multi-process world was accepted")
    finally:
        jax.process_count = orig


def _child():
    sys.path.insert(0, str(ROOT))
    import facade as torch

    assert len(__import__("jax").devices()) == N
    checks = {"batch_layout": _check_batch_layout, "state_dict": _check_state_dict,
              "mixed_precision": _check_mixed_precision, "device_mesh": _check_device_mesh,
              "multi_process_refused": _check_multi_process_refused}
    for name in CHECKS:
        if name not in checks:
            layout, model_name, mode = name.split("_")
            checks[name] = (lambda lay, mn, c: lambda t: _check_training(t, mn, lay, c))(layout, model_name,
                                                                                        mode == "compiled")
    results = {}
    for name in CHECKS:
        try:
            checks[name](torch)
            results[name] = "ok"
        except Exception:  # noqa: BLE001 - reported to the parent test of this check
            results[name] = traceback.format_exc()
    print("RESULTS " + json.dumps(results), flush=True)


if __name__ == "__main__" and "--child" in sys.argv:
    _child()
