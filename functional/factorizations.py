"""The rest of torch.linalg and its torch-level forms: LU (factor, unpack, solve), triangular
and Cholesky solves, the general eigendecomposition, Householder products (geqrf, orgqr,
ormqr), cond, tensorinv/tensorsolve, vander and vecdot; and the torch-level helpers built on
them (block_diag, cartesian_prod, cov, corrcoef, dist, trapezoid, tril/triu_indices, renorm).

Pivots are torch's (LAPACK's): int32, 1-based, row i swapped with row pivots[i] in turn.
Triangular solves read only the triangle torch reads, so gradients stay in it; the Cholesky solves'
gradient w.r.t. the factor is torch's, on the whole matrix. ormqr is jnp reflector updates, and
householder_product (LAPACK's orgqr through lax, which has no derivative rule) is differentiated
through the same updates, so their gradients are autodiff's; geqrf's backward raises, as torch's.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .linalg import _broadcast, _flat, _highest, _mH, _square, inv, matrix_norm, solve, svdvals, vector_norm
from .shape import _dim
from .sorting import _name

__all__ = [
    "lu_factor_ex", "lu_factor", "lu", "lu_unpack", "lu_solve", "lu_solve_legacy", "lu_legacy", "solve_triangular",
    "triangular_solve", "cholesky_solve", "cholesky_inverse", "eig", "eigvals", "householder_product", "geqrf",
    "ormqr", "cond", "tensorinv", "tensorsolve", "vander", "vander_legacy", "vecdot", "diagonal", "block_diag",
    "cartesian_prod", "cov", "corrcoef", "trapezoid", "cumulative_trapezoid", "tril_indices",
    "triu_indices", "renorm",
]


def _batched(A, B):
    """A and B broadcast over their batch dims (all but the last two)."""
    batch = _broadcast(A.shape[:-2], B.shape[:-2])
    return jnp.broadcast_to(A, batch + A.shape[-2:]), jnp.broadcast_to(B, batch + B.shape[-2:])


def _tri(A, upper, unit=False):
    T = jnp.triu(A) if upper else jnp.tril(A)
    if unit:
        n = min(A.shape[-2:])
        T = T * (1 - jnp.eye(*A.shape[-2:], dtype=A.dtype)) + jnp.eye(*A.shape[-2:], dtype=A.dtype) * (n > 0)
    return T


# ---------------------------------------------------------------------------- LU

@_highest
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info): P A = L U by partial pivoting, L (unit lower) and U packed in LU;
    info is 0 or the 1-based index of the first zero pivot."""
    if A.ndim < 2:
        raise RuntimeError("torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    k = min(A.shape[-2:])
    if k == 0:
        return A, jnp.zeros(A.shape[:-2] + (0,), jnp.int32), jnp.zeros(A.shape[:-2], jnp.int32)
    LU, piv, _ = lax.linalg.lu(A)
    zero = jnp.diagonal(lax.stop_gradient(LU), axis1=-2, axis2=-1) == 0
    info = jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)
    return LU, (piv + 1).astype(jnp.int32), info


def lu_factor(A, *, pivot=True):
    """(LU, pivots) of `lu_factor_ex`."""
    LU, piv, _ = lu_factor_ex(A, pivot=pivot)
    return LU, piv


def _perm(pivots, m):
    """The row permutation (perm[i] = source row) of LAPACK pivots over m rows."""
    perm = jnp.broadcast_to(jnp.arange(m), pivots.shape[:-1] + (m,))

    def swap(i, p):
        j = pivots[..., i].astype(jnp.int32) - 1
        a, b = p[..., i], jnp.take_along_axis(p, j[..., None], -1)[..., 0]
        p = p.at[..., i].set(b)
        return jnp.put_along_axis(p, j[..., None], a[..., None], -1, inplace=False)

    return lax.fori_loop(0, pivots.shape[-1], swap, perm) if pivots.shape[-1] else perm


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U from `lu_factor`'s packed LU and pivots; skipped parts are empty."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = jnp.zeros((0,), LU_data.dtype)
    if unpack_pivots:
        perm = _perm(LU_pivots, m)
        P = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=LU_data.dtype), -1, -2)
    else:
        P = empty
    if not unpack_data:
        return P, empty, empty
    L = _tri(LU_data[..., :, :k], False, unit=True)
    U = jnp.triu(LU_data[..., :k, :])
    return P, L, U


