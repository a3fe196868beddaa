"""torch.onnx: importable; exporting is the export issue's and raises NotImplementedError."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class

_OWNER = "ONNX export is the vision/export issue"

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "OnnxExporterError", "ONNXProgram"]

export = unsupported("torch.onnx.export", _OWNER)
dynamo_export = unsupported("torch.onnx.dynamo_export", _OWNER)
ONNXProgram = unsupported_class("torch.onnx.ONNXProgram", _OWNER)


def is_in_onnx_export() -> bool:
    return False


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""
