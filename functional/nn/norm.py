"""norm."""

__all__ = []
