"""torch._dynamo.utils: `counters` (compiles, recompiles, graph breaks ...)."""

from __future__ import annotations

from .._compile import counters

__all__ = ["counters"]
