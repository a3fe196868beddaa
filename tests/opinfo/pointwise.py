"""OpInfo entries for pointwise math (functional/pointwise.py, facade/_table/pointwise.py).

Samples cover 0-dim, empty and broadcast shapes, float32/float64, integer and bool inputs
(torch's promotion and int -> float rules), Python scalars, a non-contiguous view, float16 /
bfloat16 for a subset (looser tolerance), complex where torch supports it, the kinks where
torch's gradient is a convention (abs at 0, clamp at its bounds, max ties, pow at 0 ...),
and inputs torch refuses (the facade must raise the same exception type).
"""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64, I64, I32, I8, U8, B = np.float32, np.float64, np.int64, np.int32, np.int8, np.uint8, np.bool_
C64 = np.complex64


def _a(rng, shape, dtype=F32, low=-3.0, high=3.0):
    return arr(rng, shape, dtype, low, high)


def _nonzero(rng, shape, dtype, low=-4, high=4):
    """Values in [low, high] away from 0 (divisors); ints skip 0."""
    if np.issubdtype(np.dtype(dtype), np.integer):
        v = rng.integers(1, max(abs(low), abs(high)) + 1, size=shape)
        return (v * np.where(rng.random(shape) < 0.5, -1, 1) if low < 0 else v).astype(dtype)
    v = rng.uniform(0.5, max(abs(low), abs(high)), shape)
    return (v * np.where(rng.random(shape) < 0.5, -1, 1) if low < 0 else v).astype(dtype)


def unary(low=-3.0, high=3.0, ints=(I64, B), complex_=False, kinks=None, **kwargs):
    """One-input samples: float32 in several shapes (0-dim, empty), float64, int/bool (promotion),
    a transposed view, optional complex and kink values."""
    def gen(rng):
        out = [Sample((_a(rng, s, F32, low, high),), dict(kwargs)) for s in [(), (0,), (2, 3, 4)]]
        out.append(Sample((_a(rng, (3, 4), F64, low, high),), dict(kwargs)))
        out += [Sample((_a(rng, (5,), d, low, high),), dict(kwargs)) for d in ints]
        out.append(Sample((Arg(_a(rng, (4, 3), F32, low, high), transpose=True),), dict(kwargs)))
        if complex_:
            out.append(Sample((_a(rng, (4,), C64, low, high),), dict(kwargs)))
        if kinks is not None:
            out.append(Sample((np.array(kinks, F32),), dict(kwargs)))
        return out
    return gen


def half(name, low=-3.0, high=3.0):
    """float16 and bfloat16 variants of a unary op (float32 samples cast on the way in; looser
    tolerance). The gradient flows back to the float32 leaf through the cast."""
    def call(dtype):
        def run(mod, x):
            fn = mod
            for part in name.split("."):
                fn = getattr(fn, part)
            return fn(x.to(getattr(mod, dtype)))
        return run

    def gen(rng):
        return [Sample((_a(rng, s, F32, low, high),)) for s in [(6,), (2, 3)]]

    return [OpInfo(name, gen, call=call(d), rtol=1e-2, atol=1e-2) for d in ("float16", "bfloat16")]


def binary(low=-3.0, high=3.0, other=None, mixed=((I64, F32), (U8, I8), (B, I64)),
           scalars=(2.5, 3), floats=True, ints=False, bad=True, **kwargs):
    """Two-input samples: broadcasting shapes, float64, mixed-dtype promotion, Python scalars, a
    0-dim float64 tensor against float32 (category rule), a transposed view, and a shape
    mismatch (torch's RuntimeError). `other(rng, shape, dtype)` makes the second input."""
    other = other or (lambda rng, s, d: _a(rng, s, d, low, high))

    def gen(rng):
        out = []
        if floats:
            out += [Sample((_a(rng, a, F32, low, high), other(rng, b, F32)), dict(kwargs))
                    for a, b in [((), ()), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((0, 3), (3,))]]
            out.append(Sample((_a(rng, (3, 4), F64, low, high), other(rng, (3, 4), F64)), dict(kwargs)))
            out.append(Sample((_a(rng, (4,), F32, low, high), other(rng, (), F64)), dict(kwargs)))
            out.append(Sample((Arg(_a(rng, (4, 3), F32, low, high), transpose=True), other(rng, (4, 3), F32)),
                              dict(kwargs)))
        if ints:
            out.append(Sample((_a(rng, (3, 4), I64, low, high), other(rng, (4,), I64)), dict(kwargs)))
        out += [Sample((_a(rng, (3, 4), a, low, high), other(rng, (4,), b)), dict(kwargs)) for a, b in mixed]
        out += [Sample((_a(rng, (3,), F32 if floats else I64, low, high), s), dict(kwargs)) for s in scalars]
        if bad:
            out.append(Sample((_a(rng, (3,), F32 if floats else I64, low, high), other(rng, (4,), F32 if floats
                                                                                      else I64)), dict(kwargs)))
        return out
    return gen


def fixed(*samples):
    """Hand-written samples: each a tuple of args (numpy arrays / scalars), or (args, kwargs)."""
    def gen(rng):
        return [Sample(*s) if isinstance(s[-1], dict) and len(s) == 2 and isinstance(s[0], tuple) else Sample(s)
                for s in samples]
    return gen


def chain(*gens):
    def gen(rng):
        return [s for g in gens for s in g(rng)]
    return gen


def A(*values, dtype=F32):
    return np.array(values, dtype=dtype)


def _positive(rng, s, d):
    return _nonzero(rng, s, d, 0.5, 3)


def _divisor(rng, s, d):
    return _nonzero(rng, s, d, -4, 4)


HALF_TOL = dict(rtol=1e-2, atol=1e-2)
ZERO = A(0.0, -0.0, 1.0, -2.0)

