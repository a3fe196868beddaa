"""torch._dynamo.exc: the errors torch.compile raises."""

from __future__ import annotations

from .._compile._function import TorchDynamoException, Unsupported

__all__ = ["TorchDynamoException", "Unsupported"]
