"""torch.overrides: the `__torch_function__` helpers libraries probe.

facade's own ops never consult `__torch_function__`, so a facade Tensor (or Parameter) is never
"overloaded". Objects of other types that define `__torch_function__` are, exactly as in torch, and
`handle_torch_function` dispatches to them with torch's precedence (subclasses first, then left to right).
"""

from __future__ import annotations

import functools

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "handle_torch_function",
           "is_tensor_like", "get_ignored_functions", "get_overridable_functions", "get_testing_overrides"]


def _overloaded(arg_type):
    from ._tensor import Tensor

    return hasattr(arg_type, "__torch_function__") and not issubclass(arg_type, Tensor)


def _get_overloaded_args(relevant_args):
    """The arguments whose `__torch_function__` runs, in torch's (NEP-18) order: one per type, subclasses first."""
    types, args = set(), []
    for arg in relevant_args:
        t = type(arg)
        if t in types or not _overloaded(t):
            continue
        types.add(t)
        index = next((i for i, old in enumerate(args) if issubclass(t, type(old))), len(args))
        args.insert(index, arg)
    return args


def has_torch_function(relevant_args) -> bool:
    """Whether any element of the iterable has its own `__torch_function__` (facade Tensors never do)."""
    return any(_overloaded(type(a)) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    return _overloaded(type(arg))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the `__torch_function__` of the overloaded arguments until one does not return NotImplemented."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(map(type, overloaded))
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that "
                    f"implement __torch_function__: {list(types)}")


def is_tensor_like(inp) -> bool:
    """A facade Tensor, or anything whose type defines `__torch_function__`."""
    from ._tensor import Tensor

    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")


@functools.cache
def get_ignored_functions() -> set:
    """Functions `__torch_function__` cannot override: in facade, every public callable of torch and torch.Tensor."""
    import facade

    spaces = (facade, facade.Tensor, facade.nn.functional, facade.linalg, facade.special)
    return {f for s in spaces for n in dir(s) if not n.startswith("_") and callable(f := getattr(s, n))
            and not isinstance(f, type)}


def get_overridable_functions() -> dict:
    """Namespace -> functions `__torch_function__` can override: none in facade."""
    return {}


def get_testing_overrides() -> dict:
    """Function -> dummy override, for the overridable functions (none in facade)."""
    return {}
