"""torch.utils: `data` (datasets, samplers, DataLoader) and `hooks` (RemovableHandle)."""

from . import data, hooks

__all__ = ["data", "hooks"]
