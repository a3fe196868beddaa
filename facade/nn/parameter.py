"""torch.nn.parameter: Parameter, Buffer, UninitializedParameter, UninitializedBuffer."""

__all__ = []
