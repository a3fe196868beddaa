"""OpInfo entries for linear algebra: products, norms, decompositions and solvers.

Decompositions are unique only up to the signs of singular/eigen vectors, so their values are
compared through invariants (`compare=`) and their gradients through sign-invariant functions
of the outputs (`call=`); samples have well-separated singular values / eigenvalues.
"""

import functools
import math

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64 = np.float32, np.float64


def S(*args, **kwargs):
    return Sample(args, kwargs)


def T(rng, shape=(4, 3), dtype=F32):
    """A non-contiguous (transposed) view of the given shape."""
    return Arg(arr(rng, shape, dtype), transpose=True)


def spectrum(rng, shape, dtype=F64, low=0.5, high=3.0, signs=False):
    """Matrices U diag(s) V^T with well-separated singular values in [low, high] (negated at
    random with `signs`: then U = V and the eigenvalues are s)."""
    *batch, m, n = shape
    k = min(m, n)
    out = np.empty(shape)
    for idx in np.ndindex(*batch):
        u = np.linalg.qr(rng.standard_normal((m, m)))[0]
        v = u if signs else np.linalg.qr(rng.standard_normal((n, n)))[0]
        s = np.linspace(high, low, k) * (rng.choice([-1, 1], k) if signs else 1)
        out[idx] = (u[:, :k] * s) @ v[:, :k].T
    return out.astype(dtype)


def symmetric(rng, shape, dtype=F64):
    """Symmetric matrices with distinct eigenvalues of both signs."""
    return spectrum(rng, shape, dtype, signs=True)


def spd(rng, shape, dtype=F64):
    """Symmetric positive-definite matrices (eigenvalues in [0.5, 3])."""
    *batch, n, _ = shape
    out = np.empty(shape)
    for idx in np.ndindex(*batch):
        u = np.linalg.qr(rng.standard_normal((n, n)))[0]
        out[idx] = (u * np.linspace(3.0, 0.5, n)) @ u.T
    return out.astype(dtype)


def junk_upper(rng, a):
    """`a` with its strict upper triangle replaced by noise: torch reads only the lower one."""
    return (np.tril(a) + np.triu(arr(rng, a.shape, a.dtype), 1)).astype(a.dtype)


# ---------------------------------------------------------------------------- products

def matmul_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((4,)), r((4,))), S(r((3,)), r((3, 5))), S(r((2, 3)), r((3,))),
        S(r((2, 3)), r((3, 4))), S(r((2, 2, 3)), r((3, 4))),
        S(r((2, 2, 3)), r((3,))), S(r((3,)), r((2, 3, 4))),
        S(r((2, 3)), r((2, 3, 4))), S(r((2, 1, 2, 3), F64), r((3, 3, 2), F64)),
        S(r((0, 2, 3)), r((3, 4))), S(r((2, 0)), r((0, 5))),
        S(r((3, 4), np.int64), r((4, 2), np.int64)), S(r((2, 3), np.int32), r((3,), np.int32)),
        S(r((3, 4), np.float16), r((4, 5), np.float16)),
        S(r((2, 3, 4), np.float16), r((2, 4, 5), np.float16)),
        S(T(rng, (4, 3)), T(rng, (3, 5))), S(T(rng, (3, 4)), r((4,))),
        S(r((2, 3)), r((4, 5))), S(r((3,)), r((4,))), S(r(()), r((3,))),
        S(r((2, 2, 3)), r((3, 3, 4))), S(r((2, 3)), r((3, 4), F64)),
        S(r((2, 3), np.bool_), r((3, 2), np.bool_)), S(r((2, 2, 3)), r((4,))),
    ]


def mm_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3)), r((3, 4))), S(r((4, 4), F64), r((4, 1), F64)),
        S(r((0, 3)), r((3, 2))), S(r((2, 0)), r((0, 2))),
        S(r((2, 3), np.int64), r((3, 2), np.int64)), S(r((2, 3), np.uint8), r((3, 2), np.uint8)),
        S(r((2, 3), np.float16), r((3, 2), np.float16)), S(T(rng), T(rng, (3, 5))),
        S(r((2, 3)), mat2=r((3, 2))),
        S(r((2, 3)), r((4, 2))), S(r((2, 3)), r((3, 2), F64)), S(r((3,)), r((3, 2))),
        S(r((2, 3)), r((3,))), S(r((2, 3), np.bool_), r((3, 2), np.bool_)),
    ]


