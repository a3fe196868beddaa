"""pool."""

__all__ = []
