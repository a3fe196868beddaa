"""torch.utils.dlpack: Tensors to and from DLPack (zero-copy exchange with jax, numpy, real torch, cupy ...).

`from_dlpack` takes any object with `__dlpack__` (or a legacy DLPack capsule, read as host memory) and returns a
Tensor sharing its memory; `to_dlpack` returns a capsule of a Tensor's array. facade.func.to_jax/from_jax do the
same for jax.Array directly.
"""

from __future__ import annotations

import enum

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


class _Capsule:
    """A legacy DLPack capsule presented through the `__dlpack__` protocol (host memory)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor):
    """A Tensor sharing the memory of `ext_tensor` (anything with `__dlpack__`, or a DLPack capsule)."""
    import jax

    from .._device import of_array
    from .._tensor import Tensor

    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(ext_tensor).__name__}")
    a = jax.dlpack.from_dlpack(ext_tensor)
    return Tensor._from_array(a, of_array(a))


def to_dlpack(tensor):
    """A DLPack capsule of `tensor`'s memory (no copy)."""
    return tensor.__dlpack__()