def bmm_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 2, 3)), r((2, 3, 4))), S(r((1, 3, 3), F64), r((1, 3, 1), F64)),
        S(r((0, 2, 3)), r((0, 3, 2))), S(r((2, 2, 3), np.int64), r((2, 3, 2), np.int64)),
        S(r((2, 2, 3), np.float16), r((2, 3, 2), np.float16)),
        S(Arg(r((2, 3, 2)), transpose=True), r((2, 3, 4))),
        S(r((2, 2, 3)), r((3, 3, 4))), S(r((2, 2, 3)), r((2, 4, 4))),
        S(r((2, 3)), r((3, 4))), S(r((2, 2, 3)), r((2, 3, 4), F64)),
        S(r((1, 2, 3), np.bool_), r((1, 3, 2), np.bool_)),
    ]


def mv_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3)), r((3,))), S(r((4, 4), F64), r((4,), F64)),
        S(r((0, 3)), r((3,))), S(r((2, 3), np.int64), r((3,), np.int64)),
        S(T(rng), r((3,))), S(r((2, 3)), r((4,))), S(r((2, 3)), r((3, 1))),
        S(r((2, 3)), r((3,), F64)),
    ]


def dot_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((5,)), r((5,))), S(r((3,), F64), r((3,), F64)), S(r((0,)), r((0,))),
        S(r((4,), np.int64), r((4,), np.int64)), S(r((4,), np.complex64), r((4,), np.complex64)),
        S(r((3,)), r((4,))), S(r((3,)), r((3,), F64)), S(r((3, 1)), r((3,))),
        S(r((3,), np.bool_), r((3,), np.bool_)),
    ]


def inner_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((3,)), r((3,))), S(r((2, 3)), r((4, 3))), S(r((2, 2, 3), F64), r((3,), F64)),
        S(r(()), r((2, 3))), S(r((2,)), r((), F64)), S(r(()), r((2,), np.int64)),
        S(r((2, 3), np.int64), r((3,), np.int64)), S(T(rng), r((2, 3))),
        S(r((3,)), r((4,))), S(r((2, 3)), r((3,), F64)),
    ]


def outer_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((3,)), r((4,))), S(r((3,), F64), r((2,), F32)), S(r((0,)), r((2,))),
        S(r((3,), np.int64), r((2,))), S(r((3,), np.bool_), r((2,), np.bool_)),
        S(r((3,), np.float16), r((2,))), S(r((2, 2)), r((3,))), S(r((2,)), r(())),
    ]


def addmm_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 4)), r((2, 3)), r((3, 4))), S(r((4,)), r((2, 3)), r((3, 4))),
        S(r((2, 1), F64), r((2, 3), F64), r((3, 4), F64), beta=0.5, alpha=2.0),
        S(np.full((2, 4), np.nan, F32), r((2, 3)), r((3, 4)), beta=0),
        S(r((2, 4), np.int64), r((2, 3), np.int64), r((3, 4), np.int64), beta=0.7, alpha=2.5),
        S(r((2, 4), np.float16), r((2, 3), np.float16), r((3, 4), np.float16), alpha=0.5),
        S(r(()), T(rng, (2, 3)), T(rng, (3, 4)), beta=-1),
        S(r((3, 4)), r((2, 3)), r((3, 4))), S(r((2, 4)), r((2, 3)), r((4, 4))),
        S(r((2, 4), F64), r((2, 3)), r((3, 4))), S(r((2, 4)), r((2, 3, 1)), r((3, 4))),
    ]


def addmv_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2,)), r((2, 3)), r((3,))), S(r(()), r((2, 3)), r((3,)), beta=2.0),
        S(r((1,), F64), r((2, 3), F64), r((3,), F64), beta=0.5, alpha=-1.5),
        S(np.full((2,), np.nan, F32), r((2, 3)), r((3,)), beta=0.0),
        S(r((2,), np.int64), r((2, 3), np.int64), r((3,), np.int64), beta=2.7),
        S(r((3,)), T(rng), r((3,))),
        S(r((2,)), r((2, 3)), r((4,))), S(r((2,), F64), r((2, 3)), r((3,))),
    ]


def addr_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3)), r((2,)), r((3,))), S(r(()), r((2,)), r((3,)), alpha=2),
        # mixed dtypes promote; torch's own backward fails for them, so no gradients here
        S(Arg(r((2, 3), F64), grad=False), Arg(r((2,)), grad=False), Arg(r((3,)), grad=False), beta=0.5, alpha=-1.0),
        S(Arg(r((2, 3)), grad=False), r((2,), np.int64), Arg(r((3,)), grad=False)),
        S(r((2, 3), np.int64), r((2,), np.int64), r((3,), np.int64), beta=2, alpha=3),
        S(r((2, 3), np.bool_), r((2,), np.bool_), r((3,), np.bool_), beta=False),
        S(np.full((2, 3), np.nan, F32), r((2,)), r((3,)), beta=0),
        S(r((2, 3), np.int64), r((2,), np.int64), r((3,), np.int64), alpha=1.5),
        S(r((2, 3)), r((2, 1)), r((3,))), S(r((2, 4)), r((2,)), r((3,))),
    ]


