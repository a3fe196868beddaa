"""torch.nn.modules.activation."""

from ._multihead import MultiheadAttention  # noqa: F401  (torch defines it in activation.py)

__all__ = ["MultiheadAttention"]
