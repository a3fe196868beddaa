"""torch.mps: Apple's Metal backend, which JAX does not drive here; nothing is available."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "manual_seed", "seed", "get_rng_state",
           "set_rng_state", "current_allocated_memory", "driver_allocated_memory", "recommended_max_memory",
           "set_per_process_memory_fraction"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed) -> None:
    """No-op without MPS, as in torch."""


def _without_mps(name, call):
    def fn(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without MPS backend.")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.mps.{name}: raises, since there is no MPS backend."
    return fn


synchronize = _without_mps("synchronize", "deviceSynchronize")
empty_cache = _without_mps("empty_cache", "emptyCache")
seed = _without_mps("seed", "getDefaultGenerator")
get_rng_state = _without_mps("get_rng_state", "getDefaultGenerator")
set_rng_state = _without_mps("set_rng_state", "getDefaultGenerator")
current_allocated_memory = _without_mps("current_allocated_memory", "getCurrentAllocatedMemory")
driver_allocated_memory = _without_mps("driver_allocated_memory", "getDriverAllocatedMemory")
recommended_max_memory = _without_mps("recommended_max_memory", "getRecommendedMaxMemory")
set_per_process_memory_fraction = _without_mps("set_per_process_memory_fraction", "setMemoryFraction")
