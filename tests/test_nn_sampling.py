"""Resampling against torch: Upsample modules (outputs, gradients, repr), signatures, grad_fn names,
torch's error messages and warnings, and the functional layer under jax.jit / jax.vmap / jax.grad."""

from __future__ import annotations

import inspect
import pickle
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import facade
import functional.nn as N

from ._nn import check_module


def _x(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("path,args,kwargs,shape", [
    ("nn.Upsample", (), {"scale_factor": 2}, (2, 3, 4, 5)),
    ("nn.Upsample", (), {"size": (3, 7), "mode": "bilinear", "align_corners": True}, (2, 3, 4, 5)),
    ("nn.Upsample", (), {"scale_factor": (1.5, 0.75), "mode": "bicubic"}, (1, 2, 4, 5)),
    ("nn.Upsample", (5,), {"mode": "linear"}, (2, 3, 4)),
    ("nn.Upsample", (), {"scale_factor": 1.7, "mode": "trilinear", "recompute_scale_factor": True}, (1, 2, 3, 3, 2)),
    ("nn.Upsample", (), {"scale_factor": 0.5, "mode": "area"}, (1, 2, 4, 6)),
    ("nn.Upsample", (), {"size": 6, "mode": "nearest-exact"}, (1, 2, 4, 5)),
    ("nn.UpsamplingNearest2d", (), {"scale_factor": 3}, (2, 1, 3, 2)),
    ("nn.UpsamplingBilinear2d", ((4, 6),), {}, (2, 1, 3, 2)),
])
def test_modules(path, args, kwargs, shape):
    check_module(path, args, kwargs, [_x(*shape)], atol=1e-5)


@pytest.mark.parametrize("path", ["nn.Upsample", "nn.UpsamplingNearest2d", "nn.UpsamplingBilinear2d"])
def test_module_signature_and_constants(path):
    t, f = (getattr(lib.nn, path[3:]) for lib in (torch, facade))
    assert [(n, p.default) for n, p in inspect.signature(f).parameters.items()] == [
        (n, p.default) for n, p in inspect.signature(t).parameters.items()]
    assert f.__constants__ == t.__constants__
    mt, mf = t(scale_factor=2), f(scale_factor=2)
    assert repr(mf) == repr(mt)
    assert (mf.name, mf.scale_factor, mf.align_corners) == (mt.name, mt.scale_factor, mt.align_corners)


def test_module_pickle():
    m = facade.nn.Upsample(scale_factor=(2, 3), mode="bilinear")
    m2 = pickle.loads(pickle.dumps(m))
    assert repr(m2) == repr(m) == repr(torch.nn.Upsample(scale_factor=(2, 3), mode="bilinear"))
    x = facade.tensor(_x(1, 1, 2, 2))
    assert facade.equal(m2(x), m(x))


@pytest.mark.parametrize("name", ["interpolate", "grid_sample", "affine_grid", "upsample", "upsample_nearest",
                                  "upsample_bilinear"])
def test_functional_signatures(name):
    def params(f):
        return [(n, p.default) for n, p in inspect.signature(f).parameters.items()]

    assert params(getattr(facade.nn.functional, name)) == params(getattr(torch.nn.functional, name))


@pytest.mark.parametrize("mode,ndim,kwargs", [
    (m, n, {}) for m in ("nearest", "nearest-exact", "area") for n in (3, 4, 5)] + [
    ("linear", 3, {}), ("bilinear", 4, {}), ("trilinear", 5, {}), ("bicubic", 4, {}),
    ("bilinear", 4, {"antialias": True}), ("bicubic", 4, {"antialias": True}), ("lanczos", 4, {"antialias": True})])
def test_grad_fn_names(mode, ndim, kwargs):
    names = []
    for lib in (torch, facade):
        x = lib.tensor(_x(1, 2, *(4,) * (ndim - 2)), requires_grad=True)
        names.append(type(lib.nn.functional.interpolate(x, size=3, mode=mode, **kwargs).grad_fn).__name__)
    assert names[1] == names[0]


def test_grid_grad_fn_names():
    for shape, g in (((1, 2, 3, 4), (1, 2, 2, 2)), ((1, 2, 3, 4, 5), (1, 2, 2, 2, 3))):
        names = []
        for lib in (torch, facade):
            x = lib.tensor(_x(*shape), requires_grad=True)
            theta = lib.tensor(_x(1, len(g) - 2, len(g) - 1), requires_grad=True)
            grid = lib.nn.functional.affine_grid(theta, [1, 2, *g[1:-1]], align_corners=False)
            out = lib.nn.functional.grid_sample(x, grid, align_corners=False)
            names.append((type(grid.grad_fn).__name__, type(out.grad_fn).__name__))
        assert names[1] == names[0]


def _same_error(call):
    """torch and facade refuse `call(lib)` with the same exception type and message."""
    with pytest.raises(Exception) as t:
        call(torch)
    with pytest.raises(type(t.value)) as f:
        call(facade)
    assert str(f.value) == str(t.value)


def _interp(shape, dtype=np.float32, **kwargs):
    return lambda lib: lib.nn.functional.interpolate(lib.tensor(_x(*shape).astype(dtype)), **kwargs)


@pytest.mark.parametrize("call", [
    _interp((2, 3, 4), size=3, align_corners=True),
    _interp((2, 3, 4), size=3, scale_factor=2),
    _interp((2, 3, 4)),
    _interp((2, 3, 4), size=[3, 3]),
    _interp((2, 3, 4), scale_factor=[3.0, 3]),
    _interp((2, 3, 4), size=[3.5]),
    _interp((2, 3, 4), size=3, recompute_scale_factor=True),
    _interp((2, 3, 4), size=3, mode="linear", antialias=True),
    _interp((2, 3, 4), size=3, mode="bilinear"),
    _interp((2, 3, 4, 4), size=3, mode="trilinear"),
    _interp((2, 3, 4, 4, 4), size=3, mode="linear"),
    _interp((2, 3), size=3),
    _interp((2, 3, 4), size=3, mode="foo"),
    _interp((2, 3, 4, 4), size=3, mode="lanczos"),
    _interp((2, 3, 4, 4), size=3, mode="lanczos", antialias=True, align_corners=True),
    _interp((2, 3, 4), size=0),
    _interp((2, 3, 4, 5), size=(0, 3)),
    _interp((2, 3, 4, 5, 6), size=(0, 3, 1)),
    _interp((2, 3, 4), scale_factor=0.1, mode="linear"),
    _interp((2, 0, 4, 4), size=3, mode="bilinear"),
    _interp((2, 3, 4, 0), size=(2, 3), mode="area"),
    _interp((2, 3, 4, 4), np.int64, size=3, mode="bilinear"),
    _interp((2, 3, 4, 4), np.int32, size=3, mode="area"),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(2, 3, 3, 3), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(1, 3, 3, 2), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(2, 3, 3, 2, dtype=lib.float64),
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4, 4), lib.randn(2, 3, 3, 3, 3), mode="bicubic",
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 0, 4), lib.randn(2, 3, 3, 2), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(3, 4, 4), lib.randn(3, 3, 2), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(3, 4, 4), lib.randn(3, 3, 1), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(2, 3, 3, 3, 2), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4, 4), lib.randn(2, 3, 3, 3), mode="bicubic",
                                              align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(2, 3, 4, 4, dtype=lib.int64), lib.ones(2, 3, 3, 2,
                                              dtype=lib.int64), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(2, 3, 3, 2), mode="foo"),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(2, 3, 4, 4), lib.randn(2, 3, 3, 2), padding_mode="foo"),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(2, 2, 3), [2, 3, 4], align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(2, 3, 3), [2, 3, 4, 4], align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(2, 2, 3), [2, 3, 4, 4, 4], align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.ones(2, 2, 3, dtype=lib.int64), [2, 3, 4, 4], align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(2, 2, 3), [2, 3, 0, 4], align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(2, 2, 3), [3, 3, 2, 4], align_corners=False),
])
def test_errors(call):
    _same_error(call)


