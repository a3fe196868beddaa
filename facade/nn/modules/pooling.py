"""torch.nn.modules.pooling: max, average, adaptive, power-average pooling and max unpooling modules
(math in functional.nn.pool)."""

from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max pooling over (N, C, L) or (C, L); see functional.nn.max_pool1d."""

    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    """Max pooling over (N, C, H, W) or (C, H, W); see functional.nn.max_pool2d."""

    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """Max pooling over (N, C, D, H, W) or (C, D, H, W); see functional.nn.max_pool3d."""

    _fn = "max_pool3d"


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Average pooling over (N, C, L) or (C, L); see functional.nn.avg_pool1d."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolDivisor(_AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolDivisor):
    """Average pooling over (N, C, H, W) or (C, H, W); see functional.nn.avg_pool2d."""

    _fn = "avg_pool2d"


class AvgPool3d(_AvgPoolDivisor):
    """Average pooling over (N, C, D, H, W) or (C, D, H, W); see functional.nn.avg_pool3d."""

    _fn = "avg_pool3d"


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]
    _fn = None

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling to output_size; see functional.nn.adaptive_avg_pool1d."""

    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling to (H_out, W_out); see functional.nn.adaptive_avg_pool2d."""

    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling to (D_out, H_out, W_out); see functional.nn.adaptive_avg_pool3d."""

    _fn = "adaptive_avg_pool3d"


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]
    _fn = None

    def __init__(self, output_size, return_indices=False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling to output_size; see functional.nn.adaptive_max_pool1d."""

    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling to (H_out, W_out); see functional.nn.adaptive_max_pool2d."""

    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling to (D_out, H_out, W_out); see functional.nn.adaptive_max_pool3d."""

    _fn = "adaptive_max_pool3d"


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling over (N, C, L); see functional.nn.lp_pool1d."""

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W); see functional.nn.lp_pool2d."""

    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W); see functional.nn.lp_pool3d."""

    _fn = "lp_pool3d"


class _MaxUnpoolNd(Module):
    _fn = None
    _tuple = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        t = type(self)._tuple
        self.kernel_size = t(kernel_size)
        self.stride = t(stride if stride is not None else kernel_size)
        self.padding = t(padding)

    def forward(self, input, indices, output_size=None):
        return getattr(F, self._fn)(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of MaxPool1d given its indices; see functional.nn.max_unpool1d."""

    _fn, _tuple = "max_unpool1d", staticmethod(_single)


class MaxUnpool2d(_MaxUnpoolNd):
    """The inverse of MaxPool2d given its indices; see functional.nn.max_unpool2d."""

    _fn, _tuple = "max_unpool2d", staticmethod(_pair)


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of MaxPool3d given its indices; see functional.nn.max_unpool3d."""

    _fn, _tuple = "max_unpool3d", staticmethod(_triple)
