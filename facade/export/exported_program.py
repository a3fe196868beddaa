"""torch.export.ExportedProgram over a jax.export artefact (StableHLO): the program, its weights (state_dict) and
how its flat arrays map to the user's inputs and outputs (`Layout`). `module()` runs it as an nn.Module, checking
each call's inputs first as torch's guards do."""

from __future__ import annotations

import dataclasses
import math
import textwrap

import numpy as np

from .. import _random
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..func import from_jax
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..utils._pytree import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten
from . import graph_signature as gs
from ._trace import TENSOR as _TENSOR

__all__ = ["ExportedProgram", "Layout"]


@dataclasses.dataclass
class Layout:
    """The flat program inputs (key, params + buffers, tensor inputs) and outputs (tensors, then mutated buffers)
    against the user's structures; everything here is plain data, so a saved program needs no model code."""

    params: list
    buffers: list
    persistent: list
    mutated: list
    in_spec: object
    in_consts: list
    in_paths: list  # torch's guard name of every input leaf: `x`, `z['k'][0]`
    in_dims: list  # per tensor input, per axis: its symbol's name, or None for a static size
    in_shapes: list
    in_dtypes: list
    out_spec: object
    out_consts: list
    ranges: dict  # symbol name -> [min, max]


def input_paths(model_arg_names, args, kwargs):
    """torch's guard names of the leaves of (args, kwargs): the forward's parameter names plus the key path."""
    out = []
    for kp, _ in tree_flatten_with_path((args, kwargs))[0]:
        head = model_arg_names[kp[1].idx] if kp[0].idx == 0 else str(kp[1].key)
        out.append(head + keystr(kp[2:]))
    return out


def _spec_text(layout, i):
    dims = layout.in_dims[i]
    return "torch.Size([" + ", ".join(d or str(s) for d, s in zip(dims, layout.in_shapes[i])) + "])"


def check_inputs(layout, args, kwargs):
    """The flat tensor inputs of a call, after torch's checks of structure, constants, ranks and sizes."""
    if set(kwargs) != set(layout.in_spec.children_specs[1].context):
        raise ValueError(f"Ran into a kwarg keyword mismatch: Got the following keywords {sorted(kwargs)} but "
                         f"expected {sorted(layout.in_spec.children_specs[1].context)}")
    leaves, spec = tree_flatten((args, kwargs))
    if spec != layout.in_spec:
        raise ValueError(f"Trying to flatten user inputs with exported input tree spec: \n{layout.in_spec}\nbut "
                         f"actually got inputs with tree spec of: \n{spec}.\nPlease check that the inputs have the "
                         "same number and type of args and kwargs as the ones you used when tracing.")
    tensors, seen = [], {}
    for leaf, const, path in zip(leaves, layout.in_consts, layout.in_paths):
        if const is not _TENSOR:
            if type(leaf) is not type(const) or leaf != const:
                raise RuntimeError(f"Expected input at {path} to be equal to {const}, but got {leaf}")
            continue
        i = len(tensors)
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected input at {path} to be a tensor, but got {type(leaf)}")
        if leaf.dim() != len(layout.in_shapes[i]):
            raise RuntimeError(f"Unexpected number of dimensions in input at {path}.shape (expected "
                               f"{_spec_text(layout, i)}, got {leaf.shape})")
        if str(leaf.dtype) != layout.in_dtypes[i]:
            raise RuntimeError(f"Expected input at {path} to have dtype {layout.in_dtypes[i]}, but got {leaf.dtype}")
        for axis, (sym, size, got) in enumerate(zip(layout.in_dims[i], layout.in_shapes[i], leaf.shape)):
            where = f"{path}.size()[{axis}]"
            if sym is None:
                if got != size:
                    raise AssertionError(f"Guard failed: {where} == {size}")
            elif sym in seen:
                if got != seen[sym][1]:
                    raise AssertionError(f"Guard failed: {where} == {seen[sym][0]}")
            else:
                seen[sym] = (where, got)
                lo, hi = layout.ranges[sym]
                if got > hi:
                    raise AssertionError(f"Guard failed: {where} <= {hi}")
                if got < lo:
                    raise AssertionError(f"Guard failed: {where} >= {lo}")
        tensors.append(leaf)
    return tensors


