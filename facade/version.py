"""torch.version: the torch API version facade follows; no CUDA/HIP build of torch behind it."""

from __future__ import annotations

__all__ = ["__version__", "cuda",  # noqa: F822  (cuda: module __getattr__)
           "hip", "rocm", "xpu", "git_version", "debug"]

__version__ = "2.13.0"
hip = None
rocm = None
xpu = None
git_version = "Unknown"
debug = False


def _cuda_version() -> str | None:
    """The CUDA runtime JAX's GPU plugin runs on ('12.8'), or None without a GPU."""
    from ._device import gpus

    if not gpus():
        return None
    try:
        from jax._src.lib import cuda_versions

        v = int(cuda_versions.cuda_runtime_get_version())
        return f"{v // 1000}.{v % 1000 // 10}"
    except Exception:  # the plugin does not say
        return None


def __getattr__(name):
    if name == "cuda":  # asked lazily: answering starts JAX's backends
        return _cuda_version()
    raise AttributeError(f"module 'torch.version' has no attribute '{name}'")
