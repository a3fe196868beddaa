"""Gradients of the factorization helpers against real torch: cholesky_solve / cholesky_inverse
(torch differentiates through the whole factor, not only the triangle it reads), householder_product /
orgqr and ormqr (differentiable, reading only below the diagonal), and geqrf (recorded, but its
backward raises). Values, gradients, double gradients, forward-mode tangents and bad-input errors."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfwd

import facade
import facade.autograd.forward_ad as ffwd

from ._compare import host

F32, F64, C128 = np.float32, np.float64, np.complex128
TOL = {F32: (1e-4, 1e-5), F64: (1e-9, 1e-11), C128: (1e-9, 1e-11)}


def rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def factor(rng, shape, dtype, upper):
    """A Cholesky factor of a well-conditioned positive-definite (batch of) matrix."""
    m = rand(rng, shape, dtype)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + 3 * np.eye(shape[-1])
    lo = np.linalg.cholesky(a).astype(dtype)
    return np.ascontiguousarray(np.conj(np.swapaxes(lo, -1, -2))) if upper else lo


def close(t, f, dtype, what, scale=1.0):
    rtol, atol = TOL[dtype]
    a, b = host(t), host(f)
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {b.dtype}{b.shape} vs torch {a.dtype}{a.shape}"
    np.testing.assert_allclose(b, a, rtol=rtol * scale, atol=atol * scale, err_msg=what)


def run(fn, arrays, dtype, rng, gradgrad=False):
    """fn(mod, *tensors) on torch and on facade: value, gradient for a random cotangent, and (gradgrad)
    the gradient of the gradients' squared norm, all compared with torch's."""
    res = []
    for mod in (torch, facade):
        leaves = [mod.tensor(a, requires_grad=True) for a in arrays]
        out = fn(mod, *leaves)
        res.append((mod, leaves, out))
    cot = rand(rng, tuple(res[0][2].shape), dtype)
    grads = []
    for mod, leaves, out in res:
        g = mod.autograd.grad(out, leaves, mod.tensor(cot), create_graph=gradgrad)
        grads.append(g)
    (_, _, out_t), (_, _, out_f) = res
    assert type(out_f.grad_fn).__name__ == type(out_t.grad_fn).__name__
    close(out_t, out_f, dtype, "value")
    for i, (a, b) in enumerate(zip(*grads)):
        close(a, b, dtype, f"grad[{i}]")
    if gradgrad:
        gg = [mod.autograd.grad(sum((x.abs() ** 2).sum() for x in g), leaves)
              for (mod, leaves, _), g in zip(res, grads)]
        for i, (a, b) in enumerate(zip(*gg)):
            close(a, b, dtype, f"gradgrad[{i}]", scale=10)


# ---------------------------------------------------------------------------- Cholesky solves

CHOL = [(F32, False), (F32, True), (F64, False), (F64, True), (C128, False), (C128, True)]


@pytest.mark.parametrize("dtype,upper", CHOL)
def test_cholesky_solve(dtype, upper):
    rng = np.random.default_rng(0)
    L, B = factor(rng, (2, 3, 3), dtype, upper), rand(rng, (3, 2), dtype)  # B broadcast over L's batch
    run(lambda m, B, L: m.cholesky_solve(B, L, upper), [B, L], dtype, rng, gradgrad=dtype != F32)


@pytest.mark.parametrize("dtype,upper", CHOL)
def test_cholesky_inverse(dtype, upper):
    rng = np.random.default_rng(1)
    L = factor(rng, (2, 4, 4), dtype, upper)
    run(lambda m, L: m.cholesky_inverse(L, upper), [L], dtype, rng, gradgrad=dtype != F32)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_factor_not_triangular(upper):
    """The triangle torch does not read changes neither the value nor the gradient's formula."""
    rng = np.random.default_rng(2)
    unread = np.tril(rand(rng, (3, 3), F64), -1) if upper else np.triu(rand(rng, (3, 3), F64), 1)
    L = factor(rng, (3, 3), F64, upper) + unread
    B = rand(rng, (2, 3, 2), F64)
    run(lambda m, B, L: m.cholesky_solve(B, L, upper), [B, L], F64, rng, gradgrad=True)
    run(lambda m, L: m.cholesky_inverse(L, upper), [L], F64, rng)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_forward_ad(upper):
    rng = np.random.default_rng(3)
    L, B, dL, dB = factor(rng, (3, 3), F64, upper), rand(rng, (3, 2), F64), rand(rng, (3, 3), F64), \
        rand(rng, (3, 2), F64)
    tangents = []
    for mod, fwd in ((torch, tfwd), (facade, ffwd)):
        with fwd.dual_level():
            out = mod.cholesky_solve(fwd.make_dual(mod.tensor(B), mod.tensor(dB)),
                                     fwd.make_dual(mod.tensor(L), mod.tensor(dL)), upper)
            tangents.append(fwd.unpack_dual(out).tangent)
    close(*tangents, F64, "tangent")


