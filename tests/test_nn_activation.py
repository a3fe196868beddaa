"""Activation modules against torch (outputs, gradients, repr, in-place), their signatures and constants,
the random ones (RReLU in training, gumbel_softmax) by their properties, and torch's error messages.
The functions themselves are covered by tests/opinfo/nn_activation.py."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import facade

from ._nn import check_init, check_module

NAMES = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
         "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
         "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _params(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", NAMES)
def test_signature_and_constants(name):
    t, f = getattr(torch.nn, name), getattr(facade.nn, name)
    assert _params(f) == _params(t)
    assert getattr(f, "__constants__", None) == getattr(t, "__constants__", None)
    assert f.__module__ == "facade.nn.modules.activation" and f.__name__ == name


def _x(*shape, seed=0):
    x = np.random.default_rng(seed).uniform(-4, 4, shape).astype(np.float32)
    x.reshape(-1)[:4] = [0.0, -3.0, 3.0, 1.0][: x.size]  # kinks
    return x


X = _x(2, 3, 4)
CASES = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}), ("SiLU", (), {}), ("Mish", (), {}),
    ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("SELU", (), {}), ("LogSigmoid", (), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("ELU", (0.5,), {}), ("CELU", (), {"alpha": 2.0}), ("GLU", (), {}), ("GLU", (0,), {}),
    ("GELU", (), {}), ("GELU", ("tanh",), {}), ("Hardshrink", (1.0,), {}), ("Softshrink", (), {"lambd": 1.0}),
    ("LeakyReLU", (0.2,), {}), ("Softplus", (2.0, 3.0), {}), ("Threshold", (0.5, -2.0), {}),
    ("Hardtanh", (-2.0, 1.5), {}), ("Hardtanh", (), {"min_value": -0.5}), ("Softmax", (1,), {}),
    ("Softmin", (-1,), {}), ("LogSoftmax", (0,), {}), ("Softmax2d", (), {}), ("RReLU", (0.1, 0.3), {}),
    ("PReLU", (), {}), ("PReLU", (3,), {"init": 0.1}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CASES])
def test_module(name, args, kwargs):
    check_module("nn." + name, args, kwargs, (X,), train=name != "RReLU", steps=2 if name == "PReLU" else 1)


INPLACE = [("ReLU", ()), ("ReLU6", ()), ("ELU", (0.5,)), ("SELU", ()), ("CELU", ()), ("SiLU", ()), ("Mish", ()),
           ("Hardsigmoid", ()), ("Hardswish", ()), ("LeakyReLU", (0.2,)), ("Threshold", (0.5, -2.0)),
           ("Hardtanh", ()), ("RReLU", ())]


@pytest.mark.parametrize("name,args", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_module(name, args):
    """inplace=True writes into the (non-leaf) input; the gradient flows through the in-place op."""
    def call(m, x):
        y = x * 1
        out = m(y)
        assert out is y
        return out
    check_module("nn." + name, args, {"inplace": True}, (X,), call=call, train=False)


def test_inplace_leaf_refused():
    x = facade.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        facade.nn.ReLU(inplace=True)(x)


def test_prelu_init():
    check_init("nn.PReLU", (4,), {"init": 0.3})
    m = facade.nn.PReLU(2, dtype=facade.float64)
    assert m.weight.dtype == facade.float64 and isinstance(m.weight, facade.nn.Parameter)


def test_rrelu_training():
    """Negative inputs get a slope drawn from U(lower, upper), positive ones pass; the gradient is that slope."""
    x = facade.tensor(np.linspace(-4, 4, 2001, dtype=np.float32), requires_grad=True)
    m = facade.nn.RReLU(0.1, 0.3)
    y = m(x)
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    y.sum().backward()
    xs, ys, g = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    pos, neg = xs > 0, xs < 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    slopes = ys[neg] / xs[neg]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.03
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-5)
    np.testing.assert_array_equal(g[pos], 1.0)
    m.eval()
    np.testing.assert_allclose(m(x).detach().numpy()[neg], xs[neg] * 0.2, rtol=1e-6)


def test_gumbel_softmax():
    facade.manual_seed(0)
    logits = facade.tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 4000, np.float32)), requires_grad=True)
    soft = facade.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert soft.shape == logits.shape and type(soft.grad_fn).__name__ == "SoftmaxBackward0"
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1.0, rtol=1e-5)
    hard = facade.nn.functional.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(-1) == 1).all()
    np.testing.assert_allclose(h.mean(0), [0.1, 0.2, 0.7], atol=0.03)  # Gumbel-max samples the softmax
    w = facade.tensor(np.random.default_rng(0).standard_normal((4000, 3)).astype(np.float32))
    (g,) = facade.autograd.grad((hard * w).sum(), logits)
    assert np.abs(g.numpy()).sum() > 0  # straight-through: the soft sample's gradient
    h0 = facade.nn.functional.gumbel_softmax(logits[:2], hard=True, dim=0)
    assert (h0.detach().numpy().sum(0) == 1).all()
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        facade.nn.functional.gumbel_softmax(logits, eps=1e-5)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
def test_implicit_dim_warning(fn):
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {fn} has been deprecated"):
        getattr(facade.nn.functional, fn)(facade.tensor(X))


def _same_error(fn_t, fn_f):
    with pytest.raises(Exception) as et:
        fn_t(torch)
    with pytest.raises(type(et.value)) as ef:
        fn_f(facade)
    assert str(ef.value) == str(et.value)


ERRORS = {
    "hardtanh_bounds": lambda m: m.nn.functional.hardtanh(m.tensor(X), 2.0, 1.0),
    "Hardtanh_bounds": lambda m: m.nn.Hardtanh(1.0, 1.0),
    "glu_odd": lambda m: m.nn.functional.glu(m.zeros(3, 3)),
    "glu_scalar": lambda m: m.nn.functional.glu(m.tensor(1.0)),
    "gelu_approximate": lambda m: m.nn.functional.gelu(m.tensor(X), approximate="foo"),
    "prelu_channels": lambda m: m.nn.functional.prelu(m.zeros(2, 4), m.tensor([0.1, 0.2])),
    "prelu_ndim": lambda m: m.nn.functional.prelu(m.zeros(2, 4), m.zeros(1, 1)),
    "prelu_dtype": lambda m: m.nn.functional.prelu(m.zeros(2, 4), m.zeros(1, dtype=m.float64)),
    "elu_long": lambda m: m.nn.functional.elu(m.tensor([1, 2])),
    "relu_bool": lambda m: m.relu(m.tensor([True])),
    "softmax_long": lambda m: m.softmax(m.tensor([1, 2]), 0),
    "softmax_dim": lambda m: m.softmax(m.tensor(X), 3),
    "softshrink_lambd": lambda m: m.nn.functional.softshrink(m.tensor(X), -1.0),
    "rrelu_bounds": lambda m: m.nn.functional.rrelu(m.tensor(X), 0.5, 0.1, training=True),
    "celu_alpha": lambda m: m.nn.functional.celu(m.tensor(X), 0.0),
    "softmax2d_dim": lambda m: m.nn.Softmax2d()(m.zeros(2, 3)),
    "relu_kwarg": lambda m: m.nn.ReLU(foo=1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    _same_error(ERRORS[name], ERRORS[name])


def test_functional_inplace_variants():
    """F.X(..., inplace=True), F.X_ and torch.X_ all return the input, modified; grad_fn names are torch's."""
    for fn, args in [("relu", ()), ("elu", (0.5,)), ("leaky_relu", (0.2,)), ("hardtanh", (-0.5, 0.5)),
                     ("threshold", (0.5, 2.0)), ("selu", ()), ("celu", (1.5,)), ("rrelu", ())]:
        outs = []
        for m in (torch, facade):
            base = m.tensor(X, requires_grad=True)
            y = base * 1
            assert getattr(m.nn.functional, fn + "_")(y, *args) is y
            outs.append((y.detach().numpy().copy(), type(y.grad_fn).__name__))
        if fn != "rrelu":
            np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-6, err_msg=fn)
        assert outs[1][1] == outs[0][1], fn
    for fn in ("relu_", "selu_", "celu_", "threshold_", "rrelu_"):
        assert callable(getattr(facade, fn)) and hasattr(torch, fn)


FUNCS = ["relu", "relu6", "elu", "selu", "celu", "leaky_relu", "rrelu", "glu", "silu", "mish", "hardtanh",
         "hardsigmoid", "hardswish", "threshold", "softmax", "softmin", "log_softmax", "gumbel_softmax", "tanhshrink",
         "softsign", "sigmoid", "tanh"]


@pytest.mark.parametrize("name", FUNCS)
def test_functional_signature(name):
    t = getattr(torch.nn.functional, name)
    assert not inspect.isbuiltin(t)
    assert _params(getattr(facade.nn.functional, name)) == _params(t)
