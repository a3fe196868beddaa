"""torch._dynamo: the few names model libraries touch eagerly. Tracing itself is the compile issue's
(`optimize`, `export`, `explain` raise NotImplementedError); the hints and questions answer as they
do eagerly in torch: nothing is being compiled, `allow_in_graph`/`assume_constant_result`/`disable`
return the function, `mark_static_address` only marks the tensor."""

from __future__ import annotations

from .._unsupported import unsupported
from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling, reset
from . import _trace_wrapped_higher_order_op  # noqa: F401  (torch imports it with torch._dynamo)

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "reset", "mark_static_address",
           "optimize", "export", "explain"]

_OWNER = "torch.compile is the compile issue"
optimize = unsupported("torch._dynamo.optimize", _OWNER)
export = unsupported("torch._dynamo.export", _OWNER)
explain = unsupported("torch._dynamo.explain", _OWNER)


def mark_static_address(t, guard: bool = False) -> None:
    """Mark `t`'s address as constant across compiled calls (a hint for CUDA graphs)."""
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    t._dynamo_static_input_type = "guarded" if guard else "unguarded"
