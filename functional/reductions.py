"""Reductions and scans with torch's semantics.

Dims follow torch: `dim` is an int, a tuple/list of ints, or None (all dims); negative dims count
from the end; a 0-dim tensor accepts dim 0 and -1. Integer and bool sums/products accumulate in
int64. Where torch's gradient at a tie differs from plain autodiff (max/min/median of a whole
tensor and amax/amin share the gradient evenly among tied elements; norms and std at zero) the
functions below fix it with `jax.custom_jvp`.
"""

import builtins
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .linalg import _vnorm  # the one p-norm, with torch's gradient

__all__ = [
    "sum", "mean", "nansum", "nanmean", "prod", "var", "std", "var_mean", "std_mean", "max", "min", "amax", "amin",
    "argmax", "argmin", "aminmax", "logsumexp", "norm", "all", "any", "count_nonzero", "median", "nanmedian",
    "quantile", "nanquantile", "mode", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "diff", "gradient",
]

_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


# ---------------------------------------------------------------------------- helpers

def _tname(dtype):
    """torch's ScalarType name of a dtype, as its error messages print it ("Long")."""
    return _TORCH_NAMES.get(np.dtype(dtype).name, str(dtype))


def _is_float(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def _is_int(x):
    return jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_


def _dim(dim, ndim):
    """One dim as a non-negative axis (a 0-dim tensor takes 0 and -1)."""
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _axes(dim, ndim, empty_is_all=True):
    """dim (None, an int or a sequence) as a tuple of non-negative axes. None means every dim, and so
    does an empty sequence unless `empty_is_all` is false (torch.all/any reduce nothing then)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim)) if empty_is_all else ()
    out = []
    for d in dims:
        d = _dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out) if ndim else ()


def _count(shape, axes):
    return math.prod(shape[a] for a in axes)


def _int_acc(input, dtype):
    """The dtype torch sums/multiplies in: dtype= if given, int64 for integers and bool."""
    if dtype is not None:
        return dtype
    return jnp.dtype(jnp.int64) if _is_int(input) else input.dtype


def _upcast(x):
    """float16/bfloat16 computed in float32, as torch's CPU kernels accumulate."""
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def _squeeze(x, axes, keepdim):
    return x if keepdim else jnp.squeeze(x, axes)


def _last(x, dim):
    """x with `dim` moved last (flattened if None; a 0-dim x as one element) and that dim's axis."""
    if dim is None:
        return x.reshape(-1), None
    d = _dim(dim, x.ndim)
    return (jnp.moveaxis(x, d, -1) if x.ndim else x.reshape(1)), d


def _take(x, idx, axis):
    return jnp.take_along_axis(x, idx, axis=axis)


def _nonempty(name, input, axes, dim, numel_msg=True):
    """torch's errors for a reduction without an identity over an empty dim."""
    if dim is None or (not isinstance(dim, int) and not tuple(dim)):
        if input.size == 0:
            raise (RuntimeError if numel_msg else IndexError)(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                + (" Specify the reduction dim with the 'dim' argument." if numel_msg else ""))
        return
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    for d, a in zip(dims, axes):
        if input.ndim and input.shape[a] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# ---------------------------------------------------------------------------- selection with torch's tie gradient

@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4))
def _select(x, pick, axes, keepdim, nan_ties=True):
    """pick(x, axes) (keepdims) for a reduction that selects an element: max, min, median. Its gradient
    is shared evenly among the elements equal to the result, like torch's. With `nan_ties` a NaN result
    counts as equal to the NaNs (max, min, median); without, its gradient is NaN (amax, amin)."""
    return _squeeze(pick(x, axes), axes, keepdim)


@_select.defjvp
def _select_jvp(pick, axes, keepdim, nan_ties, primals, tangents):
    (x,), (t,) = primals, tangents
    v = pick(x, axes)
    hit = (x == v) | (jnp.isnan(x) & jnp.isnan(v)) if nan_ties else x == v
    count = jnp.sum(hit, axes, keepdims=True)
    # nothing ties when amax meets a NaN: torch's 0/0 makes the gradient NaN (spelled out, as XLA folds 0/0)
    share = jnp.where(count == 0, jnp.nan, hit / jnp.maximum(count, 1)).astype(t.dtype)
    dv = jnp.sum(share * t, axes, keepdims=True)
    return _squeeze(v, axes, keepdim), _squeeze(dv.astype(v.dtype), axes, keepdim)


