"""torch.export.export: trace a module's forward once, as a pure function of its parameters, buffers and inputs,
into a jax.export artefact (StableHLO) with symbolic sizes for the dynamic dimensions."""

from __future__ import annotations

import jax
import numpy as np
from jax import export as jexport

from ..nn.modules.module import Module
from . import dynamic_shapes as ds
from ._errors import ConstraintViolationError, UserError, arg_names, export_error, type_repr
from ._trace import Traced
from .exported_program import ExportedProgram, Layout, input_paths

__all__ = ["export", "trace_program"]


def _check(mod, args, kwargs):
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise export_error(UserError, f"Expecting `args` to be a tuple of example positional inputs, got "
                           f"{type_repr(type(args))}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise export_error(UserError, f"Expecting `kwargs` to be a dict of example keyword inputs, got "
                           f"{type_repr(type(kwargs))}")
    return kwargs or {}


def trace_program(fn, traced, axes, specs_of):
    """`fn` lowered by `specs_of(shapes)` -> its result, with the symbolic shapes of `axes`. A model whose code
    cannot keep a dimension symbolic when it may be 1 (a `view` whose legality depends on it) is traced again
    assuming sizes >= 2, torch's 0/1 specialization; `Dim.AUTO` dimensions the code cannot keep symbolic become
    static; code that needs a concrete size for a Dim raises torch's error."""
    auto = any(a is ds.DimHint.AUTO for ax in axes for a in ax)
    for floor in (1, 2):
        shapes, ranges = ds.symbols(axes, traced.inputs, floor)
        try:
            return fn(specs_of(shapes)), shapes, ranges
        except Exception as e:
            if auto:  # AUTO: dynamic where the code allows it, else specialized (as torch's AUTO)
                static = [[None if a is ds.DimHint.AUTO else a for a in ax] for ax in axes]
                return trace_program(fn, traced, static, specs_of)
            if not isinstance(e, jax.errors.InconclusiveDimensionOperation):
                raise
            if floor == 2 or not ranges:
                raise export_error(ConstraintViolationError, f"Constraints violated ({', '.join(ranges)})! The "
                                   f"model's code needs a concrete value for a dynamic dimension:\n{e}") from None


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):
    """torch.export.export: an ExportedProgram of `mod`'s forward on inputs like `args`/`kwargs` (example
    values; only their shapes, dtypes and Python constants matter). `dynamic_shapes` names the dynamic sizes
    with `Dim`s, as a dict by argument name or a tuple by position. Parameters and buffers are inputs of the
    program, not constants: `ep.state_dict` holds them."""
    kwargs = _check(mod, args, kwargs)
    traced = Traced(mod, args, kwargs)
    axes = ds.parse(mod, args, kwargs, dynamic_shapes)

    def lower(in_specs):
        state = [jax.ShapeDtypeStruct(t.shape, t._arr().dtype) for t in traced.state]
        return jexport.export(jax.jit(traced.fn))(jax.ShapeDtypeStruct((), np.int64), state, in_specs)

    def specs_of(shapes):
        return [jax.ShapeDtypeStruct(s, t._arr().dtype) for s, t in zip(shapes, traced.inputs)]

    exported, shapes, ranges = trace_program(lower, traced, axes, specs_of)
    persistent = _persistent(mod)
    layout = Layout(params=traced.params, buffers=traced.buffers, persistent=[b for b in traced.buffers
                                                                              if b in persistent],
                    mutated=traced.mutated, in_spec=traced.in_spec, in_consts=traced.consts,
                    in_paths=input_paths(arg_names(mod, len(args)), args, kwargs),
                    in_dims=[[None if isinstance(d, int) else str(d) for d in s] for s in shapes],
                    in_shapes=[list(t.shape) for t in traced.inputs], in_dtypes=[str(t.dtype) for t in traced.inputs],
                    out_spec=traced.out_spec, out_consts=traced.out_consts,
                    ranges={n: list(r) for n, r in ranges.items()})
    state = dict(zip(traced.names, traced.state))
    return ExportedProgram(exported, layout, {n: t for n, t in state.items() if n not in traced.buffers
                                              or n in persistent},
                           {n: t for n, t in state.items() if n in traced.buffers and n not in persistent},
                           example_inputs=(args, kwargs))


def _persistent(mod):
    return {f"{prefix}{'.' if prefix else ''}{n}" for prefix, m in mod.named_modules() for n in m._buffers
            if n not in m._non_persistent_buffers_set}
