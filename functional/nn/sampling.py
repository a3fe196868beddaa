"""Resampling: `interpolate` (nearest, nearest-exact, linear/bilinear/trilinear, bicubic, area and the
antialiased bilinear/bicubic/lanczos), `grid_sample` and `affine_grid`.

`interpolate` is separable. For each spatial dim, a mode is a static table of source indices and
weights of shape (out, K), computed in numpy with the index arithmetic of torch's CPU kernels (in
float32 for float32/half inputs, float64 for float64); the result is a gather and a weighted sum
along each dim in turn, so autodiff gives torch's scatter-add backward.

Source coordinates (align_corners=False): src = (dst + 0.5) * r - 0.5 with r = 1/scale_factor when
a scale factor reaches the kernel, else in/out; align_corners=True: src = dst * (in-1)/(out-1).
Output sizes from a scale factor are floor(in * scale_factor).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["interpolate", "grid_sample", "affine_grid", "grid_sampler", "affine_grid_generator"]

_TORCH_DTYPE = {"int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool",
                "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}
_AXES = ("D", "H", "W")
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _opmath(dtype):
    return np.float64 if dtype == np.float64 else np.float32


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_TORCH_DTYPE.get(str(dtype), str(dtype))}\'')


# ------------------------------------------------------------------------------ per-dim index/weight tables
# Each returns (indices (out, K) int, weights (out, K)) (nearest: indices (out,)); `scale` is the user's
# scale factor or None.

def _area_scale(n, out, align_corners, scale, dt):
    """torch's area_pixel_compute_scale: the source step per output step."""
    if align_corners:
        return dt(n - 1) / dt(out - 1) if out > 1 else dt(0)
    return dt(1.0 / scale) if scale is not None and scale > 0 else dt(n) / dt(out)


def _source(ratio, out, align_corners, cubic, dt):
    i = np.arange(out).astype(dt)
    if align_corners:
        return ratio * i
    src = ratio * (i + dt(0.5)) - dt(0.5)
    return src if cubic else np.maximum(src, dt(0))


def _nearest(n, out, scale, dt, exact, special):
    if special and out == n:  # the 2-d kernel treats these exactly (no float rounding)
        return np.arange(out)
    if special and out == 2 * n:
        return np.arange(out) >> 1
    r = np.float32(dt(1.0 / scale) if scale is not None and scale > 0 else dt(n) / dt(out))
    if exact:  # floorf((dst + 0.5) * scale): a double product rounded to float
        src = np.floor(((np.arange(out) + 0.5) * np.float64(r)).astype(np.float32))
    else:
        src = np.floor(np.arange(out).astype(np.float32) * r)
    return np.minimum(src.astype(np.int64), n - 1)


def _linear(n, out, align_corners, scale, dt):
    if out == n and not align_corners:
        return np.stack([np.arange(out)] * 2, 1), np.tile(np.array([1, 0], dt), (out, 1))
    src = _source(_area_scale(n, out, align_corners, scale, dt), out, align_corners, False, dt)
    i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
    lam = np.clip(src - i0.astype(dt), dt(0), dt(1)).astype(dt)
    i1 = i0 + (i0 < n - 1)
    return np.stack([i0, i1], 1), np.stack([dt(1) - lam, lam], 1)


def _cubic_coefficients(t, a=-0.75):
    """torch's cubic convolution weights of the taps at -1, 0, 1, 2 for a fraction t (A = -0.75)."""
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic(n, out, align_corners, scale, dt):
    src = _source(_area_scale(n, out, align_corners, scale, dt), out, align_corners, True, dt)
    i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
    t = np.clip(src - i0.astype(dt), dt(0), dt(1)).astype(dt)
    idx = np.clip(i0[:, None] + np.arange(-1, 3), 0, n - 1)
    return idx, np.stack(_cubic_coefficients(t, dt(-0.75)), 1).astype(dt)


def _area(n, out, dt):
    """adaptive average pooling: window o is [floor(o*n/out), ceil((o+1)*n/out))."""
    o = np.arange(out)
    start, end = (o * n) // out, ((o + 1) * n + out - 1) // out
    k = int((end - start).max()) if out else 1
    idx = start[:, None] + np.arange(k)
    inside = idx < end[:, None]
    w = np.where(inside, dt(1) / (end - start).astype(dt)[:, None], dt(0)).astype(dt)
    return np.minimum(idx, n - 1), w


