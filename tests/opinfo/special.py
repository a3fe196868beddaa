"""OpInfo entries for torch.special and the torch-level lgamma, digamma, polygamma, mvlgamma, i0,
igamma, igammac (functional/special.py, facade/_table/special.py).

Samples: float32 in several shapes (0-dim, empty), float64, int64 (becomes float32), a
transposed view, and refused dtypes (complex, float16 where torch's kernel has none). igamma,
igammac and zeta take their first argument without a gradient (torch has none for it; its
error is tested in tests/test_special.py).
"""

import functools

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64, I64, C64, F16 = np.float32, np.float64, np.int64, np.complex64, np.float16


def S(*args, **kwargs):
    return Sample(args, kwargs)


def unary(low=0.2, high=4.0, extra=(), refuse=(C64, F16)):
    def gen(rng):
        r = functools.partial(arr, rng, low=low, high=high)
        out = [S(r(s)) for s in [(), (0,), (2, 3, 4)]]
        out += [S(r((3, 4), F64)), S(r((5,), I64)), S(Arg(r((4, 3)), transpose=True))]
        out += [S(np.array(v, F32)) for v in extra]
        return out + [S(r((3,), d)) for d in refuse]
    return gen


def binary(low=0.2, high=4.0, refuse=(C64,)):
    def gen(rng):
        r = functools.partial(arr, rng, low=low, high=high)
        first = lambda *a: Arg(r(*a), grad=False)  # noqa: E731
        out = [S(first((3, 4)), r((3, 4))), S(first((3, 1)), r((4,))), S(first((), F64), r((2, 3), F64)),
               S(first((5,), I64), r((5,), I64)), S(first((4,)), 2.5), S(first((0,)), r((0,)))]
        return out + [S(r((3,), d), r((3,), d)) for d in refuse]
    return gen


def poly_samples(rng):
    x = np.linspace(-1.5, 1.5, 13).astype(F32)
    return [S(x, n) for n in (0, 1, 2, 5, 9, -1)] + [
        S(x.astype(F64), np.arange(-1, 12).astype(I64)), S(np.arange(-3, 4), np.arange(7)),
        S(arr(rng, (2, 3), low=-1, high=1), arr(rng, (3,), I64, 0, 7)), S(0.5, np.arange(6)), S(x, 2.7),
        S(x.astype(F16), 3)]


def argn(n, fn_first=True):
    """polygamma(n, x) / mvlgamma(x, p): a static integer argument."""
    def gen(rng):
        r = functools.partial(arr, rng, low=0.6 if fn_first else 2.1, high=4.0)
        out = [S(k, r((3, 4))) if fn_first else S(r((3, 4)), k) for k in (0, 1, 2, 3)]
        out += [S(1, r((2,), F64)) if fn_first else S(r((2,), F64), 2), S(-1, r((2,))) if fn_first else
                S(r((2,)), 0)]
        return out
    return gen


def softmax_samples(rng):
    r = functools.partial(arr, rng)
    return [S(r((3, 4)), 0), S(r((3, 4)), -1), S(r((3, 4)), 1, dtype="float64"), S(r((5,), I64), 0), S(r(()), 0)]


def dtype_call(name):
    def run(mod, *args, dtype=None, **kwargs):
        return getattr(mod.special, name)(*args, dtype=None if dtype is None else getattr(mod, dtype), **kwargs)
    return run


GAMMA = dict(rtol=1e-4, atol=1e-5)
BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0"]
POLYS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

register(
    *(OpInfo(n, unary(extra=([0.0, -0.0, -1.5],), refuse=(C64,)), **GAMMA)
      for n in ("lgamma", "Tensor.lgamma", "digamma", "Tensor.digamma", "special.gammaln", "special.digamma",
                "special.psi")),
    *(OpInfo(n, unary(low=-3.0, refuse=(C64,)), **GAMMA) for n in ("i0", "Tensor.i0", "special.i0")),
    *(OpInfo(f"special.{n}", unary(low=-3.0), **GAMMA) for n in ("log_ndtr", "erfcx")),
    *(OpInfo(f"special.{n}", unary(low=-3.0, refuse=(C64,)), **GAMMA) for n in ("i0e", "i1", "i1e")),
    OpInfo("special.ndtr", unary(low=-3.0, refuse=(C64,)), **GAMMA),
    OpInfo("special.ndtri", unary(low=0.01, high=0.99, extra=([0.0, 1.0, 1.5],)), **GAMMA),
    OpInfo("special.entr", unary(extra=([0.0, -1.0, 2.0],)), **GAMMA),
    *(OpInfo(f"special.{n}", unary(low=-30.0, high=40.0, extra=([0.0, -0.5, 1e-3, 25.0],)), grad=False, **GAMMA)
      for n in BESSEL),
    OpInfo("special.airy_ai", unary(low=-12.0, high=8.0, extra=([0.0, -2.0, 2.0],)), grad=False, **GAMMA),
    *(OpInfo(f"special.{n}", poly_samples, grad=False, rtol=1e-4, atol=1e-4) for n in POLYS),
    *(OpInfo(n, binary(), **GAMMA) for n in ("igamma", "Tensor.igamma", "igammac", "special.gammainc",
                                              "special.gammaincc")),
    OpInfo("special.zeta", binary(low=1.2), **GAMMA),
    OpInfo("special.xlog1py", binary(low=-0.9), **GAMMA),
    OpInfo("polygamma", argn(1), **GAMMA), OpInfo("special.polygamma", argn(1), **GAMMA),
    OpInfo("Tensor.polygamma", lambda rng: [S(arr(rng, (3, 4), low=0.6), k) for k in (0, 1, 3)], **GAMMA),
    OpInfo("mvlgamma", argn(0, fn_first=False), **GAMMA), OpInfo("Tensor.mvlgamma", argn(0, fn_first=False), **GAMMA),
    OpInfo("special.multigammaln", argn(0, fn_first=False), **GAMMA),
    *(OpInfo(f"special.{n}", softmax_samples, call=dtype_call(n), **GAMMA) for n in ("softmax", "log_softmax")),
    OpInfo("special.logsumexp", lambda rng: [S(arr(rng, (3, 4)), 1), S(arr(rng, (3, 4)), (0, 1), True),
                                             S(arr(rng, (4,), I64), 0)], **GAMMA),
)