# ------------------------------------------------------------------------------------------ arithmetic
register(
    OpInfo("add", chain(binary(), fixed(((A(1.0, 2.0), A(3.0, 4.0)), dict(alpha=2.5)),
                                        ((A(1, 2, dtype=I64), A(3, 4, dtype=I64)), dict(alpha=-2)),
                                        ((A(1, 2, dtype=I64), A(3, 4, dtype=I64)), dict(alpha=2.5)),
                                        ((A(1.0, 2.0), A(3.0, 4.0)), dict(alpha=True)),
                                        ((A(True, False, dtype=B), A(True, True, dtype=B)), dict(alpha=True)),
                                        (A(True, False, dtype=B), A(True, True, dtype=B))))),
    OpInfo("add", fixed((A(1.0, 2.0, dtype=np.float16), A(3.0, 4.0, dtype=np.float16)),
                        (A(1.0, 2.0, dtype=np.float16), A(3.0, 4.0, dtype=F32)), (A(1.0, 2.0, dtype=np.float16), 1e-3),
                        (A(1 + 2j, 3j, dtype=C64), A(1.0, 2.0))), **HALF_TOL),
    OpInfo("sub", chain(binary(), fixed(((A(1.0, 2.0), A(3.0, 4.0)), dict(alpha=-0.5)),
                                        (A(True, False, dtype=B), A(True, True, dtype=B)),
                                        (A(True, False, dtype=B), 1), (A(1, 2, dtype=I64), True)))),
    OpInfo("subtract", fixed((A(1.0, 2.0), A(3.0, 4.0)))),
    OpInfo("mul", chain(binary(), fixed((A(True, False, dtype=B), A(True, True, dtype=B)),
                                        (A(1 + 2j, 3j, dtype=C64), 2.5), (A(1, 2, dtype=I64), 1j)))),
    OpInfo("multiply", fixed((A(1.0, 2.0), A(3.0, 4.0)))),
    OpInfo("div", chain(binary(other=_divisor, mixed=((I64, I64), (I64, F32), (B, B), (U8, I8))),
                        fixed((A(7, -7, 0, dtype=I64), 2), (A(1.0, -1.0, 0.0), A(0.0, 0.0, 0.0)))),
           rtol=1e-5),
    *(OpInfo("div", chain(binary(other=_divisor, mixed=((I64, I64), (U8, I8), (I64, F32)), floats=False,
                                 rounding_mode=mode, scalars=(3, -2)),
                          fixed(((A(7, -7, 7, -7, dtype=I64), A(2, 2, -2, -2, dtype=I64)), dict(rounding_mode=mode)),
                                ((A(7.0, -7.0, 0.5, -0.5), A(2.0, 2.0, -2.0, 0.0)), dict(rounding_mode=mode)),
                                ((A(True, dtype=B), A(True, dtype=B)), dict(rounding_mode=mode)),
                                ((A(1.0), A(2.0)), dict(rounding_mode="round")))))
      for mode in ("trunc", "floor")),
    OpInfo("true_divide", fixed((A(1, 2, dtype=I64), A(3, 4, dtype=I64)), (A(1.0, 2.0), 3))),
    OpInfo("divide", fixed(((A(7, -7, dtype=I64), 2), dict(rounding_mode="floor")))),
    OpInfo("floor_divide", binary(other=_divisor, mixed=((I64, I64), (I64, F32), (U8, I8), (B, B)), ints=True,
                                  scalars=(2.5, 3, -2)), grad=False),
    OpInfo("remainder", chain(binary(other=_divisor, ints=True, mixed=((I64, F32), (I32, I64), (B, B)),
                                     scalars=(2.5, 3, -2)),
                              fixed((A(-7.0, 7.0, -7.5, 0.0), A(2.0, -2.0, 2.0, 3.0)), (-7, A(2, -3, dtype=I64)),
                                    (A(1 + 1j, dtype=C64), A(1 + 1j, dtype=C64))))),
    OpInfo("fmod", chain(binary(other=_divisor, ints=True, mixed=((I64, F32), (I32, I64)), scalars=(2.5, 3, -2)),
                         fixed((A(-7.0, 7.0, -7.5, 0.0), A(2.0, -2.0, 2.0, 3.0)),
                               (A(-7, 7, dtype=I64), A(2, -2, dtype=I64))))),
    OpInfo("pow", chain(binary(low=0.5, high=2.5, mixed=((I64, F32), (F32, F64), (I32, I64)), scalars=(2, 2.5, -1.5)),
                        fixed((A(0.0, 0.0, 2.0, -2.0), A(0.0, 2.0, 0.0, 2.0)),  # 0**0: torch's zero gradients
                              (A(0.0, 1.5), A(-1.0, -1.0)),
                              (A(-2.0, -1.5), 2),
                              (A(3, -7, 1, -1, 0, 2, dtype=I64), A(-1, -2, -3, -3, 1, 0, dtype=I64)),
                              (A(3, -2, dtype=I64), 3), (A(3, -2, dtype=I64), 2.5), (A(True, False, dtype=B), 2),
                              (A(3, -2, dtype=I64), -1),
                              (A(True, False, dtype=B), A(True, True, dtype=B)), (A(1.5, 2.0), 2j))),
           grad_rtol=1e-4),
    OpInfo("__pow__", fixed((A(1.5, 2.0), 2), (A(1.5, 2.0), A(0.5, 3.0)))),
    OpInfo("__rpow__", fixed((A(1.5, -2.0), 2), (A(1.5, -2.0), 2.5), (A(1, 3, dtype=I64), 2),
                             (A(1, 3, dtype=I64), 2.5))),
    OpInfo("float_power", chain(binary(low=0.5, high=2.5, mixed=((I64, F32), (I32, I64)), scalars=(2, 0.1)),
                                fixed((A(1 + 1j, dtype=C64), 2), (2, A(0.5, 1.5)))), rtol=1e-6),
    OpInfo("neg", unary(ints=(I64, I8, B), complex_=True)),
    OpInfo("negative", fixed((A(1.0, -2.0),))),
    OpInfo("positive", fixed((A(1.0, -2.0),), (A(1, 2, dtype=I64),), (A(True, dtype=B),))),
    OpInfo("abs", chain(unary(ints=(I64, I8, B), kinks=ZERO), fixed((A(3 + 4j, 0j, -1j, dtype=C64),)))),
    OpInfo("absolute", fixed((A(1.0, -2.0),))),
    OpInfo("__abs__", fixed((A(0.0, -2.0),))),
    OpInfo("sign", chain(unary(ints=(I64, B), kinks=ZERO), fixed((A(1j, dtype=C64),)))),
    OpInfo("sgn", chain(unary(ints=(I64, B), kinks=ZERO), fixed((A(3 + 4j, 0j, -1j, dtype=C64),)))),
    OpInfo("reciprocal", chain(unary(), fixed((A(1 + 1j, dtype=C64),)))),
    OpInfo("square", chain(unary(ints=(I64, I8, B)), fixed((A(1 + 1j, dtype=C64),)))),
    OpInfo("lerp", fixed((A(1.0, 2.0, 3.0), A(4.0, -1.0, 0.0), 0.3), (A(1.0, 2.0, 3.0), A(4.0, -1.0, 0.0), 0.7),
                         (A(1.0, 2.0, 3.0), A(4.0, -1.0, 0.0), A(0.1, 0.6, 1.5)),
                         (np.ones((2, 3), F32), A(4.0, -1.0, 0.0), np.full((2, 1), 0.25, F32)),
                         (A(1.0, 2.0, dtype=F64), A(4.0, -1.0, dtype=F64), 2), (A(1.0), A(2.0), np.array(0.5, F32)),
                         (A(1.0, 2.0), A(4.0, -1.0, dtype=F64), 0.5), (A(1.0, 2.0), A(4.0, -1.0), A(0.5, dtype=F64)),
                         (A(1, 2, dtype=I64), A(4, -1, dtype=I64), 0.5), (A(1.0, 2.0), A(1.0, 2.0, 3.0), 0.5))),
    OpInfo("addcmul", fixed((A(1.0, 2.0), A(3.0, 4.0), A(0.5, -1.0)),
                            ((np.ones((2, 3), F32), A(3.0, 4.0, 5.0), np.full((2, 1), 2.0, F32)), dict(value=-0.5)),
                            ((A(1, 2, dtype=I64), A(3, 4, dtype=I64), A(1, 2, dtype=I64)), dict(value=2)),
                            ((A(1, 2, dtype=I64), A(3, 4, dtype=I64), A(1, 2, dtype=I64)), dict(value=0.5)),
                            (A(1, 2, dtype=I64), A(3.0, 4.0), A(1, 2, dtype=I64)),
                            (A(1.0, 2.0), A(3.0, 4.0, 5.0), A(1.0, 2.0)))),
    OpInfo("addcdiv", fixed((A(1.0, 2.0), A(3.0, 4.0), A(0.5, -1.0)),
                            ((np.ones((2, 3), F32), A(3.0, 4.0, 5.0), np.full((2, 1), 2.0, F32)), dict(value=-0.5)),
                            (A(1.0, 2.0), A(3, 4, dtype=I64), A(1, 2, dtype=I64)),
                            (A(1.0, 2.0), A(3, 4, dtype=I64), A(1.0, 2.0)),
                            (A(1.0, 2.0, dtype=F64), A(3.0, 4.0), A(1.0, 2.0)))),
)

