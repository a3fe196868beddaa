"""Normalization: batch, instance, layer, group, RMS and local response normalization.

Running statistics are explicit: `batch_norm` and `instance_norm` return the normalized output together
with the updated running mean and variance (None where none were given); the facade writes those into
the module's buffers. The running variance is updated with the unbiased batch variance, the output
normalized with the biased one, as torch:

    out = (x - mean) / sqrt(var + eps) * weight + bias
    running = (1 - momentum) * running + momentum * batch_statistic
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "local_response_norm"]

_TORCH_DTYPE = {"int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}


def _size(shape):
    return f"torch.Size({list(shape)})"


def _floating(name, x):
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise NotImplementedError(f'"{name}" not implemented for \'{_TORCH_DTYPE.get(str(x.dtype), x.dtype)}\'')


def _check_len(name, v, n):
    if v is not None and v.size != n:
        raise RuntimeError(f"{name} should contain {n} elements not {v.size}")


def _per_channel(v, ndim):
    """A (C,) vector broadcast against (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _normalize(x, mean, var, weight, bias, eps, ndim):
    # (x - mean) * scale + bias with the per-channel scale rsqrt(var + eps) * weight formed first, as torch's
    # CPU kernel forms its per-channel alpha: one full-size multiply fewer forward, and backward the weight's
    # gradient is sum(g * (x - mean)) * rsqrt(...), without a full-size normalised x (nor its broadcast rsqrt).
    acc = jnp.promote_types(x.dtype, jnp.float32)  # half inputs normalize in float32, as torch's kernels
    scale = lax.rsqrt(var.astype(acc) + eps)
    if weight is not None:
        scale = scale * _per_channel(weight, ndim).astype(acc)
    out = (x.astype(acc) - mean.astype(acc)) * scale
    if bias is not None:
        out = out + _per_channel(bias, ndim).astype(acc)
    return out.astype(x.dtype)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalization of (N, C, *) over all dims but C.

    Returns (output, new_running_mean, new_running_var). In training the batch statistics normalize and
    the running ones (when given) move by `momentum`; in evaluation the running ones normalize and come
    back unchanged."""
    _floating("batch_norm", input)
    if training:
        count = input.size // input.shape[1] if input.ndim > 1 else input.size
        if count == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{_size(input.shape)}")
    C = input.shape[1] if input.ndim > 1 else 0
    for name, v in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        _check_len(name, v, C)
    dtypes = {v.dtype for v in (running_mean, running_var, weight, bias) if v is not None}
    if jnp.dtype(input.dtype) in (jnp.dtype(jnp.float32), jnp.dtype(jnp.float64)) and dtypes - {input.dtype}:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    axes = (0, *range(2, input.ndim))
    shape = (1, C) + (1,) * (input.ndim - 2)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        return (_normalize(input, running_mean.reshape(shape), running_var.reshape(shape), weight, bias, eps,
                           input.ndim), running_mean, running_var)
    acc = jnp.promote_types(input.dtype, jnp.float32)
    x = input.astype(acc)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    out = _normalize(input, mean, var, weight, bias, eps, input.ndim)
    n = input.size // max(C, 1)
    new_mean = new_var = None
    if running_mean is not None:
        m = lax.stop_gradient(mean.reshape(C))
        new_mean = ((1 - momentum) * running_mean + momentum * m).astype(running_mean.dtype)
    if running_var is not None:
        v = lax.stop_gradient(var.reshape(C)) * (n / max(n - 1, 1))
        new_var = ((1 - momentum) * running_var + momentum * v).astype(running_var.dtype)
    return out, new_mean, new_var


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Instance normalization of (N, C, *): each (n, c) plane over its spatial dims.

    Returns (output, new_running_mean, new_running_var); the running statistics move by the batch mean of
    the per-instance statistics (torch's batch norm of a (1, N*C, *) view)."""
    if use_input_stats:
        if math.prod(input.shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{_size(input.shape)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    N, C = input.shape[:2]
    x = input.reshape(1, N * C, *input.shape[2:])
    rep = [None if v is None else jnp.tile(v, N) for v in (running_mean, running_var, weight, bias)]
    out, rm, rv = batch_norm(x, rep[0], rep[1], rep[2], rep[3], use_input_stats, momentum, eps)
    out = out.reshape(input.shape)
    rm = None if rm is None else rm.reshape(N, C).mean(0).astype(rm.dtype)
    rv = None if rv is None else rv.reshape(N, C).mean(0).astype(rv.dtype)
    return out, rm, rv


def _check_normalized(input, normalized_shape, rms=False):
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError(f"{'rms_norm' if rms else 'layer_norm'}(): argument 'normalized_shape' (position 2) must be "
                        f"tuple of ints, not {type(normalized_shape).__name__}")
    ns = tuple(normalized_shape)
    if not ns or tuple(input.shape[input.ndim - len(ns):]) != ns or len(ns) > input.ndim:
        star = "*" if rms else "*, "
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [{star}"
                           f"{', '.join(map(str, ns))}], but got input of size{list(input.shape)}")
    return ns


def _affine_shape(name, v, ns):
    if v is not None and tuple(v.shape) != ns:
        raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                           f"{list(v.shape)} and normalized_shape = {list(ns)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing dims `normalized_shape`: (x - mean) / sqrt(var + eps) * weight + bias,
    with the biased variance; weight and bias have shape normalized_shape."""
    ns = _check_normalized(input, normalized_shape)
    _affine_shape("weight", weight, ns)
    _affine_shape("bias", bias, ns)
    _floating("LayerNormKernelImpl", input)
    axes = tuple(range(input.ndim - len(ns), input.ndim))
    acc = jnp.promote_types(input.dtype, jnp.float32)
    x = input.astype(acc)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    out = (x - mean) * lax.rsqrt(var + eps)
    if weight is not None:
        out = out * weight.astype(acc)
    if bias is not None:
        out = out + bias.astype(acc)
    return out.astype(input.dtype)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize (N, C, *) over each of num_groups groups of C / num_groups channels (and all spatial
    positions); weight and bias are per channel."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    N, C = input.shape[:2]
    if num_groups <= 0 or C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(input.shape)} and num_groups={num_groups}")
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and (v.ndim != 1 or v.shape[0] != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(v.shape)} and input of shape {list(input.shape)}")
    _floating("GroupNormKernelImpl", input)
    acc = jnp.promote_types(input.dtype, jnp.float32)
    x = input.astype(acc).reshape(N, num_groups, -1)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    out = ((x - mean) * lax.rsqrt(var + eps)).reshape(input.shape)
    if weight is not None:
        out = out * _per_channel(weight, input.ndim).astype(acc)
    if bias is not None:
        out = out + _per_channel(bias, input.ndim).astype(acc)
    return out.astype(input.dtype)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x ** 2 over normalized_shape) + eps) * weight; eps=None is the dtype's machine epsilon."""
    ns = _check_normalized(input, normalized_shape, rms=True)
    _affine_shape("weight", weight, ns)
    _floating("rms_norm", input)
    if eps is None:
        eps = float(jnp.finfo(input.dtype).eps)
    axes = tuple(range(input.ndim - len(ns), input.ndim))
    acc = jnp.promote_types(input.dtype, jnp.float32)
    x = input.astype(acc)
    out = x * lax.rsqrt(jnp.mean(jnp.square(x), axis=axes, keepdims=True) + eps)
    if weight is not None:
        out = out * weight.astype(acc)
    return out.astype(input.dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha / size * sum of x ** 2 over the `size` neighbouring channels) ** beta, the channel
    window [c - size // 2, c + (size - 1) // 2] zero-padded at the ends; input (N, C, *)."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {input.ndim} "
                         f"dimensions)")
    if input.size == 0:
        return input
    sq = jnp.square(input)
    window = (1, size) + (1,) * (input.ndim - 2)
    pads = ((0, 0), (size // 2, (size - 1) // 2)) + ((0, 0),) * (input.ndim - 2)
    total = lax.reduce_window(sq, np.array(0, sq.dtype), lax.add, window, (1,) * input.ndim, pads)
    div = (total / size * alpha + k) ** beta
    return input / div