def _aa_filter(mode):
    if mode == "bilinear":
        return 2, lambda x: np.maximum(1 - np.abs(x), 0)
    if mode == "bicubic":  # PIL's a = -0.5
        def cubic(x):
            x = np.abs(x)
            a = -0.5
            return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                            np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))
        return 4, cubic

    def lanczos(x, a=3):
        return np.where(np.abs(x) < a, np.sinc(x) * np.sinc(x / a), 0)
    return 6, lanczos


def _antialias(n, out, align_corners, scale, dt, mode, antialias=True):
    """torch's separable antialiasing: a filter stretched by the downscale factor, weights normalised.
    (antialias=False: the same tables at the plain filter width, as torch's uint8 kernels use them.)"""
    size, filt = _aa_filter(mode)
    s = _area_scale(n, out, align_corners, scale, dt)
    wide = antialias and s >= 1
    support = dt(size * 0.5) * s if wide else dt(size * 0.5)
    kmax = int(math.ceil(support)) * 2 + 1 if antialias else size
    inv = dt(1) / s if wide else dt(1)
    shift = 0.0 if antialias else 0.5 * align_corners  # with antialias, align_corners changes only s (as torch)
    idx = np.zeros((out, kmax), np.int64)
    w = np.zeros((out, kmax), dt)
    for i in range(out):
        center = s * dt(i + 0.5 - shift)
        lo = max(int(center - support + dt(0.5 + shift)), 0)
        k = min(max(min(int(center + support + dt(0.5 + shift)), n) - lo, 0), kmax)
        j = np.arange(k)
        wi = filt(((j + lo).astype(dt) - center + dt(0.5 - shift)) * inv).astype(dt)
        total = wi.sum(dtype=dt)
        w[i, :k] = wi / total if total != 0 else wi
        idx[i, :k] = j + lo
    return idx, w


def _along_uint8(x, axis, idx, w):
    """torch's uint8 resampling pass: weights in fixed point (the most bits keeping them in int16),
    integer sums rounded half up and saturated."""
    bits = next((p for p in range(22) if int(0.5 + w.max() * (1 << (p + 1))) >= 1 << 15), 22)
    wq = np.trunc(np.where(w < 0, -0.5, 0.5) + w.astype(np.float64) * (1 << bits)).astype(np.int32)
    y = _along(x.astype(jnp.int32), axis, idx, wq)
    return jnp.clip((y + (1 << (bits - 1))) >> bits, 0, 255).astype(jnp.uint8)


def _uint8(x, out, scales, mode, align_corners, antialias):
    """uint8 bilinear/bicubic as torch's CPU kernels: width first, then height, rounding per pass."""
    for axis in (3, 2):
        n, o, s = x.shape[axis], out[axis - 2], scales[axis - 2]
        if mode == "bicubic" and not antialias:  # the float kernel, rounded to uint8 after each pass
            y = _along(x.astype(jnp.float32), axis, *_cubic(n, o, align_corners, s, np.float32))
            x = jnp.clip(jnp.round(y), 0, 255).astype(jnp.uint8)
        else:
            x = _along_uint8(x, axis, *_antialias(n, o, align_corners, s, np.float32, mode, antialias))
    return x


def _take_nearest(x, axis, idx, grad_idx):
    """x[idx] along axis, whose gradient torch scatters to grad_idx: its nearest backward kernels
    special-case out == in and out == 2*in even where the forward kernel does not."""
    def take(a):
        return jnp.take(a, jnp.asarray(idx), axis=axis, mode="clip")

    if np.array_equal(idx, grad_idx):
        return take(x)

    @jax.custom_vjp
    def f(a):
        return take(a)

    def bwd(_, g):
        return (jnp.zeros(x.shape, g.dtype).at[(slice(None),) * axis + (jnp.asarray(grad_idx),)].add(g),)

    f.defvjp(lambda a: (take(a), None), bwd)
    return f(x)


def _along(x, axis, idx, w):
    """x resampled along `axis`: out[o] = sum_k w[o, k] * x[idx[o, k]]."""
    out, k = idx.shape
    g = jnp.take(x, jnp.asarray(idx.reshape(-1)), axis=axis, mode="clip")
    if w is None:
        return g
    g = g.reshape(x.shape[:axis] + (out, k) + x.shape[axis + 1:])
    wb = jnp.asarray(w.reshape((out, k) + (1,) * (x.ndim - axis - 1)), x.dtype)
    return jnp.sum(g * wb, axis=axis + 1)


