"""The selected GPU, device-index parsing and the error torch raises without CUDA."""

from __future__ import annotations

from .._device import device as _device
from .._device import gpus
from .._misc import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)

_current = [0]


def require():
    if not gpus():
        raise AssertionError("Torch not compiled with CUDA enabled")


def get_device_index(device, optional=False) -> int | None:
    """torch.cuda._utils._get_device_index: an int, 'cuda:n' or a device -> n (the current device if
    it names none and `optional`)."""
    if isinstance(device, str):
        device = _device(device)
    if isinstance(device, _device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        device = device.index
    if device is None and optional:
        return current_device() if gpus() else None
    if device is None:
        raise ValueError("Expected a torch.device with a specified index or an integer, but got:None")
    return int(device)


def current_device() -> int:
    require()
    return _current[0]


def set_device(device) -> None:
    index = get_device_index(device)
    if index < 0:
        return
    n = len(gpus())
    require()
    if index >= n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} of {n})")
    _current[0] = index


def gpu(device=None):
    """The JAX device behind a torch.cuda device argument (None: the current device)."""
    require()
    index = get_device_index(device, optional=True)
    g = gpus()
    if not 0 <= index < len(g):
        raise AssertionError(f"Invalid device id (device {index} of {len(g)})")
    return g[index]