def addbmm_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 4)), r((5, 2, 3)), r((5, 3, 4))), S(r((4,)), r((5, 2, 3)), r((5, 3, 4))),
        S(r((2, 4), F64), r((3, 2, 3), F64), r((3, 3, 4), F64), beta=0.5, alpha=2.0),
        S(r((2, 4), np.int64), r((2, 2, 3), np.int64), r((2, 3, 4), np.int64), beta=2),
        S(r((2, 4)), r((0, 2, 3)), r((0, 3, 4))),
        S(r((2, 4)), r((5, 2, 3)), r((4, 3, 4))), S(r((2, 4)), r((2, 3)), r((3, 4))),
        S(r((2, 4), F64), r((5, 2, 3)), r((5, 3, 4))),
    ]


def baddbmm_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((5, 2, 4)), r((5, 2, 3)), r((5, 3, 4))), S(r((4,)), r((5, 2, 3)), r((5, 3, 4))),
        S(r((1, 2, 1), F64), r((3, 2, 3), F64), r((3, 3, 4), F64), beta=0.5, alpha=2.0),
        S(np.full((2, 2, 4), np.nan, F32), r((2, 2, 3)), r((2, 3, 4)), beta=0),
        S(r((2, 2, 4), np.int64), r((2, 2, 3), np.int64), r((2, 3, 4), np.int64), alpha=3),
        S(r((5, 2, 4)), r((5, 2, 3)), r((5, 4, 4))),
        S(r((5, 2, 4), F64), r((5, 2, 3)), r((5, 3, 4))), S(r((2, 4)), r((2, 3)), r((3, 4))),
    ]


def einsum_samples(rng):
    r = functools.partial(arr, rng)
    a, b = r((2, 3)), r((3, 4))
    return [
        S("ij,jk->ik", a, b), S("ij,jk", [a, b]), S("ii", r((3, 3))), S("ii->i", r((3, 3), F64)),
        S("i j , j k -> i k", a, b), S("...ij,...jk", r((2, 2, 3)), b), S("bij,bjk->bik", r((2, 2, 3)), r((1, 3, 4))),
        S("i,j->ij", r((3,)), r((4,))), S("ij->", a), S("ijk->kji", r((2, 3, 4))),
        S("ij,jk,kl->il", a, b, r((4, 2))), S("i->", r((0,))), S("ij,jk->ik", a.astype(np.int64), b.astype(np.int64)),
        S("bn,anm,bm->ba", r((2, 3), F64), r((4, 3, 5), F64), r((2, 5), F64)),
        S("ij,jk->ik", T(rng, (2, 3)), b),
        S("ij,jk->ik", a, r((4, 4))), S("ij,jk->ik", a), S("ij,jk->ik", a, b.astype(F64)),
    ]


def tensordot_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3, 4)), r((3, 4, 5))), S(r((2, 3, 4)), r((4, 5)), 1),
        S(r((2, 3)), r((4,)), 0), S(r((2, 3, 4), F64), r((4, 3, 5), F64), ([1, 2], [1, 0])),
        S(r((2, 3, 4)), r((4, 3, 5)), dims=[[2], [0]]), S(r((2, 3), np.int64), r((3, 2), np.int64), 1),
        S(T(rng, (4, 3)), r((3, 2)), 1),
        S(r((2, 3)), r((4,)), 1), S(r((2, 3)), r((3,), F64), 1), S(r((2, 3)), r((3,)), -1),
    ]


def kron_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3)), r((3, 2))), S(r((2, 3)), r((2,))), S(r(()), r((2,))),
        S(r((2, 2), F64), r((1, 2, 2))), S(r((2, 2), np.int64), r((2,), np.int64)),
        S(r((2, 2), np.bool_), r((2,), np.bool_)), S(r((2, 2), np.int64), r((3,))),
        S(r((0, 2)), r((3,))),  # (torch 2.13 fails on a transposed view: "view size is not compatible")
    ]


def cross_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((4, 3)), r((4, 3))), S(r((3, 2), F64), r((3, 2), F64), dim=0),
        S(r((2, 3)), r((1, 3))), S(r((3, 4, 3), np.int64), r((3, 4, 3), np.int64), dim=-1),
        S(T(rng, (3, 4)), r((3, 4)), dim=0),
        S(r((2, 3)), r((2, 4))), S(r((3, 3)), r((2, 3, 3))), S(r((2, 3)), r((3, 3))),
        S(r((2, 3)), r((2, 3), F64)), S(r((2, 3), np.bool_), r((2, 3), np.bool_)),
    ]


