"""Sorting, selection, uniqueness, binary search and counting with torch's semantics.

Orders are torch's: NaN sorts as the largest value, and ties keep their input order
(torch's CPU sort is stable). `unique`, `unique_consecutive` and `bincount` have
output shapes that depend on the values, so they need concrete (not traced) inputs.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ._names import scalar_name as _name
from .shape import _dim

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "bincount", "histc", "histogram"]


def _integral(a):
    return jnp.issubdtype(a.dtype, jnp.integer) or a.dtype == jnp.bool_


def _no_complex(input, what):
    if jnp.iscomplexobj(input):
        raise RuntimeError(f"{what} does not support complex dtypes on CPU")


def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices): `input` sorted along `dim`, and where each value came from (int64).

    Ascending unless `descending`; NaN is the largest value; ties keep their input order
    whatever `stable` says (torch's CPU sort is always stable).
    """
    _no_complex(input, " Sort")
    if input.ndim == 0:
        _dim(dim, 0)
        return input, jnp.zeros((), jnp.int64)
    idx = argsort(input, dim, descending)
    return jnp.take_along_axis(input, idx, axis=_dim(dim, input.ndim)), idx


def argsort(input, dim=-1, descending=False, stable=False):
    """The int64 indices that sort `input` along `dim` (see `sort`)."""
    _no_complex(input, " Sort")
    d = _dim(dim, input.ndim)
    if input.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return jnp.argsort(input, axis=d, stable=True, descending=descending).astype(jnp.int64)


def msort(input):
    """`input` sorted along its first dim (values only)."""
    return sort(input, 0)[0]


def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the `k` largest (or smallest) entries along `dim`, largest first
    (smallest first when `largest=False`). Results come sorted whatever `sorted` says."""
    if input.dtype == jnp.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jax.lax.slice_in_dim(argsort(input, d, largest), 0, k, axis=d)
    return jnp.take_along_axis(input, idx, axis=d), idx


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the `k`-th smallest entry (1-based) along `dim`."""
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    d = _dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jax.lax.slice_in_dim(argsort(input, d), k - 1, k, axis=d)
    val = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        val, idx = jnp.squeeze(val, d), jnp.squeeze(idx, d)
    return val, idx


