"""torch.compile: see `_function` for what a compiled call is, `_module` for the module wrapper."""

from __future__ import annotations

from ._config import config, counters
from ._function import CompiledFunction, GraphBreak, Unsupported, reset
from ._module import OptimizedModule

__all__ = ["compile", "CompiledFunction", "OptimizedModule", "Unsupported", "GraphBreak", "config", "counters",
           "reset"]

_MODES = (None, "default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """torch.compile: a module becomes an OptimizedModule, a function a CompiledFunction (one XLA program per
    call). Every `backend`, `mode` and `options` compiles through XLA; `dynamic` is accepted (shapes are static
    here: a new shape is a new program); `disable=True` returns the model unchanged."""
    from ..nn.modules.module import Module

    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in _MODES if m)}")
    if not (isinstance(backend, str) or callable(backend)):
        raise TypeError(f"backend must be a string or a callable, got {type(backend).__name__}")
    settings = dict(fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options)
    if model is None:
        return lambda fn: compile(fn, disable=disable, **settings)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, settings)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be a callable, got " + type(model).__name__)
    return CompiledFunction(model, **settings)
