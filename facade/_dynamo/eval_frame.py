"""torch._dynamo.eval_frame: where torch keeps OptimizedModule (scripts test isinstance against it)."""

from __future__ import annotations

from .._compile import OptimizedModule

__all__ = ["OptimizedModule"]
