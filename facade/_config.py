"""torch-level settings: threads, float32 matmul precision, deterministic algorithms, warn-always,
denormals, and which module serves a device type.

float32 matmul precision is torch's: 'highest' (full float32, the default), 'high' (TF32 allowed)
or 'medium' (bfloat16 allowed). It is coupled to `torch.backends.cuda.matmul.allow_tf32` as in
torch, and sets JAX's default matmul precision to the matching level ('highest' restores JAX's
default). XLA fixes its thread pools when the backend starts, so the thread counts here are what
scripts read back, not knobs on XLA.
"""

from __future__ import annotations

import os
import warnings

import jax

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
           "init_num_threads", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled", "set_flush_denormal",
           "get_device_module", "has_lapack", "has_mkl", "has_openmp", "has_spectral"]

has_lapack = True  # jax.numpy.linalg / jax.scipy
has_spectral = True  # jax.numpy.fft
has_mkl = False  # XLA does not link MKL
has_openmp = False  # XLA's CPU backend uses its own thread pool


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_state = {"threads": _cores(), "interop_threads": _cores(), "precision": "highest", "deterministic": False,
          "warn_only": False, "warn_always": False}


def _positive_int(fn, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")
    return n


def get_num_threads() -> int:
    return _state["threads"]


def set_num_threads(int) -> None:
    _state["threads"] = _positive_int("set_num_threads", int)


def get_num_interop_threads() -> int:
    return _state["interop_threads"]


def set_num_interop_threads(int) -> None:
    _state["interop_threads"] = _positive_int("set_num_interop_threads", int)


def init_num_threads() -> None:
    """torch initialises its OpenMP/MKL threads per thread; XLA's pools need nothing."""


# ---------------------------------------------------------------------------- matmul precision

_JAX_PRECISION = {"highest": None, "high": "tensorfloat32", "medium": "bfloat16"}


def set_float32_matmul_precision(precision: str) -> None:
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _JAX_PRECISION:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["precision"] = precision
    if jax.config.jax_default_matmul_precision != _JAX_PRECISION[precision]:
        jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[precision])


def get_float32_matmul_precision() -> str:
    return _state["precision"]


# ---------------------------------------------------------------------------- determinism, warnings

def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded and reported back. XLA's CPU kernels are deterministic; on GPU, determinism is XLA's
    `--xla_gpu_deterministic_ops` flag, which must be in XLA_FLAGS before JAX starts."""
    for name, value, pos in (("mode", mode, "(position 1) "), ("warn_only", warn_only, "")):
        if not isinstance(value, bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}' {pos}must be bool, "
                            f"not {type(value).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode) -> None:
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


def set_flush_denormal(mode: bool) -> bool:
    """False: XLA's CPU code generator has no runtime switch for flushing denormals, so nothing changed."""
    return False


# ---------------------------------------------------------------------------- device modules

_KNOWN_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                "meta, hpu, mtia, privateuseone")
_MODULES = ("cpu", "cuda", "mps", "xpu")


def get_device_module(device=None):
    """The module serving a device type (torch.cuda for 'cuda'); None: the current accelerator's, else torch.cpu."""
    import importlib

    from ._device import device as _devcls
    from .accelerator import current_accelerator

    if device is None:
        acc = current_accelerator()
        name = acc.type if acc is not None else "cpu"
    elif isinstance(device, _devcls):
        name = device.type
    elif isinstance(device, str):
        name = device.partition(":")[0]
        if name not in _KNOWN_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_KNOWN_TYPES} device type at start of device string: {device}")
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if name not in _MODULES:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return importlib.import_module(f"facade.{name}")
