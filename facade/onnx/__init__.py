"""torch.onnx: `export(model, args, f)` writes an ONNX model through jax2onnx (an optional dependency:
`pip install facade[onnx]`). `dynamo_export` (removed from torch) raises NotImplementedError."""

from __future__ import annotations

from .._unsupported import unsupported
from ._export import ONNXProgram, TrainingMode, export

_OWNER = "use torch.onnx.export"

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram", "TrainingMode"]

dynamo_export = unsupported("torch.onnx.dynamo_export", _OWNER)


def is_in_onnx_export() -> bool:
    return False


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""
