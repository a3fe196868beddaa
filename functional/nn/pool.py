"""Pooling: max, average, adaptive, power-average pooling and max unpooling over 1, 2 or 3 trailing
spatial dims of a (N, C, *spatial) or unbatched (C, *spatial) input.

Windows follow torch: window o of a dim of size L covers positions o*stride - padding + j*dilation
(j < kernel_size); the output size is floor((L + 2p - d(k-1) - 1) / s) + 1 (ceil with ceil_mode,
dropping a last window that would start in the right padding). Indices returned by max pooling are
flat positions in the (unpadded) spatial dims of each plane, as torch's. The gradient of a max goes to
the element torch records: the first maximum in the window's scan order (the last NaN if any).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..linalg import _hi
from ..pointwise import true_divide_exact

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d"]

_WORDS = {1: "one", 2: "two", 3: "three"}
_TORCH_DTYPE = {"int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}


# ------------------------------------------------------------------------------ arguments and checks

def _tuple(v, n, name, what, omit=""):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(int(a) for a in v) * n
        if len(v) == n:
            return tuple(int(a) for a in v)
        must = "be either" if what == "dilation" else "either be"
        raise RuntimeError(f"{name}: {what} must {must}{omit} a single int, or a tuple of {_WORDS[n]} ints")
    return (int(v),) * n


def _args1d(name, kernel_size, stride, padding, dilation):
    """max_pool1d's own checks (its messages differ from the 2-d/3-d ones)."""
    def one(v, what):
        if isinstance(v, (list, tuple)):
            if len(v) != 1:
                if name == "avg_pool1d":
                    raise RuntimeError(f"avg_pool1d() argument '{what}' should contain one int (got {len(v)})")
                raise RuntimeError(f"{name}() {what} must be an int, list of ints or tuple of ints of size 1 "
                                   f"but got size {len(v)}")
            return (int(v[0]),)
        return (int(v),)

    k = one(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else one(stride, "stride")
    return k, s, one(padding, "padding"), one(dilation, "dilation")


def _args(name, n, kernel_size, stride, padding, dilation=1):
    if n == 1:
        return _args1d(name, kernel_size, stride, padding, dilation)
    k = _tuple(kernel_size, n, name, "kernel_size")
    empty = stride is None or (isinstance(stride, (list, tuple)) and not stride)
    s = k if empty else _tuple(stride, n, name, "stride", " omitted,")
    return k, s, _tuple(padding, n, name, "padding"), _tuple(dilation, n, name, "dilation")


def _out_size(L, k, s, p, d, ceil_mode):
    out = (L + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= L + p:  # the last window would start in the right padding
        out -= 1
    return out


def _dims_msg(n):
    return f"{n + 1}D or {n + 2}D"


def _check_pool(name, shape, n, k, s, p, d, ceil_mode, max_pool=True):
    """torch's pool_shape_check: the same checks, order and words. Returns the output spatial sizes."""
    if name.endswith("1d") and max_pool:  # max_pool1d checks in its own words
        if len(shape) not in (2, 3) or any(x == 0 for x in shape[-1:]):
            raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
                               f"for input, but got:{list(shape)}")
        if s[0] <= 0:
            raise RuntimeError(f"{name}() stride must be greater than zero, but got {s[0]}")
        if p[0] < 0:
            raise RuntimeError(f"{name}() padding must be non-negative, but got {p[0]}")
        if d[0] <= 0:
            raise RuntimeError(f"{name}() dilation must be greater than zero, but got {d[0]}")
        if k[0] <= 0:
            raise RuntimeError(f"{name}() kernel_size must be greater than zero, but got {k[0]}")
        if p[0] > k[0] // 2:
            raise RuntimeError(f"{name}() padding should be at most half of kernel size, but got padding={p[0]} "
                               f"and kernel_size={k[0]}")
        out = _out_size(shape[-1], k[0], s[0], p[0], d[0], ceil_mode)
        if out <= 0:
            raise RuntimeError(f"{name}() Invalid computed output size: {out}")
        return (out,)
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v < 0 for v in p):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)}")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got " + _hw("k", k))
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should be greater than zero, but got " + _hw("d", s))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got " + _hw("dilation", d))
    nd = len(shape)
    if nd not in (n + 1, n + 2) or any(x == 0 for x in shape[-n:]):
        if nd in (n + 1, n + 2) and max_pool is not None:
            raise RuntimeError(f"Expected {_dims_msg(n)} (batch mode) tensor with optional 0 dim batch size for "
                               f"input, but got:{list(shape)}")
        raise RuntimeError(f"non-empty {_dims_msg(n)} (batch mode) tensor expected for input")
    for ki, pi, di in zip(k, p, d):
        if ((ki - 1) * di + 1) // 2 < pi:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, "
                               f"kernel_size={ki} and dilation={di}")
    outs = tuple(_out_size(L, *a, ceil_mode) for L, *a in zip(shape[-n:], k, s, p, d))
    if any(o < 1 for o in outs):
        plane = shape[-n - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (plane, *shape[-n:])))}). Calculated output "
                           f"size: ({'x'.join(map(str, (plane, *outs)))}). Output size is too small")
    return outs


