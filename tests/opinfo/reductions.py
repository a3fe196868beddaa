"""OpInfo entries for reductions and scans."""

import math

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 5.0, -1.0, 5.0]], np.float32)
NANS = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 4.0, -1.0, 0.0], [np.nan, 1.0, np.nan, 2.0]], np.float32)
ZEROS = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]], np.float32)


def reduce(dtypes=(np.int64, np.bool_), tuples=True, full=True, low=-3.0, high=3.0, ties=False, **kw):
    """Samples for a reduction over `dim`: int and negative dims with keepdim, 0-dim, empty dims, an
    out-of-range dim, a transposed (non-contiguous) input, float64 and `dtypes`; with `full` the whole
    tensor (0-dim, empty, 3-d); with `tuples` tuple dims; with `ties` repeated values and NaNs."""
    def gen(rng):
        def a(shape, dt=np.float32):
            return arr(rng, shape, dt, low, high)

        def s(x, **k):
            return Sample((x,), {**kw, **k})

        out = [s(a((2, 3, 4)), dim=1), s(a((2, 3, 4)), dim=-1, keepdim=True), s(a(()), dim=0), s(a((0, 3)), dim=1),
               s(a((0, 3)), dim=0), s(a((3, 4)), dim=2), s(Arg(a((4, 3)), transpose=True), dim=0, keepdim=True),
               s(a((3, 4), np.float64), dim=1)]
        out += [s(a((3, 4), d), dim=1) for d in dtypes]
        if full:
            out += [s(a(shape)) for shape in ((), (0,), (2, 3, 4))] + [s(a((3, 4), d)) for d in dtypes[:1]]
        if tuples:
            out += [s(a((2, 3, 4)), dim=(0, 2)), s(a((2, 3, 4)), dim=(-1, 0), keepdim=True)]
        if ties:
            out += [s(TIES.copy(), dim=1), s(NANS.copy()) if full else s(NANS.copy(), dim=1)]
        return out
    return gen


def half(name, full=True):
    """float16 and bfloat16 entries for op `name` (looser tolerance); numpy has no bfloat16 torch takes,
    so that one casts a float32 input inside the call."""
    def gen(dtype):
        def samples(rng):
            x = arr(rng, (3, 4), dtype)
            return [Sample((x,), {"dim": 1})] + ([Sample((x,))] if full else [])
        return samples

    def bf16(mod, x, **kw):
        return getattr(mod, name)(x.bfloat16(), **kw)

    return (OpInfo(name, gen(np.float16), rtol=1e-2, atol=1e-2),
            OpInfo(name, gen(np.float32), call=bf16, rtol=2e-2, atol=2e-2))


def scan(dtypes=(np.int64, np.bool_), low=-3.0, high=3.0):
    """Samples for a scan along `dim`: 0-dim, empty, 1-d to 3-d with negative dims, an out-of-range dim,
    float64, `dtypes` and a transposed input."""
    def gen(rng):
        def s(shape, dim, dt=np.float32):
            return Sample((arr(rng, shape, dt, low, high), dim))
        out = [s((), 0), s((0,), 0), s((6,), 0), s((2, 3, 4), -2), s((0, 3), 1), s((3, 4), 0, np.float64), s((3, 4), 2),
               Sample((Arg(arr(rng, (4, 3), np.float32, low, high), transpose=True), 1))]
        return out + [s((3, 4), 1, d) for d in dtypes]
    return gen


def fixed(*samples):
    return lambda rng: list(samples)


def _x(rng, shape=(3, 4), dtype=np.float32, low=-3.0, high=3.0):
    return arr(rng, shape, dtype, low, high)


def _complex(rng, shape):
    return (_x(rng, shape) + 1j * _x(rng, shape)).astype(np.complex64)


def var_special(rng):
    """The unbiased/correction overloads, zero variance (std's gradient there) and N - correction <= 0."""
    x = _x(rng, (3, 4))
    return [Sample((x,)), Sample((x,), {"unbiased": False}), Sample((x, 1, False, True)), Sample((x, True)),
            Sample((x,), {"dim": (0, 1), "correction": 2.5}), Sample((x,), {"dim": 0, "correction": 3}),
            Sample((x,), {"dim": 0, "correction": 0, "unbiased": True}), Sample((TIES.copy(), 1)),
            Sample((np.ones((1, 3), np.float32),), {"dim": 0}),
            Sample((np.ones((1, 3), np.float32),), {"dim": 0, "correction": 0}),
            Sample((_x(rng, (0, 3)),), {"dim": 0}), Sample((_complex(rng, (3, 4)),), {"dim": 1})]


def var_samples(rng):
    return reduce(dtypes=(np.int64,), full=False)(rng) + var_special(rng)


