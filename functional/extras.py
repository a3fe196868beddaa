"""Odd torch ops that fit no family: hash_tensor, histogramdd, SyncBatchNorm's batch_norm_* kernels."""

import builtins

import jax.numpy as jnp
from jax import lax

__all__ = ["hash_tensor", "histogramdd", "batch_norm_stats", "batch_norm_update_stats", "batch_norm_elemt",
           "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
           "batch_norm_backward_elemt", "choose_qparams_optimized"]


def hash_tensor(input, dim=(), *, keepdim=False, mode=0):
    """XOR of the 64-bit patterns of the elements over `dim` (all dims if empty), uint64.

    Integers and bools are sign-extended to int64, floats widened to float64, then reinterpreted as uint64.
    """
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if jnp.issubdtype(input.dtype, jnp.complexfloating):
        names = {jnp.complex64: "ComplexFloat", jnp.complex128: "ComplexDouble"}
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{names[input.dtype.type]}'")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims and input.size == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify "
                           "the reduction dim with the 'dim' argument.")
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d % input.ndim} to have non-zero size.")
    wide = jnp.float64 if jnp.issubdtype(input.dtype, jnp.floating) else jnp.int64
    bits = lax.bitcast_convert_type(input.astype(wide), jnp.uint64)
    axes = tuple(d % max(input.ndim, 1) for d in dims) if dims else tuple(range(input.ndim))
    out = lax.reduce(bits, jnp.uint64(0), lax.bitwise_xor, axes) if axes else bits
    return jnp.expand_dims(out, axes) if keepdim else out


# ---------------------------------------------------------------------------- histogramdd

def _dd_edges(col, bins, rng, dim, dtype):
    """Edges of one histogramdd dimension: `bins` equal bins over `rng` (default the column's min and max,
    widened by 0.5 each side if equal), or the given edges."""
    if not isinstance(bins, int):
        if bins.size == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                               f"in the bins tensor for dimension {dim}")
        return bins.astype(dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")
    if rng is not None:
        lo, hi = (jnp.asarray(v, dtype) for v in rng)
    elif col.size:
        lo, hi = jnp.min(col), jnp.max(col)
    else:
        lo, hi = jnp.zeros((), dtype), jnp.ones((), dtype)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
    return jnp.linspace(lo, hi, bins + 1).astype(dtype)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of the points in `input` (..., D): bins an int (each dimension), D ints, or D edge
    arrays; `range` the flat [min0, max0, min1, max1 ...]. Each last bin includes its right edge."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        from .sorting import _name

        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_name(input.dtype)}'")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    D = input.shape[-1]
    bins = [bins] * D if isinstance(bins, int) else list(bins)
    if len(bins) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None:
        if len(range) != 2 * D:
            raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} "
                               f"elements, but got {len(range)}")
        for d in builtins.range(D):
            if range[2 * d] > range[2 * d + 1]:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {range[2 * d]:g} "
                                   f"max {range[2 * d + 1]:g} for dimension {d}")
    if weight is not None and weight.shape != input.shape[:-1]:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           "input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    x = input.reshape(-1, D)
    edges = [_dd_edges(x[:, d], b, None if range is None else range[2 * d:2 * d + 2], d, input.dtype)
             for d, b in enumerate(bins)]
    w = None if weight is None else weight.reshape(-1)
    hist, _ = jnp.histogramdd(x, bins=edges, weights=w, density=density)
    return hist.astype(input.dtype), tuple(edges)


# ---------------------------------------------------------------------------- SyncBatchNorm's kernels

def _channel_axes(input):
    return (0, *builtins.range(2, input.ndim))


def _bcast(v, input):
    return v.reshape((1, -1) + (1,) * (input.ndim - 2))


def _acc(input):
    return input.astype(jnp.promote_types(input.dtype, jnp.float32))


def batch_norm_stats(input, eps):
    """(mean, invstd) per channel of (N, C, *): invstd = 1 / sqrt(biased var + eps), in float32 for half input."""
    x = _acc(input)
    axes = _channel_axes(input)
    mean = jnp.mean(x, axis=axes)
    var = jnp.mean(jnp.square(x - _bcast(mean, x)), axis=axes)
    return mean, lax.rsqrt(var + eps)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var, new running_mean, new running_var) of (N, C, *); the running var moves by the
    unbiased var. Absent running statistics come back as None."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        from .sorting import _name

        raise NotImplementedError(f"\"batch_norm_update_stats_cpu\" not implemented for '{_name(input.dtype)}'")
    mean, invstd = batch_norm_stats(input, 0.0)
    var = 1 / jnp.square(invstd)
    n = input.size // input.shape[1]
    return mean, var, *_running(running_mean, running_var, mean, var * (n / max(n - 1, 1)), momentum)


