"""MultiheadAttention; torch keeps it in torch/nn/modules/activation.py, re-exported there."""


class MultiheadAttention:  # placeholder until written
    __module__ = "facade.nn.modules.activation"
