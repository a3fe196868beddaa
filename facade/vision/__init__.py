"""torchvision for facade: the subset of torchvision that ordinary scripts use, built on facade.

Real torchvision cannot load over facade (it needs torch's C++ extension), so the runner
(`python -m facade`) makes `import torchvision` resolve to this package, as it makes `import torch`
resolve to facade. Submodules load on first use, as `torchvision.X` attribute access.
"""

from __future__ import annotations

import importlib

__version__ = "0.28.0"  # the torchvision release that matches torch 2.13, whose API this follows

_SUBMODULES = ("datasets", "io", "models", "transforms", "utils")

__all__ = [*_SUBMODULES, "get_image_backend", "set_image_backend", "get_video_backend", "set_video_backend"]

_image_backend = "PIL"


def get_image_backend() -> str:
    """The image loader of the datasets: 'PIL' (the only one here)."""
    return _image_backend


def set_image_backend(backend: str) -> None:
    if backend not in ("PIL", "accimage"):
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")
    if backend == "accimage":
        raise ValueError("torchvision.set_image_backend('accimage'): accimage is not supported by facade; use 'PIL'")


def get_video_backend() -> str:
    return "pyav"


def set_video_backend(backend: str) -> None:
    raise NotImplementedError(f"torchvision.set_video_backend({backend!r}): video is not supported by facade")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'torchvision' has no attribute '{name}': facade's torchvision does not "
                         f"provide torchvision.{name}")
