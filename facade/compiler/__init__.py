"""torch.compiler: `compile` (torch.compile), `reset`, `disable`, `is_compiling` and the hints libraries use.

`is_compiling()` is true while facade traces a compiled function. `disable(fn)` makes `fn` a graph break: a
compiled call that reaches it runs eagerly (with one warning), so its Python side effects happen every call.
`allow_in_graph`, `assume_constant_result` and `nested_compile_region` return the function: everything facade
traces is in the graph already.
"""

from __future__ import annotations

import functools

from .._unsupported import unsupported
from ._metrics import metrics, reset_metrics, summary  # facade's own: what compiled (not in torch)

_OWNER = "torch.compile is the compile issue"

_LATER = ("set_stance", "substitute_in_graph", "save_cache_artifacts", "load_cache_artifacts",
          "load_compiled_function")

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "allow_in_graph",
           "assume_constant_result", "nested_compile_region", "reset", "cudagraph_mark_step_begin",
           "list_backends", "set_default_backend", "get_default_backend", *_LATER, "metrics", "reset_metrics",
           "summary"]

globals().update({n: unsupported(f"torch.compiler.{n}", _OWNER) for n in _LATER})
_BACKEND = ["inductor"]


def compile(*args, **kwargs):
    """torch.compiler.compile: torch.compile."""
    from .._compile import compile as _compile

    return _compile(*args, **kwargs)


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The backend names torch.compile accepts (every one compiles through XLA here)."""
    return ["cudagraphs", "inductor", "openxla", "tvm"]


def set_default_backend(backend) -> None:
    _BACKEND[0] = backend


def get_default_backend():
    return _BACKEND[0]


def is_compiling() -> bool:
    from .._compile import config

    return config.tracing


def is_dynamo_compiling() -> bool:
    return is_compiling()


def is_exporting() -> bool:
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Run `fn` eagerly: a compiled call that reaches it is a graph break (also `@disable(recursive=False)`)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        from .._compile import GraphBreak, config

        if config.tracing:
            raise GraphBreak(f"{getattr(fn, '__qualname__', fn)} is marked torch.compiler.disable"
                             + (f" ({reason})" if reason else ""))
        return fn(*args, **kwargs)

    eager._torchdynamo_disable = True
    return eager


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def nested_compile_region(fn=None, options=None):
    return fn if fn is not None else (lambda f: f)


def reset() -> None:
    """Forget every compiled program: the next call of each compiled function traces again."""
    from .._compile import reset as _reset

    _reset()


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs are captured: XLA runs the whole program."""