@_highest
def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U (torch.linalg.lu)."""
    LU, piv = lu_factor(A, pivot=pivot)
    return lu_unpack(LU, piv)


def _tri_solve(T, B, *, upper, left=True, unit=False, adjoint=False):
    """op(T) X = B (X op(T) = B when not left), op the conjugate transpose when `adjoint`."""
    T, B = _batched(T, B)
    return lax.linalg.triangular_solve(_tri(T, upper, unit), B, left_side=left, lower=not upper,
                                       transpose_a=adjoint, conjugate_a=adjoint, unit_diagonal=unit)


@_highest
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (X A = B when not left; A^H in place of A when adjoint), A = P L U given
    as `lu_factor`'s LU and pivots."""
    P = lu_unpack(LU, pivots, unpack_data=False)[0]
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _mH(lu_solve(LU, pivots, _mH(B), adjoint=not adjoint))
    if adjoint:  # U^H L^H P^T X = B
        Y = _tri_solve(LU, B, upper=True, adjoint=True)
        Y = _tri_solve(LU, Y, upper=False, unit=True, adjoint=True)
        return jnp.matmul(P, Y)
    Y = jnp.matmul(_mH(P), B)
    Y = _tri_solve(LU, Y, upper=False, unit=True)
    return _tri_solve(LU, Y, upper=True)


def lu_solve_legacy(b, LU_data, LU_pivots):
    """torch.lu_solve(b, LU_data, LU_pivots)."""
    return lu_solve(LU_data, LU_pivots, b)


def lu_legacy(A, pivot=True, get_infos=False):
    """torch.lu / Tensor.lu: (LU, pivots), plus infos when get_infos."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


# ---------------------------------------------------------------------------- triangular and Cholesky solves

@_highest
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B when not left) for triangular A, reading only its upper (lower) triangle."""
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_name(A.dtype)}'")
    return _tri_solve(A, B.astype(A.dtype), upper=upper, left=left, unit=unitriangular)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve: (X, A) with op(A) X = input, op the transpose when `transpose`."""
    if transpose:
        X = _tri_solve(jnp.swapaxes(A, -1, -2), input, upper=not upper, unit=unitriangular)
    else:
        X = _tri_solve(A, input, upper=upper, unit=unitriangular)
    return X, jnp.broadcast_to(A, X.shape[:-2] + A.shape[-2:])


def _cholesky_solve(B, L, upper):
    """A^-1 B for A = L L^H (U^H U): solved with the triangle of L that torch reads, but differentiated
    (to every order, by `custom_linear_solve`) through A built from the whole of L, as torch's gradient is."""
    B, L = _batched(B, L)

    def matvec(x):
        return jnp.matmul(_mH(L), jnp.matmul(L, x)) if upper else jnp.matmul(L, jnp.matmul(_mH(L), x))

    def solve(_, b):
        if upper:
            return _tri_solve(L, _tri_solve(L, b, upper=True, adjoint=True), upper=True)
        return _tri_solve(L, _tri_solve(L, b, upper=False), upper=False, adjoint=True)

    def transpose_solve(_, b):  # A^T = conj(A) for Hermitian A
        return jnp.conj(solve(None, jnp.conj(b)))

    return lax.custom_linear_solve(matvec, B, solve, transpose_solve)


def _lapack(A, kernel):
    """torch's error for a dtype its LAPACK `kernel` has no version of (integers, bool, half types)."""
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype.itemsize < 4:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(A.dtype)}'")


@_highest
def cholesky_solve(input, input2, upper=False):
    """X with A X = input for A = L L^H (U^H U when upper), given its Cholesky factor input2
    (only its lower (upper) triangle is read; the gradient w.r.t. it is torch's, on the whole matrix)."""
    for name, t in (("b", input), ("u", input2)):
        if t.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.ndim} dimensions instead")
    if input.dtype != input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_name(input.dtype)} and A "
                           f"of type {_name(input2.dtype)} instead.")
    if input2.shape[-1] != input2.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {input2.shape[-2]} by "
                           f"{input2.shape[-1]} matrices")
    if input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-2]} by "
                           f"{input2.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    _broadcast(input.shape[:-2], input2.shape[:-2])
    _lapack(input, "cholesky_solve_cpu")
    return _cholesky_solve(input, input2, upper)


