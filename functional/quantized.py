"""Affine quantization with torch's arithmetic: q = clamp(round(zero_point + x * (1/scale)), qmin, qmax) with a
float32 inverse scale and round-half-to-even (see `_qval`), x = (q - zero_point) * scale.

Per-channel variants take 1-D `scale`/`zero_point` broadcast along `axis`. The fake-quantize functions return
dequantize(quantize(x)) in float32 with torch's straight-through gradient: the incoming gradient passes where
`zero_point + round(x / scale)` lies in [quant_min, quant_max] and is zero elsewhere; scale and zero point get none.
"""

from functools import partial

import jax
import jax.numpy as jnp

__all__ = ["quantize_affine", "dequantize_affine", "fake_quantize_affine", "batch_norm_requantize"]


def _along(p, ndim, axis):
    """A per-channel parameter (C,) shaped to broadcast along `axis` of an ndim-D array (a scalar unchanged)."""
    p = jnp.asarray(p)
    if axis is None or p.ndim == 0:
        return p
    return p.reshape((-1,) + (1,) * (ndim - 1 - axis))


def _qval(input, scale, zero_point, axis, mode):
    """zero_point + input * float32(1 / scale) rounded half to even (std::nearbyint), as float64 so int32 bounds
    stay exact. torch's kernels differ in where they round: "fma" (fbgemm's 8-bit per-tensor kernel) rounds
    x * inv + zp once, "add" (qint32, per-channel) rounds the float32 product and then the float32 sum, "round"
    (fake quantize) adds zp after rounding the product. Float32 steps are written as exact float64 ones rounded to
    float32 (a float32 product fits in float64), so XLA cannot fuse them differently."""
    inv = (jnp.float32(1) / _along(scale, input.ndim, axis).astype(jnp.float32)).astype(jnp.float64)
    zp = _along(zero_point, input.ndim, axis).astype(jnp.float64)
    prod = input.astype(jnp.float64) * inv
    if mode == "fma":
        return jnp.round((prod + zp).astype(jnp.float32)).astype(jnp.float64)
    prod = prod.astype(jnp.float32).astype(jnp.float64)
    if mode == "add":
        return jnp.round((prod + zp).astype(jnp.float32)).astype(jnp.float64)
    return jnp.round(prod) + zp


def quantize_affine(input, scale, zero_point, axis=None, *, qmin, qmax, dtype):
    """The integer representation (dtype) of float `input` quantized with `scale`/`zero_point`
    (per channel along `axis` when it is not None)."""
    mode = "fma" if axis is None and jnp.dtype(dtype).itemsize == 1 else "add"
    return jnp.clip(_qval(input, scale, zero_point, axis, mode), qmin, qmax).astype(dtype)


def dequantize_affine(q, scale, zero_point, axis=None):
    """float32 (q - zero_point) * scale (in float64 per channel, as torch)."""
    ft = jnp.float32 if axis is None else jnp.float64
    zp = _along(zero_point, q.ndim, axis).astype(ft)
    return ((q.astype(ft) - zp) * _along(scale, q.ndim, axis).astype(ft)).astype(jnp.float32)


@partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5))
def _fake(input, scale, zero_point, axis, quant_min, quant_max):
    q = jnp.clip(_qval(input, scale, zero_point, axis, "round"), quant_min, quant_max)
    return dequantize_affine(q, scale, zero_point, None if scale.ndim == 0 else axis).astype(input.dtype)


@_fake.defjvp
def _fake_jvp(axis, quant_min, quant_max, primals, tangents):
    input, scale, zero_point = primals
    qv = _qval(input, scale, zero_point, axis, "round")
    mask = (qv >= quant_min) & (qv <= quant_max)
    return _fake(input, scale, zero_point, axis, quant_min, quant_max), jnp.where(mask, tangents[0], 0)


def fake_quantize_affine(input, scale, zero_point, axis=None, quant_min=0, quant_max=255):
    """dequantize(quantize(input)) with the straight-through gradient (see the module docstring)."""
    scale = jax.lax.stop_gradient(jnp.asarray(scale, jnp.float32))
    zero_point = jax.lax.stop_gradient(jnp.asarray(zero_point).astype(jnp.float32))
    return _fake(input, scale, zero_point, axis, quant_min, quant_max)


def batch_norm_requantize(q, in_scale, in_zero_point, weight, bias, mean, var, out_scale, out_zero_point, eps=1e-5,
                          *, qmin, qmax):
    """torch.quantized_batch_norm on integer representations `q` (N, C, ...): inference batch norm folded into
    `round(alpha * (q - in_zp) + beta)` per channel, with alpha = in_scale * weight * invstd / out_scale and
    beta = (bias - mean * weight * invstd) / out_scale + out_zp (torch's q_batch_norm kernel), clamped."""
    shape = (-1,) + (1,) * (q.ndim - 2)
    f32 = jnp.float32
    invstd = f32(1) / jnp.sqrt(var.astype(f32) + f32(eps))
    alpha = invstd * weight.astype(f32) * f32(in_scale) / f32(out_scale)
    beta = (bias.astype(f32) - mean.astype(f32) * invstd * weight.astype(f32)) / f32(out_scale) + f32(out_zero_point)
    x = (q.astype(f32) - f32(in_zero_point)).astype(jnp.float64)
    y = (x * alpha.reshape(shape).astype(jnp.float64) + beta.reshape(shape).astype(jnp.float64)).astype(f32)
    return jnp.clip(jnp.round(y), qmin, qmax).astype(q.dtype)
