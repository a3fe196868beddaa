"""torch._dynamo: the switches, counters and helpers around torch.compile (see facade._compile).

`config` and `utils.counters` are facade's compile settings and counts; `optimize(backend)` is torch.compile's
decorator form; `explain(fn)(*args)` traces once and reports programs, graph breaks and their reasons;
`mark_dynamic`/`maybe_mark_dynamic`/`mark_static` are accepted and recorded on the tensor, but shapes stay
static here (a new size is a new program, explained under TORCH_LOGS=recompiles). `export` is the export
issue's (NotImplementedError).
"""

from __future__ import annotations

from .._compile import OptimizedModule, config, reset
from .._unsupported import unsupported
from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling
from . import _trace_wrapped_higher_order_op, eval_frame, exc, utils  # noqa: F401  (torch imports them)
from ._explain import ExplainOutput, explain

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "reset", "mark_static_address",
           "optimize", "export", "explain", "ExplainOutput", "config", "mark_dynamic", "maybe_mark_dynamic",
           "mark_static", "OptimizedModule", "run"]

export = unsupported("torch._dynamo.export", "torch.export is the export issue")


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None, disable=False,
             dynamic=None):
    """The decorator form of torch.compile (`nopython=True` is fullgraph)."""
    from .._compile import compile

    return lambda fn: compile(fn, backend=backend, fullgraph=nopython, dynamic=dynamic, disable=disable)


def run(fn=None):
    """Run `fn` without compiling new programs (here: the function itself)."""
    return fn


def _mark(t, name, dims):
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"{name} expects a tensor but received {type(t)}")
    dims = [dims] if isinstance(dims, int) else list(dims)
    for d in dims:
        if not -t.ndim <= d < max(t.ndim, 1):
            raise IndexError(f"{name}: dim {d} out of range for a tensor of dimension {t.ndim}")
    t.__dict__.setdefault("_dynamo_" + name, set()).update(d % max(t.ndim, 1) for d in dims)


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None) -> None:
    """Accepted and recorded: shapes are static here, a new size of this dim compiles a new program."""
    _mark(t, "dynamic_dims", index)


def maybe_mark_dynamic(t, index) -> None:
    _mark(t, "dynamic_dims", index)


def mark_static(t, index=None) -> None:
    from .._tensor import Tensor

    if isinstance(t, Tensor):
        _mark(t, "static_dims", range(t.ndim) if index is None else index)


def mark_static_address(t, guard: bool = False) -> None:
    """Mark `t`'s address as constant across compiled calls (a hint for CUDA graphs)."""
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"