def cholesky_inverse(input, upper=False):
    """The inverse of A = L L^H (U^H U when upper) from its Cholesky factor."""
    _square(input, "cholesky_inverse", floating=False)
    _lapack(input, "cholesky_inverse_out_cpu")
    eye = jnp.broadcast_to(jnp.eye(input.shape[-1], dtype=input.dtype), input.shape)
    return cholesky_solve(eye, input, upper)


# ---------------------------------------------------------------------------- eigen, Householder, misc

def eig(A):
    """(eigenvalues, eigenvectors) of a general square matrix, complex (unit-norm eigenvectors)."""
    _square(A, "linalg.eig", kernel="linalg_eig_out_cpu")
    w, v = jnp.linalg.eig(A)
    return w, v


def eigvals(A):
    """The complex eigenvalues of a general square matrix."""
    _square(A, "linalg.eigvals", kernel="linalg_eig_out_cpu")
    return jnp.linalg.eigvals(A)


def _householder_update(C, t, vw):
    """C - t vw, except where t == 0 and vw is not finite: LAPACK's dlarf skips a reflector with tau = 0, so
    0 * inf gives no NaN there. (A `where` on t would cut the derivative in t at t = 0.)"""
    return C - t * jnp.where((t != 0) | jnp.isfinite(vw), vw, 0)


def _reflect(A, tau, C, adjoint=False):
    """Q C (Q^H C when `adjoint`) for Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i column i of A
    below its diagonal with a 1 on it: k rank-one updates, one scan step each.
    A (..., m, >=k), tau (..., k), C (..., m, n).

    As LAPACK's dorm2r, H_i touches only rows i: of C, and none when tau_i = 0, so NaN and inf
    spread to torch's positions."""
    k = tau.shape[-1]
    batch = _broadcast(_broadcast(A.shape[:-2], tau.shape[:-1]), C.shape[:-2])
    C = jnp.broadcast_to(C, batch + C.shape[-2:])
    rows = jnp.arange(C.shape[-2])[:, None]

    def step(C, x):
        col, t, i = x
        v = jnp.where(rows[:, 0] > i, col, (rows[:, 0] == i).astype(col.dtype))  # (..., m)
        t = jnp.conj(t) if adjoint else t
        w = jnp.matmul(jnp.conj(v)[..., None, :], jnp.where(rows >= i, C, 0))  # (..., 1, n)
        return jnp.where(rows >= i, _householder_update(C, t[..., None, None], v[..., :, None] * w), C), None

    # Q C applies H_k first; Q^H C = H_k^H ... H_1^H C applies H_1^H first
    xs = (jnp.moveaxis(A[..., :k], -1, 0), jnp.moveaxis(tau, -1, 0), jnp.arange(k))
    return lax.scan(step, C, xs, reverse=not adjoint)[0] if k else C


@_highest
def householder_product(A, tau):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i below A's diagonal (torch.orgqr)."""
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    return _householder_product(A, tau)


@jax.custom_jvp
def _householder_product(A, tau):
    return lax.linalg.householder_product(A, tau)  # LAPACK's orgqr, as torch's: NaN and inf spread alike


# lax has no derivative for it: differentiate the same product built from jnp reflector updates
_householder_product.defjvp(lambda primals, tangents: (_householder_product(*primals), jax.jvp(
    lambda A, tau: _reflect(A, tau, jnp.eye(*A.shape[-2:], dtype=A.dtype)), primals, tangents)[1]))


@jax.custom_jvp
def _geqrf(input):
    h, tau = jnp.linalg.qr(input, mode="raw")  # numpy's raw mode: the reflectors transposed
    return jnp.swapaxes(h, -1, -2), tau


@_geqrf.defjvp
def _geqrf_jvp(primals, tangents):
    # torch records geqrf in the graph but has no derivative for it
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


@_highest
def geqrf(input):
    """(a, tau): LAPACK's QR in Householder form (R above the diagonal, reflectors below); not differentiable."""
    return _geqrf(input)


