"""torch-level odds and ends: set_default_tensor_type, thread_safe_generator, the exceptions torch
exports, and the __torch_function__ guards (there are no __torch_function__ overrides here to disable)."""

from __future__ import annotations

import warnings

from . import _dtype as D

__all__ = ["set_default_tensor_type", "thread_safe_generator", "OutOfMemoryError", "AcceleratorError",
           "DisableTorchFunction", "DisableTorchFunctionSubclass"]


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (torch.cuda.OutOfMemoryError): an allocation on a device failed."""


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an error reported by the accelerator runtime."""


_WARNED = [False]


def set_default_tensor_type(t, /) -> None:
    """Deprecated in torch: set the default float dtype (and device, for torch.cuda.* types) from a legacy
    tensor type such as torch.DoubleTensor or 'torch.cuda.FloatTensor'."""
    import facade

    from . import _creation

    if isinstance(t, str):
        obj, path = facade, "torch"
        for part in t.split(".")[1:] if t.startswith("torch.") else t.split("."):
            if not hasattr(obj, part):
                raise AttributeError(f"module '{path}' has no attribute '{part}'")
            obj, path = getattr(obj, part), f"{path}.{part}"
        t = obj
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                      stacklevel=2)
    dtype = getattr(t, "_legacy_dtype", None) if isinstance(t, type) else None
    if dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    cuda = t in _creation.LEGACY_CUDA.values()
    if cuda and not facade.cuda.is_available():
        raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled with CUDA enabled.")
    D.set_default_dtype(dtype)
    if cuda:
        facade.set_default_device("cuda")


def thread_safe_generator():
    """The thread-local Generator of a DataLoader thread worker; None elsewhere (the global RNG is used)."""
    from .utils.data import get_worker_info

    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None):
        return info.rng.torch_generator
    return None


_TORCH_FUNCTION = {"disabled": 0, "subclass_disabled": 0}


class _TorchFunctionGuard:
    _key = "disabled"

    def __enter__(self):
        _TORCH_FUNCTION[self._key] += 1
        return self

    def __exit__(self, *exc):
        _TORCH_FUNCTION[self._key] -= 1
        return False


class DisableTorchFunction(_TorchFunctionGuard):
    """torch.DisableTorchFunction(): a context where __torch_function__ overrides are skipped (none exist here)."""


class DisableTorchFunctionSubclass(_TorchFunctionGuard):
    """torch.DisableTorchFunctionSubclass(): a context where subclasses' __torch_function__ is skipped."""

    _key = "subclass_disabled"
