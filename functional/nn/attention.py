"""attention."""

__all__ = []