# ------------------------------------------------------------------------------------------ exp, log, trig
_UNIT = dict(low=-0.95, high=0.95)
register(
    *(OpInfo(name, unary(complex_=name in ("exp", "sigmoid", "tanh"))) for name in ("exp", "sin", "cos", "tanh",
                                                                                     "sigmoid", "sinh", "cosh",
                                                                                     "expm1", "exp2")),
    OpInfo("tan", unary(low=-1.2, high=1.2)),
    *(OpInfo(name, unary(**_UNIT)) for name in ("asin", "acos", "atanh")),
    *(OpInfo(name, unary()) for name in ("atan", "asinh", "erf", "erfc", "sinc", "deg2rad", "rad2deg")),
    *(OpInfo(name, fixed((A(0.5, -0.25),))) for name in ("arcsin", "arccos", "arctanh", "arctan", "arcsinh")),
    OpInfo("acosh", unary(low=1.1, high=4.0, ints=(I64,))),
    OpInfo("arccosh", fixed((A(1.5, 2.0),))),
    OpInfo("erfinv", unary(**_UNIT)),
    *(OpInfo(name, unary(low=0.1, high=4.0, complex_=name in ("log", "sqrt"))) for name in ("log", "log2", "log10",
                                                                                             "log1p", "sqrt", "rsqrt")),
    OpInfo("sqrt", fixed((A(0.0, 4.0),))),  # gradient inf at 0, like torch
    OpInfo("logit", chain(unary(low=0.05, high=0.95), fixed((A(0.0, 0.3, 1.0, 1.5, -0.5),)),
                          fixed(((A(0.0, 0.05, 0.1, 0.3, 0.9, 1.0),), dict(eps=0.1)))), grad_rtol=1e-3),
    OpInfo("special.expit", unary()),
    OpInfo("special.logit", fixed(((A(0.2, 0.7),), dict(eps=0.25)))),
    *(OpInfo("special." + n, fixed((A(0.2, -0.7),))) for n in ("erf", "erfc", "erfinv", "exp2", "expm1", "log1p",
                                                                "sinc")),
    OpInfo("special.xlogy", fixed((A(0.0, 2.0), A(3.0, 0.5)), (2, A(3.0, 0.5)))),
    OpInfo("special.round", fixed((A(1.25, 2.5),), ((A(1.25, 2.5),), dict(decimals=1)))),
    *(OpInfo(n, fixed((A(1 + 1j, dtype=C64),))) for n in ("deg2rad", "rad2deg", "erf", "sinh", "erfinv", "logit",
                                                           "atan2", "exp2", "log1p")),
    *(i for n in ("exp", "tanh", "sigmoid", "erf", "abs", "floor") for i in half(n)),
    *(i for n in ("log", "sqrt", "rsqrt") for i in half(n, low=0.1, high=4.0)),
    OpInfo("atan2", chain(binary(mixed=((I64, F32), (I64, I64)), scalars=()),
                          fixed((A(0.0, 1.0, 0.0), A(0.0, 0.0, -1.0)),
                                                                         (A(1 + 1j, dtype=C64), A(1j, dtype=C64))))),
    OpInfo("arctan2", fixed((A(1.0, -1.0), A(-2.0, 0.5)))),
    OpInfo("hypot", chain(binary(mixed=((F32, F64),), scalars=()),
                          fixed((A(3, 4, dtype=I64), A(1, 2, dtype=I64)), (A(0.0, 3.0), A(0.0, 4.0))))),
    OpInfo("logaddexp", chain(binary(mixed=((F32, F64),), scalars=()),
                              fixed((A(1, 4, dtype=I64), A(1, 2, dtype=I64)), (A(1 + 1j, 2j, dtype=C64),
                                                                               A(0.5 - 1j, 3 + 1j, dtype=C64)),
                                    (A(-np.inf, 1.0), A(-np.inf, 1.0))))),
    OpInfo("logaddexp2", binary(mixed=((F32, F64),), scalars=())),
    OpInfo("xlogy", chain(binary(other=_positive), fixed((A(0.0, 0.0, 0.0, 1.0), A(0.0, 2.0, -2.0, np.nan)),
                                                         (2, A(0.5, 3.0)), (A(1, 2, dtype=I64), A(3, 4, dtype=I64))))),
    OpInfo("copysign", chain(binary(mixed=((I64, F32), (B, B), (I64, I64))),
                             fixed((A(0.0, -0.0, 1.0, -1.0), A(-1.0, 1.0, -0.0, 0.0)), (A(1.0, -2.0), -1),
                                   (A(1 + 1j, dtype=C64), A(1 + 1j, dtype=C64))))),
    OpInfo("heaviside", fixed((A(-1.0, 0.0, 2.0), A(0.5, 0.5, 0.5)), (A(-1.0, 0.0, 2.0), np.array(0.25, F32)),
                              (A(-1, 0, 2, dtype=I64), A(7, 7, 7, dtype=I64)),
                              (A(True, False, dtype=B), A(True, dtype=B)), (A(-1.0, 0.0), A(0.5, 0.5, dtype=F64)),
                              (A(1j, dtype=C64), A(1j, dtype=C64))), grad=False),
)