class ExportedProgram:
    """torch.export.ExportedProgram: a jax.export.Exported (`.exported`, StableHLO text from `mlir_module()`)
    with its weights. Call it through `module()`."""

    def __init__(self, exported, layout, state_dict, constants, example_inputs=None):
        self.exported, self._layout = exported, layout
        self._state_dict, self._constants = state_dict, constants
        self.example_inputs = example_inputs
        user = [n for n, c in zip(layout.in_paths, layout.in_consts) if c is _TENSOR]
        n_out = sum(c is _TENSOR for c in layout.out_consts)
        self._signature = gs.make(layout.params, layout.buffers, set(layout.persistent), user, n_out,
                                  layout.mutated)
        self._uses_key = 0 in exported.module_kept_var_idx

    @property
    def state_dict(self):
        return self._state_dict

    @property
    def constants(self):
        return self._constants

    @property
    def graph_signature(self):
        return self._signature

    @property
    def range_constraints(self):
        return {n: _Range(lo, hi) for n, (lo, hi) in self._layout.ranges.items()}

    @property
    def call_spec(self):
        return _CallSpec(self._layout.in_spec, self._layout.out_spec)

    @property
    def module_call_graph(self):
        return []

    def parameters(self):
        yield from (self._state_dict[n] for n in self._layout.params)

    def named_parameters(self):
        yield from ((n, self._state_dict[n]) for n in self._layout.params)

    def buffers(self):
        yield from (t for _, t in self.named_buffers())

    def named_buffers(self):
        for n in self._layout.buffers:
            yield n, self._state_dict[n] if n in self._state_dict else self._constants[n]

    def mlir_module(self):
        return self.exported.mlir_module()

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program is already StableHLO (decomposed to XLA's primitives)."""
        return self

    def module(self, *, check_guards=True):
        return _ExportedModule(self)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def _run(self, state, args, kwargs):
        """(outputs in the user's structure, {buffer name: new value}) of one call."""
        tensors = check_inputs(self._layout, args, kwargs)
        key = _random.next_key()._arr() if self._uses_key else np.zeros((), np.int64)
        outs, mutated = self.exported.call(key, [t._arr() for t in state], [t._arr() for t in tensors])
        leaves, it = list(self._layout.out_consts), iter(outs)
        leaves = [from_jax(next(it)) if c is _TENSOR else c for c in leaves]
        return (tree_unflatten(leaves, self._layout.out_spec),
                {n: from_jax(a) for n, a in zip(self._layout.mutated, mutated)})

    def __str__(self):
        ranges = ", ".join(f"{n}: {r}" for n, r in self.range_constraints.items())
        return (f"ExportedProgram:\n{textwrap.indent(self.mlir_module(), '    ')}\nGraph signature: "
                f"{textwrap.indent(str(self._signature), '    ')}\nRange constraints: {{{ranges}}}\n")

    def __repr__(self):
        return f"ExportedProgram(inputs={list(self._signature.user_inputs)}, state={len(self._state_dict)} tensors)"


class _Range:
    def __init__(self, lo, hi):
        self.lower, self.upper = lo, hi

    def __repr__(self):
        return f"VR[{self.lower}, {'int_oo' if self.upper == math.inf else self.upper}]"


@dataclasses.dataclass
class _CallSpec:
    in_spec: object
    out_spec: object


class _ExportedModule(Module):
    """What `ExportedProgram.module()` returns: an nn.Module holding the program's parameters and buffers under
    their original names, whose forward runs the program (and writes back the buffers it mutates)."""

    def __init__(self, program):
        super().__init__()
        object.__setattr__(self, "_program", program)
        lay = program._layout
        for name in lay.params:
            t = program.state_dict[name]
            self._owner(name).register_parameter(name.rpartition(".")[2], t if isinstance(t, Parameter)
                                                 else Parameter(t, requires_grad=t.requires_grad))
        for name, t in program.named_buffers():
            self._owner(name).register_buffer(name.rpartition(".")[2], t, persistent=name in lay.persistent)

    def _owner(self, name):
        mod = self
        for part in name.split(".")[:-1]:
            if part not in mod._modules:
                mod.add_module(part, Module())
            mod = mod._modules[part]
        return mod

    def forward(self, *args, **kwargs):
        lay = self._program._layout
        named = {**dict(self.named_parameters()), **dict(self.named_buffers())}
        out, mutated = self._program._run([named[n] for n in lay.params + lay.buffers], args, kwargs)
        with no_grad():
            for name, value in mutated.items():
                named[name].copy_(value)
        return out

    def _get_name(self):
        return "ExportedModule"