def _hw(prefix, v):
    names = ("T", "H", "W")[-len(v):] if len(v) > 1 else ("W",)
    return " ".join(f"{prefix}{a}: {b}" for a, b in zip(names, v))


def _lowest(dtype):
    return np.array(-np.inf if jnp.issubdtype(dtype, jnp.inexact) else jnp.iinfo(dtype).min, dtype)


# ------------------------------------------------------------------------------ windows as static gathers

def _windows(shape, starts, steps, sizes):
    """Static description of pooling windows over spatial `shape`: the flat input position of every window
    element (*outs, K) and whether it lies inside the input (not padding). Dim i's window o reads
    starts[i][o] + j * steps[i] for j < sizes[i]; an array `steps[i]` means adaptive windows: unit steps
    and a per-window length."""
    n = len(starts)
    outs = tuple(len(st) for st in starts)
    strides = np.cumprod((1, *shape[::-1]))[:-1][::-1]  # row-major strides of the spatial dims
    ok = np.ones((*outs, *sizes), bool)
    flat = np.zeros((*outs, *sizes), np.int64)
    for i, (st, step, size, L) in enumerate(zip(starts, steps, sizes, shape)):
        j = np.arange(size)[None, :]
        adaptive = isinstance(step, np.ndarray)
        pos = np.asarray(st)[:, None] + j * (1 if adaptive else step)  # (out_i, k_i)
        valid = (pos >= 0) & (pos < L) & ((j < step[:, None]) if adaptive else True)
        bshape = [1] * (2 * n)
        bshape[i], bshape[n + i] = pos.shape
        ok = ok & valid.reshape(bshape)
        flat = flat + np.clip(pos, 0, L - 1).reshape(bshape) * strides[i]
    K = math.prod(sizes)
    return flat.reshape(*outs, K), ok.reshape(*outs, K)


def _torch_max_pick(a, b):
    """The element torch's max pooling keeps of two (value, flat index) pairs: a NaN over anything (the later
    of two NaNs), else the larger value, the earlier of equal values. A strict total order, so a reduction
    finds torch's pick in any order (within a window, scan order and flat index order agree)."""
    (va, ia), (vb, ib) = a, b
    better = (va > vb) | ((va == vb) & (ia < ib))
    if jnp.issubdtype(va.dtype, jnp.inexact):
        an, bn = jnp.isnan(va), jnp.isnan(vb)
        better = jnp.where(an | bn, an & (~bn | (ia > ib)), better)
    return jnp.where(better, va, vb), jnp.where(better, ia, ib)