# ------------------------------------------------------------------------------ interpolate

def _output_size(input, size, scale_factor, mode, recompute_scale_factor):
    """(output sizes, per-dim scale factors or None) by torch's rules."""
    dim = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {spatial} and output size of {list(size)}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            out = [int(s) for s in size]
        else:
            if not isinstance(size, (int, np.integer)):
                raise TypeError(f"interpolate(): size must be an int or a tuple of ints, got {type(size).__name__}")
            out = [int(size)] * dim
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {list(scale_factor)}. Please provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = [math.floor(n * s) for n, s in zip(spatial, scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        out = [int(n * s) if s is not None else o for n, s, o in zip(spatial, scales, out)]
        scales = [None] * dim
    return out, scales


def _check_sizes(input, out):
    spatial = input.shape[2:]
    if min(spatial) > 0 and min(out) > 0:
        if input.size == 0 and math.prod(input.shape[1:]) == 0:
            raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                               f"{list(input.shape)}")
        return
    names = _AXES[-len(out):]
    i = ", ".join(f"{a}: {n}" for a, n in zip(names, spatial))
    o = ", ".join(f"{a}: {n}" for a, n in zip(names, out))
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({i}){' and' * (len(out) == 1)}"
                       f" output ({o})")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resample the spatial dims of an (N, C, *spatial) input (1 to 3 spatial dims) to `size`, or to
    floor(in * scale_factor).

    mode: 'nearest' (src = floor(dst * r)), 'nearest-exact' (floor((dst + 0.5) * r)), 'linear' (3-D),
    'bilinear' (4-D), 'trilinear' (5-D), 'bicubic' (4-D; cubic convolution with A = -0.75, border
    indices clamped), 'area' (adaptive average pooling), 'lanczos' (4-D, antialias only). With
    antialias=True (bilinear, bicubic, lanczos on 4-D input) the filter is widened by the downscale
    factor, as PIL does. A scale factor given (and recompute_scale_factor not True) sets r = 1/scale
    instead of in/out.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _output_size(input, size, scale_factor, mode, recompute_scale_factor)
    nd = input.ndim
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and nd == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "lanczos" and nd == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if nd not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", "bicubic", "lanczos", *_LINEAR) or (
            mode in ("bicubic", "lanczos") and nd != 4):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the "
                                  f"modes: {_MODES} (got {mode})")
    if mode in _LINEAR and _LINEAR[mode] != nd:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {_LINEAR[mode]}D input")

    dtype = np.dtype(input.dtype)
    floating = jnp.issubdtype(dtype, jnp.floating)
    if mode == "area":
        if not floating:
            raise _not_implemented(f"adaptive_avg_pool{nd - 2}d", dtype)
        if min(input.shape[2:]) == 0:
            raise RuntimeError(f"adaptive_avg_pool{max(nd - 2, 2)}d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} with dimension "
                               f"{2 + list(input.shape[2:]).index(0)} being empty")
    else:
        _check_sizes(input, out)
        if mode.startswith("nearest"):
            if not (floating or dtype == np.uint8):
                raise _not_implemented("upsample_nearest2d_channels_last" if nd == 4 else
                                       "compute_indices_weights_nearest", dtype)
        elif antialias and dtype != np.float32 and dtype != np.float64 and dtype != np.uint8:
            raise _not_implemented("compute_index_ranges_weights", dtype)
        elif not (floating or (dtype == np.uint8 and mode in ("bilinear", "bicubic"))):
            kernel = {"bicubic": "compute_indices_weights_cubic", "bilinear": "upsample_bilinear2d_channels_last"}
            raise _not_implemented(kernel.get(mode, "compute_indices_weights_linear"), dtype)

    if dtype == np.uint8 and not mode.startswith("nearest"):
        return _uint8(input, out, scales, mode, align_corners, antialias)
    dt = _opmath(dtype)
    x = input if dtype == dt or mode.startswith("nearest") else input.astype(dt)
    for k, (n, o, s) in enumerate(zip(input.shape[2:], out, scales)):
        if mode.startswith("nearest"):
            exact = mode == "nearest-exact"
            idx = _nearest(n, o, s, dt, exact, not exact and nd == 4)
            x = _take_nearest(x, 2 + k, idx, _nearest(n, o, s, dt, exact, not exact))
            continue
        if mode == "area":
            idx, w = _area(n, o, dt)
        elif antialias:
            idx, w = _antialias(n, o, align_corners, s, dt, mode)
        elif mode == "bicubic":
            idx, w = _cubic(n, o, align_corners, s, dt)
        else:
            idx, w = _linear(n, o, align_corners, s, dt)
        x = _along(x, 2 + k, idx, w)
    return x.astype(dtype)


