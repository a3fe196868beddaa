"""torch.device over JAX devices: `cpu`, `cuda[:n]` (JAX GPUs) and `meta` (shapes only)."""

from __future__ import annotations

import functools

import jax
import numpy as np

try:  # the copy jax.device_put ends in, called directly by put() (private to jax; checked on jax 0.10)
    from jax._src import core as _core
    from jax._src.interpreters import pxla as _pxla
    from jax._src.lib import xla_client as _xc

    _DIRECT = _xc.batched_device_put
except (ImportError, AttributeError):  # a jax without them: put() is jax.device_put
    _DIRECT = None

__all__ = ["device"]

_TYPES = ("cpu", "cuda", "meta")


class device:
    """torch.device('cuda:0'), torch.device('cuda', 0), torch.device(other_device)."""

    __slots__ = ("type", "index")

    def __new__(cls, type, index=None):
        if isinstance(type, device):
            return type
        if isinstance(type, int):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string or a device, got {type.__class__.__name__}")
        if ":" in type:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: "
                                   f"{type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}")
        if index is not None:
            index = int(index)  # a bool index would alias the int in _intern's cache
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        return _intern(type, index)

    def __repr__(self):
        return f"device(type='{self.type}'" + ("" if self.index is None else f", index={self.index}") + ")"

    def __str__(self):
        return self.type + ("" if self.index is None else f":{self.index}")

    def __eq__(self, other):  # like torch, a device never equals a string
        return isinstance(other, device) and other.type == self.type and other.index == self.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        from . import _creation

        _creation._default_device.append(self)
        return self

    def __exit__(self, *exc):
        from . import _creation

        _creation._default_device.pop()


@functools.lru_cache(None)
def _intern(type, index):
    d = object.__new__(device)
    d.type, d.index = type, index
    return d


def gpus():
    try:
        return jax.local_devices(backend="gpu")  # this process's (all of them in a single process)
    except RuntimeError:
        return []


CPU = device("cpu")
META = device("meta")


def jax_device(d: device):
    """The JAX device that holds a torch device's arrays (None for meta)."""
    if d.type == "cpu":
        return jax.local_devices(backend="cpu")[0]
    if d.type == "cuda":
        g = gpus()
        if not g:
            raise AssertionError("Torch not compiled with CUDA enabled")
        i = d.index or 0
        if i >= len(g):
            raise RuntimeError(f"CUDA error: invalid device ordinal (device {i} of {len(g)})")
        return g[i]
    return None


def of_array(a) -> device:
    """The torch device an array lives on (cpu for tracers, which carry no placement)."""
    try:
        (d,) = a.devices()
    except Exception:
        return CPU
    if d.platform == "cpu":
        return CPU
    return device("cuda", gpus().index(d))


def spec(a, shape=None):
    """What jit lowers array `a` as (with another `shape`): its shape, dtype, weak type, and its sharding where it
    is committed (for `jit.lower(...).compile()` ahead of the call that will find the program in jit's cache)."""
    return jax.ShapeDtypeStruct(a.shape if shape is None else shape, a.dtype, weak_type=getattr(a, "weak_type", False),
                                sharding=a.sharding if getattr(a, "committed", False) else None)


_SHARDINGS = {}


def put(arr, jd=None):
    """jax.device_put(arr, jd) of a numpy array: a copy on JAX device `jd`, committed to it, or on JAX's
    default device and uncommitted for None. Outside a trace it calls the copy that jax.device_put ends in
    (jaxlib's batched_device_put, as jax.device_put(x, copy=True) does) without ~60 us of Python layers
    around it: a tensor made from host values costs ~9 us, not ~70 (and no compile, unlike a jitted copy).
    A byte-swapped array goes to jax.device_put, which refuses it (the direct copy would misread it)."""
    if _DIRECT is not None and type(arr) is np.ndarray and arr.dtype.isnative:
        try:
            if isinstance(_core.trace_ctx.trace, _core.EvalTrace):  # not inside a trace
                d = _pxla.get_default_device() if jd is None else jd
                s = _SHARDINGS.get(d)
                if s is None:
                    s = _SHARDINGS[d] = jax.sharding.SingleDeviceSharding(d)
                return _DIRECT(_core.ShapedArray(arr.shape, arr.dtype), s, [arr], [d], jd is not None, True)
        except Exception:  # a dtype, layout or jax version the direct call does not take: jax.device_put's way
            pass
    return jax.device_put(arr, jd)
