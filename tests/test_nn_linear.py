"""Linear-family modules against torch (outputs, gradients, repr, default init), their signatures, the lazy
variant, and torch's error messages. The functions are covered by tests/opinfo/nn_conv.py."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import facade

from ._nn import check_init, check_module, copy_weights

NAMES = ["Identity", "Linear", "Bilinear", "LazyLinear"]


def _params(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", NAMES + ["modules.linear.NonDynamicallyQuantizableLinear"])
def test_signature_and_constants(name):
    t, f = torch.nn, facade.nn
    for part in name.split("."):
        t, f = getattr(t, part), getattr(f, part)
    assert _params(f) == _params(t)
    assert getattr(f, "__constants__", None) == getattr(t, "__constants__", None)
    assert f.__module__ == "facade.nn.modules.linear"


def _x(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


CASES = [
    ("Linear", (3, 4), {}, (_x(2, 3),)), ("Linear", (3, 4), {"bias": False}, (_x(5, 2, 3),)),
    ("Linear", (3, 1), {}, (_x(3),)), ("Linear", (3, 4), {"dtype": facade.float64}, (_x(2, 3, dtype=np.float64),)),
    ("Bilinear", (3, 2, 4), {}, (_x(5, 3), _x(5, 2, seed=1))), ("Bilinear", (3, 2, 4), {"bias": False},
                                                                 (_x(3), _x(2, seed=1))),
    ("Identity", (3, "x"), {"k": 1}, (_x(2, 3),)),
]


@pytest.mark.parametrize("name,args,kwargs,inputs", CASES, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CASES])
def test_module(name, args, kwargs, inputs):
    if kwargs.get("dtype") is facade.float64:  # the same module on both sides needs each library's dtype
        t, f = torch.nn.Linear(*args, dtype=torch.float64), facade.nn.Linear(*args, **kwargs)
        copy_weights(t, f)
        np.testing.assert_allclose(f(facade.tensor(inputs[0])).detach().numpy(),
                                   t(torch.tensor(inputs[0])).detach().numpy(), rtol=1e-12)
        assert f.weight.dtype == facade.float64
        return
    check_module("nn." + name, args, kwargs, inputs, steps=2)


def test_non_dynamically_quantizable_linear():
    m = facade.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2)
    assert isinstance(m, facade.nn.Linear) and repr(m) == "NonDynamicallyQuantizableLinear(in_features=3, " \
        "out_features=2, bias=True)"


@pytest.mark.parametrize("name,args", [("Linear", (20, 30)), ("Linear", (1, 200)), ("Bilinear", (6, 4, 100))])
def test_init(name, args):
    check_init("nn." + name, args)


def test_lazy_linear():
    torch.manual_seed(0)
    t, f = torch.nn.LazyLinear(4), facade.nn.LazyLinear(4)
    assert repr(f) == repr(t) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert isinstance(f.weight, facade.nn.UninitializedParameter) and f.has_uninitialized_params()
    x = _x(2, 3)
    t(torch.tensor(x))
    out = f(facade.tensor(x))
    assert type(f) is facade.nn.Linear and tuple(f.weight.shape) == (4, 3) and tuple(f.bias.shape) == (4,)
    assert repr(f) == repr(t) and tuple(out.shape) == (2, 4)
    copy_weights(t, f)
    np.testing.assert_allclose(f(facade.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), atol=1e-6)
    lazy = facade.nn.LazyLinear(2, bias=False)
    lazy(facade.ones(1, 7))
    assert lazy.bias is None and tuple(lazy.weight.shape) == (2, 7)
    bound = 1 / np.sqrt(7)
    assert np.abs(lazy.weight.detach().numpy()).max() <= bound


def test_errors():
    F = facade.nn.functional
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        F.linear(facade.ones(2, 3), facade.ones(5, 4))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        facade.nn.Linear(4, 5)(facade.ones(2, 3))
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, but they are 0D and 2D"):
        F.linear(facade.tensor(1.0), facade.ones(5, 4))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        F.linear(facade.ones(2, 3), facade.ones(4, 3, dtype=facade.float64))
    with pytest.raises(RuntimeError, match=r"bilinear\(\): input2 size does not match weight size: got 4 but "
                       "expected 3"):
        F.bilinear(facade.ones(2, 3), facade.ones(2, 4), facade.ones(5, 3, 3))
    with pytest.raises(ValueError, match=r"in1_features must be > 0, but got \(in1_features=0\)"):
        facade.nn.Bilinear(0, 2, 3)


def test_grad_fn_names():
    x, w, b = (facade.ones(*s, requires_grad=True) for s in ((2, 3), (4, 3), (4,)))
    assert type(facade.nn.functional.linear(x, w, b).grad_fn).__name__ == "AddmmBackward0"
    assert type(facade.nn.functional.linear(x, w).grad_fn).__name__ == "MmBackward0"