def _window_max(x, n, flat, valid):
    """Max of x's last n dims over static windows (flat, valid from _windows) with torch's indices. Values
    are gathered at the chosen index, so the gradient goes exactly there."""
    lead = x.shape[:-n]
    P = math.prod(x.shape[-n:])
    xf = x.reshape(*lead, P)
    lowest = _lowest(x.dtype)
    vals = jnp.where(valid, lax.stop_gradient(xf)[..., flat], lowest)  # (*lead, *outs, K)
    idx_dtype = jax.dtypes.canonicalize_dtype(jnp.int64)
    idx = jnp.broadcast_to(jnp.asarray(np.where(valid, flat, P), idx_dtype), vals.shape)  # padding ranks last
    _, best = lax.reduce((vals, idx), (lowest, np.array(P + 1, idx_dtype)), _torch_max_pick, (vals.ndim - 1,))
    values = jnp.take_along_axis(xf, best.reshape(*lead, math.prod(flat.shape[:-1])), axis=-1).reshape(best.shape)
    return values, best


# ------------------------------------------------------------------------------ max pooling

def _max_pool(n, name, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    k, s, p, d = _args(name, n, kernel_size, stride, padding, dilation)
    outs = _check_pool(name, input.shape, n, k, s, p, d, ceil_mode)
    if n == 1 and not return_indices and not jnp.issubdtype(input.dtype, jnp.inexact):
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for \'{_TORCH_DTYPE.get(str(input.dtype))}\'')
    if not return_indices and math.prod(k) <= _FOLD_MAX:
        return _fold_max(input, n, k, s, p, d, outs)
    starts = [np.arange(o) * si - pi for o, si, pi in zip(outs, s, p)]
    values, indices = _window_max(input, n, *_windows(input.shape[input.ndim - n:], starts, d, k))
    return (values, indices) if return_indices else values


# Windows of up to this many elements pool by `_fold_max`, larger ones by `_window_max` (a gather and one
# variadic reduction, also torch's pick). Forward + backward, jitted here: 2x2 of 32x16x28x28, fold 2.8 ms
# (0.08 s to compile), gather 5.4 ms; 3x3 stride 2 of 8x64x56x56, fold 52 ms, gather 36 ms (XLA's reduce_window,
# inexact at signed zeros and NaNs, 33 ms); 5x5, 208 vs 64 ms and 0.78 vs 0.12 s to compile.
_FOLD_MAX = 4


def _window_slices(x, n, k, s, p, d, outs, fill):
    """Per window position, in torch's scan order: the elements of x's last n dims at that position of every
    window, one strided slice of x padded with `fill` (outs in each dim)."""
    lead = x.ndim - n
    hi = [max((o - 1) * si + di * (ki - 1) + 1 - L - pi, 0)
          for o, si, di, ki, L, pi in zip(outs, s, d, k, x.shape[lead:], p)]
    if any(p) or any(hi):
        x = lax.pad(x, fill, [(0, 0, 0)] * lead + [(pi, h, 0) for pi, h in zip(p, hi)])
    for pos in np.ndindex(*k):
        start = [j * di for j, di in zip(pos, d)]  # in the padded input
        yield lax.slice(x, (0,) * lead + tuple(start),
                        (*x.shape[:lead], *[max(st + (o - 1) * si + 1, st) for st, o, si in zip(start, outs, s)]),
                        (1,) * lead + tuple(s))


