"""torch.export: importable (libraries import it at the top); exporting programs is the export issue's,
so every class raises NotImplementedError when constructed and every function when called.
`register_dataclass` registers the pytree node, as torch's does."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class
from ..utils._pytree import register_dataclass as _register_pytree_dataclass

_OWNER = "torch.export is the export issue"
_CLASSES = ("AdditionalInputs", "Constraint", "CustomDecompTable", "Dim", "ExportBackwardSignature", "ExportedProgram",
            "ExportGraphSignature", "FlatArgsAdapter", "ModuleCallEntry", "ModuleCallSignature", "ShapesCollection",
            "UnflattenedModule")
_FUNCTIONS = ("default_decompositions", "dims", "draft_export", "export", "load", "save", "unflatten")

__all__ = [*_CLASSES, *_FUNCTIONS, "register_dataclass"]

globals().update({n: unsupported_class(f"torch.export.{n}", _OWNER) for n in _CLASSES})
globals().update({n: unsupported(f"torch.export.{n}", _OWNER) for n in _FUNCTIONS})


def register_dataclass(cls, *, serialized_type_name=None) -> None:
    """Register a dataclass as a pytree node (its init fields are the children)."""
    _register_pytree_dataclass(cls, serialized_type_name=serialized_type_name)
