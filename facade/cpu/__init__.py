"""torch.cpu: the cuda-like API for the CPU device, for device-agnostic code (torch.cpu.amp: AMP)."""

from __future__ import annotations

import importlib
from contextlib import AbstractContextManager

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream", "stream",
           "set_device", "device_count", "Stream", "StreamContext", "Event"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def synchronize(device=None) -> None:
    """Wait for queued work on the CPU device (JAX dispatches asynchronously)."""
    import jax

    for a in jax.live_arrays("cpu"):
        try:
            a.block_until_ready()
        except RuntimeError:  # deleted or donated meanwhile
            pass


def device_count() -> int:
    return 1


def set_device(device) -> None:
    """No-op: there is one CPU device."""


def current_device() -> str:
    return "cpu"


class Stream:
    """A stand-in CPU stream (device-agnostic code only)."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self) -> None:
        pass

    def wait_event(self, event) -> None:
        pass


class Event:
    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_streams = [Stream()]  # [default, *selected]


def current_stream(device=None) -> Stream:
    return _streams[-1]


class StreamContext(AbstractContextManager):
    """Select a CPU stream inside the block (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _streams.append(self.stream)

    def __exit__(self, *exc):
        if self.stream is not None:
            _streams.pop()


def stream(stream) -> AbstractContextManager:
    return StreamContext(stream)


def __getattr__(name):
    if name == "amp":  # torch.cpu.amp, delivered with AMP
        try:
            return importlib.import_module(f"{__name__}.amp")
        except ModuleNotFoundError:
            pass
    raise AttributeError(f"module 'torch.cpu' has no attribute '{name}': facade does not support torch.cpu.{name} yet")