def norm_samples(rng):
    x = _x(rng, (3, 4))
    z = np.array([[0.0, 0.0, 0.0], [0.0, 1.5, -2.0]], np.float32)
    out = [Sample((_x(rng, shape),)) for shape in ((), (0,), (2, 3, 4))]
    out += [Sample((x,), {"p": p}) for p in (0, -math.inf, "nuc")]
    out += [Sample((z,), {"p": p, "dim": 1}) for p in (2, 1, 3, 0.5, -1, math.inf)]  # zeros: torch's masks
    out += [Sample((TIES.copy(),), {"p": math.inf, "dim": 1}), Sample((x, 3, 1, True)), Sample((x, "fro", 1)),
            Sample((_x(rng, (2, 3, 4)),), {"p": "nuc", "dim": (-1, 0), "keepdim": True}),
            Sample((_x(rng, (2, 3, 4)),), {"dim": (0, 2), "p": None}), Sample((_x(rng, (2, 3, 4)),), {"p": "nuc"}),
            Sample((_x(rng, (4,)),), {"p": "nuc"}), Sample((x,), {"dtype": "float64"}),
            Sample((_x(rng, (3, 4), np.int64),)), Sample((np.zeros(0, np.float32),), {"p": math.inf}),
            Sample((np.zeros((0, 3), np.float32),), {"p": -1, "dim": 0}),
            Sample((np.zeros((0, 3), np.float32),), {"p": math.inf, "dim": 1}),
            Sample((Arg(_x(rng, (4, 3)), transpose=True),), {"p": 1, "dim": 0}),
            Sample((_complex(rng, (3, 4)),), {"dim": 1})]
    return out


def _norm_call(mod, x, **kw):
    if kw.get("dtype") == "float64":
        kw["dtype"] = mod.float64
    return mod.norm(x, **kw)


def quantile_samples(rng):
    x = _x(rng, (3, 5))
    q = np.array([0.0, 0.25, 0.6, 1.0], np.float32)
    out = [Sample((x, 0.3)), Sample((x, 1.0), {"dim": 1}), Sample((x, Arg(q, grad=False))),
           Sample((x, Arg(q, grad=False)), {"dim": 0, "keepdim": True}), Sample((x, 0.5), {"dim": -1, "keepdim": True}),
           Sample((x, Arg(np.array(0.4, np.float32), grad=False)), {"dim": 1}),
           Sample((_x(rng, ()), Arg(q, grad=False)), {"dim": 0, "keepdim": True}),
           Sample((_x(rng, (2, 3, 4), np.float64), 0.7), {"dim": 1}), Sample((NANS.copy(), 0.5), {"dim": 1}),
           Sample((np.zeros(0, np.float32), 0.5)), Sample((x, 1.5)), Sample((x, Arg(q * 2, grad=False))),
           Sample((x, Arg(q.astype(np.float64), grad=False))), Sample((_x(rng, (3, 4), np.int64), 0.5)),
           Sample((x, 0.5), {"interpolation": "cubic"}),
           Sample((Arg(_x(rng, (4, 3)), transpose=True), 0.2), {"dim": 0})]
    r = np.array([[0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 3.0]], np.float32)
    rq = np.array([0.1, 0.5, 0.6, 0.833333], np.float32)
    out += [Sample((r, Arg(rq, grad=False)), {"dim": 1, "interpolation": m})
            for m in ("linear", "lower", "higher", "midpoint", "nearest")]
    return out


def diff_samples(rng):
    x = _x(rng, (3, 4))
    return [Sample((x,)), Sample((x, 2, 0)), Sample((x,), {"n": 0}), Sample((x,), {"n": 5, "dim": 0}),
            Sample((_x(rng, (0,)),)), Sample((_x(rng, ()),)), Sample((x,), {"n": -1}),
            Sample((x,), {"prepend": _x(rng, (3, 1)), "append": _x(rng, (3, 2))}),
            Sample((x,), {"dim": 0, "prepend": _x(rng, (1, 4), np.float64)}),
            Sample((x,), {"prepend": _x(rng, (3, 2), np.int64)}), Sample((x,), {"prepend": _x(rng, (3,))}),
            Sample((x,), {"prepend": _x(rng, (2, 1))}), Sample((x,), {"dim": 2}),
            Sample((np.array([True, False, False, True]),)), Sample((np.array([3, 1, 7], np.uint8),)),
            Sample((Arg(_x(rng, (4, 3)), transpose=True),), {"dim": 0}),
            Sample((_x(rng, (2, 3, 4)), 2, 1), {"append": _x(rng, (2, 1, 4))})]


