"""torch.backends.cuda: matmul precision flags (honoured: allow_tf32 is the float32 matmul precision),
scaled-dot-product-attention backend toggles (recorded: facade has one SDPA), library preferences."""

from __future__ import annotations

import contextlib
import enum
import importlib.util
import warnings

from .. import _config
from .._device import gpus

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp",
           "fp16_bf16_reduction_math_sdp_allowed", "allow_fp16_bf16_reduction_math_sdp", "sdp_kernel",
           "preferred_linalg_library", "preferred_blas_library", "is_flash_attention_available"]


def is_built() -> bool:
    """Whether JAX can drive CUDA GPUs here (its CUDA plugin is installed)."""
    plugins = ("jax_cuda12_plugin", "jax_cuda13_plugin")
    return bool(gpus()) or any(importlib.util.find_spec(m) is not None for m in plugins)


class _BoolTuple:
    """allow_fp16/bf16_reduced_precision_reduction: a bool, or a tuple/list of bools."""

    def __init__(self, name):
        self.name, self.value = name, True

    def check(self, value):
        ok = isinstance(value, bool) or isinstance(value, (tuple, list)) and all(isinstance(v, bool) for v in value)
        if not ok:
            raise TypeError(f"{self.name} expects a bool or a tuple/list of bools, but got {type(value)}")
        return value


class cuBLASModule:
    """torch.backends.cuda.matmul: allow_tf32 is `get_float32_matmul_precision() != 'highest'`."""

    _reductions = {n: _BoolTuple(n) for n in ("allow_fp16_reduced_precision_reduction",
                                              "allow_bf16_reduced_precision_reduction")}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _config.get_float32_matmul_precision() != "highest"
        if name in self._reductions:
            return self._reductions[name].value
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            _config.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._reductions:
            self._reductions[name].value = self._reductions[name].check(value)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

# ---------------------------------------------------------------------------- SDPA toggles

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "fp16_bf16_reduction_math": True}


def _toggle(kind):
    def enabled() -> bool:
        return _sdp[kind]

    def enable(enabled: bool) -> None:
        if not isinstance(enabled, bool):
            raise RuntimeError(f"set_sdp_use_{kind} expects a bool, but got {type(enabled).__name__}")
        _sdp[kind] = enabled

    enabled.__name__ = enabled.__qualname__ = f"{kind}_sdp_enabled"
    enable.__name__ = enable.__qualname__ = f"enable_{kind}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _toggle("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _toggle("mem_efficient")
math_sdp_enabled, enable_math_sdp = _toggle("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _toggle("cudnn")
fp16_bf16_reduction_math_sdp_allowed, allow_fp16_bf16_reduction_math_sdp = _toggle("fp16_bf16_reduction_math")
fp16_bf16_reduction_math_sdp_allowed.__name__ = "fp16_bf16_reduction_math_sdp_allowed"
allow_fp16_bf16_reduction_math_sdp.__name__ = "allow_fp16_bf16_reduction_math_sdp"


def is_flash_attention_available() -> bool:
    return False  # facade's SDPA is one XLA program, not torch's flash kernel


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    old = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(old)


# ---------------------------------------------------------------------------- library preferences

class _LinalgBackend(enum.Enum):
    Default = 0
    Cusolver = 1
    Magma = 2

class _BlasBackend(enum.Enum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3

def _preference(enum_cls, names, default, shown):
    chosen = [default]

    def preferred(backend=None):
        if backend is None:
            return chosen[0]
        if isinstance(backend, str):
            if backend.lower() not in names:
                raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}.")
            backend = enum_cls[names[backend.lower()]]
        elif not isinstance(backend, enum_cls):
            raise RuntimeError("Unknown input value type.")
        if backend is not default and not gpus():
            raise RuntimeError(f"Cannot set preferred backend to {shown[backend.name]} if PyTorch has not been "
                               f"compiled with {shown[backend.name]}.")
        chosen[0] = backend
        return backend

    return preferred


preferred_linalg_library = _preference(_LinalgBackend, {"default": "Default", "cusolver": "Cusolver",
                                                        "magma": "Magma"}, _LinalgBackend.Default,
                                       {"Cusolver": "cuSOLVER", "Magma": "MAGMA"})
preferred_blas_library = _preference(_BlasBackend, {"cublas": "Cublas", "cublaslt": "Cublaslt", "ck": "Ck"},
                                     _BlasBackend.Cublas, {"Cublaslt": "cuBLASLt", "Ck": "CK"})
preferred_linalg_library.__name__ = "preferred_linalg_library"
preferred_blas_library.__name__ = "preferred_blas_library"


def __getattr__(name):
    if name in ("SDPBackend", "SDPAParams"):  # torch.nn.attention's, once delivered
        import importlib

        try:
            return getattr(importlib.import_module("facade.nn.attention"), name)
        except (ModuleNotFoundError, AttributeError):
            pass
    raise AttributeError(f"module 'torch.backends.cuda' has no attribute '{name}': facade does not support "
                         f"torch.backends.cuda.{name} yet")
