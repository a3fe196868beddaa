"""torch.accelerator: the device-agnostic view of the current accelerator, here JAX's GPUs (torch.cuda).

Without a GPU there is no accelerator: `current_accelerator()` is None, `is_available()` False, and
the calls that need a device raise torch's error.
"""

from __future__ import annotations

import contextlib

from . import cuda as _cuda
from ._device import device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
           "device_index", "empty_cache", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx", "set_device_index",
           "set_stream", "synchronize"]


def current_accelerator(check_available: bool = False) -> _device | None:
    return _device("cuda") if _cuda.is_available() else None


def is_available() -> bool:
    return current_accelerator() is not None


def device_count() -> int:
    return _cuda.device_count()


def _require():
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def _index(device) -> int | None:
    if device is None:
        return None
    d = _device("cuda", device) if isinstance(device, int) else _device(device)
    return d.index


def current_device_index() -> int:
    _require()
    return _cuda.current_device()


def set_device_index(device, /) -> None:
    _require()
    index = _index(device)
    if index is not None:
        _cuda.set_device(index)


current_device_idx = current_device_index
set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device, /):
    """Select device `device` (an index; None: no change) inside the block."""
    if device is None:
        yield
        return
    _require()
    previous = _cuda.current_device()
    _cuda.set_device(device)
    try:
        yield
    finally:
        _cuda.set_device(previous)


def _on_accelerator(fn):
    def wrapped(*args, **kwargs):
        _require()
        return fn(*args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = f"torch.accelerator.{fn.__name__}: {fn.__name__} of the current accelerator (torch.cuda)."
    return wrapped


synchronize = _on_accelerator(_cuda.synchronize)
current_stream = _on_accelerator(_cuda.current_stream)
set_stream = _on_accelerator(_cuda.set_stream)
empty_cache = _on_accelerator(_cuda.empty_cache)
memory_stats = _on_accelerator(_cuda.memory_stats)
memory_allocated = _on_accelerator(_cuda.memory_allocated)
max_memory_allocated = _on_accelerator(_cuda.max_memory_allocated)
memory_reserved = _on_accelerator(_cuda.memory_reserved)
max_memory_reserved = _on_accelerator(_cuda.max_memory_reserved)
reset_peak_memory_stats = _on_accelerator(_cuda.reset_peak_memory_stats)
reset_accumulated_memory_stats = _on_accelerator(_cuda.reset_accumulated_memory_stats)
get_memory_info = _on_accelerator(_cuda.mem_get_info)