def mode_samples(rng):
    ints = rng.integers(0, 3, (4, 7)).astype(np.float32)
    # no NaNs: torch sorts them with std::sort, whose order for NaN is unspecified
    return [Sample((ints,)), Sample((ints, 0)), Sample((ints, 1, True)), Sample((TIES.copy(),)),
            Sample((_x(rng, ()), -1, True)), Sample((np.zeros(0, np.float32),)),
            Sample((np.zeros((0, 3), np.float32),)), Sample((np.zeros((0, 3), np.float32), 0)),
            Sample((rng.integers(0, 4, (3, 6)),)), Sample((rng.random((2, 5)) > 0.5,)),
            Sample((Arg(ints[:, :4].copy(), transpose=True), 0)), Sample((ints, 2))]


def median_samples(rng):
    # random floats (no ties along a dim): torch's index among tied medians is its sort's choice
    out = reduce(dtypes=(), tuples=False)(rng)
    perm = np.stack([rng.permutation(7) for _ in range(3)]).astype(np.int64)
    out += [Sample((perm,)), Sample((perm, 1)), Sample((TIES.copy(),)), Sample((NANS.copy(),)),
            Sample((NANS.copy(), 1)), Sample((np.array([[np.nan, 1.0, np.nan], [np.nan] * 3], np.float32), 1)),
            Sample((np.array([True, False]),))]
    return out


def extreme_samples(rng):
    """max/min in all three forms: whole tensor, along a dim (namedtuple), and binary (like maximum)."""
    out = reduce(tuples=False, ties=True)(rng)
    x = _x(rng, (3, 4))
    out += [Sample((x, 1, True)), Sample((x, _x(rng, (4,)))), Sample((TIES.copy(), TIES[::-1].copy())),
            Sample((x,), {"other": _x(rng, (3, 4))}), Sample((np.array([True, False, True]), 0))]
    return out


def _dtype_call(fn):
    """Call with dtype= given as a name (samples hold no torch dtype)."""
    def call(mod, *args, dtype, **kw):
        return getattr(mod, fn)(*args, dtype=getattr(mod, dtype), **kw)
    return call


def dtype_samples(rng):
    return [Sample((_x(rng, (3, 4), np.int64),), {"dtype": "float32"}),
            Sample((_x(rng, (3, 4), np.int32),), {"dim": 1, "dtype": "float64"}),
            Sample((_x(rng, (3, 4), np.bool_),), {"dtype": "int32"})]


def scan_dtype_samples(rng):
    return [Sample((_x(rng, (3, 4), np.int64), 1), {"dtype": "float32"}),
            Sample((_x(rng, (3, 4)), 0), {"dtype": "float64"}),
            Sample((_x(rng, (3, 4), np.int32), 0), {"dtype": "int32"})]


def count_nonzero_samples(rng):
    x = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32)
    return [Sample((x,), k) for k in ({}, {"dim": 0}, {"dim": (0, 1)}, {"dim": -1}, {"dim": (1, 1)}, {"dim": ()},
                                      {"dim": 2})] + [
        Sample((_x(rng, (0, 3)),), {"dim": 0}), Sample((_x(rng, ()),)),
        Sample((_x(rng, (3, 4), np.int64),), {"dim": 1}), Sample((_x(rng, (3, 4), np.bool_),)),
        Sample((Arg(_x(rng, (4, 3)), transpose=True),), {"dim": 0})]


def cumext_samples(rng):
    nan = np.array([1.0, np.nan, 3.0, np.nan, 0.0], np.float32)
    return scan()(rng) + [Sample((np.array([1.0, 3.0, 3.0, 2.0, 5.0, 5.0], np.float32), 0)), Sample((nan, 0)),
                          Sample((TIES.copy(), 1))]


