"""torch.nn.utils.clip_grad: gradient norm/value clipping.

Each call is one jitted computation over all the gradients (torch's foreach path in one XLA program):
the per-tensor norms, the total norm and the scaled gradients, written back into the `.grad` tensors.
`foreach` is accepted for torch compatibility; there is only one path here.
"""

from __future__ import annotations

import functools
import math
import sys
import types
import warnings

import jax
import jax.numpy as jnp

from ... import _multidevice as _md
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _vector_norm(x, p):
    x = jnp.abs(x)
    if p == math.inf:
        return jnp.max(x, initial=0.0)
    if p == -math.inf:
        return jnp.min(x)
    if p == 0:
        return jnp.sum(x != 0).astype(x.dtype)
    if p == 1:
        return jnp.sum(x)
    if p == 2:
        return jnp.sqrt(jnp.sum(x * x))
    return jnp.sum(x ** p) ** (1.0 / p)


@_md.serialised  # one multi-device CPU program at a time (facade._multidevice)
@functools.partial(jax.jit, static_argnums=1)
def _total_norm(arrays, p):
    """The p-norm of the per-tensor p-norms (torch's two-stage order, so float rounding agrees)."""
    return _vector_norm(jnp.stack([_vector_norm(a, p) for a in arrays]), p)


@_md.serialised  # one multi-device CPU program at a time (facade._multidevice)
@jax.jit
def _scale(arrays, max_norm, total):
    coef = jnp.minimum(max_norm / (total + 1e-6), 1.0)
    return [a * coef.astype(a.dtype) for a in arrays]


@_md.serialised  # one multi-device CPU program at a time (facade._multidevice)
@functools.partial(jax.jit, static_argnums=1)
def _norm_and_scale(arrays, p, max_norm):
    total = _total_norm(arrays, p)
    return total, _scale(arrays, max_norm, total)


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _check_finite(total, norm_type, error_if_nonfinite):
    # the check needs the value: under torch.compile tracing it is skipped
    if error_if_nonfinite and not isinstance(total, jax.core.Tracer) and not bool(jnp.isfinite(total)):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the gradients by the "
                           "non-finite norm anyway, set `error_if_nonfinite=False`")


def _wrap(total, like):
    return Tensor._from_array(total, like[0]._device)


@no_grad()
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of the norms of `tensors` (as if concatenated into one vector)."""
    tensors = _as_list(tensors)
    if not tensors:
        return Tensor._from_array(jnp.zeros((), jnp.float32))
    total = _total_norm([t._arr() for t in tensors], float(norm_type))
    _check_finite(total, norm_type, error_if_nonfinite)
    return _wrap(total, tensors)


@no_grad()
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients of `parameters` by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    total = total_norm._arr() if isinstance(total_norm, Tensor) else jnp.asarray(total_norm)
    for g, new in zip(grads, _scale([g._arr() for g in grads], float(max_norm), total)):
        g._assign_data(new)


@no_grad()
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients together so that their total `norm_type`-norm is at most `max_norm`; returns
    the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return Tensor._from_array(jnp.zeros((), jnp.float32))
    dtensor = sys.modules.get("facade.distributed.tensor._dtensor")  # loaded once fully_shard made DTensors
    if dtensor is not None and any(isinstance(g, dtensor.DTensor) for g in grads):
        return dtensor.clip_grad_norm_(grads, float(max_norm), norm_type, error_if_nonfinite)
    arrays = [g._arr() for g in grads]
    if error_if_nonfinite:  # the check comes before any gradient is scaled
        total = _total_norm(arrays, float(norm_type))
        _check_finite(total, norm_type, error_if_nonfinite)
        scaled = _scale(arrays, float(max_norm), total)
    else:
        total, scaled = _norm_and_scale(arrays, float(norm_type), float(max_norm))
    for g, new in zip(grads, scaled):
        g._assign_data(new)
    return _wrap(total, grads)


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_md.serialised  # one multi-device CPU program at a time (facade._multidevice)
@jax.jit
def _clamp(arrays, clip_value):
    return [jnp.clip(a, -clip_value.astype(a.dtype), clip_value.astype(a.dtype)) for a in arrays]


@no_grad()
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient of `parameters` into [-clip_value, clip_value], in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    for g, new in zip(grads, _clamp([g._arr() for g in grads], jnp.asarray(float(clip_value)))):
        g._assign_data(new)
