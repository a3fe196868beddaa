"""conv."""

__all__ = []
