"""OpInfo entries for the rest of torch.linalg and its torch-level forms (functional/factorizations.py):
LU, triangular and Cholesky solves, eig, Householder products, cond, tensorinv/tensorsolve,
vander, vecdot, and block_diag, cartesian_prod, cov, corrcoef, dist, trapezoid, renorm.

LU with partial pivoting is unique, so its factors are compared directly; eig is compared
through sign/phase-free functions of its outputs (`call=`).
"""

import functools

import numpy as np

from . import OpInfo, Sample, arr, register
from .linalg import spd, spectrum

F32, F64, I64, C64 = np.float32, np.float64, np.int64, np.complex64


def S(*args, **kwargs):
    return Sample(args, kwargs)


def _lu(a):
    """A well-conditioned square (batch of) matrix."""
    return a + 4 * np.eye(a.shape[-1], dtype=a.dtype)


def lu_samples(rng):
    r = functools.partial(arr, rng)
    return [S(_lu(r((4, 4)))), S(_lu(r((2, 3, 3), F64))), S(r((3, 5))), S(r((5, 3), F64)), S(r((0, 0))),
            S(r((3,)))]


def lu_solve_call(mod, A, B, **kwargs):
    LU, piv = mod.linalg.lu_factor(A)
    return mod.linalg.lu_solve(LU, piv, B, **kwargs)


def lu_solve_samples(rng):
    r = functools.partial(arr, rng)
    return [S(_lu(r((4, 4))), r((4, 2))), S(_lu(r((2, 3, 3), F64)), r((3, 1), F64), adjoint=True),
            S(_lu(r((3, 3))), r((2, 3)), left=False), S(_lu(r((3, 3))), r((2, 3)), left=False, adjoint=True)]


def legacy_lu_call(mod, A, B):
    LU, piv = A.lu()
    P, L, U = mod.lu_unpack(LU, piv)
    return mod.lu_solve(B, LU, piv), P.detach(), L, U, mod.lu(A, get_infos=True)[2]


def tri_samples(rng):
    r = functools.partial(arr, rng)
    t = _lu(r((3, 3)))
    return [S(t, r((3, 2)), upper=True), S(t, r((3, 2)), upper=False), S(t, r((2, 3)), upper=True, left=False),
            S(t, r((3, 2)), upper=False, unitriangular=True), S(_lu(r((2, 3, 3), F64)), r((3, 1), F64), upper=True)]


def triangular_solve_samples(rng):
    r = functools.partial(arr, rng)
    t = _lu(r((3, 3)))
    return [S(r((3, 2)), t), S(r((3, 2)), t, False), S(r((3, 2)), t, True, True), S(r((3, 2)), t, True, False, True),
            S(r((2, 3, 1), F64), _lu(r((3, 3), F64)))]


def chol_factor(rng, shape, dtype=F64, upper=False):
    L = np.linalg.cholesky(spd(rng, shape, dtype))
    return np.swapaxes(L, -1, -2).copy() if upper else L


def cholesky_solve_samples(rng):
    return [S(arr(rng, (3, 2), F64), chol_factor(rng, (3, 3))),
            S(arr(rng, (3, 2), F64), chol_factor(rng, (3, 3), upper=True), True),
            S(arr(rng, (2, 4, 1)), chol_factor(rng, (2, 4, 4), F32))]


def cholesky_inverse_samples(rng):
    return [S(chol_factor(rng, (3, 3))), S(chol_factor(rng, (4, 4), upper=True), True),
            S(chol_factor(rng, (2, 3, 3), F32))]


def eig_call(mod, A):
    w, V = mod.linalg.eig(A)
    # eigenvalues sorted by (real, imag); |V| columns are phase-free
    return w.real.sort().values, (w.real ** 2 + w.imag ** 2).sort().values, (V.abs() ** 2).sum(-2)


def eig_samples(rng):
    return [S(spectrum(rng, (3, 3), signs=True)), S(spectrum(rng, (2, 4, 4), F64, signs=True)),
            S(arr(rng, (3, 3)))]


def geqrf_call(mod, A):
    a, tau = mod.geqrf(A)
    return a.triu().abs(), mod.linalg.householder_product(a, tau).abs(), mod.orgqr(a, tau).abs()


def ormqr_samples(rng):
    """Any reflectors (a, tau) will do: ormqr applies them without asking where they came from."""
    r = functools.partial(arr, rng)
    return [S(r((4, 3)), r((3,)), r((4, 2))), S(r((4, 3)), r((3,)), r((2, 4)), left=False, transpose=True),
            S(r((2, 3, 3), F64), r((2, 3), F64), r((2, 3, 2), F64), transpose=True)]


def householder_samples(rng):
    r = functools.partial(arr, rng)
    return [S(r((4, 3)), r((3,))), S(r((3, 3), F64), r((2,), F64)), S(r((2, 4, 2)), r((2, 2)))]


def misc(*makers):
    return lambda rng: [S(*[m(rng) if callable(m) else m for m in mk]) for mk in makers]


def A(shape, dtype=F32, low=-3.0, high=3.0):
    return lambda rng: arr(rng, shape, dtype, low, high)