def cdist_samples(rng):
    r = functools.partial(arr, rng)
    a, b = r((4, 3), F64), r((5, 3), F64)
    b[1] = a[2]  # a zero distance: torch's subgradient there
    return [
        S(a, b), S(a, b, p=1.0), S(a, b, p=0.0), S(a, b, p=0.5), S(a, b, p=3.0), S(a, b, p=math.inf),
        S(r((2, 4, 3)), r((5, 3))), S(r((2, 1, 4, 3)), r((3, 5, 3)), 1.5),
        S(r((30, 3), F64), r((4, 3), F64)), S(r((3, 4)), r((0, 4))),
        S(T(rng, (4, 3)), r((2, 3))),
        S(r((3, 2)), r((4, 3))), S(r((3,)), r((4, 3))), S(a, b, -1.0),
        S(r((3, 2), np.int64), r((4, 2), np.int64)), S(r((3, 2)), r((4, 2), F64)),
        S(r((3, 2), np.float16), r((4, 2), np.float16)),
    ]


def multi_dot_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S([r((2, 3)), r((3, 4))]), S([r((2, 3)), r((3, 4)), r((4, 5))]),
        S([r((3,), F64), r((3, 2), F64), r((2, 4), F64), r((4,), F64)]),
        S((r((3,)), r((3,)))), S([r((2, 3), np.int64), r((3, 2), np.int64)]),
        S([T(rng, (4, 3)), r((3, 2))]),
        S([r((2, 3))]), S([r((2, 3)), r((2, 3))]), S([r((2, 2, 3)), r((3, 2))]),
        S([r((3,)), r((3, 2), F64)]), S([r((2, 3)), r((3,)), r((2,))]),
    ]


def chain_matmul_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((2, 3)), r((3, 4))), S(r((2, 3), F64), r((3, 4), F64), r((4, 2), F64)),
        S(r((2, 3))), S(r((2, 3)), r((2, 3))),
    ]


def trace_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((3, 3))), S(r((2, 4), F64)), S(r((3, 3), np.int32)), S(r((2, 2), np.uint8)),
        S(r((0, 3))), S(T(rng)), S(r((3,))), S(r((2, 2), np.bool_)),
    ]


# ---------------------------------------------------------------------------- norms

def vector_norm_samples(rng):
    r = functools.partial(arr, rng)
    x = r((3, 4), F64)
    x[0, 1] = x[2, 3] = 0.0
    z = np.zeros((2, 3))
    return [
        S(x), S(x, 1), S(x, 0), S(x, 3), S(x, 0.5), S(x, 1.5), S(x, -1), S(x, math.inf), S(x, -math.inf),
        S(x, 2, (0, 1), True), S(x, ord=1, dim=[0], keepdim=True),
        S(r(())), S(T(rng)),
        S(z), S(z, 3), S(z, math.inf, 1), S(r((0, 3)), math.inf, 1),
        S(r((2, 2), np.complex64)),
        S(r((0, 3)), math.inf), S(r((3,), np.int64)), S(x, "fro"),
    ]


def matrix_norm_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (2, 3, 4))
    return [
        S(a), S(a, "nuc"), S(a, 2), S(a, -2), S(a, 1), S(a, -1), S(a, math.inf), S(a, -math.inf),
        S(a, 1, (0, 2)), S(a, math.inf, (2, 1), True), S(a, "nuc", (-1, -2), keepdim=True), S(a, 2, keepdim=True),
        S(T(rng), -1),
        S(r((3,))), S(a, 3), S(r((2, 2), np.int64)), S(r((2, 2), np.float16), "nuc"),
    ]


def norm_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (3, 4))
    return [
        S(a), S(a, "fro"), S(a, "nuc"), S(a, 2), S(a, math.inf), S(a, 2, 1), S(a, 1, (0, 1)), S(a, None, (0, 1)),
        S(a[0]), S(a[0], 3), S(r((2, 3, 4))), S(r((2, 3, 4)), 2, dim=(1, 2), keepdim=True),
        S(r((2, 3, 4)), 2), S(a[0], "fro"), S(a, dim=(0, 1, 1)), S(r((3,), np.int64)),
    ]


# ---------------------------------------------------------------------------- comparisons of decompositions

def _np(x):
    return np.asarray(x.detach().numpy())


def _check_meta(t, f, what):
    assert str(t.dtype) == str(f.dtype), f"{what}: dtype {t.dtype} vs {f.dtype}"
    assert tuple(t.shape) == tuple(f.shape), f"{what}: shape {tuple(t.shape)} vs {tuple(f.shape)}"


def _close(a, b, rtol, atol, what):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def _orthonormal(q, what, atol):
    k = q.shape[-1]
    _close(np.swapaxes(q, -1, -2).conj() @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), 0, atol, what)