def test_cholesky_inverse_forward_ad_is_the_transpose_of_torchs_backward():
    """torch's own forward-mode formula for cholesky_inverse disagrees with its backward (and with finite
    differences on the whole factor); facade's tangent T is the one with <G, J T> = <J^T G, T>, J^T torch's."""
    rng = np.random.default_rng(4)
    L, T, G = factor(rng, (3, 3), F64, False), rand(rng, (3, 3), F64), rand(rng, (3, 3), F64)
    Lt = torch.tensor(L, requires_grad=True)
    back = torch.autograd.grad(torch.cholesky_inverse(Lt), Lt, torch.tensor(G))[0].numpy()
    with ffwd.dual_level():
        tangent = host(ffwd.unpack_dual(facade.cholesky_inverse(ffwd.make_dual(facade.tensor(L),
                                                                               facade.tensor(T)))).tangent)
    np.testing.assert_allclose(np.sum(G * tangent), np.sum(back * T), rtol=1e-10)


# ---------------------------------------------------------------------------- Householder products

def reflectors(rng, shape, dtype, k=None):
    """geqrf's (a, tau) of a random matrix (torch's: its last tau is 0 for a square one), tau cut to k."""
    a, tau = torch.geqrf(torch.tensor(rand(rng, shape, dtype)))
    return a.numpy(), tau.numpy()[..., :k]


@pytest.mark.parametrize("dtype", [F32, F64, C128])
@pytest.mark.parametrize("shape,k", [((5, 3), None), ((2, 4, 4), None), ((2, 5, 3), 2)])
def test_householder_product(dtype, shape, k):
    rng = np.random.default_rng(5)
    a, tau = reflectors(rng, shape, dtype, k)
    run(lambda m, a, tau: m.linalg.householder_product(a, tau), [a, tau], dtype, rng, gradgrad=dtype == F64)


def test_orgqr_is_householder_product():
    rng = np.random.default_rng(6)
    a, tau = reflectors(rng, (2, 4, 3), F64)
    run(lambda m, a, tau: m.orgqr(a, tau), [a, tau], F64, rng)
    run(lambda m, a, tau: a.orgqr(tau), [a, tau], F64, rng)


def test_householder_product_forward_ad():
    rng = np.random.default_rng(7)
    (a, tau), da, dtau = reflectors(rng, (4, 3), F64), rand(rng, (4, 3), F64), rand(rng, (3,), F64)
    tangents = []
    for mod, fwd in ((torch, tfwd), (facade, ffwd)):
        with fwd.dual_level():
            out = mod.linalg.householder_product(fwd.make_dual(mod.tensor(a), mod.tensor(da)),
                                                 fwd.make_dual(mod.tensor(tau), mod.tensor(dtau)))
            tangents.append(fwd.unpack_dual(out).tangent)
    close(*tangents, F64, "tangent")


@pytest.mark.parametrize("dtype", [F32, F64, C128])
@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr(dtype, left, transpose):
    rng = np.random.default_rng(8)
    a, tau = reflectors(rng, (2, 5, 3), dtype)
    C = rand(rng, (2, 5, 4) if left else (2, 4, 5), dtype)
    run(lambda m, a, tau, C: m.ormqr(a, tau, C, left, transpose), [a, tau, C], dtype, rng)


def test_ormqr_method_and_keywords():
    rng = np.random.default_rng(9)
    a, tau = reflectors(rng, (4, 4), F64)
    C = rand(rng, (3, 4), F64)
    run(lambda m, a, tau, C: a.ormqr(tau, C, left=False, transpose=True), [a, tau, C], F64, rng)


# ---------------------------------------------------------------------------- geqrf

