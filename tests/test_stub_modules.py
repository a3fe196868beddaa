"""Modules scripts import at the top but that later issues deliver: importable (also under the runner), answering
truthfully what is available, and raising NotImplementedError naming the torch API for what is not delivered."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import facade

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["torch.distributed", "torch.nn.parallel", "torch.multiprocessing", "torch.onnx", "torch.jit",
           "torch.compiler", "torch.backends.cudnn", "torch.accelerator", "torch.version", "torch.mps", "torch.xpu"]


def test_modules_import_under_the_runner():
    code = f"import {', '.join(MODULES)}; print(torch.distributed.is_available(), torch.backends.cudnn.enabled)"
    run = subprocess.run([sys.executable, "-m", "facade", "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", "PATH": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"]


NOT_DELIVERED = [
    ("distributed", "split_group", ()), ("distributed", "get_pg_count", ()),
    ("distributed", "Reducer", ()), ("nn.parallel", "replicate", (None, [0])),
    ("jit", "trace_module", (None, None)), ("compiler", "set_stance", ("default",)),
    ("distributed.tensor", "distribute_tensor", (None, None)),
    ("distributed.checkpoint", "StorageWriter", ()),
    ("distributed.checkpoint", "load_sharded_optimizer_state_dict", ()),
    ("distributed._functional_collectives", "wait_tensor", (None,)),
]


@pytest.mark.parametrize("module,name,args", NOT_DELIVERED)
def test_not_delivered_names_raise_naming_the_torch_api(module, name, args):
    obj = importlib.import_module(f"facade.{module}")
    with pytest.raises(NotImplementedError, match=f"^torch\\.{module}\\.{name} is not supported by facade yet"):
        getattr(obj, name)(*args)


def test_placements_are_torchs():
    """Libraries import DTensor's placements whenever torch.distributed is available; they describe as torch's."""
    for lib in (torch, facade):
        importlib.import_module(f"{lib.__name__}.distributed.tensor.placement_types")
    T, F = torch.distributed.tensor.placement_types, facade.distributed.tensor.placement_types
    make = [lambda m: m.Shard(1), lambda m: m.Shard(0), lambda m: m.Replicate(), lambda m: m.Partial(),
            lambda m: m.Partial("max"), lambda m: m._StridedShard(0, split_factor=2)]

    def describe(m):
        ps = [f(m) for f in make]
        return ([(repr(p), str(p), p.is_shard(), p.is_shard(0), p.is_replicate(), p.is_partial(), p.is_partial("sum"),
                  isinstance(p, m.Shard), isinstance(p, m.Placement)) for p in ps],
                [[a == b for b in ps] for a in ps], hash(m.Shard(1)) == hash(m.Shard(1)))

    assert describe(F) == describe(T)


def test_distributed_answers_truthfully():
    d = facade.distributed
    assert (d.is_available(), d.is_initialized(), d.is_nccl_available(), d.is_torchelastic_launched()) == (
        torch.distributed.is_available(), torch.distributed.is_initialized(), torch.distributed.is_nccl_available(),
        torch.distributed.is_torchelastic_launched())
    assert [str(getattr(d.ReduceOp, n)) for n in ("SUM", "AVG", "MAX", "MIN", "PRODUCT")] == [
        str(getattr(torch.distributed.ReduceOp, n)) for n in ("SUM", "AVG", "MAX", "MIN", "PRODUCT")]
    assert (d.Backend.NCCL, d.Backend.GLOO, d.Backend("NCCL"), d.group.WORLD, d.GroupMember.WORLD) == (
        torch.distributed.Backend.NCCL, torch.distributed.Backend.GLOO, torch.distributed.Backend("NCCL"),
        torch.distributed.group.WORLD, torch.distributed.GroupMember.WORLD)
    assert issubclass(d.DistBackendError, RuntimeError) and d.default_pg_timeout == torch.distributed.default_pg_timeout


def test_parallel_classes_are_modules_for_isinstance():
    model = facade.nn.Linear(2, 2)
    assert not isinstance(model, facade.nn.parallel.DistributedDataParallel)
    assert issubclass(facade.nn.DataParallel, facade.nn.Module)
    assert facade.nn.DataParallel is facade.nn.parallel.DataParallel


def _eager_jit(t):
    j = t.jit

    @j.ignore
    def a(x):
        return x + 1

    @j.ignore(drop=True)
    def b(x):
        return x + 2

    @j.unused
    def c(x):
        return x + 3

    @j.export
    def d(x):
        return x + 4

    fut = j.fork(lambda x: x * 2, 5)
    return (a(0), b(0), c(0), d(0), j.annotate(int, 7), j.is_scripting(), j.is_tracing(), fut.wait(), j.wait(fut),
            fut.done(), type(fut).__name__, tuple(j.Attribute(1, int)))


def _eager_compiler(t):
    c = t.compiler

    @c.disable
    def f(x):
        return x + 1

    @c.disable(recursive=False)
    def g(x):
        return x + 2

    return (f(1), g(1), c.allow_in_graph(f) is f, c.is_compiling(), c.is_dynamo_compiling(), c.is_exporting(),
            c.reset(), c.assume_constant_result(f) is f)


@pytest.mark.parametrize("run", [_eager_jit, _eager_compiler, lambda t: t.onnx.is_in_onnx_export()])
def test_eager_annotations_pass_through(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(facade) == run(torch)


def test_jit_fork_carries_the_exception():
    fut = facade.jit.fork(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        fut.wait()
