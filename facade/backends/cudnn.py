"""torch.backends.cudnn: XLA calls cuDNN on GPUs and picks its algorithms itself; the flags are recorded
(benchmark_limit is None: XLA has no cuDNN benchmark limit to set)."""

from __future__ import annotations

from .._device import gpus
from . import Flag, flags_context, install_flags

__all__ = ["is_available", "version", "is_acceptable", "flags"]


def is_available() -> bool:
    return bool(gpus())


def version() -> int | None:
    """cuDNN's version as torch writes it (9.1.0 -> 90100), or None without a GPU."""
    if not gpus():
        return None
    try:
        from jax._src.lib import cuda_versions

        return int(cuda_versions.cudnn_get_version())
    except Exception:  # jax's CUDA plugin does not say
        return None


def is_acceptable(tensor) -> bool:
    return is_available() and tensor.is_cuda


install_flags(__name__, enabled=Flag(True, "set_enabled_cudnn"), benchmark=Flag(False, "set_benchmark_cudnn"),
              benchmark_limit=Flag(None), deterministic=Flag(False, "set_deterministic_cudnn"),
              allow_tf32=Flag(True, "set_allow_tf32_cublas"))
flags = flags_context(__name__)
