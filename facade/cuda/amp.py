"""torch.cuda.amp: the deprecated CUDA spellings of torch.amp; each warns FutureWarning, as torch's do."""

from __future__ import annotations

import functools
import warnings

import facade

from .. import _dtype as D
from ..amp import autocast_mode as _mode
from ..amp import grad_scaler as _scaler

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def _deprecated(old, new):
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning,
                  stacklevel=3)


def amp_definitely_not_available() -> bool:
    return not facade.cuda.is_available()


class autocast(_mode.autocast):
    """torch.autocast('cuda', ...) (deprecated spelling)."""

    def __init__(self, enabled: bool = True, dtype: D.dtype = D.float16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_scaler.GradScaler):
    """torch.amp.GradScaler('cuda', ...) (deprecated spelling)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.amp.custom_fwd(..., device_type='cuda') (deprecated spelling)."""
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_mode.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """torch.amp.custom_bwd(..., device_type='cuda') (deprecated spelling)."""
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return functools.partial(_mode.custom_bwd, device_type="cuda")(bwd)
