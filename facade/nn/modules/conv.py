"""torch.nn.modules.conv: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy variants on one _ConvNd base
(math in functional.nn.conv)."""

from __future__ import annotations

import math

from ... import _creation
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _ntuple, _pair, _reverse_repeat_tuple, _single, _triple  # noqa: F401  (torch's names)

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


class _ConvNd(Module):
    """The shared state of every convolution: sizes, padding (a tuple or 'same'/'valid'), padding_mode, the
    weight ((out, in / groups, *k), or (in, out / groups, *k) when transposed) and bias, and torch's init."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):  # F.pad's (left, right) pairs, last dimension first; 'same' puts the odd one right
            pairs = [(0, 0)] * len(kernel_size)
            if padding == "same":
                pairs = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dilation, kernel_size)]
            self._reversed_padding_repeated_twice = [p for pair in reversed(pairs) for p in pair]
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_creation.empty((*shape, *kernel_size), **factory_kwargs))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with no_grad():
            # a = sqrt(5): weight and bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    """Conv1d/2d/3d: one constructor (torch's are the same but for the tuple length) and forward."""

    _n = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode="zeros", device=None, dtype=None) -> None:
        tup = _ntuple(self._n)
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride),
                         padding if isinstance(padding, str) else tup(padding), tup(dilation), False, tup(0), groups,
                         bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, f"conv{self._n}d")
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, (0,) * self._n, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) or (C_in, L) inputs; see functional.nn.conv.conv1d."""

    _n = 1


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W) inputs; see functional.nn.conv.conv2d."""

    _n = 2


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W) inputs; see functional.nn.conv.conv3d."""

    _n = 3


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d/2d/3d: zeros padding only; forward takes an optional output_size that picks the
    output_padding among the sizes the stride allows."""

    _n = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        tup = _ntuple(self._n)
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding), tup(dilation), True,
                         tup(output_padding), groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        batch = input.dim() == num_spatial_dims + 2
        lead = 2 if batch else 1
        output_size = list(output_size)
        if len(output_size) == lead + num_spatial_dims:
            output_size = output_size[lead:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {lead + num_spatial_dims} elements (got {len(output_size)})")
        mins = [(input.size(d + lead) - 1) * stride[d] - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                for d in range(num_spatial_dims)]
        maxs = [m + stride[d] - 1 for d, m in enumerate(mins)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {mins} to "
                                 f"{maxs} (for an input of {input.size()[2:]})")
        return [size - m for size, m in zip(output_size, mins)]

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._n, self.dilation)
        return getattr(F, f"conv_transpose{self._n}d")(input, self.weight, self.bias, self.stride, self.padding,
                                                        output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution; see functional.nn.conv.conv_transpose1d."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution; see functional.nn.conv.conv_transpose2d."""

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution; see functional.nn.conv.conv_transpose3d."""

    _n = 3


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels comes from the first input (dimension 1, or 0 when unbatched)."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            shape = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                     else (self.out_channels, self.in_channels // self.groups))
            with no_grad():
                self.weight.materialize((*shape, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        n = self._n + 1
        if input.dim() not in (n, n + 1):
            raise RuntimeError(f"Expected {n}D (unbatched) or {n + 1}D (batched) input to {self.__class__.__name__}, "
                               f"but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._n


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode="zeros", device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode="zeros", device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


class LazyConv1d(_LazyConv, Conv1d):
    """A Conv1d whose in_channels is inferred from the first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A Conv2d whose in_channels is inferred from the first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A Conv3d whose in_channels is inferred from the first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose3d
