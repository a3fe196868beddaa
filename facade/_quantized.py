"""Quantized tensors (`torch.quantize_per_tensor`, `Tensor.int_repr`, `torch.fake_quantize_*` ...).

A quantized tensor is a Tensor whose own array is absent: it holds its integer representation `_qint` (a uint8,
int8 or int32 Tensor) plus the quantizer (scheme, scale(s), zero point(s), axis) and reports the q dtype. Any op
of the table given one reaches `_sync` and is refused, as torch refuses most ops on its QuantizedCPU backend;
what torch allows for the common cases (dequantize, int_repr, clone, detach, views and indexing of per-tensor
ones) is defined here. The math is functional.quantized.
"""

from __future__ import annotations

import numpy as np

import functional.quantized as FQ

from . import _dtype as D
from ._dispatch import Op, call
from ._tensor import Tensor

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
           "per_channel_affine_float_qparams", "quantize_per_tensor", "quantize_per_channel",
           "quantize_per_tensor_dynamic", "dequantize", "int_repr", "q_scale", "q_zero_point", "q_per_channel_scales",
           "q_per_channel_zero_points", "q_per_channel_axis", "fake_quantize_per_tensor_affine",
           "fake_quantize_per_channel_affine", "empty_quantized", "quantized_max_pool1d", "quantized_max_pool2d",
           "quantized_max_pool3d", "quantized_batch_norm"]


