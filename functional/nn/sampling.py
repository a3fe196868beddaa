"""sampling."""

__all__ = []
