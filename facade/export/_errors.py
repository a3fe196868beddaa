"""The errors torch.export raises, under torch's class names (torch._dynamo.exc.UserError,
torch.fx.experimental.symbolic_shapes.ConstraintViolationError), and the note torch appends to them."""

from __future__ import annotations

from .._tensor import Tensor
from ..nn.modules.module import Module

__all__ = ["UserError", "ConstraintViolationError", "export_error", "type_repr", "arg_names"]

_NOTE = ("\n\nThe error above occurred when calling torch.export.export. If you would like to view some more "
         "information about this error, and get a list of all other errors that may occur in your export call, you "
         "can replace your `export()` call with `draft_export()`.")
DOCS = "\nFor more information about this error, see: " \
       "https://pytorch.org/docs/main/generated/exportdb/index.html#dynamic-shapes-validation"


class UserError(RuntimeError):
    """torch._dynamo.exc.UserError: the export call was given something it cannot use."""


class ConstraintViolationError(RuntimeError):
    """torch.fx.experimental.symbolic_shapes.ConstraintViolationError: an example input or the model's code
    contradicts a dynamic dimension's range."""


def export_error(cls, msg):
    return cls(msg + _NOTE)


def type_repr(t):
    """`<class 'torch.Tensor'>` for a facade Tensor (what the user's `import torch` calls it), else repr."""
    return "<class 'torch.Tensor'>" if isinstance(t, type) and issubclass(t, Tensor) else repr(t)


def arg_names(model, nargs):
    """The names torch gives the first `nargs` positional inputs: the forward's parameter names (`*args` ones
    numbered); `args_{i}` where the signature cannot say."""
    import inspect

    fwd = model.forward if isinstance(model, Module) else model
    try:
        params = list(inspect.signature(fwd).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for p in params:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            names += [f"{p.name}_{i}" for i in range(nargs - len(names))]
        elif p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    names = names[:nargs]
    return names + [f"args_{i}" for i in range(len(names), nargs)]
