"""torch.export.dynamic_shapes: `Dim`, `dims` and the `dynamic_shapes` argument, mapped to jax.export symbolic
shapes. A Dim becomes one jax symbol (the same Dim object in two places is the same symbol, so those sizes must be
equal); its range becomes the symbol's constraints (jax symbols are >= 1; torch's default min is 0)."""

from __future__ import annotations

import enum
import math

from .._tensor import Tensor
from ._errors import DOCS, ConstraintViolationError, UserError, arg_names, export_error

__all__ = ["Dim", "DimHint", "dims", "ShapesCollection", "parse", "symbols"]


class DimHint(enum.Enum):
    AUTO = "AUTO"
    DYNAMIC = "DYNAMIC"
    STATIC = "STATIC"

    def __repr__(self):
        return f"DimHint({self.value})"

    __str__ = __repr__


class Dim:
    """torch.export.Dim(name, *, min=None, max=None): a dynamic dimension with a range (min defaults to 0)."""

    AUTO, DYNAMIC, STATIC = DimHint.AUTO, DimHint.DYNAMIC, DimHint.STATIC

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None):
        if not name.isidentifier():
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        lo = 0 if min is None else min
        hi = math.inf if max is None else max
        if hi < lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__, self.min, self.max = name, lo, hi

    def __repr__(self):
        parts = [repr(self.__name__)] + ([f"min={self.min}"] if self.min != 2 else [])
        parts += [f"max={self.max}"] if self.max != math.inf else []
        return f"Dim({', '.join(parts)})"


def dims(*names: str, min: int | None = None, max: int | None = None):
    """torch.export.dims: one Dim per name, all with the same range."""
    return tuple(Dim(n, min=min, max=max) for n in names)


class ShapesCollection:
    """torch.export.ShapesCollection: dynamic shapes given per input tensor (`sc[tensor] = {0: Dim(...)}`)."""

    def __init__(self):
        self._shapes = {}

    def __setitem__(self, tensor, shape):
        self._shapes[id(tensor)] = shape

    def __getitem__(self, tensor):
        return self._shapes.setdefault(id(tensor), {})

    def dynamic_shapes(self, model, args, kwargs=None):
        def spec(x):
            if isinstance(x, Tensor):
                return self._shapes.get(id(x))
            if isinstance(x, (tuple, list)):
                return type(x)(spec(v) for v in x)
            if isinstance(x, dict):
                return {k: spec(v) for k, v in x.items()}
            return None

        return spec(tuple(args)) + tuple(spec(v) for v in (kwargs or {}).values())


def _error(msg):
    return export_error(UserError, msg + DOCS)


def _tensor_axes(spec, t, where):
    """The per-axis spec (Dim, DimHint or None) of one tensor input."""
    if spec is None or spec is DimHint.STATIC:
        return (None,) * t.dim()
    if isinstance(spec, DimHint):
        return (spec,) * t.dim()
    if isinstance(spec, dict):
        axes = [None] * t.dim()
        for k, v in spec.items():
            if not isinstance(k, int) or not -t.dim() <= k < t.dim():
                raise _error(f"Expected dynamic shape spec {spec} specified at `dynamic_shapes{where}` to have axes "
                             f"within the tensor's {t.dim()} dimensions, but got {k!r}")
            axes[k] = v
        return tuple(axes)
    if isinstance(spec, (tuple, list)):
        if len(spec) != t.dim():
            raise _error(f"Expected dynamic shape spec {spec} specified at `dynamic_shapes{where}` to have the same "
                         f"length as the actual tensor shape {t.shape} (expected {t.dim()}, but got {len(spec)} "
                         "instead)")
        return tuple(spec)
    raise _error(f"Unexpected dynamic shape spec {spec!r} specified at `dynamic_shapes{where}`")


def _walk(spec, x, where, out):
    """Append the axes spec of every tensor leaf of `x`, in pytree flatten order."""
    if isinstance(x, Tensor):
        out.append(_tensor_axes(spec, x, where))
    elif isinstance(x, (tuple, list)):
        if spec is not None and (not isinstance(spec, (tuple, list)) or len(spec) != len(x)):
            raise _error(f"Detected mismatch between the structure of `inputs{where}` and `dynamic_shapes{where}`: "
                         f"`inputs{where}` has {len(x)} elements, but `dynamic_shapes{where}` has "
                         f"{len(spec) if isinstance(spec, (tuple, list)) else spec!r}")
        for i, v in enumerate(x):
            _walk(None if spec is None else spec[i], v, f"{where}[{i}]", out)
    elif isinstance(x, dict):
        if spec is not None and (not isinstance(spec, dict) or set(spec) != set(x)):
            raise _error(f"Detected mismatch between the structure of `inputs{where}` and `dynamic_shapes{where}`: "
                         f"`inputs{where}` has keys {list(x)}, but `dynamic_shapes{where}` is {spec!r}")
        for k, v in x.items():
            _walk(None if spec is None else spec[k], v, f"{where}[{k!r}]", out)
    elif spec is not None and not isinstance(x, (int, float, bool, str, type(None))):
        raise _error(f"dynamic_shapes{where}: inputs of type {type(x).__name__} take no dynamic shape spec, got "
                     f"{spec!r}")


