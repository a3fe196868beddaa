"""torch.nn.modules.instancenorm."""

__all__ = []
