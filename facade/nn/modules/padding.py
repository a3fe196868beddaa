"""torch.nn.modules.padding: Zero/Constant/Reflection/Replication/CircularPad{1,2,3}d, all on F.pad."""

from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    """F.pad(input, padding, mode) over the last `_n` dimensions; padding is an int (every side) or a
    (left, right[, top, bottom[, front, back]]) tuple."""

    __constants__ = ["padding"]
    _mode = "constant"
    _n = 0

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._n)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def _check_input_dim(self, input):
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dimension by wrapping around."""

    _n = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dimensions by wrapping around."""

    _n = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dimensions by wrapping around."""

    _n = 3


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _n = 0

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _ntuple(2 * self._n)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with a constant."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dimensions with a constant."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dimensions with a constant."""

    _n = 3


class _ZeroPad:
    """ConstantPad with value 0 (mixed in before ConstantPad{n}d)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Pads the last dimension with zeros."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Pads the last 2 dimensions with zeros."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Pads the last 3 dimensions with zeros."""


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dimension with its reflection (the edge not repeated)."""

    _n = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last 2 dimensions with their reflection."""

    _n = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last 3 dimensions with their reflection."""

    _n = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dimension by repeating its edge."""

    _n = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last 2 dimensions by repeating their edges."""

    _n = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last 3 dimensions by repeating their edges."""

    _n = 3
