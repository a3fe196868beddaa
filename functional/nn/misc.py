"""misc."""

__all__ = []
