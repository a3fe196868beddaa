"""torch.cuda over JAX's GPU devices: available exactly when JAX sees a GPU.

Without a GPU, the calls that need one raise torch's error ("Torch not compiled with CUDA
enabled"); the memory counters read 0 and the seeding calls do nothing, as on torch's CPU build.
Memory statistics come from JAX's `Device.memory_stats()`; streams and events are correct no-ops
over XLA's own stream scheduling (see `streams`).
"""

from __future__ import annotations

import importlib

import jax

from .. import _creation
from .._device import gpus
from .._misc import AcceleratorError  # noqa: F401
from ._memory import (
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
)
from ._state import OutOfMemoryError, current_device, get_device_index, gpu, require, set_device
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing, make_graphed_callables
from .streams import Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "device_of", "synchronize",
           "get_device_name", "get_device_properties", "get_device_capability", "get_arch_list", "is_bf16_supported",
           "is_tf32_supported", "empty_cache", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "is_initialized", "init",
           "ipc_collect", "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_cached", "max_memory_cached", "memory_stats", "memory_summary", "mem_get_info",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats",
           "Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream", "set_stream",
           "OutOfMemoryError", "AcceleratorError"]
__all__ += ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]

globals().update(_creation.LEGACY_CUDA)  # torch.cuda.FloatTensor and friends


def is_available() -> bool:
    return bool(gpus())


def device_count() -> int:
    return len(gpus())


def is_initialized() -> bool:
    from jax._src import xla_bridge

    return xla_bridge.backends_are_initialized() and is_available()


def init() -> None:
    require()


def synchronize(device=None) -> None:
    """Wait until every queued computation has finished (JAX dispatches asynchronously)."""
    require()
    for a in jax.live_arrays():
        try:
            a.block_until_ready()
        except RuntimeError:  # deleted or donated meanwhile
            pass
    from .. import _deferred

    _deferred.flush()  # raise the errors of value checks deferred on the device, as a device-side assert


class _CudaDeviceProperties:
    """torch.cuda.get_device_properties(): what JAX reports about a GPU (total_memory is the
    allocator's limit, XLA's share of the device)."""

    def __init__(self, d):
        self.name = d.device_kind
        cc = str(getattr(d, "compute_capability", "0.0"))
        self.major, self.minor = (int(x) for x in (cc.split(".") + ["0"])[:2])
        self.multi_processor_count = int(getattr(d, "core_count", 0))
        self.total_memory = int((d.memory_stats() or {}).get("bytes_limit", 0))
        self.is_integrated = 0
        self.is_multi_gpu_board = 0

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2 ** 20}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> _CudaDeviceProperties:
    return _CudaDeviceProperties(gpu(device))


def get_device_name(device=None) -> str:
    return gpu(device).device_kind


def get_device_capability(device=None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


def get_arch_list() -> list[str]:
    return [f"sm_{''.join(map(str, get_device_capability(i)))}" for i in range(device_count())]


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available() and (including_emulation or get_device_capability()[0] >= 8)


def is_tf32_supported() -> bool:
    return is_available() and get_device_capability()[0] >= 8


def empty_cache() -> None:
    """XLA's allocator keeps its pool; there is no cache to release."""


def ipc_collect() -> None:
    require()


# ---------------------------------------------------------------------------- seeds
# facade has one generator for every device: torch.manual_seed seeds it; the CUDA-only calls do not.

def manual_seed(seed) -> None:
    """No-op: CUDA tensors draw from facade's one generator, seeded by torch.manual_seed."""


manual_seed_all = manual_seed


def seed() -> None:
    """No-op (see manual_seed)."""


seed_all = seed


def initial_seed() -> int:
    require()
    from .. import _random

    return _random.initial_seed()


def get_rng_state(device="cuda"):
    require()
    from .. import _random

    return _random.get_rng_state()


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda") -> None:
    """No-op (see manual_seed)."""


def set_rng_state_all(new_states) -> None:
    """No-op (see manual_seed)."""


# ---------------------------------------------------------------------------- device context

class device:
    """Context manager selecting GPU `device` (an index, 'cuda:n' or a torch.device; negative or None: no-op)."""

    def __init__(self, device):
        self.idx = get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is None or self.idx < 0:
            return
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        self.prev_idx = current_device()
        set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """device(...) of a tensor's GPU, or a no-op for a CPU tensor."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def __getattr__(name):
    if name == "amp":  # torch.cuda.amp, delivered with AMP
        try:
            return importlib.import_module(f"{__name__}.amp")
        except ModuleNotFoundError:
            pass
    raise AttributeError(f"module 'torch.cuda' has no attribute '{name}': facade does not support torch.cuda.{name} "
                         "yet")
