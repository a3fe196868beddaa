"""torch.fx: importable, so libraries that probe it (`isinstance(x, torch.fx.Proxy)`) get the true answer:
nothing here is an FX proxy. Tracing to FX graphs is the compile issue's; every class raises
NotImplementedError when constructed and every function when called."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class

_OWNER = "FX graph tracing is the compile issue"
_CLASSES = ("Tracer", "Graph", "GraphModule", "Interpreter", "Transformer", "Node", "Proxy")
_FUNCTIONS = ("symbolic_trace", "wrap", "replace_pattern", "has_side_effect", "map_arg")

__all__ = [*_CLASSES, *_FUNCTIONS]

globals().update({n: unsupported_class(f"torch.fx.{n}", _OWNER) for n in _CLASSES})
globals().update({n: unsupported(f"torch.fx.{n}", _OWNER) for n in _FUNCTIONS})
