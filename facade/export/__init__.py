"""torch.export: `export(model, args)` traces the forward into a jax.export artefact (StableHLO) over the model's
parameters, buffers and inputs; `ExportedProgram.module()` runs it; `Dim`/`dynamic_shapes` make sizes symbolic;
`save`/`load` write it to one file that runs without the model's code.

Not delivered (raise NotImplementedError naming the torch API): draft_export, unflatten, default_decompositions
and the classes tied to torch's FX graph (Constraint, CustomDecompTable, FlatArgsAdapter, ModuleCallEntry,
ModuleCallSignature, UnflattenedModule, AdditionalInputs)."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class
from ..utils._pytree import register_dataclass as _register_pytree_dataclass
from ._export import export
from ._serialize import load, save
from .dynamic_shapes import Dim, ShapesCollection, dims
from .exported_program import ExportedProgram
from .graph_signature import ExportBackwardSignature, ExportGraphSignature

_OWNER = "FX-graph APIs are not part of facade's jax.export-based torch.export"
_CLASSES = ("AdditionalInputs", "Constraint", "CustomDecompTable", "FlatArgsAdapter", "ModuleCallEntry",
            "ModuleCallSignature", "UnflattenedModule")
_FUNCTIONS = ("default_decompositions", "draft_export", "unflatten")

__all__ = [*_CLASSES, *_FUNCTIONS, "Dim", "ExportBackwardSignature", "ExportGraphSignature", "ExportedProgram",
           "ShapesCollection", "dims", "export", "load", "register_dataclass", "save"]

globals().update({n: unsupported_class(f"torch.export.{n}", _OWNER) for n in _CLASSES})
globals().update({n: unsupported(f"torch.export.{n}", _OWNER) for n in _FUNCTIONS})


def register_dataclass(cls, *, serialized_type_name=None) -> None:
    """Register a dataclass as a pytree node (its init fields are the children)."""
    _register_pytree_dataclass(cls, serialized_type_name=serialized_type_name)
