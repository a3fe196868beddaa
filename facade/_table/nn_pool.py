"""Table rows of torch.nn.functional: pooling (torch.max_pool2d and friends where torch has them too)."""

import functional.nn as N

from .._dispatch import Op

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
_BOTH = ("torch", MODULE)
_SQ = "SqueezeBackward1"  # torch runs its 1-d pools as 2-d pools of an unsqueezed input


def _row(name, grad_name, module=MODULE, fn=None, **kw):
    return Op(name, fn or getattr(N, name), method=False, module=module, grad_name=grad_name, **kw)


OPS = [
    _row("max_pool1d", _SQ, _BOTH),
    _row("max_pool2d", "MaxPool2DWithIndicesBackward0", _BOTH),
    _row("max_pool3d", "MaxPool3DWithIndicesBackward0", _BOTH),
    _row("max_pool1d_with_indices", _SQ, _BOTH),
    _row("max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0"),
    _row("max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0"),
    _row("avg_pool1d", _SQ, _BOTH),
    _row("avg_pool2d", "AvgPool2DBackward0"),
    _row("avg_pool3d", "AvgPool3DBackward0"),
    _row("adaptive_avg_pool1d", _SQ, _BOTH),
    _row("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0"),
    _row("adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0"),
    _row("adaptive_max_pool1d", _SQ),
    _row("adaptive_max_pool1d", _SQ, "torch", N.adaptive_max_pool1d_with_indices),  # torch's always a pair
    _row("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0"),
    _row("adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0"),
    _row("adaptive_max_pool1d_with_indices", _SQ),
    _row("adaptive_max_pool2d_with_indices", "AdaptiveMaxPool2DBackward0"),
    _row("adaptive_max_pool3d_with_indices", "AdaptiveMaxPool3DBackward0"),
    _row("lp_pool1d", "PowBackward0"),
    _row("lp_pool2d", "PowBackward0"),
    _row("lp_pool3d", "PowBackward0"),
    _row("max_unpool1d", _SQ, arrays=("input", "indices")),
    _row("max_unpool2d", "MaxUnpool2DBackward0", arrays=("input", "indices")),
    _row("max_unpool3d", "MaxUnpool3DBackward0", arrays=("input", "indices")),
]
FUNCTIONS = {}
