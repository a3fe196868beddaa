"""torch.compiler: importable. Compiling is the compile issue's (those names raise NotImplementedError);
the questions and hints eager code uses answer truthfully: nothing is being compiled, `disable`
and `allow_in_graph` pass the function through, `reset` has no cache to clear."""

from __future__ import annotations

from .._unsupported import unsupported
from ._metrics import metrics, reset_metrics, summary  # facade's own: what compiled (not in torch)

_OWNER = "torch.compile is the compile issue"

_COMPILE = ("compile", "list_backends", "set_stance", "substitute_in_graph", "save_cache_artifacts",
            "load_cache_artifacts", "load_compiled_function", "set_default_backend", "get_default_backend")

__all__ = ["is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "allow_in_graph",
           "assume_constant_result", "nested_compile_region", "reset", "cudagraph_mark_step_begin", *_COMPILE,
           "metrics", "reset_metrics", "summary"]

globals().update({n: unsupported(f"torch.compiler.{n}", _OWNER) for n in _COMPILE})


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Run `fn` eagerly under torch.compile: eagerly, `fn` itself (also as `@disable(recursive=False)`)."""
    return fn if fn is not None else (lambda f: f)


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def nested_compile_region(fn=None, options=None):
    return fn if fn is not None else (lambda f: f)


def reset() -> None:
    """Nothing is compiled yet, so there is no cache to clear."""


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs are captured eagerly."""