register(
    OpInfo("linalg.lu_factor", lu_samples, grad=False),
    OpInfo("linalg.lu_factor_ex", lu_samples, grad=False),
    OpInfo("linalg.lu", lu_samples, call=lambda mod, A: (lambda P, L, U: (P.detach(), L, U))(*mod.linalg.lu(A)),
           rtol=1e-4, atol=1e-5),
    OpInfo("linalg.lu_solve", lu_solve_samples, call=lu_solve_call, rtol=1e-4, atol=1e-5),
    OpInfo("lu_unpack[legacy]", lambda rng: [S(_lu(arr(rng, (3, 3))), arr(rng, (3, 2)))], call=legacy_lu_call,
           rtol=1e-4, atol=1e-5),
    OpInfo("linalg.solve_triangular", tri_samples, rtol=1e-4, atol=1e-5),
    OpInfo("triangular_solve", triangular_solve_samples, rtol=1e-4, atol=1e-5),
    OpInfo("cholesky_solve", cholesky_solve_samples, rtol=1e-4, atol=1e-5),
    OpInfo("cholesky_inverse", cholesky_inverse_samples, rtol=1e-4, atol=1e-5),
    OpInfo("linalg.eig[invariants]", eig_samples, call=eig_call, rtol=1e-4, atol=1e-5, grad=False),
    OpInfo("linalg.eigvals", lambda rng: [S(spectrum(rng, (3, 3), signs=True))],
           call=lambda mod, A: mod.linalg.eigvals(A).real.sort().values, rtol=1e-4, atol=1e-5),
    # grad=False: torch has no derivative for geqrf (tests/test_linalg_factor_grads.py checks its error)
    OpInfo("geqrf[householder_product]", lambda rng: [S(arr(rng, (4, 3))), S(arr(rng, (3, 3), F64))],
           call=geqrf_call, rtol=1e-4, atol=1e-5, grad=False),
    OpInfo("linalg.householder_product", householder_samples, rtol=1e-4, atol=1e-5),
    OpInfo("ormqr", ormqr_samples, rtol=1e-4, atol=1e-5),
    # grad=False: torch's own backward of cond (p != 2) fails ("modified by an inplace operation")
    OpInfo("linalg.cond", grad=False, samples=lambda rng: [
        S(_lu(arr(rng, (3, 3)))), S(_lu(arr(rng, (2, 3, 3), F64)), "fro"), S(_lu(arr(rng, (3, 3))), -2),
        S(_lu(arr(rng, (3, 3))), float("inf")), S(_lu(arr(rng, (3, 3))), 1), S(arr(rng, (3, 4)))],
           rtol=1e-4, atol=1e-5),
    OpInfo("linalg.tensorinv", lambda rng: [S(_lu(arr(rng, (6, 6))).reshape(6, 2, 3)),
                                            S(_lu(arr(rng, (4, 4))).reshape(2, 2, 4), 2)], rtol=1e-4, atol=1e-5),
    OpInfo("linalg.tensorsolve", lambda rng: [S(_lu(arr(rng, (6, 6))).reshape(2, 3, 6), arr(rng, (2, 3)))],
           rtol=1e-4, atol=1e-5),
    OpInfo("linalg.vander", lambda rng: [S(arr(rng, (4,))), S(arr(rng, (2, 3)), N=4), S(arr(rng, (3,), I64))],
           rtol=1e-4, atol=1e-5),
    OpInfo("vander", grad=False, samples=misc((A((4,)),), (A((3,)), 4, True), (A((3,), I64), 2), (A((2, 2)),)),
           rtol=1e-4, atol=1e-5),
    OpInfo("linalg.vecdot", misc((A((3, 4)), A((4,))), (A((2, 3)), A((2, 3)), ), (A((2, 3), C64), A((2, 3), C64)))),
    OpInfo("linalg.diagonal", misc((A((3, 4)),), (A((2, 3, 4)),)), call=lambda mod, x: mod.linalg.diagonal(
        x, offset=1, dim1=-1, dim2=0)),
    OpInfo("block_diag", misc((A((2, 2)), A((3,)), A(())), (A((2, 3)), A((1, 2), F64)), (A((2, 2)), A((2, 2, 2))))),
    OpInfo("cartesian_prod", misc((A((2,)), A((3,))), (A((3,)),), (A((2,)), A((2,)), A((2,))))),
    OpInfo("cov", misc((A((3, 5)),), (A((5,)),), (A((2, 4), F64),), (A((3, 5), I64),)), rtol=1e-4, atol=1e-5),
    OpInfo("corrcoef", misc((A((3, 5)),), (A((2, 6), F64),)), rtol=1e-4, atol=1e-5),
    OpInfo("trapezoid", misc((A((5,)),), (A((3, 4)), A((4,))), (A((3, 4)),), (A((3, 4), F64),))),
    OpInfo("trapz", misc((A((5,)),), (A((3, 4)), A((3, 4))))),
    OpInfo("cumulative_trapezoid", misc((A((5,)),), (A((3, 4)), A((4,))))),
    OpInfo("renorm", misc((A((3, 4)), 2, 0, 1.0), (A((2, 3, 2)), 1, 1, 2.0), (A((3, 4), F64), 3, -1, 0.5)),
           rtol=1e-4, atol=1e-5),
    OpInfo("tril_indices", misc((3, 3), (4, 3, 1), (3, 5, -1)), grad=False),
    OpInfo("triu_indices", misc((3, 3), (4, 3, 1), (3, 5, -1)), grad=False),
)