def _running(running_mean, running_var, mean, unbiased_var, momentum):
    moved = [None if r is None else ((1 - momentum) * r + momentum * s).astype(r.dtype)
             for r, s in ((running_mean, mean), (running_var, unbiased_var))]
    return tuple(moved)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """(input - mean) * invstd * weight + bias per channel, in input's dtype."""
    out = (_acc(input) - _bcast(mean, input)) * _bcast(invstd, input)
    if weight is not None:
        out = out * _bcast(weight, input)
    if bias is not None:
        out = out + _bcast(bias, input)
    return out.astype(input.dtype)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """Global (mean, invstd, new running_mean, new running_var) from per-process (W, C) means and invstds
    over `counts` (W,) elements each; the running var moves by the unbiased var of all sum(counts) elements."""
    n = counts.astype(mean.dtype)[:, None]
    total = jnp.sum(n)
    gmean = jnp.sum(mean * n, axis=0) / total
    m2 = jnp.sum(n * (1 / jnp.square(invstd) - eps + jnp.square(mean - gmean)), axis=0)
    ginvstd = lax.rsqrt(m2 / total + eps)
    return gmean, ginvstd, *_running(running_mean, running_var, gmean, m2 / (total - 1), momentum)


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts with `count` elements on every process."""
    counts = jnp.full((mean.shape[0],), count, mean.dtype)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias) per channel; grad_weight = sum_dy_xmu * invstd."""
    axes = _channel_axes(input)
    dy = _acc(grad_out)
    sum_dy = jnp.sum(dy, axis=axes)
    sum_dy_xmu = jnp.sum(dy * (_acc(input) - _bcast(mean, input)), axis=axes)
    wdt = mean.dtype if weight is None else weight.dtype
    return sum_dy, sum_dy_xmu, (sum_dy_xmu * invstd).astype(wdt), sum_dy.astype(wdt)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """grad_input = (dy - sum_dy / N - (x - mean) * invstd^2 * sum_dy_xmu / N) * invstd * weight, N = sum(count)."""
    total = jnp.sum(count).astype(mean.dtype)
    xmu = _acc(input) - _bcast(mean, input)
    g = _acc(grad_out) - _bcast(sum_dy / total, input) - xmu * _bcast(jnp.square(invstd) * sum_dy_xmu / total, input)
    g = g * _bcast(invstd if weight is None else invstd * weight, input)
    return g.astype(input.dtype)


# ---------------------------------------------------------------------------- choose_qparams_optimized

def _quant_loss(x, xmin, xmax, bit_width):
    """L2 error of fake-quantizing x to `bit_width` bits over [half(xmin), xmax], summed in order as torch."""
    half = lambda v: v.astype(jnp.float16).astype(jnp.float32)  # noqa: E731
    xmin = half(xmin)
    rng = xmax - xmin
    qmax = jnp.float32((1 << bit_width) - 1)
    scale = jnp.where(rng == 0, jnp.float32(1), half(rng / qmax))
    inv = jnp.where(scale == 0, jnp.float32(1), jnp.float32(1) / scale)
    q = jnp.clip(jnp.round((x - xmin) * inv), 0, qmax) * scale + xmin
    sq = jnp.square(x - q)
    return jnp.sqrt(lax.fori_loop(0, sq.shape[0], lambda i, s: s + sq[i], jnp.float32(0)))


def choose_qparams_optimized(input, numel, n_bins, ratio, bit_width):
    """(xmax, xmin), each of shape (1,), for quantizing input's first `numel` elements to `bit_width` bits: from the
    data's range, a greedy search moves min up or max down by (max - min) / n_bins, whichever loses less L2
    quantization error, keeping the best local optimum, until less than (1 - ratio) of the range is left."""
    if input.dtype != jnp.float32:
        from .sorting import _name

        raise RuntimeError(f"expected scalar type Float but found {_name(input.dtype)}")
    if numel < 0 or numel > input.size:
        raise RuntimeError("numel is out of the bound of input tensor")
    x = input.reshape(-1)[:numel]
    xmin, xmax = jnp.min(x), jnp.max(x)
    step = (xmax - xmin) / jnp.float32(n_bins)
    ratio = jnp.asarray(ratio).astype(jnp.float32).astype(jnp.float64)  # torch: int(n_bins * (1.0 - (float) ratio))
    thr = jnp.trunc(n_bins * (1.0 - ratio)).astype(jnp.float32) * step
    loss = _quant_loss(x, xmin, xmax, bit_width)

    def body(s):
        cur_min, cur_max, cur_loss, best, lo, hi = s
        l1 = _quant_loss(x, cur_min + step, cur_max, bit_width)
        l2 = _quant_loss(x, cur_min, cur_max - step, bit_width)
        better = (cur_loss < l1) & (cur_loss < l2) & (cur_loss < best)
        best, lo, hi = (jnp.where(better, a, b) for a, b in ((cur_loss, best), (cur_min, lo), (cur_max, hi)))
        up = l1 < l2
        return (jnp.where(up, cur_min + step, cur_min), jnp.where(up, cur_max, cur_max - step),
                jnp.where(up, l1, l2), best, lo, hi)

    s = lax.while_loop(lambda s: s[0] + thr < s[1], body, (xmin, xmax, loss, loss, xmin, xmax))
    return s[5].reshape(1), s[4].reshape(1)