def test_geqrf_records_a_node_whose_backward_raises():
    A = np.random.default_rng(10).standard_normal((4, 3))
    for pick in (lambda r: r.a, lambda r: r.tau, lambda r: r[0] + r[1].sum()):
        errors = []
        for mod in (torch, facade):
            r = mod.geqrf(mod.tensor(A, requires_grad=True))
            assert type(r.a.grad_fn).__name__ == type(r.tau.grad_fn).__name__ == "GeqrfBackward0"
            with pytest.raises(NotImplementedError) as e:
                pick(r).sum().backward()
            errors.append(str(e.value))
        assert errors[0] == errors[1]


def test_geqrf_forward_ad_raises():
    A, T = np.eye(3), np.ones((3, 3))
    for mod, fwd in ((torch, tfwd), (facade, ffwd)):
        with fwd.dual_level(), pytest.raises(NotImplementedError, match="geqrf"):
            fwd.unpack_dual(mod.geqrf(fwd.make_dual(mod.tensor(A), mod.tensor(T))).a).tangent.sum().item()


def test_geqrf_without_grad_has_no_node():
    r = facade.geqrf(facade.ones(3, 2))
    assert r.a.grad_fn is None and not r.tau.requires_grad


# ---------------------------------------------------------------------------- bad input

def _t(mod, *shape, dtype="float32"):
    return mod.tensor(np.ones(shape, dtype))


BAD = {
    "cholesky_solve b 1-D": lambda m: m.cholesky_solve(_t(m, 3), _t(m, 3, 3)),
    "cholesky_solve A 1-D": lambda m: m.cholesky_solve(_t(m, 3, 2), _t(m, 3)),
    "cholesky_solve dtypes": lambda m: m.cholesky_solve(_t(m, 3, 2, dtype="float64"), _t(m, 3, 4)),
    "cholesky_solve not square": lambda m: m.cholesky_solve(_t(m, 3, 2), _t(m, 3, 4)),
    "cholesky_solve sizes": lambda m: m.cholesky_solve(_t(m, 3, 2), _t(m, 2, 2)),
    "cholesky_solve batch": lambda m: m.cholesky_solve(_t(m, 2, 3, 2), _t(m, 3, 3, 3)),
    "cholesky_solve long": lambda m: m.cholesky_solve(_t(m, 3, 2, dtype="int64"), _t(m, 3, 3, dtype="int64")),
    "cholesky_solve half": lambda m: m.cholesky_solve(_t(m, 3, 2, dtype="float16"), _t(m, 3, 3, dtype="float16")),
    "cholesky_inverse 1-D": lambda m: m.cholesky_inverse(_t(m, 3)),
    "cholesky_inverse not square": lambda m: m.cholesky_inverse(_t(m, 3, 2)),
    "cholesky_inverse long": lambda m: m.cholesky_inverse(_t(m, 3, 3, dtype="int64")),
    "ormqr input 1-D": lambda m: m.ormqr(_t(m, 4), _t(m, 3), _t(m, 4, 2)),
    "ormqr other 1-D": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 3), _t(m, 4)),
    "ormqr rows": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 2), _t(m, 3, 2)),
    "ormqr right cols": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 3), _t(m, 2, 3), left=False),
    "ormqr tau size": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 2), _t(m, 4, 2)),
    "ormqr right tau size": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 2), _t(m, 2, 4), left=False),
    "ormqr tau ndim": lambda m: m.ormqr(_t(m, 2, 4, 3), _t(m, 3), _t(m, 2, 4, 2)),
    "ormqr other ndim": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 3), _t(m, 2, 4, 2)),
    "ormqr tau batch": lambda m: m.ormqr(_t(m, 2, 4, 3), _t(m, 3, 3), _t(m, 2, 4, 2)),
    "ormqr other batch": lambda m: m.ormqr(_t(m, 2, 4, 3), _t(m, 2, 3), _t(m, 3, 4, 2)),
    "ormqr tau dtype": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 3, dtype="float64"), _t(m, 4, 2)),
    "ormqr other dtype": lambda m: m.ormqr(_t(m, 4, 3), _t(m, 3), _t(m, 4, 2, dtype="float64")),
    "ormqr long": lambda m: m.ormqr(_t(m, 4, 3, dtype="int64"), _t(m, 3, dtype="int64"), _t(m, 4, 2, dtype="int64")),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input(name):
    with pytest.raises(Exception) as expected:
        BAD[name](torch)
    with pytest.raises(type(expected.value)) as got:
        BAD[name](facade)
    assert str(got.value) == str(expected.value)