def parse(model, args, kwargs, dynamic_shapes):
    """The axes spec of every tensor input leaf of (args, kwargs), in flatten order; all static without specs."""
    if isinstance(dynamic_shapes, ShapesCollection):
        dynamic_shapes = dynamic_shapes.dynamic_shapes(model, args, kwargs)
    inputs = (*args, *kwargs.values())
    if dynamic_shapes is None:
        per_input = [None] * len(inputs)
    elif isinstance(dynamic_shapes, dict):
        names = arg_names(model, len(args)) + list(kwargs)
        if set(dynamic_shapes) != set(names):
            raise export_error(UserError, f"When `dynamic_shapes` is specified as a dict, its top-level keys must "
                               f"be the arg names {names} of `inputs`, but here they are {list(dynamic_shapes)}. "
                               "Alternatively, you could also ignore arg names entirely and specify `dynamic_shapes` "
                               "as a list/tuple matching `inputs`." + DOCS.replace("\n", " "))
        per_input = [dynamic_shapes[n] for n in names]
        names = [f"[{n!r}]" for n in names]
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(inputs):
            raise export_error(UserError, "Detected mismatch between the structure of `inputs` and `dynamic_shapes`"
                               f": `inputs` has {len(inputs)} elements, but `dynamic_shapes` has "
                               f"{len(dynamic_shapes)} elements" + DOCS)
        per_input = list(dynamic_shapes)
    else:
        raise export_error(UserError, f"Unexpected type of `dynamic_shapes`: {type(dynamic_shapes).__name__} "
                           "(expected a dict, tuple or list)" + DOCS)
    out = []
    for i, (spec, x) in enumerate(zip(per_input, inputs)):
        _walk(spec, x, names[i] if isinstance(dynamic_shapes, dict) else f"[{i}]", out)
    return out


def symbols(axes, tensors, low_floor=1):
    """(shapes, ranges): each input's shape with its dynamic axes as jax symbols, and {name: (min, max)} of the
    symbols. Checks the example sizes against the ranges (torch's ConstraintViolationError). `low_floor` raises
    every lower bound (2: the model's code assumed sizes >= 2, torch's 0/1 specialization)."""
    from jax import export as jexport

    named, auto = {}, 0
    for spec in (a for ax in axes for a in ax):
        if isinstance(spec, Dim):
            other = named.setdefault(spec.__name__, spec)
            if other is not spec and (other.min, other.max) != (spec.min, spec.max):
                raise export_error(UserError, f"Found different definitions {other} and {spec} for the same symbolic "
                                   f"dimension {spec.__name__}!")
    resolved = []
    for ax in axes:
        row = []
        for spec in ax:
            if isinstance(spec, DimHint) and spec is not DimHint.STATIC:
                while f"s{auto}" in named:
                    auto += 1
                spec = named[f"s{auto}"] = Dim(f"s{auto}")
            elif isinstance(spec, int) or spec is DimHint.STATIC:
                spec = None
            elif spec is not None and not isinstance(spec, Dim):
                raise export_error(UserError, f"Unexpected dimension spec {spec!r} (expected a Dim, Dim.AUTO, "
                                   "Dim.DYNAMIC, Dim.STATIC or None)" + DOCS)
            row.append(spec)
        resolved.append(row)
    for row, t in zip(resolved, tensors):
        for spec, size in zip(row, t.shape):
            if spec is not None and not spec.min <= size <= spec.max:
                hi = "int_oo" if spec.max == math.inf else spec.max
                raise export_error(ConstraintViolationError, f"{size} not in range [{spec.min}, {hi}]")
    ranges = {n: (max(d.min, low_floor), d.max) for n, d in named.items()}
    if not named:
        return [tuple(t.shape) for t in tensors], ranges
    cons = [f"{n} >= {lo}" for n, (lo, _) in ranges.items() if lo > 1]
    cons += [f"{n} <= {hi}" for n, (_, hi) in ranges.items() if hi != math.inf]
    syms = dict(zip(named, jexport.symbolic_shape(", ".join(named), constraints=cons)))
    shapes = [tuple(size if spec is None else syms[spec.__name__] for spec, size in zip(row, t.shape))
              for row, t in zip(resolved, tensors)]
    return shapes, ranges
