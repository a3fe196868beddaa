"""torch.nn.modules.padding."""

__all__ = []
