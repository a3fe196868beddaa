"""torch.cpu.amp: the deprecated CPU spellings of torch.amp; each warns FutureWarning, as torch's do."""

from __future__ import annotations

import warnings

from .. import _dtype as D
from ..amp import autocast_mode as _mode
from ..amp import grad_scaler as _scaler

__all__ = ["autocast", "GradScaler"]


def _deprecated(old, new):
    warnings.warn(f"`torch.cpu.amp.{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning,
                  stacklevel=3)


class autocast(_mode.autocast):
    """torch.autocast('cpu', ...) (deprecated spelling)."""

    def __init__(self, enabled: bool = True, dtype: D.dtype = D.bfloat16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_scaler.GradScaler):
    """torch.amp.GradScaler('cpu', ...) (deprecated spelling)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