def _select(out, inverse, counts, return_inverse, return_counts):
    res = (out,) + ((inverse.astype(jnp.int64),) if return_inverse else ()) + \
        ((counts.astype(jnp.int64),) if return_counts else ())
    return res if len(res) > 1 else out


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of `input` in ascending order (whole slices along `dim` when given),
    optionally with the inverse (where each input element went) and the counts.

    NaNs are all distinct, as in torch. The result's length depends on the values, so the
    input must be concrete (not traced under `jax.jit`).
    """
    if jnp.iscomplexobj(input):
        raise NotImplementedError(f"\"unique\" not implemented for '{_name(input.dtype)}'")
    if dim is None:
        out, inv, cnt = jnp.unique(input.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        return _select(out, inv.reshape(input.shape), cnt, return_inverse, return_counts)
    d = _dim(dim, input.ndim)
    if any(s == 0 for i, s in enumerate(input.shape) if i != d):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    if input.shape[d] == 0:
        empty = jnp.zeros((0,), jnp.int64)
        return _select(input, empty, empty, return_inverse, return_counts)
    out, inv, cnt = jnp.unique(input, return_inverse=True, return_counts=True, axis=d)
    return _select(out, inv.reshape(-1), cnt, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """`input` with each run of equal consecutive values (slices along `dim` when given) kept
    once, optionally with the inverse and the run lengths. Needs a concrete input."""
    if jnp.iscomplexobj(input):
        raise NotImplementedError(f"\"unique_consecutive\" not implemented for '{_name(input.dtype)}'")
    if dim is None:
        flat = input.reshape(-1)
        new = jnp.concatenate([jnp.ones((min(flat.size, 1),), bool), flat[1:] != flat[:-1]])
        inv = (jnp.cumsum(new) - 1).reshape(input.shape)
        starts = jnp.nonzero(new)[0]
        cnt = jnp.diff(jnp.append(starts, flat.size))
        return _select(flat[new], inv, cnt, return_inverse, return_counts)
    d = _dim(dim, input.ndim)
    x = jnp.moveaxis(input, d, 0).reshape(input.shape[d], -1)
    new = jnp.concatenate([jnp.ones((min(len(x), 1),), bool), jnp.any(x[1:] != x[:-1], axis=1)])
    starts = jnp.nonzero(new)[0]
    cnt = jnp.diff(jnp.append(starts, len(x)))
    return _select(jnp.take(input, starts, axis=d), jnp.cumsum(new) - 1, cnt, return_inverse, return_counts)


def _shape(s):
    return "[" + ", ".join(map(str, s)) + "]"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value of `input`, the index in `sorted_sequence` (ascending along its last dim)
    where it would be inserted to keep the order: before equal entries, or after them when
    `right=True` / `side="right"`. `sorted_sequence` is 1-D or has `input`'s leading dims.
    `sorter` gives the sorting permutation of an unsorted `sorted_sequence`; int64 result
    (int32 with `out_int32`)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq, values = sorted_sequence, jnp.asarray(input)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if seq.ndim > 1 and (seq.ndim != values.ndim or seq.shape[:-1] != values.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {_shape(seq.shape)} and input value tensor {_shape(values.shape)}")
    if sorter is not None:
        if sorter.dtype != jnp.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{_name(sorter.dtype)}")
        if sorter.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {_shape(seq.shape)} and got sorter tensor {_shape(sorter.shape)}")
        seq = jnp.take_along_axis(seq, sorter, axis=-1)
    dtype = jnp.promote_types(seq.dtype, values.dtype)
    seq, values = seq.astype(dtype), values.astype(dtype)
    side = "right" if right else "left"
    if seq.ndim == 1:
        out = jnp.searchsorted(seq, values, side=side)
    else:
        s, v = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        out = jax.vmap(lambda a, b: jnp.searchsorted(a, b, side=side))(s, v).reshape(values.shape)
    return out.astype(jnp.int32 if out_int32 else jnp.int64)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of `input` among 1-D ascending `boundaries`: i with
    boundaries[i-1] < x <= boundaries[i] (boundaries[i-1] <= x < boundaries[i] when `right`)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _concrete(a):
    return None if isinstance(a, jax.core.Tracer) else np.asarray(a)


def bincount(input, weights=None, minlength=0, *, length=None):
    """Counts of each value 0..max(input) of the 1-D non-negative integer `input` (sums of
    `weights` at those positions when given), at least `minlength` long.

    The length depends on the values: pass a static `length` to use it under `jax.jit`.
    The result is int64, or float32 for float32 weights and float64 for other weights.
    """
    if not _integral(input):
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    values = _concrete(input)
    if input.ndim != 1 or (values is not None and values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if length is None:
        length = max(minlength, int(values.max()) + 1 if values.size else 0)
    if weights is None:
        return jnp.zeros((length,), jnp.int64).at[input].add(1, mode="drop")
    dtype = jnp.float32 if weights.dtype == jnp.float32 else jnp.float64
    return jnp.zeros((length,), dtype).at[input].add(weights.astype(dtype), mode="drop")


def histc(input, bins=100, min=0, max=0):
    """Histogram of `input` in `bins` equal-width bins over [min, max]; values outside are
    ignored, the last bin includes `max`. With min == max the data's range is used (widened
    by 1 on each side if it is a single value). Counts have `input`'s float dtype."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    lo, hi = jnp.asarray(min, input.dtype), jnp.asarray(max, input.dtype)
    if min == max and x.size:
        lo, hi = jnp.min(x), jnp.max(x)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 1, lo), jnp.where(same, hi + 1, hi)
    # torch bins in the input dtype, rounding after each operation (XLA may fuse half ops in float32)
    fi = jnp.finfo(input.dtype)
    r = functools.partial(jax.lax.reduce_precision, exponent_bits=fi.nexp, mantissa_bits=fi.nmant)
    x, lo, hi = (v.astype(jnp.promote_types(v.dtype, jnp.float32)) for v in (x, lo, hi))
    pos = r(r(r(x - lo) * bins) / r(hi - lo)).astype(jnp.int64)
    pos = jnp.where(pos == bins, bins - 1, pos)
    keep = (x >= lo) & (x <= hi)
    return jnp.zeros((bins,), input.dtype).at[jnp.where(keep, pos, bins)].add(1, mode="drop")


def histogram(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of input's elements: `bins` equal bins over `range` (default the data's min and max,
    widened by 0.5 each side if equal), or the given increasing edges; the last bin includes its right edge.
    `weight` weighs each element; `density` normalises to a probability density."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_name(input.dtype)}'")
    x = input.reshape(-1)
    if isinstance(bins, int):
        if bins <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = (jnp.asarray(v, input.dtype) for v in range)
        elif x.size:
            lo, hi = jnp.min(x), jnp.max(x)
        else:
            lo, hi = jnp.zeros((), input.dtype), jnp.ones((), input.dtype)
        same = lo == hi
        lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
        edges = jnp.linspace(lo, hi, bins + 1).astype(input.dtype)
    else:
        edges = jnp.asarray(bins, input.dtype)
    w = None if weight is None else weight.reshape(-1)
    hist, _ = jnp.histogram(x, bins=edges, weights=w, density=density)
    return hist.astype(input.dtype), edges