# ------------------------------------------------------------------------------------------ rounding, clamping
_ROUND = A(0.5, 1.5, 2.5, -0.5, -2.5, 1.25, -1.7, 3.49)
register(
    *(OpInfo(n, chain(unary(ints=(I64, I8, B)), fixed((_ROUND,), (A(1 + 1j, dtype=C64),))))
      for n in ("floor", "ceil", "trunc", "round", "frac")),
    OpInfo("fix", fixed((_ROUND,), (A(1, 2, dtype=I64),))),
    OpInfo("round", fixed(((_ROUND,), dict(decimals=1)), ((A(125.0, 135.0, -155.0, 1234.5678),), dict(decimals=-1)),
                          ((A(1.2345, -2.5678, dtype=F64),), dict(decimals=3)),
                          ((A(1, 2, dtype=I64),), dict(decimals=1)),
                          ((A(1.5, 2.5),), dict(decimals=1.5)))),
    OpInfo("clamp", chain(
        fixed(((_ROUND,), dict(min=-1.5, max=1.5)), ((_ROUND,), dict(min=-0.5)), ((_ROUND,), dict(max=1.25)),
              ((A(1.0, 2.0, 3.0),), dict(min=2.0, max=1.0)),  # min > max: all max
              ((A(-2, 0, 5, dtype=I64),), dict(min=0, max=2)), ((A(-2, 0, 5, dtype=I64),), dict(min=0.5, max=2.5)),
              ((A(True, False, dtype=B),), dict(min=0, max=1)), ((A(1.0),), {}),
              ((A(1 + 1j, dtype=C64),), dict(min=0, max=1)),
              ((A(np.nan, 1.0),), dict(min=0.0, max=0.5)),
              (A(-1.0, 0.0, 0.5, 1.0, 2.0), A(0.0, 0.0, 0.0, 0.0, 0.0), A(1.0, 1.0, 1.0, 1.0, 1.0)),  # at the bounds
              (A(-1.0, 0.0, 0.5, 2.0), A(0.5, 0.5, 0.5, 0.5), A(0.5, 0.5, 0.5, 0.5)),  # min == max
              (A(-1.0, 0.0, 0.5, 2.0), A(1.0, 1.0, 0.0, 3.0), A(0.0, 0.0, 1.0, 1.0)),  # min > max in places
              (np.arange(6, dtype=F32).reshape(2, 3), A(1.0, 2.0, 0.5), np.full((2, 1), 3.0, F32)),
              ((A(-2.0, 0.5, 3.0),), dict(min=A(0.0, 0.0, 0.0))),
              ((A(-2.0, 0.5, 3.0),), dict(max=A(1.0, 1.0, 1.0, 1.0))),
              (A(1, 5, dtype=I64), A(2.5, 2.5)),
              ((A(1.0, 2.0),), dict(min=np.array(1.5, F64))),
              (Arg(np.arange(12, dtype=F32).reshape(4, 3), transpose=True), 2.0, 7.0)))),
    OpInfo("clip", fixed(((_ROUND,), dict(min=-1.5, max=1.5)), ((A(1, 2, dtype=I64),), dict(max=1)))),
    OpInfo("clamp_min", fixed((_ROUND, 0.5), (A(-1.0, 0.0, 1.0), A(0.0, 0.0, 0.0)), (A(1, 5, dtype=I64), 2.5),
                              (A(1.0, np.nan, 0.2), A(np.nan, 0.5, 0.5)))),  # nan: no gradient
    OpInfo("clamp_max", fixed((_ROUND, 0.5), (A(-1.0, 0.0, 1.0), A(0.0, 0.0, 0.0)), (A(1, 5, dtype=I64), 2))),
    OpInfo("nan_to_num", fixed((A(np.nan, np.inf, -np.inf, 1.5),),
                               ((A(np.nan, np.inf, -np.inf, 1.5),), dict(nan=1.0, posinf=2.0)),
                               ((A(np.nan, np.inf, -np.inf, 1.5),), dict(neginf=-7.0)),
                               (A(np.nan, np.inf, -np.inf, 1.5, dtype=F64),),
                               (A(np.nan, np.inf, -np.inf, 1.5, dtype=np.float16),),
                               (A(1, 2, dtype=I64),), (A(True, dtype=B),),
                               (A(complex(np.nan, np.inf), 1 + 1j, dtype=C64),))),
    *(OpInfo(n, chain(binary(scalars=(), mixed=((I64, F32), (I32, I64), (B, B), (U8, I8))),
                      fixed((A(1.0, 2.0, np.nan, 3.0, np.nan), A(1.0, 1.0, 0.0, np.nan, np.nan)),  # ties and nans
                            (A(1j, dtype=C64), A(1j, dtype=C64)))))
      for n in ("maximum", "fmax")),
    *(OpInfo(n, fixed((A(1.0, 2.0, np.nan, 3.0, np.nan), A(1.0, 1.0, 0.0, np.nan, np.nan)),
                      (np.ones((2, 1), F32), A(0.5, 1.0, 2.0, dtype=F64)), (A(1, 5, dtype=I64), A(2.5, 2.5)),
                      (A(True, False, dtype=B), A(False, False, dtype=B)), (A(1j, dtype=C64), A(1j, dtype=C64))))
      for n in ("minimum", "fmin")),
)

