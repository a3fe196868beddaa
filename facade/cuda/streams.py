"""torch.cuda.Stream / Event / stream(): correct no-ops over XLA's own stream scheduling.

XLA orders the work of one device itself, so there is nothing to enqueue on a user stream and
waiting between streams is already implied. `synchronize()` waits for all queued work; a timing
Event records after all queued work has finished, so `elapsed_time` measures what ran between two
records.
"""

from __future__ import annotations

import time

from .._device import device as _device
from .._device import gpus
from ._state import get_device_index, require

__all__ = ["Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream", "set_stream"]


def _sync():
    from . import synchronize

    synchronize()


class Stream:
    """A CUDA stream handle (`device`, `priority`); work still runs in XLA's order."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if not gpus():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self = super().__new__(cls)
        self.device = _device("cuda", get_device_index(device, optional=True))
        self.priority = priority
        self.cuda_stream = 0
        return self

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        _sync()

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.cuda_stream) == (other.device, other.cuda_stream)

    def __hash__(self):
        return hash((self.device, self.cuda_stream))

    def __repr__(self):
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event: `record`, `wait`, `query`, `synchronize`, and `elapsed_time` (ms) with enable_timing."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        if not gpus():
            raise RuntimeError("torch.cuda.Event requires CUDA support")
        self = super().__new__(cls)
        self.enable_timing, self._time = enable_timing, None
        return self

    def record(self, stream=None) -> None:
        if self.enable_timing:
            _sync()
            self._time = time.perf_counter()

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        _sync()

    def elapsed_time(self, end_event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0


_current_streams = {}


def default_stream(device=None) -> Stream:
    require()
    index = get_device_index(device, optional=True)
    return Stream(index)


def current_stream(device=None) -> Stream:
    require()
    index = get_device_index(device, optional=True)
    return _current_streams.get(index) or default_stream(index)


def set_stream(stream) -> None:
    if stream is not None:
        _current_streams[stream.device.index] = stream


class StreamContext:
    """Select `stream` inside the block (None: no-op)."""

    def __init__(self, stream):
        self.stream, self.prev = stream, None

    def __enter__(self):
        if self.stream is not None:
            self.prev = _current_streams.get(self.stream.device.index)
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            index = self.stream.device.index
            if self.prev is None:
                _current_streams.pop(index, None)
            else:
                _current_streams[index] = self.prev
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


