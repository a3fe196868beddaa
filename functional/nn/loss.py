"""loss."""

__all__ = []
