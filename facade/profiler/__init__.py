"""torch.profiler: `profile`, `record_function`, `schedule`, `tensorboard_trace_handler` over jax.profiler.

Host side: `record_function` regions and every eager op passing the dispatch chokepoint (`aten::<op>`,
dispatch time; the backward pass and DataLoader workers' ops are not seen) are timed, tabulated by
`key_averages().table()` and written as Chrome/Perfetto traces. Device side: `tensorboard_trace_handler`
also records a `jax.profiler` trace (TensorBoard's profile plugin) in its directory.
"""

from ._events import EventList, FunctionEvent, FunctionEventAvg, record_function
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    kineto_available,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "record_function", "EventList", "FunctionEvent",
           "FunctionEventAvg"]
