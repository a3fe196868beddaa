"""torch.nn.modules.lazy."""

__all__ = []