def _ormqr_check(input, tau, other, left):
    """torch.ormqr's argument checks, in its order."""
    def need(ok, msg):
        if not ok:
            raise RuntimeError(f"torch.ormqr: {msg}")

    need(input.ndim >= 2, "input must have at least 2 dimensions.")
    need(other.ndim >= 2, "other must have at least 2 dimensions.")
    side = -2 if left else -1
    need(other.shape[side] == input.shape[-2], f"other.shape[{side}] must be equal to input.shape[-2]")
    need(tau.shape[-1:] == (min(other.shape[side], input.shape[-1]),),
         f"tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    need(input.ndim - tau.ndim == 1, "Expected tau to have one dimension less than input, but got tau.ndim equal "
         f"to {tau.ndim} and input.ndim is equal to {input.ndim}")
    need(input.ndim == other.ndim, "Expected other to have the same number of dimensions as input, but got "
         f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}")
    for name, batch in (("tau", tau.shape[:-1]), ("other", other.shape[:-2])):
        need(batch == input.shape[:-2], f"Expected batch dimensions of {name} to be equal to input.shape[:-2], but "
             f"got {list(batch)}")
    for name, t in (("tau", tau), ("other", other)):
        need(t.dtype == input.dtype, f"Expected input and {name} to have the same dtype, but input has dtype"
             f"{_name(input.dtype)} and {name} has dtype {_name(t.dtype)}")
    _lapack(input, "ormqr_cpu")


@_highest
def ormqr(input, input2, input3, left=True, transpose=False):
    """op(Q) @ input3 (input3 @ op(Q) when not left) for the full square Q = H_1 ... H_k of the
    reflectors in (input, input2), as `householder_product`; op the conjugate transpose when `transpose`."""
    _ormqr_check(input, input2, input3, left)
    if left:
        return _reflect(input, input2, input3, adjoint=transpose)
    return _mH(_reflect(input, input2, _mH(input3), adjoint=not transpose))  # C Q = (Q^H C^H)^H


@_highest
def cond(A, p=None):
    """The condition number of A in the norm p: smax / smin for p None or 2 (smin / smax for -2),
    else norm(A, p) * norm(inv(A), p)."""
    if p in (None, 2, -2):
        S = svdvals(A)
        r = S[..., 0] / S[..., -1]
        return r if p != -2 else 1 / r
    _square(A, "linalg.cond")
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def tensorinv(A, ind=2):
    """The tensor X with tensordot(A, X, ind) the identity: A reshaped to (prod(shape[:ind]), rest), inverted."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out, inner = A.shape[:ind], A.shape[ind:]
    return inv(A.reshape(math.prod(out), math.prod(inner))).reshape(inner + out)


def tensorsolve(A, B, dims=None):
    """The X with tensordot(A, X, X.ndim) = B (A's dims `dims` moved to the end first)."""
    if dims is not None:
        dims = [_dim(d, A.ndim) for d in dims]
        A = jnp.moveaxis(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    rest = A.shape[B.ndim:]
    n = math.prod(rest)
    return solve(A.reshape(-1, n), B.reshape(-1)).reshape(rest)


def vander(x, *, N=None):
    """linalg.vander: (..., n) -> (..., n, N) with columns x^0, x^1, ..., x^(N-1)."""
    N = x.shape[-1] if N is None else N
    if N <= 1:
        if N < 1:
            raise RuntimeError("N must be greater than 1.")
    return jnp.cumprod(jnp.concatenate([jnp.ones_like(x)[..., None], jnp.broadcast_to(
        x[..., None], x.shape + (N - 1,))], -1), -1)


def vander_legacy(x, N=None, increasing=False):
    """torch.vander: 1-D x -> (n, N) powers x^(N-1) ... x^0 (increasing=False) or reversed."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    N = x.shape[0] if N is None else N
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    V = vander(x.astype(jnp.int64) if x.dtype == jnp.bool_ else x, N=N) if N else jnp.zeros((x.shape[0], 0), x.dtype)
    return V if increasing else V[..., ::-1]


def vecdot(x, y, *, dim=-1):
    """sum(conj(x) * y) over `dim`, broadcast."""
    return jnp.sum(jnp.conj(x) * y, _dim(dim, max(x.ndim, y.ndim)) - max(x.ndim, y.ndim))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """linalg.diagonal: the diagonal of A's (dim1, dim2) matrices, as its last dim."""
    return jnp.diagonal(A, offset, _dim(dim1, A.ndim), _dim(dim2, A.ndim))


# ---------------------------------------------------------------------------- torch-level helpers

def block_diag(*tensors):
    """The block-diagonal matrix of 0-, 1- (a row) and 2-D tensors, in their promoted dtype."""
    tensors = _flat(tensors)
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not mats:
        return jnp.zeros((1, 0), jnp.float32)
    dtype = jnp.result_type(*mats)
    rows = sum(m.shape[0] for m in mats)
    out, r, c = jnp.zeros((rows, sum(m.shape[1] for m in mats)), dtype), 0, 0
    for m in mats:
        out = out.at[r:r + m.shape[0], c:c + m.shape[1]].set(m.astype(dtype))
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def cartesian_prod(*tensors):
    """All tuples of elements of 1-D tensors, as rows (a single tensor is returned as is)."""
    tensors = _flat(tensors)
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = jnp.meshgrid(*tensors, indexing="ij")
    return jnp.stack([g.reshape(-1) for g in grids], 1)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) of input (observations in columns), weighted by
    fweights/aweights, with `correction` (1: unbiased)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float32)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = jnp.mean(x, 1)
        wsum = jnp.asarray(n, x.dtype)
        norm = wsum - correction
    else:
        w = w.astype(x.dtype)
        wsum = jnp.sum(w)
        avg = jnp.sum(x * w, 1) / wsum
        norm = wsum - (correction * jnp.sum(w * aweights) / wsum if aweights is not None and correction else
                       correction)
    norm = jnp.maximum(norm, 0)
    xc = x - avg[:, None]
    c = jnp.matmul(xc * (1 if w is None else w), jnp.conj(xc).T) / norm
    return c.reshape(()) if input.ndim < 2 else c


