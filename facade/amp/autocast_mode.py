"""torch.amp.autocast_mode: the autocast context manager/decorator and custom_fwd/custom_bwd.

Entering autocast sets this thread's state (facade.amp._state); while it is on, the dispatcher
casts each op's inputs by the op's policy (facade.amp._policy).
"""

from __future__ import annotations

import collections.abc
import functools
import warnings
from typing import Any

import numpy as np

import facade

from .. import _dtype as D
from . import _state as S

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run for `device_type` ('cpu', 'cuda', 'xpu', ...)."""
    return S.kind(device_type) in S.DEFAULT_DTYPES


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


class autocast:
    """Run the region (or the decorated function) in mixed precision: each op in an op-specific dtype.

    device_type: 'cuda', 'cpu', ...; dtype: the lower precision (default torch.get_autocast_dtype(device_type):
    float16 on CUDA, bfloat16 on CPU); cache_enabled: reuse the cast of a float32 weight within the region.
    On CUDA without a GPU it warns and disables itself, as torch does.
    """

    def __init__(self, device_type: str, dtype: D.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        _check_device_type(device_type)
        self.fast_dtype = S.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = S.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                if not facade.cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                    enabled = False
                elif self.fast_dtype is D.bfloat16 and not facade.cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in (D.bfloat16, D.float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled
        self._prev = []  # a stack, so one instance can be re-entered (a recursive decorated function)

    def __enter__(self):
        self._prev.append((S.is_autocast_cache_enabled(), S.is_autocast_enabled(self.device),
                           S.get_autocast_dtype(self.device)))
        S.set_autocast_enabled(self.device, self._enabled)
        S.set_autocast_dtype(self.device, self.fast_dtype)
        S.autocast_increment_nesting()
        S.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any):
        if S.autocast_decrement_nesting() == 0:
            S.clear_autocast_cache()
        cache_enabled, enabled, dtype = self._prev.pop()
        S.set_autocast_enabled(self.device, enabled)
        S.set_autocast_dtype(self.device, dtype)
        S.set_autocast_cache_enabled(cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type: str, dtype: D.dtype):
    """Tensors in `value` (nested in lists, tuples, dicts) cast to `dtype` where autocast would cast them."""
    if isinstance(value, facade.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not D.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: D.dtype | None = None):
    """Decorate a custom autograd Function's `forward`: with `cast_inputs`, inside an autocast region
    its floating inputs are cast to that dtype and it runs with autocast off; otherwise it runs
    under the current autocast state, which `custom_bwd` then restores for `backward`."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = S.get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = S.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not S.is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate a custom autograd Function's `backward` to run under the autocast state of its forward."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