class qscheme:
    """torch.qscheme: how a quantized tensor maps integers to reals (one instance per scheme)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


qscheme.__module__ = "torch"
per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")

_QD = {D._NAMES[n]: (int_dt, lo, hi) for n, int_dt, lo, hi in (
    ("quint8", D.uint8, 0, 255), ("qint8", D.int8, -128, 127), ("qint32", D.int32, -2 ** 31, 2 ** 31 - 1))}
_QUANTIZE = Op("quantize_per_tensor", FQ.quantize_affine, arrays=("input", "scale", "zero_point"),
               differentiable=False)
_DEQUANTIZE = Op("dequantize", FQ.dequantize_affine, arrays=("q", "scale", "zero_point"), differentiable=False)
_FAKE = Op("fake_quantize_per_tensor_affine", FQ.fake_quantize_affine, arrays=("input", "scale", "zero_point"),
           grad_name="FakeQuantizePerTensorAffineCachemaskBackward0")
_FAKE_CH = Op("fake_quantize_per_channel_affine", FQ.fake_quantize_affine, arrays=("input", "scale", "zero_point"),
              grad_name="FakeQuantizePerChannelAffineCachemaskBackward0")
_BN = Op("quantized_batch_norm", FQ.batch_norm_requantize,
         arrays=("q", "in_scale", "in_zero_point", "weight", "bias", "mean", "var", "out_scale", "out_zero_point",
                 "eps"), differentiable=False)
_BACKEND = ("Could not run '{}' with arguments from the '{}' backend. This could be because the operator doesn't "
            "exist for this backend: quantized tensors here support dequantize(), int_repr(), the q_* accessors, "
            "clone(), detach() and (per tensor) views and indexing; call .dequantize() first")


class QuantizedTensor(Tensor):
    """A quantized tensor (see the module docstring)."""

    is_quantized = True

    @property
    def shape(self):
        return self._qint.shape

    @property
    def dtype(self):
        return self._qdtype

    @property
    def ndim(self):
        return self._qint.ndim

    def _sync(self):
        raise NotImplementedError(_BACKEND.format("this operator", "QuantizedCPU"))

    def int_repr(self):
        return self._qint.clone()

    def dequantize(self):
        return call(_DEQUANTIZE, (self._qint, self._qscale, self._qzp, self._qaxis), None)

    def qscheme(self):
        return self._qscheme

    def q_scale(self):
        self._expect(False, "kPerTensorAffine")
        return self._qscale

    def q_zero_point(self):
        self._expect(False, "kPerTensorAffine")
        return self._qzp

    def q_per_channel_scales(self):
        self._expect(True, "kPerChannelAffine || quantizer->qscheme() == kPerChannelAffineFloatQParams")
        return self._qscale.clone()

    def q_per_channel_zero_points(self):
        self._expect(True, "kPerChannelAffine || quantizer->qscheme() == kPerChannelAffineFloatQParams")
        return self._qzp.clone()

    def q_per_channel_axis(self):
        self._expect(True, "kPerChannelAffine || quantizer->qscheme() == kPerChannelAffineFloatQParams")
        return self._qaxis

    def _expect(self, per_channel, rule):
        if (self._qaxis is not None) != per_channel:
            raise RuntimeError(f"Expected quantizer->qscheme() == {rule} to be true, but got false.")

    def _rewrap(self, qint):
        return _make(qint, self._qdtype, self._qscheme, self._qscale, self._qzp, self._qaxis)

    def clone(self, *, memory_format=None):
        return self._rewrap(self._qint.clone())

    def detach(self):
        return self._rewrap(self._qint)

    def contiguous(self, memory_format=None):
        return self

    def cpu(self, memory_format=None):
        return self

    def __reduce_ex__(self, protocol):
        raise NotImplementedError("torch.save/pickle of quantized tensors is not supported here: save "
                                  "t.int_repr(), t.q_scale() and t.q_zero_point() (or t.dequantize()) instead")

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import _add_suffixes, tensor_str

        deq = np.asarray(self.dequantize()._host())
        body = tensor_contents or tensor_str(deq, D.float32, 7)
        suffixes = [f"size={tuple(self.shape)}", f"dtype={self.dtype}", f"quantization_scheme={self._qscheme}"]
        if self._qaxis is None:
            suffixes += [f"scale={self._qscale}", f"zero_point={self._qzp}"]
        else:
            suffixes += [f"scale={self._qscale!r}", f"zero_point={self._qzp!r}", f"axis={self._qaxis}"]
        return _add_suffixes("tensor(" + body, suffixes, 7)


def _per_tensor_view(name):
    def method(self, *args, **kwargs):
        if self._qaxis is not None:
            raise NotImplementedError(f"Tensor.{name} of a per-channel quantized tensor is not supported here; "
                                      "dequantize() it first")
        return self._rewrap(getattr(self._qint, name)(*args, **kwargs))

    method.__name__ = name
    return method


for _name in ("view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "__getitem__", "t",
              "expand", "narrow", "select"):
    setattr(QuantizedTensor, _name, _per_tensor_view(_name))


def _refuse_scalar_arith(name):
    def method(self, other):
        if isinstance(other, Tensor):
            raise NotImplementedError(_BACKEND.format(f"aten::{name}.out", "QuantizedCPU"))
        raise RuntimeError("empty_strided not supported on quantized tensors yet see "
                           "https://github.com/pytorch/pytorch/issues/74540")

    method.__name__ = f"__{name}__"
    return method


for _name in ("add", "sub", "mul", "div", "radd", "rsub", "rmul", "truediv"):
    setattr(QuantizedTensor, f"__{_name}__", _refuse_scalar_arith(_name))


def _make(qint, qdtype, scheme, scale, zp, axis):
    t = Tensor._from_array(None, qint.device)
    t.__class__ = QuantizedTensor
    t._qint, t._qdtype, t._qscheme, t._qscale, t._qzp, t._qaxis = qint, qdtype, scheme, scale, zp, axis
    return t


def _check(input, dtype, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype is not D.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {input.dtype._c10}")
    if dtype not in _QD:
        raise RuntimeError(f"ScalarType {dtype._c10} is not supported in new_qtensor.")
    return _QD[dtype]


def _number(v, kind):
    return kind(v.item()) if isinstance(v, Tensor) else kind(v)


def quantize_per_tensor(input, scale, zero_point, dtype):
    """torch.quantize_per_tensor: `input` (or each tensor of a list, with 1-D scale/zero_point tensors)
    quantized per tensor. `q = clamp(zero_point + round(input / scale), qmin, qmax)` (see functional.quantized)."""
    if isinstance(input, (list, tuple)):
        return tuple(quantize_per_tensor(x, s, z, dtype) for x, s, z in zip(input, scale.tolist(),
                                                                            zero_point.tolist()))
    int_dt, lo, hi = _check(input, dtype, "quantize_per_tensor")
    scale, zero_point = _number(scale, float), _number(zero_point, int)
    if not lo <= zero_point <= hi:
        side = "below lower" if zero_point < lo else "above upper"
        raise RuntimeError(f"quantize_tensor_per_tensor_affine zero_point {zero_point} is {side} bound.")
    qint = call(_QUANTIZE, (input.detach(), scale, zero_point, None), {"qmin": lo, "qmax": hi, "dtype": int_dt.np})
    return _make(qint, dtype, per_tensor_affine, scale, zero_point, None)


def quantize_per_channel(input, scales, zero_points, axis, dtype):
    """torch.quantize_per_channel: `input` quantized with one scale/zero point per index along `axis`."""
    int_dt, lo, hi = _check(input, dtype, "quantize_per_channel")
    if not 0 <= axis < input.ndim:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. Got: {axis}Expected: "
                           f"[0, {input.ndim})")
    if scales.numel() != zero_points.numel():
        raise RuntimeError("number of elements in scales and zero_points must match")
    if scales.numel() != input.shape[axis]:
        raise RuntimeError(f"length of scales must equal to channel, expected {input.shape[axis]} got, "
                           f"{scales.numel()}")
    scales, zero_points = scales.detach().to(D.float64), zero_points.detach().to(D.int64)
    qint = call(_QUANTIZE, (input.detach(), scales, zero_points, axis), {"qmin": lo, "qmax": hi, "dtype": int_dt.np})
    return _make(qint, dtype, per_channel_affine, scales, zero_points, axis)


def _choose_qparams(lo_x, hi_x, qmin, qmax):
    """torch's ChooseQuantizationParams (no symmetric/sparsity options): a scale spanning [min(x, 0), max(x, 0)]
    and the zero point, nudged to an integer in [qmin, qmax], that maps the end with the smaller error exactly."""
    lo_x, hi_x = min(lo_x, 0.0), max(hi_x, 0.0)
    scale = (hi_x - lo_x) / (qmax - qmin)
    if float(np.float32(scale)) == 0 or 1 / float(np.float32(scale)) == float("inf"):
        scale = 0.1
    zp_min, zp_max = qmin - lo_x / scale, qmax - hi_x / scale
    err_min, err_max = abs(qmin) - abs(lo_x / scale), abs(qmax) - abs(hi_x / scale)
    zp = zp_min if err_min < err_max else zp_max
    return scale, qmin if zp < qmin else qmax if zp > qmax else int(np.rint(zp))


def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    """torch.quantize_per_tensor_dynamic: quantize with a scale and zero point chosen from input's range."""
    if dtype not in (D._NAMES["quint8"], D._NAMES["qint8"]):
        raise RuntimeError(f"dtype {dtype._c10}not supported")  # sic: torch's message
    _, qmin, qmax = _check(input, dtype, "quantize_per_tensor_dynamic")
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    a = np.asarray(input.detach()._host(), np.float32)
    lo_x, hi_x = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    scale, zp = _choose_qparams(lo_x, hi_x, qmin, qmax)
    return quantize_per_tensor(input, scale, zp, dtype)


