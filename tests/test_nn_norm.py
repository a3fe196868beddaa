"""Normalization modules against torch: outputs, gradients, running statistics after every training step,
eval mode, repr, init, signatures, state_dict versioning and errors in torch's words."""

import inspect
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import facade

from ._nn import check_init, check_module

CLASSES = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]


def _params(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", CLASSES)
def test_signature(name):
    assert _params(getattr(facade.nn, name)) == _params(getattr(torch.nn, name))
    constants = [getattr(getattr(lib.nn, name), "__constants__", None) for lib in (facade, torch)]
    assert constants[0] == constants[1]


def rand(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype) * 2 + 0.5


BN = [
    ("nn.BatchNorm1d", (3,), {}, (4, 3)),
    ("nn.BatchNorm1d", (3,), dict(momentum=None), (4, 3, 5)),
    ("nn.BatchNorm2d", (3,), dict(eps=1e-3, momentum=0.3), (2, 3, 4, 4)),
    ("nn.BatchNorm2d", (3,), dict(affine=False), (2, 3, 2, 3)),
    ("nn.BatchNorm2d", (3,), dict(track_running_stats=False), (2, 3, 2, 3)),
    ("nn.BatchNorm2d", (3,), dict(bias=False, momentum=None), (2, 3, 2, 3)),
    ("nn.BatchNorm3d", (2,), {}, (2, 2, 2, 2, 3)),
    ("nn.SyncBatchNorm", (3,), {}, (2, 3, 4)),
    ("nn.InstanceNorm1d", (3,), {}, (2, 3, 5)),
    ("nn.InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), (3, 5)),  # unbatched
    ("nn.InstanceNorm2d", (3,), dict(track_running_stats=True, momentum=0.2), (2, 3, 4, 4)),
    ("nn.InstanceNorm2d", (3,), dict(affine=True), (3, 4, 4)),
    ("nn.InstanceNorm3d", (2,), dict(affine=True, track_running_stats=True), (2, 2, 2, 3, 3)),
]


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("path,args,kwargs,shape", BN, ids=[f"{b[0]}-{i}" for i, b in enumerate(BN)])
def test_running_stats_module(path, args, kwargs, shape, train):
    check_module(path, args, kwargs, [rand(shape)], train=train, steps=3, rtol=1e-4, atol=1e-5)


def test_batch_norm_float64_and_eval_after_train():
    x = rand((4, 3, 2), dtype=np.float64)
    tm, fm = torch.nn.BatchNorm1d(3, dtype=torch.float64), facade.nn.BatchNorm1d(3, dtype=facade.float64)
    for _ in range(2):
        np.testing.assert_allclose(fm(facade.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-7, atol=1e-9)
    tm.eval()
    fm.eval()
    np.testing.assert_allclose(fm(facade.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-7, atol=1e-9)
    for k, v in tm.state_dict().items():
        assert str(fm.state_dict()[k].dtype) == str(v.dtype)
        np.testing.assert_allclose(fm.state_dict()[k].numpy(), v.numpy(), rtol=1e-7, err_msg=k)


OTHER = [
    ("nn.LayerNorm", (4,), {}, (2, 3, 4)),
    ("nn.LayerNorm", ([3, 4],), dict(eps=1e-3, bias=False), (2, 3, 4)),
    ("nn.LayerNorm", (4,), dict(elementwise_affine=False), (3, 4)),
    ("nn.GroupNorm", (2, 6), {}, (2, 6, 3)),
    ("nn.GroupNorm", (3, 6), dict(affine=False), (2, 6, 2, 2)),
    ("nn.GroupNorm", (1, 4), dict(bias=False, eps=1e-3), (2, 4, 3)),
    ("nn.RMSNorm", (4,), {}, (2, 3, 4)),
    ("nn.RMSNorm", ([3, 4],), dict(eps=1e-4), (2, 3, 4)),
    ("nn.RMSNorm", (4,), dict(elementwise_affine=False), (3, 4)),
    ("nn.LocalResponseNorm", (3,), dict(alpha=0.1, beta=0.5, k=2.0), (2, 5, 3, 3)),
]


@pytest.mark.parametrize("path,args,kwargs,shape", OTHER, ids=[f"{o[0]}-{i}" for i, o in enumerate(OTHER)])
def test_module(path, args, kwargs, shape):
    check_module(path, args, kwargs, [rand(shape)], steps=2, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,args", [("BatchNorm2d", (3,)), ("LayerNorm", ((3, 4),)), ("GroupNorm", (2, 4)),
                                       ("RMSNorm", (5,)), ("InstanceNorm1d", (3, 1e-5, 0.1, True))])
def test_init(name, args):
    check_init("nn." + name, args)


@pytest.mark.parametrize("name", ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm2d"])
def test_lazy(name):
    shape = (4, 3) if name.endswith("1d") else (2, 3, 4, 4)
    kwargs = dict(affine=True, track_running_stats=True) if "Instance" in name else {}
    x = rand(shape)
    tm, fm = getattr(torch.nn, name)(**kwargs), getattr(facade.nn, name)(**kwargs)
    ot, of = tm(torch.tensor(x)), fm(facade.tensor(x))
    assert type(fm).__name__ == type(tm).__name__ and repr(fm) == repr(tm)
    np.testing.assert_allclose(of.detach().numpy(), ot.detach().numpy(), rtol=1e-4, atol=1e-5)
    for (k, a), (k2, b) in zip(tm.state_dict().items(), fm.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("version", [None, 1, 2])
def test_state_dict_without_num_batches_tracked(version):
    """Checkpoints before version 2 of _NormBase lack num_batches_tracked: loading keeps the module's."""
    outcome = []
    for lib in (torch, facade):
        m = lib.nn.BatchNorm2d(3)
        sd = OrderedDict((k, v) for k, v in m.state_dict().items() if k != "num_batches_tracked")
        if version is not None:
            sd._metadata = OrderedDict({"": dict(version=version)})
        m.num_batches_tracked.fill_(5)
        try:
            m.load_state_dict(sd)
            outcome.append(m.num_batches_tracked.item())
        except RuntimeError as e:
            outcome.append("num_batches_tracked" in str(e))
    assert outcome[0] == outcome[1]


def test_reset_and_convert_sync():
    m = facade.nn.Sequential(facade.nn.Conv2d(3, 3, 1), facade.nn.BatchNorm2d(3))
    m(facade.randn(2, 3, 4, 4))
    bn = m[1]
    assert bn.num_batches_tracked.item() == 1 and not np.allclose(bn.running_mean.numpy(), 0)
    s = facade.nn.SyncBatchNorm.convert_sync_batchnorm(m)
    assert type(s[1]).__name__ == "SyncBatchNorm" and s[1].weight is bn.weight
    assert s[1].running_mean is bn.running_mean
    bn.reset_running_stats()
    assert bn.num_batches_tracked.item() == 0 and np.allclose(bn.running_var.numpy(), 1)


ERRORS = [
    (lambda lib: lib.nn.BatchNorm1d(3)(lib.zeros(2, 3, 4, 4)), ValueError, r"expected 2D or 3D input \(got 4D input\)"),
    (lambda lib: lib.nn.BatchNorm2d(3)(lib.zeros(2, 3, 4)), ValueError, r"expected 4D input \(got 3D input\)"),
    (lambda lib: lib.nn.BatchNorm1d(3)(lib.zeros(1, 3)), ValueError,
     r"Expected more than 1 value per channel when training, got input size torch.Size\(\[1, 3\]\)"),
    (lambda lib: lib.nn.functional.batch_norm(lib.zeros(2, 3), None, None), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda lib: lib.nn.functional.batch_norm(lib.zeros(2, 3), lib.zeros(4), lib.ones(3), training=True),
     RuntimeError, "running_mean should contain 3 elements not 4"),
    (lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.zeros(2, 4, 5)), ValueError,
     r"expected input's size at dim=1 to match num_features \(3\), but got: 4."),
    (lambda lib: lib.nn.InstanceNorm1d(3)(lib.zeros(2, 3, 1)), ValueError,
     r"Expected more than 1 spatial element when training, got input size torch.Size\(\[2, 3, 1\]\)"),
    (lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 4), use_input_stats=False), RuntimeError,
     "Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda lib: lib.nn.LayerNorm(5)(lib.zeros(2, 3, 4)), RuntimeError,
     r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], but got input of size\[2, 3, 4\]"),
    (lambda lib: lib.nn.RMSNorm(5)(lib.zeros(2, 3, 4)), RuntimeError,
     r"Given normalized_shape=\[5\], expected input with shape \[\*5\], but got input of size\[2, 3, 4\]"),
    (lambda lib: lib.nn.GroupNorm(4, 6), ValueError, r"num_channels \(6\) must be divisible by num_groups \(4\)"),
    (lambda lib: lib.nn.functional.group_norm(lib.zeros(2, 6, 4), 4), RuntimeError,
     r"Expected number of channels in input to be divisible by num_groups, but got input of shape \[2, 6, 4\] "
     r"and num_groups=4"),
    (lambda lib: lib.nn.LocalResponseNorm(2)(lib.zeros(3, 4)), ValueError,
     "Expected 3D or higher dimensionality"),
    (lambda lib: lib.nn.SyncBatchNorm(3)(lib.zeros(3)), ValueError, r"expected at least 2D input \(got 1D input\)"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, exc, msg = ERRORS[i]
    with pytest.raises(exc, match=msg):
        fn(torch)
    with pytest.raises(exc, match=msg):
        fn(facade)


def test_instance_norm_feature_warning():
    for lib in (torch, facade):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))
        assert any("input's size at dim=1 does not match num_features" in str(x.message) for x in w)
