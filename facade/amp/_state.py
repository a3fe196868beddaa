"""Autocast's thread-local state and the torch-level functions that read and set it
(torch.is_autocast_enabled, torch.set_autocast_dtype, torch.autocast_increment_nesting ...).

Like torch's, the state is per thread: a thread starts with autocast off and the default dtypes.
`autocast_state()` is a snapshot of it, for tests that check nothing leaks.
"""

from __future__ import annotations

import threading
import warnings

from .. import _dtype as D

__all__ = ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
           "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
           "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "is_autocast_ipu_enabled", "set_autocast_ipu_enabled",
           "get_autocast_ipu_dtype", "set_autocast_ipu_dtype", "is_autocast_xla_enabled", "set_autocast_xla_enabled",
           "get_autocast_xla_dtype", "set_autocast_xla_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting"]

# torch's device types, in the order of its "Expected one of ..." message
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                 "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
# the device types torch autocasts for, with their default lower-precision dtype
DEFAULT_DTYPES = {"cpu": D.bfloat16, "cuda": D.float16, "ipu": D.float16, "xpu": D.float16, "maia": D.bfloat16,
                  "xla": D.bfloat16, "mps": D.float16, "hpu": D.bfloat16, "mtia": D.float16, "privateuseone": D.float16}
CAST_DEVICES = ("cpu", "cuda")  # the only device types a facade tensor can live on


class _State(threading.local):
    def __init__(self):
        self.enabled = dict.fromkeys(DEFAULT_DTYPES, False)
        self.dtype = dict(DEFAULT_DTYPES)
        self.active = False  # autocast is on for a device type facade tensors live on: the dispatcher looks
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # id(fp32 leaf weight) -> (weakref to it, its lower-precision cast)


STATE = _State()


def kind(device: str) -> str:
    """The device type of a device string ('cuda:0' -> 'cuda'), with torch's error for an unknown one."""
    if not isinstance(device, str):
        raise TypeError(f"expected a device type string, but got {type(device).__name__}")
    k = device.split(":", 1)[0]
    if k not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                           f"{device}")
    return k


def _autocast_type(device):
    k = kind(device)
    if k not in DEFAULT_DTYPES:
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return k


def _check(fn, name, pos, value, cls):
    if not isinstance(value, cls):
        want = "bool" if cls is bool else "torch.dtype"
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be {want}, not {type(value).__name__}")


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return STATE.enabled[_autocast_type(device_type)]


def set_autocast_enabled(device_type, enabled=None) -> None:
    """set_autocast_enabled(device_type, enabled), or the legacy set_autocast_enabled(enabled) for CUDA."""
    if enabled is None and isinstance(device_type, bool):
        device_type, enabled = "cuda", device_type
    _check("set_autocast_enabled", "enabled", 2, enabled, bool)
    STATE.enabled[_autocast_type(device_type)] = enabled
    STATE.active = any(STATE.enabled[d] for d in CAST_DEVICES)


def get_autocast_dtype(device_type: str) -> D.dtype:
    k = kind(device_type)
    if k not in DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return STATE.dtype[k]


def set_autocast_dtype(device_type: str, dtype: D.dtype) -> None:
    _check("set_autocast_dtype", "dtype", 2, dtype, D.dtype)
    STATE.dtype[_autocast_type(device_type)] = dtype


def is_autocast_cache_enabled() -> bool:
    return STATE.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _check("set_autocast_cache_enabled", "enabled", 1, enabled, bool)
    STATE.cache_enabled = enabled


def clear_autocast_cache() -> None:
    STATE.cache.clear()


def autocast_increment_nesting() -> int:
    STATE.nesting += 1
    return STATE.nesting


def autocast_decrement_nesting() -> int:
    STATE.nesting -= 1
    return STATE.nesting


def autocast_state():
    """A hashable snapshot of this thread's autocast state (enabled flags, dtypes, cache flag, nesting)."""
    s = STATE
    return (tuple(s.enabled.items()), tuple(s.dtype.items()), s.cache_enabled, s.nesting, len(s.cache))


# ---------------------------------------------------------------------------- deprecated per-device spellings

def _deprecated(old, new, fn):
    def wrapper(*args):
        warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                      stacklevel=2)
        return fn(*args)

    wrapper.__name__ = wrapper.__qualname__ = old.split("(")[0]
    return wrapper


def _per_device(k):
    return (
        _deprecated(f"is_autocast_{k}_enabled()", f"is_autocast_enabled('{k}')", lambda: is_autocast_enabled(k)),
        _deprecated(f"set_autocast_{k}_enabled(enabled)", f"set_autocast_enabled('{k}', enabled)",
                    lambda enabled: set_autocast_enabled(k, enabled)),
        _deprecated(f"get_autocast_{k}_dtype()", f"get_autocast_dtype('{k}')", lambda: get_autocast_dtype(k)),
        _deprecated(f"set_autocast_{k}_dtype(dtype)", f"set_autocast_dtype('{k}', dtype)",
                    lambda dtype: set_autocast_dtype(k, dtype)),
    )


is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype = _per_device("cpu")
is_autocast_ipu_enabled, set_autocast_ipu_enabled, get_autocast_ipu_dtype, set_autocast_ipu_dtype = _per_device("ipu")
is_autocast_xla_enabled, set_autocast_xla_enabled, get_autocast_xla_dtype, set_autocast_xla_dtype = _per_device("xla")
get_autocast_gpu_dtype = _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')",
                                     lambda: get_autocast_dtype("cuda"))
set_autocast_gpu_dtype = _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)",
                                     lambda dtype: set_autocast_dtype("cuda", dtype))
