"""torch.xpu: Intel GPUs, which JAX does not drive here; nothing is available."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "is_bf16_supported", "empty_cache", "manual_seed",
           "manual_seed_all", "memory_allocated", "synchronize", "current_device", "set_device", "get_device_name"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def empty_cache() -> None:
    """No-op without XPU, as in torch."""


def manual_seed(seed) -> None:
    """No-op without XPU, as in torch."""


manual_seed_all = manual_seed


def memory_allocated(device=None) -> int:
    return 0


def _require(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


synchronize = current_device = set_device = get_device_name = _require