def _pick_max(x, axes):
    return jnp.max(x, axes, keepdims=True)


def _pick_min(x, axes):
    return jnp.min(x, axes, keepdims=True)


def _pick_median(x, axes, ignore_nan=False):
    flat = jnp.sort(x.reshape(-1))  # NaNs sort last
    nans = jnp.sum(jnp.isnan(flat))
    n = flat.size
    k = jnp.maximum(n - nans - 1, 0) // 2 if ignore_nan else jnp.where(nans > 0, n - 1, (n - 1) // 2)
    return flat[k].reshape((1,) * x.ndim)


def _pick_nanmedian(x, axes):
    return _pick_median(x, axes, ignore_nan=True)


# ---------------------------------------------------------------------------- sums and means

def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (all dims if None). Integers and bool sum to int64 unless `dtype` is given."""
    acc = _int_acc(input, dtype)
    return jnp.sum(input.astype(acc), _axes(dim, input.ndim), keepdims=keepdim, dtype=acc)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum treating NaN as zero."""
    return sum(jnp.where(jnp.isnan(input), 0, input) if _is_float(input) else input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over `dim` (all dims if None); the mean of nothing is NaN. Integer input needs a float `dtype`."""
    if dtype is not None:
        input = input.astype(dtype)
    if not _is_float(input):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_tname(input.dtype)}")
    return jnp.mean(input, _axes(dim, input.ndim), keepdims=keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements over `dim`."""
    if dtype is not None:
        input = input.astype(dtype)
    if not _is_float(input):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_tname(input.dtype)}")
    keep = ~jnp.isnan(input)
    axes = _axes(dim, input.ndim)
    return jnp.sum(jnp.where(keep, input, 0), axes, keepdims=keepdim) / jnp.sum(keep, axes, keepdims=keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over one `dim` (all if None); integers and bool multiply in int64. The gradient with zeros
    is exact (products of the other elements, no division)."""
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    acc = _int_acc(input, dtype)
    axes = _axes(dim, input.ndim)
    return jnp.prod(input.astype(acc), axes, keepdims=keepdim, dtype=acc)


# ---------------------------------------------------------------------------- variance

@jax.custom_jvp
def _sqrt(x):
    """sqrt whose gradient at 0 is 0 (torch's std backward masks it)."""
    return jnp.sqrt(x)


@_sqrt.defjvp
def _sqrt_jvp(primals, tangents):
    y = jnp.sqrt(primals[0])
    zero = y == 0
    return y, tangents[0] * jnp.where(zero, 0, 1 / (2 * jnp.where(zero, 1, y))).astype(y.dtype)


def _var_mean(input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):  # torch.var(x, True): the `unbiased` overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError("var() received an invalid combination of arguments: unbiased and correction together")
    if not _is_float(input):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    axes = _axes(dim, input.ndim)
    x = _upcast(input)
    m = jnp.mean(x, axes, keepdims=True)
    # the mean's part of the gradient sums to zero; torch leaves it out, which keeps 2c/(N - correction)
    # finite-or-inf (not inf - inf) when N - correction is 0
    c = x - lax.stop_gradient(m)
    sq = c.real ** 2 + c.imag ** 2 if jnp.iscomplexobj(c) else c * c
    # torch divides by max(0, N - correction): a non-positive count gives inf or nan
    var = jnp.sum(sq, axes, keepdims=keepdim) / builtins.max(0, _count(input.shape, axes) - correction)
    return var.astype(input.real.dtype), _squeeze(m, axes, keepdim).astype(input.dtype)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over `dim`: sum((x - mean)^2) / max(0, N - correction). correction defaults to 1
    (Bessel's); `unbiased=False` means correction=0. Complex input gives a real variance."""
    return _var_mean(input, dim, unbiased, keepdim, correction)[0]


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """sqrt(var(...)); its gradient is zero where the std is zero, as in torch."""
    return _sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over the same dims."""
    return _var_mean(input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over the same dims."""
    v, m = _var_mean(input, dim, unbiased, keepdim, correction)
    return _sqrt(v), m


# ---------------------------------------------------------------------------- max / min

def _values_indices(input, x, idx, d, keepdim):
    """The (values, int64 indices) namedtuple pair of a selection `idx` along x's last axis (input's
    dim `d` moved last), put back at dim d."""
    values = _take(x, idx, -1)
    if input.ndim == 0:
        return values.reshape(()), jnp.zeros((), jnp.int64)
    values, idx = jnp.moveaxis(values, -1, d), jnp.moveaxis(idx, -1, d)
    return _squeeze(values, d, keepdim), _squeeze(idx.astype(jnp.int64), d, keepdim)


def _extreme(name, input, dim, keepdim, pick, arg):
    if dim is None:
        _nonempty(name, input, (), None)
        return _select(input, pick, tuple(range(input.ndim)), False)
    x, d = _last(input, dim)
    _nonempty(name, input, (d,), d)
    idx = arg(x, axis=-1, keepdims=True)
    return _values_indices(input, x, idx, d, keepdim)


def max(input, dim=None, keepdim=False):
    """The largest element (NaN if any), or with `dim` the namedtuple (values, indices) along it; the
    first index wins ties. Without dim the gradient is shared among ties; with dim it goes to the index.
    (torch.max(input, other) is torch.maximum; the facade routes it there.)"""
    return _extreme("max", input, dim, keepdim, _pick_max, jnp.argmax)


def min(input, dim=None, keepdim=False):
    """The smallest element, or (values, indices) along `dim`; see max."""
    return _extreme("min", input, dim, keepdim, _pick_min, jnp.argmin)


def _amext(name, input, dim, keepdim, pick):
    axes = _axes(dim, input.ndim)
    _nonempty(name, input, axes, dim)
    return _select(input, pick, axes, keepdim, False)


def amax(input, dim=(), keepdim=False):
    """The maximum over `dim` (all dims if empty); the gradient is shared evenly among tied maxima."""
    return _amext("amax", input, dim, keepdim, _pick_max)


def amin(input, dim=(), keepdim=False):
    """The minimum over `dim` (all dims if empty); the gradient is shared evenly among tied minima."""
    return _amext("amin", input, dim, keepdim, _pick_min)


def aminmax(input, *, dim=None, keepdim=False):
    """The namedtuple (min, max) over `dim` (all dims if None)."""
    axes = _axes(dim, input.ndim)
    if input.size == 0 and (dim is None or input.ndim and input.shape[axes[0]] == 0):
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        raise IndexError(f"aminmax: Expected reduction dim {axes[0]} to have non-zero size.")
    return _select(input, _pick_min, axes, keepdim, False), _select(input, _pick_max, axes, keepdim, False)


def _argext(name, input, dim, keepdim, arg):
    if input.dtype == jnp.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        _nonempty(name, input, (), None, numel_msg=False)
        i = arg(input.reshape(-1)).astype(jnp.int64)
        return i.reshape((1,) * input.ndim) if keepdim else i
    return _extreme(name, input, dim, keepdim, None, arg)[1]


def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (of the flattened input if dim is None); the first one wins ties; int64."""
    return _argext("argmax", input, dim, keepdim, jnp.argmax)


def argmin(input, dim=None, keepdim=False):
    """Index of the minimum (of the flattened input if dim is None); the first one wins ties; int64."""
    return _argext("argmin", input, dim, keepdim, jnp.argmin)


# ---------------------------------------------------------------------------- logsumexp and norms

def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over `dim`, computed stably; over an empty dim it is -inf."""
    axes = _axes(dim, input.ndim)
    x = _upcast(input)
    if _count(input.shape, axes) == 0:
        return jnp.full(jnp.sum(x, axes, keepdims=keepdim).shape, -jnp.inf, input.dtype)
    return jax.nn.logsumexp(x, axes, keepdims=keepdim).astype(input.dtype)


def _fmt(p):
    return f"{p:g}" if isinstance(p, float) else str(p)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: a vector p-norm over `dim` (all dims if None) for numeric p (inf and -inf give max/min
    |x|, 0 counts non-zeros) and for 'fro'; the nuclear norm (sum of singular values) for 'nuc' over a
    2-tuple of dims. The result is real; `dtype` casts the input first."""
    if dtype is not None:
        input = input.astype(dtype)
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str) and not (p == "fro" and (dims is None or len(dims) <= 2)):
        return _matrix_norm(input, p, list(range(input.ndim)) if dims is None else dims, keepdim)
    p = 2 if p is None or isinstance(p, str) else p
    if not _is_float(input):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(input.dtype)}")
    axes = _axes(dims, input.ndim)
    if p < 0 or p == math.inf:
        if dims is None and input.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(p)} norm on an empty tensor because "
                               "the operation does not have an identity")
        for d, a in zip(dims or (), axes):
            if input.shape[a] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(p)} norm on the dimension {d}"
                                   "because this dimension is empty and the operation does not have an identity")
    out = input.real.dtype
    return _vnorm(_upcast(input), float(p), axes, keepdim, True).astype(out)


def _matrix_norm(input, p, dims, keepdim):
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    if p != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    axes = _axes(dims, input.ndim)
    x = jnp.moveaxis(_upcast(input), axes, (-2, -1))
    s = jnp.sum(jnp.linalg.svd(x, compute_uv=False), -1)
    if keepdim:
        s = jnp.expand_dims(s, tuple(sorted(axes)))
    return s.astype(input.real.dtype)


# ---------------------------------------------------------------------------- logical reductions

def all(input, dim=None, keepdim=False):
    """True where every element over `dim` is non-zero (an empty tuple reduces nothing). bool, or uint8
    for uint8 input."""
    r = jnp.all(input != 0, _axes(dim, input.ndim, empty_is_all=False), keepdims=keepdim)
    return r.astype(jnp.uint8) if input.dtype == jnp.uint8 else r


def any(input, dim=None, keepdim=False):
    """True where some element over `dim` is non-zero; see all."""
    r = jnp.any(input != 0, _axes(dim, input.ndim, empty_is_all=False), keepdims=keepdim)
    return r.astype(jnp.uint8) if input.dtype == jnp.uint8 else r


def count_nonzero(input, dim=None):
    """Number of non-zero elements over `dim` (all dims if None), int64."""
    return jnp.sum(input != 0, _axes(dim, input.ndim), dtype=jnp.int64)


# ---------------------------------------------------------------------------- order statistics

def _median(name, input, dim, keepdim, ignore_nan):
    if input.dtype == jnp.bool_:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    if dim is None:
        if input.size == 0:
            return jnp.full((), jnp.nan, input.dtype)
        return _select(input, _pick_nanmedian if ignore_nan else _pick_median, tuple(range(input.ndim)), False)
    x, d = _last(input, dim)
    _nonempty("median", input, (d,), d)
    perm = jnp.argsort(x, axis=-1, stable=True)  # NaNs last, in their original order
    n = x.shape[-1]
    nans = jnp.sum(jnp.isnan(x), -1, keepdims=True)
    # torch's lower median; a NaN makes median pick the first NaN, nanmedian skips them
    k = jnp.maximum(n - nans - 1, 0) // 2 if ignore_nan else jnp.where(nans > 0, n - nans, (n - 1) // 2)
    idx = _take(perm, k, -1)
    return _values_indices(input, x, idx, d, keepdim)


def median(input, dim=None, keepdim=False):
    """The lower median (of the flattened input if dim is None; NaN if any element is NaN), or with `dim`
    the namedtuple (values, indices). Without dim the gradient is shared among tied elements."""
    return _median("median", input, dim, keepdim, ignore_nan=False)


def nanmedian(input, dim=None, keepdim=False):
    """median ignoring NaNs (NaN only where every element is NaN)."""
    return _median("nanmedian", input, dim, keepdim, ignore_nan=True)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(a, b, w):
    # torch's lerp: exact at both ends
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    scalar_q = isinstance(q, (int, float))
    if input.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if not scalar_q and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input.dtype not in (jnp.float32, jnp.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if not scalar_q and q.dtype != input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if not scalar_q and not isinstance(q, jax.core.Tracer) and not bool(jnp.all((q >= 0) & (q <= 1))):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    qs = jnp.asarray(q, input.dtype).reshape(-1)  # (Q,)
    x, d = _last(input, dim)
    s = jnp.sort(x, axis=-1)[..., None, :]  # (..., 1, n), NaNs last
    n = x.shape[-1]
    nans = jnp.sum(jnp.isnan(s), -1, keepdims=True)  # (..., 1, 1)
    if ignore_nan:
        ranks = jnp.maximum(qs[:, None] * (n - nans - 1).astype(input.dtype), 0)
    else:
        ranks = jnp.where(nans > 0, n - 1, qs[:, None] * (n - 1))  # a NaN makes the quantile NaN
    ranks = {"lower": jnp.floor, "higher": jnp.ceil, "nearest": jnp.round}.get(interpolation, lambda r: r)(ranks)
    below = ranks.astype(jnp.int64)
    out = _take(s, below, -1)
    if interpolation in ("linear", "midpoint"):
        w = jnp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        out = _lerp(out, _take(s, jnp.ceil(ranks).astype(jnp.int64), -1), w)
    out = jnp.moveaxis(out[..., 0], -1, 0)  # (Q, ...)
    if keepdim and input.ndim:
        out = out.reshape((len(qs),) + (1,) * input.ndim) if d is None else jnp.expand_dims(out, d + 1)
    return out[0] if scalar_q or q.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q a number or 1-D tensor in [0, 1]) over `dim` (the flattened input if None),
    interpolating between the two nearest sorted values by `interpolation` ('linear', 'lower', 'higher',
    'midpoint', 'nearest'). A tensor q puts its dim first in the result. NaN in the input gives NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaNs (NaN only where every element is NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def mode(input, dim=-1, keepdim=False):
    """The namedtuple (values, indices) of the most frequent value along `dim`: the smallest one among
    equally frequent values, and the index of its last occurrence (torch's choice). NaNs never tie."""
    x, d = _last(input, dim)
    _nonempty("mode", input, (d,), d)
    n = x.shape[-1]
    perm = jnp.argsort(x, axis=-1, stable=True)
    s = _take(x, perm, -1)
    pos = lax.broadcasted_iota(jnp.int32, s.shape, s.ndim - 1)
    change = s[..., 1:] != s[..., :-1]
    edge = jnp.ones(s.shape[:-1] + (1,), bool)
    start = lax.cummax(jnp.where(jnp.concatenate([edge, change], -1), pos, 0), axis=s.ndim - 1)
    end = lax.cummin(jnp.where(jnp.concatenate([change, edge], -1), pos, n - 1), axis=s.ndim - 1, reverse=True)
    best = jnp.argmax(end - start, axis=-1, keepdims=True)  # first longest run: the smallest value
    idx = _take(perm, _take(end, best, -1), -1)
    return _values_indices(input, x, idx, d, keepdim)


# ---------------------------------------------------------------------------- scans

def _scan_axis(input, dim):
    return _dim(dim, input.ndim), (input.reshape(1) if input.ndim == 0 else input)


def cumsum(input, dim, *, dtype=None):
    """Running sum along `dim`; integers and bool accumulate in int64 unless `dtype` is given."""
    d, x = _scan_axis(input, dim)
    acc = _int_acc(input, dtype)
    return jnp.cumsum(x.astype(acc), axis=d, dtype=acc).reshape(input.shape)


def cumprod(input, dim, *, dtype=None):
    """Running product along `dim`; integers and bool multiply in int64. The gradient with zeros is exact."""
    d, x = _scan_axis(input, dim)
    acc = _int_acc(input, dtype)
    return jnp.cumprod(x.astype(acc), axis=d, dtype=acc).reshape(input.shape)


def _cumext(input, dim, later_wins):
    d, x = _scan_axis(input, dim)
    nan = jnp.isnan if _is_float(x) else (lambda v: jnp.zeros(v.shape, bool))

    def combine(a, b):
        take = later_wins(b[0], a[0]) | nan(b[0])  # NaN, once seen, wins (the latest NaN)
        return jnp.where(take, b[0], a[0]), jnp.where(take, b[1], a[1])

    iota = lax.broadcasted_iota(jnp.int64, x.shape, d)
    if x.shape[d] == 0:
        return x.reshape(input.shape), iota.reshape(input.shape)
    _, idx = lax.associative_scan(combine, (x, iota), axis=d)
    return _take(x, idx, d).reshape(input.shape), idx.reshape(input.shape)


def cummax(input, dim):
    """The namedtuple (values, indices) of the running maximum along `dim`; the latest index wins ties
    and NaN propagates. Gradients flow to the indices."""
    return _cumext(input, dim, lambda b, a: b >= a)


def cummin(input, dim):
    """The namedtuple (values, indices) of the running minimum along `dim`; see cummax."""
    return _cumext(input, dim, lambda b, a: b <= a)


def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along `dim`, computed stably."""
    if not _is_float(input):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_tname(input.dtype)}\'')
    d, x = _scan_axis(input, dim)
    return lax.cumlogsumexp(_upcast(x), axis=d).astype(input.dtype).reshape(input.shape)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim` (out[i] = x[i+1] - x[i], logical xor for bool), after
    concatenating `prepend` and `append` along that dim."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim(dim, input.ndim)
    parts = [input]
    for extra, at in ((prepend, 0), (append, 1)):
        if extra is None:
            continue
        if extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.ndim):
            if i != d and extra.shape[i] != input.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                                   f"but got tensor.size({i}) = {extra.shape[i]}")
        parts.insert(at * len(parts), extra.astype(input.dtype))
    x = jnp.concatenate(parts, axis=d) if len(parts) > 1 else input
    for _ in range(builtins.min(n, x.shape[d])):
        hi, lo = lax.slice_in_dim(x, 1, None, axis=d), lax.slice_in_dim(x, 0, -1, axis=d)
        x = hi != lo if x.dtype == jnp.bool_ else hi - lo
    return x


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central differences of input along each of `dim` (default all dims): one tensor per dim.
    `spacing` is one number, one number per dim, or one coordinate array per dim; the ends use
    one-sided differences of `edge_order` 1 or 2 (coordinates: order 1)."""
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    dims = tuple(d % (input.ndim or 1) for d in dims)
    spacings = tuple(spacing) if isinstance(spacing, (list, tuple)) else (spacing,) * len(dims)
    if len(spacings) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacings)} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    x = input if jnp.issubdtype(input.dtype, jnp.inexact) else input.astype(jnp.float32)
    return tuple(_gradient_1d(x, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_1d(x, d, h, edge_order):
    def part(a, b):
        return jax.lax.slice_in_dim(x, a, b, axis=d)

    n = x.shape[d]
    if jnp.ndim(h) == 1:  # coordinates: numpy's second-order-accurate interior formula
        if edge_order != 1:
            raise NotImplementedError("torch.gradient with coordinate spacing and edge_order=2 is not supported here")
        h = jnp.asarray(h, x.dtype)
        shape = [1] * x.ndim
        shape[d] = -1
        dx1, dx2 = (h[1:-1] - h[:-2]).reshape(shape), (h[2:] - h[1:-1]).reshape(shape)
        inner = (-dx2 / (dx1 * (dx1 + dx2)) * part(0, n - 2) + (dx2 - dx1) / (dx1 * dx2) * part(1, n - 1)
                 + dx1 / (dx2 * (dx1 + dx2)) * part(2, n))
        first = (part(1, 2) - part(0, 1)) / (h[1] - h[0])
        last = (part(n - 1, n) - part(n - 2, n - 1)) / (h[-1] - h[-2])
        return jnp.concatenate([first, inner, last], axis=d)
    inner = (part(2, n) - part(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first, last = (part(1, 2) - part(0, 1)) / h, (part(n - 1, n) - part(n - 2, n - 1)) / h
    else:
        first = (-1.5 * part(0, 1) + 2 * part(1, 2) - 0.5 * part(2, 3)) / h
        last = (0.5 * part(n - 3, n - 2) - 2 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
    return jnp.concatenate([first, inner, last], axis=d).astype(x.dtype)