def _warnings(call):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        call()
    return [(x.category, str(x.message), x.filename) for x in w]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.grid_sample(lib.randn(1, 1, 3, 3), lib.zeros(1, 2, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(1, 2, 3), [1, 1, 3, 3]),
    lambda lib: lib.nn.functional.affine_grid(lib.randn(1, 2, 3), [1, 1, 1, 3], align_corners=True),
    lambda lib: lib.nn.functional.upsample(lib.randn(1, 1, 3, 3), scale_factor=2),
    lambda lib: lib.nn.functional.upsample_nearest(lib.randn(1, 1, 3, 3), scale_factor=2),
    lambda lib: lib.nn.functional.upsample_bilinear(lib.randn(1, 1, 3, 3), scale_factor=2),
    lambda lib: lib.nn.functional.grid_sample(lib.randn(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), align_corners=True),
])
def test_warnings(call):
    got, want = _warnings(lambda: call(facade)), _warnings(lambda: call(torch))
    assert got == want  # same category, text and the user's line (stacklevel)


def test_functional_transforms():
    """The pure layer under jit, vmap and grad (gradient of a sum of bilinear upsampling: each input
    pixel's total weight)."""
    x = jnp.asarray(_x(3, 2, 4, 5))
    f = jax.jit(lambda a: N.interpolate(a, scale_factor=2.0, mode="bilinear"))
    ref = torch.nn.functional.interpolate(torch.tensor(np.asarray(x)), scale_factor=2.0, mode="bilinear").numpy()
    np.testing.assert_allclose(f(x), ref, rtol=1e-6, atol=1e-6)
    v = jax.vmap(lambda a: N.interpolate(a[None], size=(3, 7), mode="bicubic")[0])(x)
    ref = torch.nn.functional.interpolate(torch.tensor(np.asarray(x)), size=(3, 7), mode="bicubic").numpy()
    np.testing.assert_allclose(v, ref, rtol=1e-5, atol=1e-5)
    g = jax.grad(lambda a: N.grid_sample(a, jnp.zeros((3, 2, 2, 2), a.dtype), align_corners=True).sum())(x)
    xt = torch.tensor(np.asarray(x), requires_grad=True)
    torch.nn.functional.grid_sample(xt, torch.zeros(3, 2, 2, 2), align_corners=True).sum().backward()
    np.testing.assert_allclose(g, xt.grad.numpy(), rtol=1e-6, atol=1e-6)