def compare_svd(t, f, rtol, atol, what="value"):
    """U, S, Vh up to the signs of the singular vectors: S, |U|, |Vh| on the first k vectors,
    the reconstruction, and orthonormality of all of them."""
    for i in range(3):
        _check_meta(t[i], f[i], f"{what}[{i}]")
    (tu, ts, tv), (fu, fs, fv) = [[_np(x) for x in r] for r in (t, f)]
    k = ts.shape[-1]
    _close(fs, ts, rtol, atol, f"{what}: S")
    _close(np.abs(fu[..., :k]), np.abs(tu[..., :k]), rtol * 10, atol * 10, f"{what}: |U|")
    _close(np.abs(fv[..., :k, :]), np.abs(tv[..., :k, :]), rtol * 10, atol * 10, f"{what}: |Vh|")
    _close((fu[..., :k] * fs[..., None, :]) @ fv[..., :k, :], (tu[..., :k] * ts[..., None, :]) @ tv[..., :k, :],
           rtol * 10, atol * 10, f"{what}: U S Vh")
    _orthonormal(fu, f"{what}: U", atol * 10)
    _orthonormal(np.swapaxes(fv, -1, -2), f"{what}: Vh", atol * 10)


def compare_svd_legacy(t, f, rtol, atol, what="value"):
    """torch.svd returns V, not Vh; without compute_uv, U and V are zeros."""
    if not np.any(_np(t[0])):
        for i in range(3):
            _check_meta(t[i], f[i], f"{what}[{i}]")
            _close(_np(f[i]), _np(t[i]), rtol, atol, f"{what}[{i}]")
        return

    def vh(r):
        return r[0], r[1], r[2].mT if hasattr(r[2], "mT") else r[2]
    compare_svd(vh(t), vh(f), rtol, atol, what)


def compare_eigh(t, f, rtol, atol, what="value"):
    for i in range(2):
        _check_meta(t[i], f[i], f"{what}[{i}]")
    (tw, tv), (fw, fv) = [[_np(x) for x in r] for r in (t, f)]
    _close(fw, tw, rtol, atol, f"{what}: eigenvalues")
    _close(np.abs(fv), np.abs(tv), rtol * 10, atol * 10, f"{what}: |eigenvectors|")
    _orthonormal(fv, f"{what}: eigenvectors", atol * 10)


def compare_qr(t, f, rtol, atol, what="value"):
    """Q, R up to the signs of Q's columns / R's rows: |Q|, |R|, Q R, orthonormal Q, triangular R."""
    for i in range(2):
        _check_meta(t[i], f[i], f"{what}[{i}]")
    (tq, tr), (fq, fr) = [[_np(x) for x in r] for r in (t, f)]
    _close(np.abs(fr), np.abs(tr), rtol * 10, atol * 10, f"{what}: |R|")
    _close(np.triu(fr), fr, 0, 0, f"{what}: R triangular")
    if tq.size:
        _close(np.abs(fq), np.abs(tq), rtol * 10, atol * 10, f"{what}: |Q|")
        k = min(fq.shape[-1], fr.shape[-2])
        _close(fq[..., :k] @ fr[..., :k, :], tq[..., :k] @ tr[..., :k, :], rtol * 10, atol * 10, f"{what}: QR")
        _orthonormal(fq, f"{what}: Q", atol * 10)


def svd_grad_call(mod, A, full_matrices=True):
    U, S_, Vh = mod.linalg.svd(A, full_matrices=full_matrices)
    m, n = A.shape[-2:]
    if full_matrices and m != n:  # the extra columns are arbitrary: no gradient through them
        return (S_,)
    return S_, U * U, Vh * Vh, mod.einsum("...ik,...k,...kj->...ij", U, S_, Vh)


def svd_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(spectrum(rng, (3, 3))), S(spectrum(rng, (4, 3)), full_matrices=False), S(spectrum(rng, (3, 5)), False),
        S(spectrum(rng, (2, 4, 3))), S(spectrum(rng, (2, 3, 5), F32), full_matrices=True),
        S(spectrum(rng, (3, 3), F32)), S(Arg(spectrum(rng, (3, 4)), transpose=True), full_matrices=False),
        S(r((0, 3))), S(r((3, 0)), False),
        S(r((3,))), S(r((2, 2), np.int64)), S(r((2, 2), np.float16)),
    ]


def svd_legacy_samples(rng):
    return [
        S(spectrum(rng, (3, 3))), S(spectrum(rng, (4, 3))), S(spectrum(rng, (3, 4)), some=False),
        S(spectrum(rng, (2, 4, 3), F32), True), S(spectrum(rng, (2, 3)), compute_uv=False),
    ]


def svdvals_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(spectrum(rng, (3, 3))), S(spectrum(rng, (4, 3), F32)), S(spectrum(rng, (2, 3, 5))), S(r((0, 3))),
        S(Arg(spectrum(rng, (3, 4)), transpose=True)), S(r((3,))), S(r((2, 2), np.int64)),
    ]