def dequantize(tensor):
    """torch.dequantize: the float32 values of a quantized tensor (or a list of them, as a list)."""
    if isinstance(tensor, (list, tuple)):
        return tuple(dequantize(t) for t in tensor)
    return tensor.dequantize()


def _dense_refusal(name):
    def method(self, *args, **kwargs):
        backend = "Meta" if self.device.type == "meta" else self.device.type.upper()
        raise NotImplementedError(_BACKEND.format(f"aten::{name}", backend))

    method.__name__ = name
    return method


def _accessor(name):
    def fn(input):
        return getattr(input, name)()

    fn.__name__ = name
    return fn


int_repr, q_scale, q_zero_point, q_per_channel_scales, q_per_channel_zero_points, q_per_channel_axis = (
    _accessor(n) for n in ("int_repr", "q_scale", "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points",
                           "q_per_channel_axis"))


def _fake_check(fn, quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError(f"`quant_min` should be less than or         equal to `quant_max`. ({fn}: quant_min="
                           f"{quant_min}, quant_max={quant_max})")


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """torch.fake_quantize_per_tensor_affine: dequantize(quantize(input)) with the straight-through gradient."""
    _fake_check("fake_quantize_per_tensor_affine", quant_min, quant_max)
    zp = _number(zero_point, int)
    if not quant_min <= zp <= quant_max:
        raise RuntimeError(f"`zero_point` must be between `quant_min` and `quant_max`. (got zero_point={zp}, "
                           f"quant_min={quant_min}, quant_max={quant_max})")
    return call(_FAKE, (input, _number(scale, float), zp, None, quant_min, quant_max), None)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """torch.fake_quantize_per_channel_affine: fake quantization with one scale/zero point per index of `axis`."""
    _fake_check("fake_quantize_per_channel_affine", quant_min, quant_max)
    axis = axis + input.ndim if axis < 0 else axis
    if scale.ndim != 1 or scale.shape[0] != input.shape[axis]:
        raise RuntimeError(f"dimensions of scale and zero-point are not consistent with input tensor (scale shape "
                           f"{list(scale.shape)}, input size {input.shape[axis]} along axis {axis})")
    return call(_FAKE_CH, (input, scale.detach(), zero_point.detach(), axis, quant_min, quant_max), None)


def empty_quantized(size, qtensor, *, dtype=None, layout=None, device=None, pin_memory=False, memory_format=None):
    """torch.empty_quantized(size, qtensor): a quantized tensor of `size` with qtensor's quantizer (zeros here)."""
    from ._creation import zeros

    qint = zeros(tuple(size), dtype=qtensor._qint.dtype)
    return _make(qint, qtensor._qdtype, qtensor._qscheme, qtensor._qscale, qtensor._qzp, qtensor._qaxis)


def _per_tensor(input, fn):
    if not isinstance(input, QuantizedTensor):
        backend = input.device.type.upper() if isinstance(input, Tensor) else type(input).__name__
        raise NotImplementedError(_BACKEND.format(f"aten::{fn}", backend))
    if input._qaxis is not None:
        raise NotImplementedError(f"{fn}: per-channel quantized tensors are not supported here")
    return input


def _max_pool(n):
    name = f"quantized_max_pool{n}d"

    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        from .nn import functional as NF

        _per_tensor(input, name)
        # with indices: max_pool1d refuses integer inputs without them, as torch's does
        out, _ = getattr(NF, f"max_pool{n}d")(input._qint, kernel_size, tuple(stride) or None, padding, dilation,
                                               ceil_mode, return_indices=True)
        return input._rewrap(out)  # max commutes with the monotone dequantization: exact on the integers

    pool.__name__ = name
    pool.__doc__ = f"torch.{name}: max pooling of a quantized tensor (on its integer representation)."
    return pool


quantized_max_pool1d, quantized_max_pool2d, quantized_max_pool3d = (_max_pool(n) for n in (1, 2, 3))


def quantized_batch_norm(input, weight, bias, mean, var, eps, output_scale, output_zero_point):
    """torch.quantized_batch_norm: inference batch norm of a quantized (N, C, ...) tensor, requantized with
    output_scale/output_zero_point (see functional.quantized.batch_norm_requantize)."""
    _per_tensor(input, "quantized_batch_norm")
    _, lo, hi = _QD[input._qdtype]
    weight = weight if weight is not None else _ones_like_channel(mean)
    bias = bias if bias is not None else _ones_like_channel(mean) * 0
    qint = call(_BN, (input._qint, input._qscale, input._qzp, weight.detach(), bias.detach(), mean.detach(),
                      var.detach(), float(output_scale), int(output_zero_point), float(eps)),
                {"qmin": lo, "qmax": hi})
    return _make(qint, input._qdtype, per_tensor_affine, float(output_scale), int(output_zero_point), None)


def _ones_like_channel(t):
    from ._creation import ones

    return ones(tuple(t.shape), dtype=D.float32)


def _install(cls):
    """Tensor.dequantize (the tensor itself for a float tensor, as torch) and torch's errors for the accessors."""
    cls.dequantize = lambda self: self
    for name in ("int_repr", "q_scale", "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points",
                 "q_per_channel_axis", "qscheme"):
        setattr(cls, name, _dense_refusal(name))
