"""torch.autograd.forward_ad against real torch: tangents of chains of ordinary ops, levels, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import facade
from tests._compare import host

X = [[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]]
T = [[1.0, 0.5, -2.0], [0.1, 0.0, 3.0]]

CHAINS = {
    "pointwise": lambda L, x: (x.sin() * 2 + x.exp() / (x * x + 1)).tanh(),
    "reduce": lambda L, x: x.softmax(-1).log().sum(0),
    "matmul": lambda L, x: x @ x.T + L.nn.functional.gelu(x).mean(),
    "views": lambda L, x: x.T[1:].reshape(-1).cumsum(0) * x[0, 0],
    "nn": lambda L, x: L.nn.functional.layer_norm(x, (3,)).relu().pow(2),
    "int_cast_then_float": lambda L, x: x * (x > 0).float(),
    "two_outputs": lambda L, x: L.max(x, 1).values,
}


def _tangent(lib, chain, dtype):
    fw = lib.autograd.forward_ad
    x = lib.tensor(X, dtype=getattr(lib, dtype))
    with fw.dual_level():
        y = CHAINS[chain](lib, fw.make_dual(x, lib.tensor(T, dtype=getattr(lib, dtype))))
        primal, tangent = fw.unpack_dual(y)
        return host(primal), host(tangent)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("chain", list(CHAINS))
def test_tangents_match_torch(chain, dtype):
    (fp, ft), (tp, tt) = _tangent(facade, chain, dtype), _tangent(torch, chain, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(fp, tp, rtol=tol, atol=tol)
    np.testing.assert_allclose(ft, tt, rtol=tol, atol=tol)


def _levels(lib):
    fw = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0])
    out = []
    with fw.dual_level() as level:
        out.append(level)
        d = fw.make_dual(x, lib.ones(2))
        out.append(d._base is x)
        u = fw.unpack_dual(d * 3)
        out += [type(u).__name__, u._fields, u.tangent.tolist(), fw.unpack_dual(x).tangent]
        out.append(fw.unpack_dual(d.long()).tangent)
        y = d.exp()
    out.append(fw.unpack_dual(y).tangent)  # gone with the level
    return out


def test_levels_and_unpack_like_torch():
    assert _levels(facade) == _levels(torch)


def _error(lib, fn):
    fw = lib.autograd.forward_ad
    try:
        fn(lib, fw)
    except Exception as e:
        return type(e), str(e)
    return None


def _in_level(fn):
    def run(lib, fw):
        with fw.dual_level():
            fn(lib, fw)

    return run


ERRORS = {
    "no_level": lambda L, fw: fw.make_dual(L.ones(2), L.ones(2)),
    "size": _in_level(lambda L, fw: fw.make_dual(L.ones(3), L.ones(2))),
    "int_primal": _in_level(lambda L, fw: fw.make_dual(L.arange(3), L.ones(3))),
    "int_tangent": _in_level(lambda L, fw: fw.make_dual(L.ones(3), L.arange(3))),
    "nested": _in_level(lambda L, fw: fw.enter_dual_level()),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    expected = _error(torch, ERRORS[case])
    assert expected is not None
    assert _error(facade, ERRORS[case]) == expected


def test_forward_and_reverse_agree():
    """jvp with a one-hot tangent gives the same Jacobian column as reverse mode."""
    fw = facade.autograd.forward_ad
    x = facade.tensor(X, dtype=facade.float64, requires_grad=True)
    y = CHAINS["nn"](facade, x).sum()
    (g,) = facade.autograd.grad(y, x)
    with fw.dual_level():
        for k in range(6):
            t = np.zeros(6)
            t[k] = 1
            d = fw.make_dual(x.detach(), facade.tensor(t.reshape(2, 3)))
            assert abs(fw.unpack_dual(CHAINS["nn"](facade, d).sum()).tangent.item() - g.flatten()[k].item()) < 1e-12