register(
    OpInfo("sum", reduce(dtypes=(np.int32, np.uint8, np.bool_))),
    OpInfo("sum", dtype_samples, call=_dtype_call("sum")),
    *half("sum", full=False),
    OpInfo("Tensor.sum", fixed(Sample((TIES.copy(), 1)), Sample((TIES.copy(), (0, 1), True)),
                               Sample((TIES.copy(), [])))),
    OpInfo("mean", reduce(dtypes=(np.int64,))),
    OpInfo("mean", dtype_samples, call=_dtype_call("mean")),
    *half("mean", full=False),
    OpInfo("nansum", reduce(dtypes=(np.int64,), ties=True)),
    OpInfo("nansum", dtype_samples, call=_dtype_call("nansum")),
    OpInfo("nanmean", reduce(dtypes=(np.int64,), ties=True)),
    OpInfo("prod", reduce(dtypes=(np.int32, np.bool_), tuples=False, low=-2.0, high=2.0)),
    OpInfo("prod", fixed(Sample((np.array([2.0, 0.0, 3.0], np.float32),)),
                         Sample((np.array([2.0, 0.0, 0.0], np.float32),)), Sample((ZEROS.copy(), 1)),
                         Sample((ZEROS.copy(), 0, True)), Sample((ZEROS.copy(),), {"dim": (0, 1)}))),
    OpInfo("prod", dtype_samples, call=_dtype_call("prod")),
    OpInfo("var", var_samples),
    OpInfo("std", var_samples),
    OpInfo("var_mean", var_special),
    OpInfo("std_mean", var_special),
    *half("std"),
    OpInfo("max", extreme_samples),
    OpInfo("min", extreme_samples),
    OpInfo("Tensor.max", fixed(Sample((TIES.copy(), 1)), Sample((TIES.copy(),)),
                               Sample((TIES.copy(), TIES[:, :1].copy())))),
    *half("max"),
    OpInfo("amax", reduce(ties=True)),
    OpInfo("amin", reduce(ties=True)),
    *half("amin"),
    OpInfo("aminmax", reduce(tuples=False, ties=True)),
    OpInfo("argmax", reduce(dtypes=(np.int64, np.bool_), tuples=False, ties=True)),
    OpInfo("argmin", reduce(dtypes=(np.int64, np.bool_), tuples=False, ties=True)),
    OpInfo("logsumexp", reduce(dtypes=(np.int64,), full=False)),
    OpInfo("logsumexp", fixed(Sample((np.array([[-np.inf, -np.inf, 1.0], [np.inf, 1.0, 2.0]], np.float32), 1)),
                              Sample((np.zeros((3, 4), np.float32),)))),
    *half("logsumexp", full=False),
    OpInfo("norm", norm_samples, call=_norm_call, rtol=1e-4, atol=1e-5),
    *half("norm", full=False),
    OpInfo("all", reduce(dtypes=(np.int64, np.uint8, np.bool_), ties=True)),
    OpInfo("any", reduce(dtypes=(np.int64, np.uint8, np.bool_), ties=True)),
    OpInfo("all", fixed(Sample((ZEROS.copy(),), {"dim": ()}))),
    OpInfo("count_nonzero", count_nonzero_samples),
    OpInfo("median", median_samples),
    OpInfo("nanmedian", median_samples),
    *half("median"),
    OpInfo("quantile", quantile_samples),
    OpInfo("nanquantile", quantile_samples),
    OpInfo("mode", mode_samples),
    OpInfo("cumsum", scan(dtypes=(np.int32, np.bool_))),
    OpInfo("cumsum", scan_dtype_samples, call=_dtype_call("cumsum")),
    *half("cumsum", full=False),
    OpInfo("Tensor.cumsum_", scan(dtypes=(np.int64, np.int32)), grad=False),
    OpInfo("cumprod", scan(low=-2.0, high=2.0)),
    OpInfo("cumprod", fixed(Sample((np.array([2.0, 0.0, 3.0, 0.0, 5.0], np.float32), 0)), Sample((ZEROS.copy(), 1)))),
    OpInfo("Tensor.cumprod_", fixed(Sample((_x(np.random.default_rng(2), (3, 4), np.int32), 1)),
                                    Sample((np.array([2.0, 0.5, 3.0], np.float32), 0))), grad=False),
    OpInfo("cummax", cumext_samples),
    OpInfo("cummin", cumext_samples),
    OpInfo("logcumsumexp", scan(dtypes=(np.int64,))),
    OpInfo("logcumsumexp", fixed(Sample((np.array([-np.inf, -np.inf, 1.0], np.float32), 0)),
                                 Sample((np.array([1.0, -np.inf, 2.0], np.float32), 0)))),
    OpInfo("diff", diff_samples),
)


def _gradient_samples(rng):
    a, v = _x(rng, (4, 5)), _x(rng, (6,))
    return [Sample((v,)), Sample((a,)), Sample((a,), {"spacing": 2.0}), Sample((a,), {"dim": 1}),
            Sample((a,), {"spacing": [1.0, 0.5]}), Sample((a,), {"dim": -1, "edge_order": 2}),
            Sample((v,), {"spacing": 3, "edge_order": 2}), Sample((np.arange(5, dtype=np.int64),)),
            Sample((v,), {"spacing": (np.array([0.0, 1.0, 3.0, 4.0, 7.0, 8.0], np.float32),)}),
            Sample((_x(rng, (1, 3)),)), Sample((a,), {"edge_order": 3}), Sample((a,), {"spacing": [1.0]}),
            Sample((_x(rng, (2, 3), np.float64),), {"dim": (0, 1), "edge_order": 1})]


def _dist_samples(rng):
    return [Sample((_x(rng), _x(rng))), Sample((_x(rng), _x(rng, (4,))), {"p": 1}), Sample((_x(rng), _x(rng), 3)),
            Sample((_x(rng), _x(rng), float("inf"))),
            Sample((_x(rng, (3,), np.float64), _x(rng, (3,), np.float64), 0.5))]


register(
    OpInfo("gradient", _gradient_samples),
    OpInfo("dist", _dist_samples),
    OpInfo("Tensor.dist", _dist_samples),
)
