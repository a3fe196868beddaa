"""torch.nn.modules.batchnorm."""

__all__ = []