def _fold_max(x, n, k, s, p, d, outs):
    """Max pooling as torch's kernel scans a window: over the window's positions in order, keep the running
    maximum unless an element is larger or NaN (`val > maxval || isnan(val)`), padding never taken. Each
    position is one strided slice of the (padded) input for all windows at once, and the gradient of the
    selects goes exactly to the kept element, as torch's index does: signed zeros and NaNs are torch's (XLA's
    reduce_window kept +0.0 over -0.0 and sent a NaN window's gradient elsewhere), and for small windows
    forward and backward take about half reduce_window's time (2x2 of a 32x16x28x28 batch: 3.7 -> 2.4 ms)."""
    spatial = x.shape[x.ndim - n:]
    nan = jnp.issubdtype(x.dtype, jnp.inexact)
    m = seen = None
    for pos, w in zip(np.ndindex(*k), _window_slices(x, n, k, s, p, d, outs, _lowest(x.dtype))):
        # which windows this position lies in the input for (static): 1-d per dim, broadcast to the outputs
        valid = np.ones((), bool)
        for j, (o, si, di, pi, L) in enumerate(zip(outs, s, d, p, spatial)):
            at = np.arange(o) * si + pos[j] * di - pi
            valid = valid[..., None] & ((at >= 0) & (at < L)).reshape((1,) * j + (o,))
        if m is None:
            m, seen = w, valid
            continue
        take = (w > m) | jnp.isnan(w) if nan else w > m
        if not (valid.all() and seen.all()):
            take = valid & (~seen | take)
        m, seen = jnp.where(take, w, m), seen | valid
    return m


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over the last dim of (N, C, L) or (C, L): (N, C, L_out); with return_indices also the
    int64 positions of the maxima (what max_unpool1d takes)."""
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over (H, W) of (N, C, H, W) or (C, H, W); indices are flat h * W + w positions."""
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over (D, H, W) of (N, C, D, H, W) or (C, D, H, W); indices are flat (d * H + h) * W + w."""
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """max_pool1d(..., return_indices=True): (values, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """max_pool2d(..., return_indices=True): (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """max_pool3d(..., return_indices=True): (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# ------------------------------------------------------------------------------ average pooling

def _fold_sum(x, n, k, s, p, outs):
    """The window sums of x's last n dims, each summed in torch's scan order (`_window_slices`)."""
    total = None
    for w in _window_slices(x, n, k, s, p, (1,) * n, outs, np.array(0, x.dtype)):
        total = w if total is None else total + w
    return total


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4, 5))
def _fold_sum_big(x, n, k, s, p, outs):
    """`_fold_sum` of a large window, whose derivative is XLA's windowed sum (reduce_window), so that its gradient
    is that sum's transpose: the slices' own gradient (one padded copy of the input per window position) took
    16 ms against 0.4 ms for AvgPool2d(7) on a 32x512x7x7 batch, and 0.23 s to compile."""
    return _fold_sum(x, n, k, s, p, outs)


@_fold_sum_big.defjvp
def _fold_sum_big_jvp(n, k, s, p, outs, primals, tangents):
    (x,), (t,) = primals, tangents
    lead = x.ndim - n
    hi = [max((o - 1) * si + ki - L - pi, 0) for o, si, ki, L, pi in zip(outs, s, k, x.shape[lead:], p)]
    total = lax.reduce_window(t, np.array(0, t.dtype), lax.add, (1,) * lead + k, (1,) * lead + s,
                              ((0, 0),) * lead + tuple(zip(p, hi)))
    return _fold_sum(x, n, k, s, p, outs), total[(Ellipsis, *[slice(0, o) for o in outs])]


@jax.custom_jvp
def _positive_zero(x):
    """x with -0.0 as +0.0; its derivative is 1 everywhere (XLA drops an `x + 0.0` that would do the same)."""
    return jnp.where(x == 0, jnp.zeros((), x.dtype), x)


_positive_zero.defjvp(lambda primals, tangents: (_positive_zero(*primals), tangents[0]))