def eigh_samples(rng):
    r = functools.partial(arr, rng)
    a = symmetric(rng, (4, 4))
    return [
        S(a), S(a, "U"), S(junk_upper(rng, a)), S(np.swapaxes(junk_upper(rng, a), -1, -2), UPLO="U"),
        S(symmetric(rng, (2, 3, 3), F32)), S(spd(rng, (3, 3))), S(r((0, 0))),
        S(a, "X"), S(r((2, 3))), S(r((2, 2), np.int64)), S(r((2, 2), np.float16)),
    ]


def qr_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(spectrum(rng, (4, 3))), S(spectrum(rng, (3, 3), F32)), S(spectrum(rng, (4, 3)), "complete"),
        S(spectrum(rng, (3, 5)), mode="reduced"), S(spectrum(rng, (2, 4, 3))), S(r((0, 3))),
        S(Arg(spectrum(rng, (3, 4)), transpose=True)),
        S(r((3,))), S(spectrum(rng, (3, 3)), "foo"), S(r((2, 2), np.float16)),
    ]


def qr_r_samples(rng):
    return [S(spectrum(rng, (4, 3)), "r"), S(spectrum(rng, (2, 3, 5)), mode="r")]


def qr_grad_call(mod, A, *args, **kwargs):
    Q, R = mod.linalg.qr(A, *args, **kwargs)
    return Q * Q, R * R, Q @ R


# ---------------------------------------------------------------------------- inverses and solvers

def inv_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(spectrum(rng, (3, 3))), S(spectrum(rng, (2, 4, 4), F32)), S(spectrum(rng, (1, 1))), S(r((0, 0))),
        S(Arg(spectrum(rng, (3, 3)), transpose=True)),
        S(r((2, 3))), S(r((3,))), S(r((2, 2), np.int64)), S(r((2, 2), np.float16)),
    ]


def solve_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (3, 3))
    return [
        S(a, r((3,), F64)), S(a, r((3, 2), F64)), S(a, r((3, 4), F64), left=True),
        S(a, r((2, 3), F64), left=False), S(spectrum(rng, (2, 3, 3), F32), r((2, 3))),
        S(spectrum(rng, (2, 3, 3)), r((3, 1), F64)), S(a, r((4, 3, 2), F64)),
        S(Arg(a, transpose=True), r((3,), F64)),
        S(r((2, 3)), r((2,))), S(a, r((4,), F64)), S(a.astype(F32), r((3,), F64)),
        S(a, r((3, 2), F64), left=False),
    ]


def det_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(spectrum(rng, (3, 3))), S(spectrum(rng, (2, 4, 4), F32)), S(symmetric(rng, (3, 3))), S(r((0, 0))),
        S(r((1, 1))), S(Arg(spectrum(rng, (3, 3)), transpose=True)),
        S(r((2, 3))), S(r((3,))), S(r((2, 2), np.int64)), S(r((2, 2), np.float16)),
    ]


def cholesky_samples(rng):
    r = functools.partial(arr, rng)
    a = spd(rng, (4, 4))
    return [
        S(a), S(a, upper=True), S(junk_upper(rng, a)), S(np.swapaxes(junk_upper(rng, a), -1, -2), upper=True),
        S(spd(rng, (2, 3, 3), F32)), S(r((0, 0))),
        S(r((2, 3))), S(r((2, 2), np.int64)), S(r((2, 2), np.float16)),
    ]


def pinv_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (4, 3))
    rank2 = spectrum(rng, (4, 2)) @ r((2, 3), F64)
    return [
        S(a), S(spectrum(rng, (3, 5))), S(spectrum(rng, (2, 3, 3), F32)), S(a, rtol=0.3), S(a, atol=1.0),
        S(a, 0.3), S(symmetric(rng, (3, 3)), hermitian=True), S(r((0, 3))), S(T(rng, (3, 4), F64)),
        S(r((3,))), S(r((2, 2), np.int64)),
    ] + [S(rank2)]


def lstsq_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (5, 3))
    return [
        S(a, r((5, 2), F64)), S(a, r((5,), F64)), S(spectrum(rng, (3, 5)), r((3, 2), F64)),
        S(spectrum(rng, (2, 4, 3), F32), r((2, 4, 2))), S(spectrum(rng, (2, 4, 3)), r((4, 1), F64)),
        S(spectrum(rng, (3, 3)), r((3, 3), F64), driver="gelsy"),
        S(a, r((4, 2), F64)), S(a, r((5, 2), F32)), S(a, r((5, 2), F64), driver="foo"),
        S(r((2, 2), np.int64), r((2, 2), np.int64)),
    ]


