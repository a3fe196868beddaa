"""torch.export.save / torch.export.load: an exported program as one zip file, loadable where the model's Python
code is absent:

- `program.bin`: the serialized jax.export artefact (StableHLO bytecode plus its calling convention),
- `weights.pt`: the parameters, buffers and constants, in torch's own file format (facade.save),
- `layout.json`: names, input/output pytree specs, Python constants of the inputs, dynamic dimensions and ranges.

Pytree specs are written for tuple, list, dict, OrderedDict and None nodes; constants for JSON values."""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections import OrderedDict

from ..serialization import load as _load_weights
from ..serialization import save as _save_weights
from ..utils._pytree import LeafSpec, TreeSpec
from ._trace import TENSOR
from .exported_program import ExportedProgram, Layout

__all__ = ["save", "load"]

_FORMAT = "facade.export/1"
_NODES = {"tuple": tuple, "list": list, "dict": dict, "OrderedDict": OrderedDict, "None": type(None)}
_NAMES = {v: k for k, v in _NODES.items()}


def _spec_json(spec):
    if spec.is_leaf():
        return "*"
    if spec.type not in _NAMES:
        raise TypeError(f"torch.export.save: cannot save a program whose inputs or outputs contain "
                        f"{spec.type.__name__} nodes (only tuple, list, dict, OrderedDict and None)")
    return {"type": _NAMES[spec.type], "context": spec.context, "children": [_spec_json(c) for c in
                                                                               spec.children_specs]}


def _spec_from(obj):
    if obj == "*":
        return LeafSpec()
    return TreeSpec(_NODES[obj["type"]], obj["context"], [_spec_from(c) for c in obj["children"]])


def _consts_json(consts):
    out = []
    for c in consts:
        if c is TENSOR:
            out.append({"tensor": True})
        elif isinstance(c, (int, float, bool, str, type(None))):
            out.append({"value": c})
        else:
            raise TypeError(f"torch.export.save: cannot save the constant input {c!r} of type {type(c).__name__}")
    return out


def _consts_from(items):
    return [TENSOR if "tensor" in c else c["value"] for c in items]


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write `ep` to `f` (a path or a binary file object)."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        "instead.")
    lay = ep._layout
    layout = {"format": _FORMAT, "params": lay.params, "buffers": lay.buffers, "persistent": lay.persistent,
              "mutated": lay.mutated, "in_spec": _spec_json(lay.in_spec), "in_consts": _consts_json(lay.in_consts),
              "in_paths": lay.in_paths, "in_dims": lay.in_dims, "in_shapes": lay.in_shapes,
              "in_dtypes": lay.in_dtypes, "out_spec": _spec_json(lay.out_spec),
              "out_consts": _consts_json(lay.out_consts),
              "ranges": {n: [lo, None if hi == math.inf else hi] for n, (lo, hi) in lay.ranges.items()}}
    weights = io.BytesIO()
    _save_weights({"state_dict": dict(ep.state_dict), "constants": dict(ep.constants)}, weights)
    with _open(f, "w") as z:
        z.writestr("program.bin", bytes(ep.exported.serialize()))
        z.writestr("weights.pt", weights.getvalue())
        z.writestr("layout.json", json.dumps(layout))
        for name, content in (extra_files or {}).items():
            z.writestr(f"extra/{name}", content)


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read a program written by `save`; runs without the model's code (`load(f).module()(x)`)."""
    from jax import export as jexport

    with _open(f, "r") as z:
        layout = json.loads(z.read("layout.json"))
        if layout.get("format") != _FORMAT:
            raise RuntimeError(f"torch.export.load: {f!r} is not a program saved by facade's torch.export.save "
                               f"(format {layout.get('format')!r})")
        exported = jexport.deserialize(bytearray(z.read("program.bin")))
        weights = _load_weights(io.BytesIO(z.read("weights.pt")), weights_only=True)
        for name in extra_files or {}:
            extra_files[name] = z.read(f"extra/{name}").decode()
    lay = Layout(params=layout["params"], buffers=layout["buffers"], persistent=layout["persistent"],
                 mutated=layout["mutated"], in_spec=_spec_from(layout["in_spec"]),
                 in_consts=_consts_from(layout["in_consts"]), in_paths=layout["in_paths"],
                 in_dims=layout["in_dims"], in_shapes=layout["in_shapes"], in_dtypes=layout["in_dtypes"],
                 out_spec=_spec_from(layout["out_spec"]), out_consts=_consts_from(layout["out_consts"]),
                 ranges={n: (lo, math.inf if hi is None else hi) for n, (lo, hi) in layout["ranges"].items()})
    return ExportedProgram(exported, lay, weights["state_dict"], weights["constants"])


def _open(f, mode):
    if isinstance(f, (str, os.PathLike)):
        return zipfile.ZipFile(os.fspath(f), mode)
    return zipfile.ZipFile(f, mode)
