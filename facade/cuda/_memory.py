"""torch.cuda's memory counters from JAX's `Device.memory_stats()` (XLA's allocator).

allocated = `bytes_in_use`, reserved = `pool_bytes` (what the allocator holds from the device),
total = `bytes_limit`. XLA cannot reset its peak counter, so after `reset_peak_memory_stats` the
peak is XLA's when that has grown since, and otherwise the highest use seen by these calls.
Without a GPU every counter is 0 and `memory_stats()` is empty, as on torch's CPU build.
"""

from __future__ import annotations

import collections
import warnings

from .._device import gpus
from ._state import current_device, get_device_index, gpu

_resets = {}  # device index -> [XLA peak at the reset, highest use seen since]


def _raw(device):
    if not gpus():
        return None
    index = get_device_index(device, optional=True)
    stats = gpu(index).memory_stats() or {}
    now = int(stats.get("bytes_in_use", 0))
    peak = int(stats.get("peak_bytes_in_use", now))
    if index in _resets:
        at_reset, seen = _resets[index]
        _resets[index][1] = seen = max(seen, now)
        peak = peak if peak > at_reset else seen
    return stats, now, peak


def memory_stats(device=None) -> dict:
    raw = _raw(device)
    if raw is None:
        return collections.OrderedDict()
    stats, now, peak = raw
    reserved = int(stats.get("pool_bytes", stats.get("bytes_reserved", now)))
    out = {"allocated_bytes.all.current": now, "allocated_bytes.all.peak": peak,
           "active_bytes.all.current": now, "active_bytes.all.peak": peak,
           "reserved_bytes.all.current": reserved,
           "reserved_bytes.all.peak": max(reserved, int(stats.get("peak_pool_bytes", reserved))),
           "allocation.all.allocated": int(stats.get("num_allocs", 0)),
           "num_alloc_retries": 0, "num_ooms": 0}
    return collections.OrderedDict(sorted(out.items()))


def memory_allocated(device=None) -> int:
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    index = get_device_index(device, optional=True) if gpus() else current_device()
    stats = gpu(index).memory_stats() or {}
    now = int(stats.get("bytes_in_use", 0))
    _resets[index] = [int(stats.get("peak_bytes_in_use", now)), now]


def reset_max_memory_allocated(device=None) -> None:
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None) -> None:
    gpu(device)  # XLA keeps no resettable totals


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of XLA's share of the device."""
    stats = gpu(device).memory_stats() or {}
    total = int(stats.get("bytes_limit", 0))
    return total - int(stats.get("bytes_in_use", 0)), total


def _size(n: int) -> str:
    for unit in ("B  ", "KiB", "MiB", "GiB", "TiB"):
        if n < 768 * 1024 or unit == "TiB":
            return f"{n:6d} {unit}"
        n //= 1024
    raise AssertionError


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """torch's table of memory statistics, with the rows XLA's allocator reports."""
    index = get_device_index(device, optional=True) if gpus() else current_device()
    s = memory_stats(index)
    rule, bar = "|" + "-" * 75 + "|", "|" + "=" * 75 + "|"
    lines = [bar, f"| {'':16} PyTorch CUDA memory summary, device ID {index:<17d} |", rule,
             f"| {'':9} CUDA OOMs: {s['num_ooms']:<12d} | {'':6} cudaMalloc retries: {s['num_alloc_retries']:<8d}  |",
             bar, "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |"]
    for key, name in (("allocated_bytes", "Allocated memory"), ("active_bytes", "Active memory"),
                      ("reserved_bytes", "GPU reserved memory")):
        cur, peak = s[f"{key}.all.current"], s[f"{key}.all.peak"]
        lines += [rule, f"| {name:<21} | {_size(cur)} | {_size(peak)} | {'N/A':>10} | {'N/A':>10} |"]
    lines.append(bar)
    return "\n".join(lines) + "\n"