def lstsq_driver_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (5, 3))
    return [S(a, r((5, 2), F64), driver=d) for d in ("gels", "gelsd", "gelss")] + [
        S(spectrum(rng, (2, 5, 3)), r((2, 5), F64), driver="gelsd")]


def matrix_rank_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (4, 3))
    rank2 = spectrum(rng, (4, 2)) @ r((2, 3), F64)
    return [
        S(a), S(rank2), S(spectrum(rng, (2, 3, 5), F32)), S(a, atol=1.0), S(a, rtol=0.5), S(a, atol=0.1, rtol=0.5),
        S(a, 1.0), S(symmetric(rng, (3, 3)), hermitian=True), S(np.zeros((3, 3))), S(r((0, 3))),
        S(r((3,))), S(r((2, 2), np.int64)), S(a, hermitian=True),
    ]


def matrix_power_samples(rng):
    r = functools.partial(arr, rng)
    a = spectrum(rng, (3, 3), F64, 0.5, 1.5)
    return [
        S(a, 0), S(a, 1), S(a, 2), S(a, 5), S(a, -1), S(a, -3), S(spectrum(rng, (2, 3, 3), F32, 0.5, 1.5), 3),
        S(r((3, 3), np.int64), 3), S(r((0, 0)), 2), S(T(rng, (3, 3)), 2), S(r((2, 2), np.float16), 2),
        S(r((2, 3)), 2), S(r((2, 2), np.int64), -1),
    ]


def matrix_exp_samples(rng):
    r = functools.partial(arr, rng)
    return [
        S(r((3, 3), F64, -3, 3)), S(r((2, 4, 4), F32, -1, 1)), S(r((0, 0))), S(T(rng, (3, 3))),
        S(r((2, 3))), S(r((2, 2), np.int64)),
    ]



def first(samples, k):
    """The first k samples: a method or dunder form only needs to show it binds the same op."""
    return lambda rng: samples(rng)[:k]


