"""activation."""

__all__ = []