def _divisors(L, k, s, p, out, count_include_pad):
    """Per output position of one dim: the window's length within [-p, L + p) and within [0, L)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, L + p)
    pool = end - start
    valid = np.minimum(end, L) - np.maximum(start, 0)
    return pool if count_include_pad else np.maximum(valid, 1)


def _avg_pool(n, name, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    k, s, p, _ = _args(name, n, kernel_size, stride, padding)
    if n == 1:  # avg_pool1d runs as avg_pool2d over a unit height: its checks and messages are 2-d
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                               f"argument #1 'self' (while checking arguments for avg_pool1d)")
        outs = _check_pool(name, (*input.shape[:-1], 1, input.shape[-1]), 2, (1, *k), (1, *s), (0, *p), (1, 1),
                           ceil_mode, max_pool=False)[1:]
    else:
        if n == 2 and input.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim}, "
                             f"{input.ndim - 1}], but got -3)")
        outs = _check_pool(name, input.shape, n, k, s, p, (1,) * n, ceil_mode, max_pool=False)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    lead = input.ndim - n
    inexact = jnp.issubdtype(input.dtype, jnp.inexact)
    # torch's kernel sums a window in scan order from +0.0, in float for half types, in int64 for integers
    acc = input.astype(jnp.promote_types(input.dtype, jnp.float32) if inexact else jnp.int64)
    if math.prod(k) <= _FOLD_MAX:
        total = _fold_sum(acc, n, k, s, p, tuple(outs))
    else:
        total = _fold_sum_big(acc, n, k, s, p, tuple(outs))
    if inexact:
        total = _positive_zero(total)  # a sum from +0.0 is never -0.0
    if divisor_override is not None:
        div = np.asarray(divisor_override)
    else:
        per_dim = [_divisors(L, *a, count_include_pad) for L, *a in zip(input.shape[lead:], k, s, p, outs)]
        div = np.ones(outs, np.int64)
        for i, v in enumerate(per_dim):
            div = div * v.reshape([-1 if j == i else 1 for j in range(n)])
    if inexact:  # true division, as torch's (XLA alone multiplies by the divisor's reciprocal)
        return true_divide_exact(total, jnp.asarray(div, total.dtype)).astype(input.dtype)
    # torch truncates integer means
    return lax.div(total, jnp.broadcast_to(jnp.asarray(div, total.dtype), total.shape)).astype(input.dtype)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Average pooling over the last dim of (N, C, L) or (C, L). count_include_pad counts zero padding
    (but not a ceil_mode window's overhang) in the divisor."""
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over (H, W); divisor_override replaces the window size as the divisor."""
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over (D, H, W)."""
    return _avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


# ------------------------------------------------------------------------------ adaptive pooling

