"""torch.jit: `script` and `trace` give compiled callables that keep the module interface (see `_script`);
`save`/`load` raise, pointing to torch.save of the state_dict and torch.export. The annotations scripts put on
eager code (ignore, unused, export, annotate, Final) pass through, is_scripting()/is_tracing() are False, and
fork/wait run eagerly."""

from __future__ import annotations

from typing import Any, Final, NamedTuple  # noqa: F401  (torch.jit.Final)

from .._unsupported import unsupported, unsupported_class
from ..futures import Future

_OWNER = "TorchScript is the compile issue"

__all__ = ["script", "trace", "trace_module", "script_method", "freeze", "optimize_for_inference", "save", "load",
           "ScriptModule", "ScriptFunction", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule",
           "CompilationUnit", "ignore",
           "unused", "export", "interface", "annotate", "Final", "Attribute", "is_scripting", "is_tracing",
           "script_if_tracing", "fork", "wait", "Future", "Error", "TracerWarning"]

from ._script import (  # noqa: E402
    RecursiveScriptModule,
    ScriptFunction,
    ScriptModule,
    TopLevelTracedModule,
    TracedModule,
    freeze,
    load,
    optimize_for_inference,
    save,
    script,
    trace,
)

globals().update({n: unsupported(f"torch.jit.{n}", _OWNER) for n in ("trace_module", "script_method")})
CompilationUnit = unsupported_class("torch.jit.CompilationUnit", _OWNER)


class Error(RuntimeError):
    """torch.jit.Error."""


class TracerWarning(Warning):
    """torch.jit.TracerWarning."""


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def ignore(drop=False, **kwargs):
    """Leave a function to Python when scripting: eagerly, the function itself."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def script_if_tracing(fn):
    return fn


def annotate(the_type, the_value):
    return the_value


class Attribute(NamedTuple):
    value: Any
    type: Any


def fork(func, *args, **kwargs) -> Future:
    """Run func(*args, **kwargs) now (eager) and return its completed torch.futures.Future."""
    future = Future()
    try:
        future.set_result(func(*args, **kwargs))
    except Exception as e:
        future.set_exception(e)
    return future


def wait(future: Future):
    return future.wait()