def corrcoef(input):
    """Pearson correlation coefficients of the rows of input (clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = jnp.sqrt(jnp.real(jnp.diagonal(c)))
    c = c / d[:, None] / d[None, :]
    return jnp.clip(c.real, -1, 1) if not jnp.iscomplexobj(c) else c


def _trapezoid_dx(y, x, dx, dim):
    d = _dim(dim, y.ndim)
    if x is None:
        return d, jnp.asarray(dx, y.dtype)
    if x.ndim == 1:
        diff = jnp.diff(x)
        return d, diff.reshape((-1,) + (1,) * (y.ndim - d - 1))
    return d, jnp.diff(x, axis=_dim(dim, x.ndim))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid-rule integral of y along `dim`, samples at x (or spaced dx, default 1)."""
    d, h = _trapezoid_dx(y, x, 1 if dx is None else dx, dim)
    if y.shape[d] == 0:
        return jnp.sum(y, d)
    lo, hi = lax.slice_in_dim(y, 0, y.shape[d] - 1, axis=d), lax.slice_in_dim(y, 1, y.shape[d], axis=d)
    return jnp.sum((lo + hi) * h, d) / 2


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral of y along `dim` (one element shorter)."""
    d, h = _trapezoid_dx(y, x, 1 if dx is None else dx, dim)
    lo, hi = lax.slice_in_dim(y, 0, max(y.shape[d] - 1, 0), axis=d), lax.slice_in_dim(y, 1, y.shape[d], axis=d)
    return jnp.cumsum((lo + hi) * h / 2, d)


def _tri_indices(row, col, offset, upper):
    rr, cc = np.meshgrid(np.arange(row), np.arange(col), indexing="ij")
    k = (cc - rr >= offset) if upper else (cc - rr <= offset)
    return jnp.asarray(np.stack([rr[k], cc[k]]))


def tril_indices(row, col, offset=0):
    """The (2, N) row/column indices of the lower triangle of a row x col matrix."""
    return _tri_indices(row, col, offset, False)


def triu_indices(row, col, offset=0):
    """The (2, N) row/column indices of the upper triangle of a row x col matrix."""
    return _tri_indices(row, col, offset, True)


def renorm(input, p, dim, maxnorm):
    """Each slice along `dim` rescaled to p-norm at most maxnorm."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    d = _dim(dim, input.ndim)
    axes = tuple(i for i in range(input.ndim) if i != d)
    norms = vector_norm(input, p, axes, keepdim=True)
    scale = jnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return (input * scale).astype(input.dtype)