def _adaptive_sizes(name, input, n, output_size, max_pool):
    if n == 1:
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                               f"argument #1 'self' (while checking arguments for {name})")
    elif input.ndim not in (n + 1, n + 2):
        colon = ":" if max_pool else ""
        raise RuntimeError(f"{name}(): Expected {_dims_msg(n)} tensor, but got{colon} {list(input.shape)}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != n:
            if max_pool:
                raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}")
            raise RuntimeError(f"{name}: output_size must be {n}")
        sizes = tuple(L if o is None else int(o) for o, L in zip(output_size, input.shape[-n:]))
    else:
        sizes = (int(output_size),) * n
    if any(o < 0 for o in sizes):
        if max_pool:
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                               f"{[*input.shape[:-n], *sizes]}")
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, sizes))}}}")
    for i in range(input.ndim - n, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")
    if not jnp.issubdtype(input.dtype, jnp.inexact):
        raise NotImplementedError(f'"{name}" not implemented for \'{_TORCH_DTYPE.get(str(input.dtype))}\'')
    return sizes


def _adaptive_windows(L, out):
    start = (np.arange(out) * L) // out
    end = ((np.arange(out) + 1) * L + out - 1) // out
    return start, end


def _adaptive_avg(n, name, input, output_size):
    sizes = _adaptive_sizes(name, input, n, output_size, False)
    lead, dims = input.shape[:input.ndim - n], input.shape[input.ndim - n:]
    if all(o > 0 and L % o == 0 for L, o in zip(dims, sizes)):
        # Equal windows (global pooling among them): one mean over (o, L / o)-reshaped dims, a reduce that XLA
        # fuses with its producer, where the averaging matrices below would be a matrix product per dim.
        split = [d for L, o in zip(dims, sizes) for d in (o, L // o)]
        axes = tuple(range(len(lead) + 1, len(lead) + 2 * n, 2))
        return jnp.mean(input.reshape(*lead, *split), axis=axes).astype(input.dtype)
    out = input
    for i, o in enumerate(sizes):  # separable: one averaging matrix (o, L) per dim
        L = input.shape[input.ndim - n + i]
        start, end = _adaptive_windows(L, o)
        j = np.arange(L)
        A = ((j >= start[:, None]) & (j < end[:, None])) / np.maximum(end - start, 1)[:, None]
        axis = input.ndim - n + i
        out = jnp.moveaxis(jnp.tensordot(out, jnp.asarray(A, input.dtype), axes=((axis,), (1,)),
                                         precision=_hi()), -1, axis)
    return out


def adaptive_avg_pool1d(input, output_size):
    """Average over windows [floor(o L / out), ceil((o + 1) L / out)) of the last dim: (N, C, out)."""
    return _adaptive_avg(1, "adaptive_avg_pool1d", input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling to (H_out, W_out) (None keeps that input size)."""
    return _adaptive_avg(2, "adaptive_avg_pool2d", input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling to (D_out, H_out, W_out)."""
    return _adaptive_avg(3, "adaptive_avg_pool3d", input, output_size)


def _adaptive_max(n, name, input, output_size, return_indices):
    sizes = _adaptive_sizes(name, input, n, output_size, True)
    wins = [_adaptive_windows(L, o) for L, o in zip(input.shape[-n:], sizes)]
    lengths = [end - start for start, end in wins]
    kmax = [int(v.max()) if v.size else 1 for v in lengths]
    values, indices = _window_max(input, n, *_windows(input.shape[-n:], [w[0] for w in wins], lengths, kmax))
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over adaptive windows of the last dim; with return_indices also their int64 positions."""
    return _adaptive_max(1, "adaptive_max_pool1d", input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows of (H, W)."""
    return _adaptive_max(2, "adaptive_max_pool2d", input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over adaptive windows of (D, H, W)."""
    return _adaptive_max(3, "adaptive_max_pool3d", input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d(..., return_indices=True)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d(..., return_indices=True)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d(..., return_indices=True)."""
    return adaptive_max_pool3d(input, output_size, True)


# ------------------------------------------------------------------------------ power-average pooling

def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    if n == 1 and isinstance(kernel_size, (list, tuple)):  # torch's lp_pool1d multiplies by kernel_size
        raise TypeError(f"mul(): argument 'other' (position 1) must be Tensor, not {type(kernel_size).__name__}")
    k = _args("lp_pool", n, kernel_size, None, 0)[0]
    out = avg(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    # torch: (sign(out) * relu(|out|) * prod(kernel)) ** (1 / p)
    return (jnp.sign(out) * jax.nn.relu(jnp.abs(out)) * math.prod(k)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# ------------------------------------------------------------------------------ max unpooling

def _unpool_size(input, k, s, p, output_size):
    n = len(k)
    default = [(input.shape[-n + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(n)]
    if output_size is None:
        return tuple(default)
    output_size = tuple(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for i in range(n):
        lo, hi = default[i] - s[i], default[i] + s[i]
        if not lo < output_size[i] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {i} must be between {lo} and {hi})')
    return tuple(int(o) for o in output_size)


def _max_unpool(n, input, indices, kernel_size, stride, padding, output_size):
    k = _tuple(kernel_size, n, "max_unpool", "kernel_size")
    s = k if stride is None else _tuple(stride, n, "max_unpool", "stride")
    p = _tuple(padding, n, "max_unpool", "padding")
    size = _unpool_size(input, k, s, p, output_size)
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(indices.shape)}) but got {list(input.shape)}")
    if not jnp.issubdtype(input.dtype, jnp.inexact):
        raise NotImplementedError(f'"max_unpool{max(n, 2)}d" not implemented for '
                                  f"'{_TORCH_DTYPE.get(str(input.dtype))}'")
    lead = input.shape[:-n]
    B = math.prod(lead)
    x = input.reshape(B, -1)
    idx = indices.reshape(B, -1)
    out = jnp.zeros((B, math.prod(size)), input.dtype)
    out = out.at[jnp.arange(B)[:, None], idx].set(x, mode="drop")  # torch refuses an out-of-range index
    return out.reshape(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: zeros of the unpooled size with input's values put at `indices`."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: zeros of the unpooled (H, W) with input's values put at `indices`."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: zeros of the unpooled (D, H, W) with input's values put at `indices`."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)