# ------------------------------------------------------------------------------ grid_sample

def _clip(c, size):
    """Clamp to [0, size-1] with torch's gradient: 1 strictly inside, 0 at or beyond the borders."""
    hi = size - 1
    return jnp.where(c <= 0, jnp.zeros_like(c), jnp.where(c >= hi, jnp.full_like(c, hi), c))


def _reflect(c, twice_low, twice_high):
    """Reflect c into [twice_low/2, twice_high/2] (torch's reflect_coordinates)."""
    if twice_low == twice_high:
        return jnp.zeros_like(c) * c
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    c = c - lo
    c = jnp.where(c < 0, -c, c)
    extra = jnp.fmod(c, span)
    flips = jax.lax.stop_gradient(jnp.floor(c / span))
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + lo, span - extra + lo)


def _pad_coordinates(c, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(c, size)
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        return _clip(c, size)
    return c


def _unnormalize(c, size, align_corners):
    """[-1, 1] -> pixel coordinates: corner pixels' centres (align_corners) or their outer edges."""
    if align_corners:
        return (c + 1) * ((size - 1) / 2)
    return c * (size / 2) + (size / 2 - 0.5)


def _sample(flat, sizes, taps):
    """sum over taps of weight * input[n, :, idx...], taps outside the input reading zero, as one gather.
    flat: (N, C, L); taps: per spatial dim (indices (N, T, P) int, weights (N, T, P)); the taps of
    all dims combine as a product (T_1 * T_2 ... per point)."""
    d = len(taps)
    inside, lin, w = True, 0, 1
    for k, ((i, wk), size) in enumerate(zip(taps, sizes)):
        n, t, p = i.shape
        shape = (n,) + tuple(t if j == k else 1 for j in range(d)) + (p,)
        i, wk = i.reshape(shape), wk.reshape(shape)
        inside = inside & (i >= 0) & (i < size)
        lin = lin * size + jnp.clip(i, 0, size - 1)
        w = w * wk
    n, p, t = flat.shape[0], lin.shape[-1], math.prod(i.shape[1] for i, _ in taps)
    lin = jnp.broadcast_to(lin, jnp.broadcast_shapes(lin.shape, w.shape)).reshape(n, t, p)
    w = jnp.where(inside, w, jnp.zeros_like(w)).reshape(n, t, p)
    vals = jax.vmap(lambda f, j: f[:, j])(flat, lin)  # (N, C, T, P)
    return jnp.sum(vals * w[:, None], axis=2)


def _check_grid(input, grid, mode):
    """torch's checks, in torch's order."""
    nd = input.ndim
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if grid.shape[-1] != nd - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd - 2} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    for k in range(2, nd):
        if input.shape[k] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {k} being empty")
    want = 4 if nd == 4 else 5
    if nd != want or grid.ndim != want:
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got "
                           f"{sizes}")
    if mode == "bicubic" and nd != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_TORCH_DTYPE[str(input.dtype)]} but found "
                           f"{_TORCH_DTYPE[str(grid.dtype)]}")
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise _not_implemented(f"grid_sampler_{nd - 2}d_cpu_kernel_impl", input.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input (N, C, H_in, W_in) at grid (N, H, W, 2) -> (N, C, H, W); 5-D: input
    (N, C, D_in, H_in, W_in), grid (N, D, H, W, 3). grid[..., 0] is x (width), [..., 1] y, [..., 2] z,
    in [-1, 1] (corner pixels' centres with align_corners, else their outer edges).

    mode: 'bilinear' (trilinear in 5-D), 'nearest' (round half to even), 'bicubic' (4-D, A = -0.75,
    padding applied to each tap). padding_mode: 'zeros' (outside reads 0), 'border' (clamp),
    'reflection' (mirror at the borders). Gradients flow to input and grid (not through nearest).
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = bool(align_corners)
    _check_grid(input, grid, mode)
    dtype = input.dtype
    dt = _opmath(np.dtype(dtype))
    x, grid = input.astype(dt), grid.astype(dt)
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    out_shape = grid.shape[1:-1]
    g = grid.reshape(n, math.prod(out_shape), len(sizes))
    flat = x.reshape(n, c, math.prod(sizes))
    # per spatial dim (D, H, W order) the coordinate in pixels; grid's last axis is (x, y[, z])
    coords = [_unnormalize(g[..., len(sizes) - 1 - k], s, align_corners) for k, s in enumerate(sizes)]
    if mode == "bicubic":  # padding applies to each of the 4 taps per dim, weights from the unpadded point
        taps = []
        for cc, size in zip(coords, sizes):
            base = jnp.floor(cc)[:, None]
            at = jax.lax.stop_gradient(_pad_coordinates(base + jnp.arange(-1, 3, dtype=dt)[:, None], size,
                                                        padding_mode, align_corners))
            taps.append((jnp.floor(at).astype(jnp.int32), jnp.stack(_cubic_coefficients(cc - base[:, 0]), 1)))
    else:
        coords = [_pad_coordinates(cc, s, padding_mode, align_corners) for cc, s in zip(coords, sizes)]
        if mode == "nearest":
            taps = [(jax.lax.stop_gradient(jnp.round(cc)).astype(jnp.int32)[:, None], jnp.ones_like(cc)[:, None])
                    for cc in coords]
        else:
            taps = []
            for cc in coords:
                base = jnp.floor(jax.lax.stop_gradient(cc))
                f = cc - base
                taps.append((jnp.stack([base, base + 1], 1).astype(jnp.int32), jnp.stack([1 - f, f], 1)))
    out = _sample(flat, sizes, taps)
    return out.reshape(n, c, *out_shape).astype(dtype)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: grid_sample with modes as enums (0 bilinear, 1 nearest, 2 bicubic;
    padding 0 zeros, 1 border, 2 reflection)."""
    return grid_sample(input, grid, ("bilinear", "nearest", "bicubic")[interpolation_mode],
                       ("zeros", "border", "reflection")[padding_mode], align_corners)


# ------------------------------------------------------------------------------ affine_grid

def _base(n, dt, align_corners):
    """torch's linspace(-1, 1, n) (scaled by (n-1)/n unless align_corners); [0] for n <= 1."""
    if n <= 1:
        return np.zeros(1, dt)
    step = (dt(1) - dt(-1)) / dt(n - 1)
    i = np.arange(n)
    half = n // 2
    v = np.where(i < half, dt(-1) + step * i.astype(dt), dt(1) - step * (n - 1 - i).astype(dt)).astype(dt)
    return v if align_corners else (v * dt(n - 1) / dt(n)).astype(dt)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: affine_grid without its argument checks."""
    spatial = list(size[2:])
    n = size[0]
    k = len(spatial)
    if theta.shape[0] != n:  # torch's bmm of the base grid with theta^T
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k + 1}] but got: "
                           f"[{theta.shape[0]}, {k + 1}].")
    dtype = theta.dtype
    dt = _opmath(np.dtype(dtype))
    th = theta.astype(dt)
    # base coordinates (x, y[, z], 1): x runs along the last spatial dim
    axes = []
    for d in range(k):
        shape = [1] * k
        shape[k - 1 - d] = -1
        axes.append(jnp.asarray(_base(spatial[k - 1 - d], dt, align_corners).reshape(shape)))
    out = []
    for i in range(k):
        acc = th[(slice(None), i, k) + (None,) * k]
        for d in range(k):
            acc = acc + axes[d][None] * th[(slice(None), i, d) + (None,) * k]
        out.append(jnp.broadcast_to(acc, (n, *spatial)))
    return jnp.stack(out, -1).astype(dtype)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of a batch of affine matrices theta (N, 2, 3) for output size
    (N, C, H, W), or (N, D, H, W, 3) of theta (N, 3, 4) for (N, C, D, H, W): grid = theta @ (x, y[, z], 1)
    over the normalised coordinates of the output pixels, for grid_sample."""
    align_corners = bool(align_corners)
    if not jnp.issubdtype(theta.dtype, jnp.floating):
        raise ValueError(f"Expected theta to have floating point type, but got torch.{np.dtype(theta.dtype).name}")
    size = list(size)
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"torch.Size({list(theta.shape)}).")
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"torch.Size({list(theta.shape)}).")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if not (align_corners and min(size[2:]) == 1) and min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
