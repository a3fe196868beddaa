"""torch.amp: automatic mixed precision. `autocast` runs ops in an op-specific dtype (facade.amp._policy
holds torch's per-op lists); `GradScaler` scales the loss so float16 gradients do not underflow."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