register(
    # products
    OpInfo("matmul", matmul_samples),
    OpInfo("Tensor.matmul", first(matmul_samples, 3)),
    OpInfo("__matmul__", first(matmul_samples, 4)),
    OpInfo("__rmatmul__", lambda rng: [S(arr(rng, (3, 4)), arr(rng, (2, 3))), S(arr(rng, (3,)), arr(rng, (2, 2, 3)))]),
    OpInfo("linalg.matmul", first(matmul_samples, 2)),
    OpInfo("mm", mm_samples),
    OpInfo("Tensor.mm", first(mm_samples, 2)),
    OpInfo("bmm", bmm_samples),
    OpInfo("mv", mv_samples),
    OpInfo("dot", dot_samples),
    OpInfo("Tensor.dot", first(dot_samples, 2)),
    OpInfo("vdot", first(dot_samples, 5)),
    OpInfo("inner", inner_samples),
    OpInfo("outer", outer_samples),
    OpInfo("ger", first(outer_samples, 2)),
    OpInfo("Tensor.outer", first(outer_samples, 2)),
    OpInfo("addmm", addmm_samples),
    OpInfo("Tensor.addmm", first(addmm_samples, 2)),
    OpInfo("Tensor.addmm_", first(addmm_samples, 3), grad=False),
    OpInfo("addmv", addmv_samples),
    OpInfo("Tensor.addmv_", first(addmv_samples, 2), grad=False),
    OpInfo("addr", addr_samples),
    OpInfo("Tensor.addr_", first(addr_samples, 1), grad=False),
    OpInfo("addbmm", addbmm_samples),
    OpInfo("baddbmm", baddbmm_samples),
    OpInfo("Tensor.baddbmm_", lambda rng: baddbmm_samples(rng)[2:4], grad=False),
    OpInfo("einsum", einsum_samples),
    OpInfo("tensordot", tensordot_samples),
    OpInfo("kron", kron_samples),
    OpInfo("linalg.cross", cross_samples),
    OpInfo("cross", lambda rng: cross_samples(rng)[:3] + [S(arr(rng, (4, 3)), arr(rng, (4, 3)))]),
    OpInfo("cdist", cdist_samples),
    OpInfo("linalg.multi_dot", multi_dot_samples),
    OpInfo("chain_matmul", chain_matmul_samples),
    OpInfo("trace", trace_samples),
    OpInfo("Tensor.trace", first(trace_samples, 2)),
    # norms
    OpInfo("linalg.vector_norm", vector_norm_samples),
    OpInfo("linalg.matrix_norm", matrix_norm_samples),
    OpInfo("linalg.norm", norm_samples),
    OpInfo("linalg.vector_norm", lambda rng: [S(arr(rng, (5,), np.float16)), S(arr(rng, (5,), np.float16), 3)],
           grad_rtol=2e-3),  # half gradients round in another order than torch's
    OpInfo("linalg.vector_norm", lambda rng: [S(arr(rng, (3, 4)), 1)],
           call=lambda mod, x, *a: mod.linalg.vector_norm(x, *a, dtype=mod.float64)),
    OpInfo("linalg.matrix_norm", lambda rng: [S(spectrum(rng, (3, 3), F32), "nuc")],
           call=lambda mod, x, *a: mod.linalg.matrix_norm(x, *a, dtype=mod.float64)),
    # decompositions: values by invariants, gradients through sign-invariant functions
    OpInfo("linalg.svd", svd_samples, compare=compare_svd, grad=False),
    OpInfo("linalg.svd", first(svd_samples, 5), call=svd_grad_call, grad_rtol=1e-3, rtol=1e-4, atol=1e-5),
    OpInfo("svd", svd_legacy_samples, compare=compare_svd_legacy, grad=False),
    OpInfo("Tensor.svd", first(svd_legacy_samples, 1), compare=compare_svd_legacy, grad=False),
    OpInfo("linalg.svdvals", svdvals_samples, rtol=1e-4, atol=1e-5),
    OpInfo("linalg.eigh", eigh_samples, compare=compare_eigh, grad=False),
    OpInfo("linalg.eigh", first(eigh_samples, 5), rtol=1e-4, atol=1e-5,
           call=lambda mod, a, *args, **kw: (lambda r: (r[0], r[1] * r[1]))(mod.linalg.eigh(a, *args, **kw))),
    OpInfo("linalg.eigvalsh", first(eigh_samples, 5), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.qr", qr_samples, compare=compare_qr, grad=False),
    OpInfo("linalg.qr", lambda rng: [s for s in qr_samples(rng)[:5] if s.args[1:] != ("complete",)],
           call=qr_grad_call, rtol=1e-4, atol=1e-5),
    OpInfo("linalg.qr", qr_r_samples, grad=False, call=lambda mod, *a, **kw: mod.linalg.qr(*a, **kw)[1],
           compare=lambda t, f, rtol, atol, what="value": np.testing.assert_allclose(
               np.abs(_np(f)), np.abs(_np(t)), rtol=1e-5, atol=1e-6, err_msg=what)),
    OpInfo("qr", first(qr_samples, 2), compare=compare_qr, grad=False),
    OpInfo("linalg.inv", inv_samples, rtol=1e-4, atol=1e-5),
    OpInfo("inverse", first(inv_samples, 2), rtol=1e-4, atol=1e-5),
    OpInfo("Tensor.inverse", first(inv_samples, 1), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.inv_ex", first(inv_samples, 4), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.solve", solve_samples, rtol=1e-4, atol=1e-5),
    OpInfo("linalg.solve_ex", first(solve_samples, 2), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.det", det_samples, rtol=1e-4, atol=1e-5),
    OpInfo("det", first(det_samples, 2), rtol=1e-4, atol=1e-5),
    OpInfo("Tensor.det", first(det_samples, 1), rtol=1e-4, atol=1e-5),
    OpInfo("logdet", first(det_samples, 6), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.slogdet", first(det_samples, 6), rtol=1e-4, atol=1e-5),
    OpInfo("slogdet", first(det_samples, 2), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.cholesky", cholesky_samples, rtol=1e-4, atol=1e-5),
    OpInfo("cholesky", first(cholesky_samples, 3), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.cholesky_ex", first(cholesky_samples, 3), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.pinv", pinv_samples, rtol=1e-4, atol=1e-5, grad_rtol=1e-3),
    OpInfo("pinverse", first(pinv_samples, 2), rtol=1e-4, atol=1e-5),
    OpInfo("linalg.lstsq", lstsq_samples, rtol=1e-4, atol=1e-5, grad=False),
    OpInfo("linalg.lstsq", first(lstsq_samples, 5), rtol=1e-4, atol=1e-5,
           call=lambda mod, *a, **kw: mod.linalg.lstsq(*a, **kw).solution),
    OpInfo("linalg.lstsq", lstsq_driver_samples, rtol=1e-4, atol=1e-5, grad=False),
    OpInfo("linalg.matrix_rank", matrix_rank_samples),
    OpInfo("linalg.matrix_power", matrix_power_samples, rtol=1e-4, atol=1e-5),
    OpInfo("matrix_power", first(matrix_power_samples, 3), rtol=1e-4, atol=1e-5),
    # (torch's half matrix_exp is wrong on CPU; facade computes half in float32, untested against it)
    OpInfo("linalg.matrix_exp", matrix_exp_samples, rtol=1e-4, atol=1e-5),
    OpInfo("matrix_exp", first(matrix_exp_samples, 1), rtol=1e-4, atol=1e-5),
)
