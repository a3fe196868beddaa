"""torch.nn.modules.loss."""

__all__ = []
