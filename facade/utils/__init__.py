"""torch.utils: `data` (datasets, samplers, DataLoader) and `hooks` (RemovableHandle)."""

from . import _pytree, checkpoint, data, hooks  # noqa: F401  (torch.utils._pytree: reachable after `import torch`)

__all__ = ["checkpoint", "data", "hooks"]
