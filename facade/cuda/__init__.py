"""torch.cuda over JAX's GPU devices: available exactly when JAX sees a GPU."""

from __future__ import annotations

from .._device import device as _device
from .._device import gpus

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "get_device_name",
           "is_bf16_supported", "empty_cache", "manual_seed", "manual_seed_all"]

_current = [0]


def is_available() -> bool:
    return bool(gpus())


def device_count() -> int:
    return len(gpus())


def current_device() -> int:
    _require()
    return _current[0]


def set_device(device) -> None:
    d = _device(device) if not isinstance(device, int) else _device("cuda", device)
    _current[0] = d.index or 0


def synchronize(device=None) -> None:
    """Wait for all queued work (JAX dispatches asynchronously)."""
    import jax

    jax.effects_barrier()


def get_device_name(device=None) -> str:
    _require()
    return gpus()[_current[0] if device is None else _device(device).index or 0].device_kind


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available()


def empty_cache() -> None:
    pass


def manual_seed(seed) -> None:
    """CUDA RNG shares facade's generator; seeding it is a no-op beyond torch.manual_seed."""


manual_seed_all = manual_seed


def _require():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
