"""torch.nn.modules.pooling."""

__all__ = []
