"""Pooling modules against torch (outputs, gradients, repr, signatures) and pooling errors in torch's words."""

import inspect

import numpy as np
import pytest
import torch

import facade
import facade.nn.functional as F

from ._nn import check_module

CLASSES = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _params(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", CLASSES)
def test_signature(name):
    assert _params(getattr(facade.nn, name)) == _params(getattr(torch.nn, name))
    constants = [getattr(getattr(lib.nn, name), "__constants__", None) for lib in (facade, torch)]
    assert constants[0] == constants[1]


def ties(shape, seed=0):
    return np.random.default_rng(seed).integers(-2, 3, size=shape).astype(np.float32)


def rand(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


MODULES = [
    ("nn.MaxPool1d", (3,), dict(stride=2, padding=1), ties((2, 3, 9))),
    ("nn.MaxPool2d", (3, 2), dict(padding=1, ceil_mode=True), ties((2, 3, 7, 7))),
    ("nn.MaxPool2d", ((2, 3),), dict(dilation=(1, 2), return_indices=True), ties((3, 7, 8))),
    ("nn.MaxPool3d", (2,), {}, ties((1, 2, 4, 4, 4))),
    ("nn.AvgPool1d", (3, 2, 1), dict(count_include_pad=False), rand((2, 3, 8))),
    ("nn.AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), rand((2, 3, 6, 6))),
    ("nn.AvgPool2d", (2,), dict(divisor_override=3), rand((3, 4, 4), dtype=np.float64)),
    ("nn.AvgPool3d", ((2, 2, 1),), {}, rand((1, 2, 4, 4, 3))),
    ("nn.AdaptiveAvgPool1d", (3,), {}, rand((2, 3, 7))),
    ("nn.AdaptiveAvgPool2d", ((None, 3),), {}, rand((2, 3, 5, 7))),
    ("nn.AdaptiveAvgPool2d", (1,), {}, rand((2, 3, 5, 7))),
    ("nn.AdaptiveAvgPool3d", (2,), {}, rand((1, 2, 3, 4, 5))),
    ("nn.AdaptiveMaxPool1d", (3,), dict(return_indices=True), ties((2, 3, 7))),
    ("nn.AdaptiveMaxPool2d", ((2, 3),), {}, ties((2, 3, 5, 7))),
    ("nn.AdaptiveMaxPool3d", (2,), {}, ties((2, 3, 4, 4))),
    ("nn.LPPool1d", (2, 3), dict(stride=2), rand((2, 3, 8)) + 4),
    ("nn.LPPool2d", (1.5, 2), {}, rand((2, 3, 4, 4)) + 4),
    ("nn.LPPool3d", (2, 2), dict(ceil_mode=True), rand((1, 2, 3, 3, 3)) + 4),
]


@pytest.mark.parametrize("path,args,kwargs,x", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module(path, args, kwargs, x):
    check_module(path, args, kwargs, [x], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_unpool_module_round_trip(n):
    x = ties((2, 3) + (4,) * n)
    pool = f"MaxPool{n}d"

    def call(m, inp):
        lib = torch if isinstance(inp, torch.Tensor) else facade
        v, i = getattr(lib.nn, pool)(2, return_indices=True)(inp)
        return m(v, i, output_size=inp.shape)

    check_module(f"nn.MaxUnpool{n}d", (2,), {}, [x], call=call)


def test_max_pool_indices_and_tie_gradient():
    x = np.array([[[[1., 3., 3.], [3., 0., 3.], [2., 3., 1.]]]], np.float32)
    for lib in (torch, facade):
        t = lib.tensor(x, requires_grad=True)
        v, i = lib.nn.functional.max_pool2d(t, 2, stride=1, return_indices=True)
        v.sum().backward()
        assert i.tolist() == [[[[1, 1], [3, 5]]]]
        assert t.grad.tolist() == [[[[0., 2., 0.], [1., 0., 1.], [0., 0., 0.]]]]


SPECIAL = {"zeros": [0.0, -0.0, 1.0], "nan": [1.0, np.nan, 2.0, -np.inf], "ties": [1.0, 2.0]}
WINDOWS = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, stride=1, dilation=2),
           dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=3, stride=3, padding=1, dilation=2)]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("cfg", WINDOWS, ids=str)
@pytest.mark.parametrize("kind", SPECIAL)
def test_max_pool_keeps_torchs_element(n, cfg, kind):
    """Values and gradients bit for bit with torch's kernel at signed zeros, NaNs and ties, for every window shape:
    the running maximum of the window in scan order, replaced by a larger value or a NaN (before: XLA's
    reduce_window kept +0.0 over -0.0 and sent a NaN window's gradient to another element)."""
    x = np.random.default_rng(n).choice(np.array(SPECIAL[kind], np.float32), size=(2, 3) + (7,) * n)
    out = []
    for lib in (torch, facade):
        t = lib.tensor(x, requires_grad=True)
        o = getattr(lib.nn.functional, f"max_pool{n}d")(t, **cfg)
        o.backward(lib.tensor(np.arange(o.numel(), dtype=np.float32).reshape(o.shape)))
        out.append((o.detach().numpy(), t.grad.numpy()))
    (ot, gt), (of, gf) = out
    np.testing.assert_array_equal(of, ot)
    np.testing.assert_array_equal(np.signbit(of), np.signbit(ot))
    np.testing.assert_array_equal(gf, gt)


AVG_WINDOWS = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
               dict(kernel_size=3, stride=2, ceil_mode=True),
               dict(kernel_size=3, stride=1, padding=1, count_include_pad=False)]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("cfg", AVG_WINDOWS, ids=str)
@pytest.mark.parametrize("kind", ["normal", "zeros", "special"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool_sums_in_torchs_order(n, cfg, kind, dtype):
    """avg_pool values and gradients bit for bit with torch's kernel: the window summed in scan order from +0.0,
    then truly divided (before: reduce_window's order and XLA's multiplication by the divisor's reciprocal left
    about 1 value in 4 an ulp off)."""
    rng = np.random.default_rng(n)
    shape = (2, 3) + (7,) * n
    x = {"normal": lambda: rng.standard_normal(shape), "zeros": lambda: rng.choice([0.0, -0.0], size=shape),
         "special": lambda: rng.choice([0.0, -0.0, 1.5, np.nan, np.inf, -np.inf], size=shape)}[kind]().astype(dtype)
    out = []
    for lib in (torch, facade):
        t = lib.tensor(x, requires_grad=True)
        o = getattr(lib.nn.functional, f"avg_pool{n}d")(t, **cfg)
        o.backward(lib.tensor(np.arange(o.numel(), dtype=dtype).reshape(o.shape) * 0.37))
        out.append((o.detach().numpy(), t.grad.numpy()))
    (ot, gt), (of, gf) = out
    np.testing.assert_array_equal(of, ot)
    np.testing.assert_array_equal(np.signbit(of[~np.isnan(of)]), np.signbit(ot[~np.isnan(ot)]))  # NaN's sign aside
    np.testing.assert_array_equal(gf, gt)


ERRORS = [
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(2, 3, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 3, 8), 3, padding=2), RuntimeError,
     r"max_pool1d\(\) padding should be at most half of kernel size, but got padding=2 and kernel_size=3"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), 9), RuntimeError,
     r"Given input size: \(3x8x8\). Calculated output size: \(3x0x0\). Output size is too small"),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 3, 8), 9), RuntimeError,
     r"Given input size: \(3x1x8\). Calculated output size: \(3x1x0\). Output size is too small"),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 3, 8), 9), RuntimeError,
     r"max_pool1d\(\) Invalid computed output size: 0"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(3, 4), 2), RuntimeError,
     r"non-empty 3D or 4D \(batch mode\) tensor expected for input"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), 2, stride=0), RuntimeError,
     "stride should not be zero"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda lib: lib.nn.functional.max_pool2d(lib.zeros(2, 3, 8, 8), 2, padding=-1), RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    (lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(2, 3, 8, 8), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.zeros(3), 2), RuntimeError,
     r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[3\]"),
    (lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.zeros(3), 2), RuntimeError,
     r"adaptive_max_pool2d\(\): Expected 3D or 4D tensor, but got: \[3\]"),
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.zeros(2, 3, 8, 8), -1), RuntimeError,
     r"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received \{-1, -1\}"),
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.zeros(2, 3, 0, 4), 2), RuntimeError,
     r"adaptive_avg_pool2d\(\): Expected input to have non-zero size for non-batch dimensions, but input has "
     r"sizes \[2, 3, 0, 4\] with dimension 2 being empty"),
    (lambda lib: lib.nn.functional.max_unpool2d(lib.zeros(2, 3, 4, 4), lib.zeros(2, 3, 4, 4, dtype=lib.long), 2,
                                                output_size=(3, 3)), ValueError,
     r'invalid output_size "\(3, 3\)" \(dim 0 must be between 6 and 10\)'),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, exc, msg = ERRORS[i]
    with pytest.raises(exc, match=msg):
        fn(torch)
    with pytest.raises(exc, match=msg):
        fn(facade)


def test_under_jit_and_vmap():
    import jax
    import jax.numpy as jnp

    import functional.nn as N

    x = jnp.asarray(ties((4, 2, 6, 6)))
    f = jax.jit(lambda a: N.max_pool2d(a, 2, return_indices=True)[0].sum() + N.avg_pool2d(a, 3, 1, 1).sum())
    g = jax.grad(f)(x)
    assert g.shape == x.shape
    v = jax.vmap(lambda a: N.adaptive_max_pool2d(a, 3))(x)
    assert v.shape == (4, 2, 3, 3)
    assert np.allclose(np.asarray(F.max_pool2d(facade.tensor(np.asarray(x)), 2).numpy()),
                       np.asarray(jax.jit(lambda a: N.max_pool2d(a, 2))(x)))