# ------------------------------------------------------------------------------------------ predicates, comparisons
_SPECIAL = A(np.nan, np.inf, -np.inf, 0.0, -1.5)
register(
    *(OpInfo(n, fixed((_SPECIAL,), (A(np.nan, 1.0, dtype=F64),), (A(1, 2, dtype=I64),), (A(True, dtype=B),),
                      (A(complex(np.inf, 0), complex(1, np.nan), 1 + 1j, 1 + 0j, dtype=C64),),
                      (np.zeros((0, 3), F32),), (np.array(np.nan, F32),)))
      for n in ("isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal")),
    *(OpInfo(n, chain(binary(mixed=((I64, F32), (U8, I8), (B, I64), (F32, F64))),
                      fixed((A(1.0, np.nan, 2.0), A(1.0, np.nan, 3.0)), (A(1 + 1j, dtype=C64), A(1 + 1j, dtype=C64)),
                            (A(1, 2, dtype=I64), 1.5))))
      for n in ("eq", "lt")),
    *(OpInfo(n, fixed((A(1.0, np.nan, 2.0, 3.0), A(1.0, np.nan, 3.0, 2.0)), (A(1, 2, dtype=I64), 1.5),
                      (A(1, 2, dtype=U8), A(-1, 2, dtype=I8)), (A(1 + 1j, dtype=C64), A(1 + 1j, dtype=C64)),
                      (np.zeros((2, 1), F32), np.zeros((3,), F64))))
      for n in ("ne", "le", "gt", "ge")),
    *(OpInfo(n, fixed((A(1.0, 2.0), A(2.0, 2.0)), (A(1, 3, dtype=I64), 2)))
      for n in ("greater", "greater_equal", "less", "less_equal", "not_equal")),
    *(OpInfo(n, fixed((A(1.0, 2.0), A(2.0, 2.0)), (A(1, 3, dtype=I64), 2), (A(1, 3, dtype=I64), 2.5)))
      for n in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")),
    OpInfo("isclose", fixed((A(1.0, 1.00001, np.nan, np.inf, 2.0), A(1.0, 1.0, np.nan, np.inf, 2.1)),
                            ((A(1.0, 1.00001, np.nan, np.inf, 2.0), A(1.0, 1.0, np.nan, np.inf, 2.1)),
                             dict(rtol=0.1, atol=0.0, equal_nan=True)),
                            (A(1, 2, dtype=I64), A(1, 3, dtype=I64)),
                            ((A(1, 2, dtype=I64), A(1, 3, dtype=I64)), dict(rtol=0.4)),
                            (A(True, dtype=B), A(True, False, dtype=B)),
                            (A(1 + 1j, dtype=C64), A(1 + 1j, 1.0, dtype=C64)),
                            (A(1.0), A(1.0, dtype=F64)), (A(1, dtype=I64), A(1.0)),
                            ((A(1.0), A(1.0)), dict(rtol=-1.0)),
                            (A(1.0, 2.0), A(1.0, 2.0, 3.0)))),
    OpInfo("allclose", fixed((A(1.0, 1.00001), A(1.0, 1.0)), (A(1.0, 1.1), A(1.0, 1.0)), (A(1.0, 2.0), A(1.0)),
                             ((A(1.0, np.nan), A(1.0, np.nan)), dict(equal_nan=True)), (A(1.0), A(1.0, dtype=F64)),
                             (A(1.0, 2.0), A(1.0, 2.0, 3.0)))),
    OpInfo("equal", fixed((A(1.0, 2.0), A(1.0, 2.0)), (A(1.0, 2.0), A(1.0)), (A(1.0, 2.0), A(1.0, 2.0, dtype=F64)),
                          (A(1, 2, dtype=I64), A(1.0, 2.0)), (A(1.0, np.nan), A(1.0, np.nan)),
                          (A(True, dtype=B), A(1, dtype=I64)))),
    OpInfo("where", fixed((A(True, False, True, dtype=B), A(1.0, 2.0, 3.0), A(-1.0, -2.0, -3.0)),
                          (np.array([[True], [False]]), A(1.0, 2.0, 3.0), np.float32(-1.0) * np.ones((2, 1), F32)),
                          (A(True, False, dtype=B), A(1, 2, dtype=I64), 2.5),
                          (A(True, False, dtype=B), 1, 0), (A(True, False, dtype=B), 1.0, 0),
                          (A(True, False, dtype=B), A(1.0, 2.0), A(1.0, 2.0, dtype=F64)),
                          (A(True, False, dtype=B), A(1, 2, dtype=I32), A(1.0, 2.0)),
                          (A(1, 0, dtype=U8), A(1.0, 2.0), A(3.0, 4.0)),
                          (A(1.0, 0.0), A(1.0, 2.0), A(3.0, 4.0)),
                          (np.ones(3, B), A(1.0, 2.0, 3.0, 4.0), A(1.0, 2.0, 3.0)),
                          (np.array(True), np.zeros((0, 2), F32), A(1.0, 2.0)),
                          (np.array([[True, False, True], [False, False, True]]),),  # torch.where(c): nonzero
                          (A(1.0, 0.0, 2.0),))),
    OpInfo("Tensor.where", fixed((A(1.0, 2.0, 3.0), A(True, False, True, dtype=B), A(-1.0, -2.0, -3.0)),
                                 (A(1.0, 2.0), A(False, True, dtype=B), 0.0))),
)

# ------------------------------------------------------------------------------------------ logical, bitwise
_INTS = ((I64, I64), (I32, I64), (U8, I8), (B, B), (B, I64))
register(
    *(OpInfo(n, chain(binary(mixed=((I64, F32), (B, B), (F32, F64)), scalars=()),
                      fixed((A(1 + 1j, 0j, dtype=C64), A(1.0, 1.0)))))
      for n in ("logical_and",)),
    *(OpInfo(n, fixed((A(1.0, 0.0, np.nan, 0.0), A(2.0, 2.0, 0.0, 0.0)), (A(1, 0, dtype=I64), A(True, True, dtype=B)),
                      (np.ones((2, 1), F32), np.zeros((3,), F64)), (A(1 + 1j, 0j, dtype=C64), A(1.0, 1.0))))
      for n in ("logical_or", "logical_xor")),
    OpInfo("logical_not", fixed((A(1.0, 0.0, np.nan),), (A(1, 0, dtype=I64),), (A(True, False, dtype=B),),
                                (A(0j, 1j, dtype=C64),), (np.zeros((2, 0), F32),))),
    OpInfo("bitwise_and", binary(low=-8, high=8, floats=False, ints=True, mixed=_INTS + ((I64, F32),),
                                 scalars=(3, 2.5, True))),
    *(OpInfo(n, fixed((A(5, -6, dtype=I64), A(3, 3, dtype=I64)), (A(5, -6, dtype=I64), 3), (A(True, dtype=B), True),
                      (A(5, 6, dtype=U8), A(-1, 3, dtype=I8)), (A(1.0), A(1.0))))
      for n in ("bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__", "__rand__", "__ror__", "__rxor__")),
    *(OpInfo(n, chain(binary(low=0, high=8, floats=False, ints=True, mixed=((I64, I64), (I32, I64), (U8, U8),
                                                                            (B, I64), (B, B), (F32, I64)),
                             scalars=(3,)),
                      fixed((A(5, -5, 5, -5, dtype=I64), A(64, 64, 70, 1, dtype=I64)))))
      for n in ("bitwise_left_shift", "bitwise_right_shift")),
    *(OpInfo(n, fixed((A(5, -6, dtype=I64), A(3, 1, dtype=I64)), (A(5, -6, dtype=I64), 3), (A(True, dtype=B), 1),
                      (A(1.0), 1)))
      for n in ("__lshift__", "__rshift__", "__rlshift__", "__rrshift__")),
    OpInfo("bitwise_not", fixed((A(1, -8, dtype=I64),), (A(True, False, dtype=B),), (A(7, dtype=U8),),
                                (A(1.0),), (np.zeros((0,), I32),))),
    OpInfo("__invert__", fixed((A(1, -8, dtype=I64),), (A(True, False, dtype=B),), (A(1.0),))),
)

# ------------------------------------------------------------------------------------------ complex numbers
_Z = A(3 + 4j, -1j, 2.5 + 0j, -1 - 1j, dtype=C64)
register(
    OpInfo("real", fixed((_Z,), (A(1.0, 2.0),), (A(1, 2, dtype=I64),))),
    OpInfo("imag", fixed((_Z,), (A(1.0, 2.0),))),
    OpInfo("Tensor.real", fixed((_Z,), (A(1.0, 2.0),)), call=lambda mod, x: x.real),
    OpInfo("Tensor.imag", fixed((_Z,), (A(1.0, 2.0),)), call=lambda mod, x: x.imag),
    OpInfo("conj", fixed((_Z,), (A(1.0, 2.0),), (A(1, 2, dtype=I64),))),
    OpInfo("angle", fixed((_Z,), (A(-1.0, 0.0, 2.0, np.nan),), (A(-1, 0, 2, dtype=I64),), (A(True, dtype=B),))),
    OpInfo("polar", fixed((A(1.0, 2.0, 0.0), A(0.5, -1.0, 3.0)), (np.ones((2, 1), F64), A(0.5, -1.0, 3.0, dtype=F64)),
                          (A(1, 2, dtype=I64), A(1, 2, dtype=I64)), (A(1.0), A(1.0, dtype=F64)))),
    OpInfo("complex", fixed((A(1.0, 2.0, 0.0), A(0.5, -1.0, 3.0)), (np.ones((2, 1), F64), A(0.5, -1.0, 3.0, dtype=F64)),
                            (A(1.0, 2.0), np.array(1.0, F32)),
                            (A(1, 2, dtype=I64), A(1, 2, dtype=I64)), (A(1.0), A(1.0, dtype=F64)))),
    OpInfo("view_as_real", fixed((_Z,), (_Z.reshape(2, 2),), (A(1.0),))),
    OpInfo("view_as_complex", fixed((np.arange(6, dtype=F32).reshape(3, 2),), (np.ones((2, 2, 2), F64),),
                                    (np.ones((3, 3), F32),), (np.ones((), F32),), (np.ones((3, 2), I64),))),
    OpInfo("mul", fixed((A(1.0, 2.0), A(1 + 2j, -1j, dtype=C64)))),
    OpInfo("sgn", fixed((A(1.0, 0.0, -2.0),))),
)

# ------------------------------------------------------------------------------------------ dunders, in-place


def _inplace(name):
    """x.<name>_(...) on a copy of x (so the leaf stays out-of-place)."""
    return lambda mod, x, *args, **kwargs: getattr(x.clone(), name + "_")(*args, **kwargs)


def _iop(op):
    def run(mod, x, y):
        x = x.clone()
        return op(x, y)
    return run


def _iadd(x, y):
    x += y
    return x


def _ifloordiv(x, y):
    x //= y
    return x


def _ipow(x, y):
    x **= y
    return x


def _iand(x, y):
    x &= y
    return x


register(
    *(OpInfo(d, fixed((A(1.5, -2.0), A(3.0, 4.0)), (A(1.5, -2.0), 2.5), (A(1, -2, dtype=I64), 3),
                      (A(1, -2, dtype=I64), 2.5), (A(1, -2, dtype=I64), A(1.5, 2.0, dtype=F64))),
             grad=d not in ("__floordiv__", "__rfloordiv__", "__rmod__"))
      for d in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__")),
    OpInfo("__neg__", fixed((A(1.0, -2.0),), (A(1, 2, dtype=I64),), (A(True, dtype=B),))),
    OpInfo("__pos__", fixed((A(1.0, -2.0),), (A(True, dtype=B),))),
    OpInfo("Tensor.add_", fixed((A(1.0, 2.0), A(3.0, 4.0)), ((A(1.0, 2.0), A(3.0, 4.0)), dict(alpha=2)),
                                (A(1, 2, dtype=I64), 2.5), (A(1.0, 2.0), A(1.0, 2.0, 3.0)),
                                (A(1.0, 2.0), np.ones((2, 2), F32)), (A(1, 2, dtype=I32), A(1, 2, dtype=I64))),
           call=_inplace("add")),
    *(OpInfo("Tensor." + n + "_", fixed((A(1.0, 2.0), A(3.0, 4.0)), (A(1, 2, dtype=I64), A(3, 4, dtype=I64)),
                                        (A(1.0, 2.0, dtype=F64), 2)), call=_inplace(n))
      for n in ("sub", "mul", "div", "pow", "remainder", "fmod", "copysign", "xlogy")),
    *(OpInfo("Tensor." + n + "_", fixed((A(1.0, 2.0), A(3.0, 4.0)), (A(1, 2, dtype=I64), A(3, 4, dtype=I64))),
             call=_inplace(n)) for n in ("hypot", "atan2")),
    *(OpInfo("Tensor." + n + "_", fixed((A(1.0, 2.0), A(3.0, 1.0)), (A(1, 2, dtype=I64), A(3, 4, dtype=I64))),
             call=_inplace(n), grad=False) for n in ("floor_divide", "eq", "lt", "logical_and", "bitwise_and")),
    OpInfo("Tensor.eq_", fixed((A(1.0, 2.0), A(3.0, 2.0))), call=_inplace("eq")),
    *(OpInfo("Tensor." + n + "_", fixed((A(0.5, 2.0),), (A(1, 2, dtype=I64),)), call=_inplace(n))
      for n in ("sqrt", "exp", "neg", "abs", "sigmoid", "floor", "sign", "square", "logical_not", "bitwise_not",
                "reciprocal", "frac", "nan_to_num")),
    OpInfo("Tensor.clamp_", fixed(((A(0.5, 2.0),), dict(min=1.0)), ((A(1, 5, dtype=I64),), dict(min=2, max=3)),
                                  ((A(1, 5, dtype=I64),), dict(min=2.5))), call=_inplace("clamp")),
    OpInfo("Tensor.lerp_", fixed((A(0.5, 2.0), A(1.0, 1.0), 0.5)), call=_inplace("lerp")),
    OpInfo("Tensor.addcmul_", fixed(((A(0.5, 2.0), A(1.0, 1.0), A(2.0, 3.0)), dict(value=0.5))),
           call=_inplace("addcmul")),
    OpInfo("Tensor.addcdiv_", fixed(((A(0.5, 2.0), A(1.0, 1.0), A(2.0, 3.0)), dict(value=0.5))),
           call=_inplace("addcdiv")),
    OpInfo("__iadd__", fixed((A(1.0, 2.0), A(3.0, 4.0)), (A(1, 2, dtype=I64), 2.5), (A(1, 2, dtype=I64), 2)),
           call=_iop(_iadd)),
    OpInfo("__ifloordiv__", fixed((A(7, -7, dtype=I64), 2), (A(7.0, -7.0), 2)), call=_iop(_ifloordiv), grad=False),
    OpInfo("__ipow__", fixed((A(1.5, 2.0), 2), (A(3, 2, dtype=I64), 2)), call=_iop(_ipow)),
    OpInfo("__iand__", fixed((A(3, 2, dtype=I64), 6), (A(True, False, dtype=B), A(True, True, dtype=B))),
           call=_iop(_iand)),
)


# ---------------------------------------------------------------------------- number representation, torch.X_


def _torch_inplace(name):
    """torch.<name>_(x, ...) on a copy of x."""
    return lambda mod, x, *args, **kwargs: getattr(mod, name + "_")(x.clone(), *args, **kwargs)


register(
    OpInfo("gcd", binary(dtypes=(I64, I32), scalars=(), mixed=((I32, I64), (U8, I8)), low=-20, high=20), grad=False),
    OpInfo("lcm", binary(dtypes=(I64, I32), scalars=(), mixed=((I32, I64),), low=-20, high=20), grad=False),
    OpInfo("gcd", fixed((A(1.5), A(2.0)), (A(True), A(False))), grad=False),  # refused for floats and bools
    OpInfo("ldexp", binary(dtypes=(F32, F64), scalars=(), low=-4, high=4,
                           mixed=((I64, I64), (F32, I64), (I64, F32), (F32, F64)))),
    OpInfo("frexp", unary(dtypes=(F32, F64), low=-100, high=100)),
    OpInfo("frexp", fixed((A(0.0, -0.0, 1.0, -8.0, 0.25),), (A(1, 2, dtype=I64),))),
    OpInfo("nextafter", binary(dtypes=(F32, F64), scalars=(), mixed=((F32, F64),)), grad=False),
    OpInfo("nextafter", fixed((A(1, 2, dtype=I64), A(3, 4, dtype=I64))), grad=False),
    OpInfo("signbit", unary(dtypes=(F32, F64, I64, B))),
    OpInfo("signbit", fixed((A(0.0, -0.0, -np.inf, np.nan, -np.nan),), (A(1 + 1j, dtype=C64),))),
    OpInfo("isin", fixed((A(1, 2, 3, 4, dtype=I64), A(2, 4, dtype=I64)), (A(1.0, 2.0, 3.0), A(2, 3, dtype=I64)),
                         ((A(1, 2, 3, dtype=I64), A(2, 9, dtype=I64)), dict(invert=True)),
                         (np.arange(6).reshape(2, 3), np.array([[0, 5], [7, 3]])), (A(1, 2, dtype=I64), 2),
                         ((A(3, 1, 2, dtype=I64), A(1, 2, dtype=I64)), dict(assume_unique=True))), grad=False),
    *(OpInfo("Tensor." + n + "_", fixed((A(12, -18, 0, dtype=I64), A(8, 12, 5, dtype=I64))), call=_inplace(n),
             grad=False) for n in ("gcd", "lcm")),
    OpInfo("Tensor.ldexp_", fixed((A(1.0, -2.0), A(3, 1, dtype=I64)), (A(1.5, 2.0), A(2.0, -1.0))),
           call=_inplace("ldexp")),
    OpInfo("Tensor.nextafter_", fixed((A(1.0, -2.0), A(3.0, -5.0))), call=_inplace("nextafter"), grad=False),
    # torch.X_: the table's in-place rows as torch-level functions
    *(OpInfo(n + "_", fixed((A(0.5, 2.0, -0.3),), (A(0.25, 0.75, dtype=F64),)), call=_torch_inplace(n))
      for n in ("abs", "exp", "sqrt", "sin", "tanh", "sigmoid", "ceil", "floor", "round", "trunc", "frac", "neg",
                "reciprocal", "rsqrt", "log1p", "erf", "exp2", "expm1", "deg2rad", "square", "logit", "sinc",
                "arccos", "cos", "fix", "nan_to_num", "negative")),
    OpInfo("clamp_", fixed(((A(0.5, 2.0, -1.0),), dict(min=0.0, max=1.0)), ((A(1, 5, dtype=I64),), dict(min=2))),
           call=_torch_inplace("clamp")),
    OpInfo("clip_", fixed(((A(0.5, 2.0, -1.0),), dict(max=1.0)),), call=_torch_inplace("clip")),
    OpInfo("clamp_min_", fixed((A(0.5, 2.0, -1.0), 0.7)), call=_torch_inplace("clamp_min")),
    OpInfo("xlogy_", fixed((A(0.5, 0.0, 2.0), A(2.0, 3.0, 0.5)), (A(1.0, 2.0), 3.0)), call=_torch_inplace("xlogy")),
    OpInfo("gcd_", fixed((A(12, -18, dtype=I64), A(8, 12, dtype=I64))), call=_torch_inplace("gcd"), grad=False),
    OpInfo("ldexp_", fixed((A(1.0, -2.0), A(3, 1, dtype=I64))), call=_torch_inplace("ldexp")),
    OpInfo("fill_", fixed((A(0.5, 2.0), 3.0), (A(1, 2, dtype=I64), 7)), call=_torch_inplace("fill")),
    OpInfo("fill", fixed((A(0.5, 2.0), 3.0), (A(1, 2, dtype=I64), 7))),
    OpInfo("zero_", fixed((A(0.5, 2.0),), (A(1, 2, dtype=I64),)), call=_torch_inplace("zero")),
    OpInfo("rsub", fixed((A(0.5, 2.0), A(3.0, 4.0)), (A(0.5, 2.0), 3.0), ((A(1.0, 2.0), A(3.0, 4.0)), dict(alpha=2)),
                         (A(1, 2, dtype=I64), 5))),
    OpInfo("conj_physical", fixed((A(1 + 2j, 3 - 1j, dtype=C64),), (A(1.0, 2.0),))),
    OpInfo("Tensor.conj_physical_", fixed((A(1 + 2j, 3 - 1j, dtype=C64),), (A(1.0, 2.0),)),
           call=_inplace("conj_physical")),
    OpInfo("adjoint", fixed((np.arange(6.0, dtype=F32).reshape(2, 3),),
                            ((np.arange(8) + 1j * np.arange(8)).astype(C64).reshape(2, 2, 2),))),
    OpInfo("resolve_conj", fixed((A(1 + 2j, dtype=C64),), (A(1.0, 2.0),))),
    OpInfo("resolve_neg", fixed((A(1.0, 2.0),))),
)
