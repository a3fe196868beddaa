"""torch dtypes over numpy/JAX dtypes, and torch's type-promotion rules."""

from __future__ import annotations

import builtins

import jax.numpy as jnp
import numpy as np

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast", "finfo",
           "iinfo"]


class dtype:
    """A torch dtype: `torch.float32` etc. One instance per dtype; compare by identity."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_cat", "_bits")

    def __init__(self, name, np_dtype, cat):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._cat = cat  # 0 bool, 1 int, 2 float, 3 complex
        self.is_floating_point = cat == 2
        self.is_complex = cat == 3
        self.is_signed = name not in ("bool", "uint8")
        self.itemsize = self.np.itemsize
        self._bits = self.itemsize * 8

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float64": complex128, "complex128": complex128}.get(self.name, complex64)


def _by_name(name):
    return _NAMES[name]


bool = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
bfloat16 = dtype("bfloat16", jnp.bfloat16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
_NAMES = {d.name: d for d in ALL}
ALIASES = {
    "half": float16, "float": float32, "double": float64, "short": int16, "int": int32, "long": int64,
    "cfloat": complex64, "cdouble": complex128,
}
_FROM_NP = {d.np: d for d in ALL}


def from_np(np_dtype) -> dtype:
    """The torch dtype of a numpy/JAX dtype (raises TypeError for ones torch lacks)."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.") from None


_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both a and b cast to safely, by torch's table."""
    if a is b:
        return a
    if a._cat != b._cat:
        hi, lo = (a, b) if a._cat > b._cat else (b, a)
        if hi.is_complex and lo is float64:
            return complex128
        return hi
    if a._cat == 1 and {a, b} == {uint8, int8}:
        return int16
    if a._cat == 1 and uint8 in (a, b):
        return a if b is uint8 else b
    if {a, b} == {float16, bfloat16}:
        return float32
    return a if a._bits >= b._bits else b


def _scalar_dtype(x) -> dtype:
    """The dtype a Python scalar stands for when it takes part in promotion."""
    if isinstance(x, builtins.bool):
        return bool
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return _default[0]
    if isinstance(x, complex):
        return default_complex()
    raise TypeError(f"result_type: expected a Tensor or a Python scalar, got {type(x).__name__}")


def _combine(hi, lo):
    # c10's combine_categories: a lower-priority participant only matters if it is of a higher category.
    if hi is None:
        return lo
    if lo is None:
        return hi
    if hi.is_complex:
        return hi
    if lo.is_complex:
        return hi.to_complex() if hi.is_floating_point else lo
    if hi.is_floating_point:
        return hi
    if hi is bool or lo.is_floating_point:
        return promote_types(hi, lo)
    return hi


def result_dtype(dims, zeros, scalars):
    """torch's result type from the dtypes of dimensioned tensors, 0-dim tensors and Python scalars."""
    r = [None, None, None]
    for i, group in enumerate((dims, zeros, scalars)):
        for d in group:
            r[i] = d if r[i] is None else promote_types(r[i], d)
    if r[2] is not None:
        r[2] = {3: default_complex(), 2: _default[0]}.get(r[2]._cat, r[2])
    return _combine(r[0], _combine(r[1], r[2]))


def result_type(*args) -> dtype:
    """torch.result_type(tensor1, tensor2): promotion of Tensors (by rank class) and Python scalars."""
    dims, zeros, scalars = [], [], []
    for x in args:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            (dims if x.ndim else zeros).append(d)
        else:
            scalars.append(_scalar_dtype(x))
    return result_dtype(dims, zeros, scalars)


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """torch.can_cast: casting is allowed unless it lowers the category (e.g. float -> int)."""
    return from_._cat <= to._cat


class finfo:
    """torch.finfo: machine limits of a floating point dtype."""

    def __init__(self, type: dtype | None = None):
        type = type or _default[0]
        if type._cat < 2:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = jnp.finfo(type.to_real().np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = type.to_real().name

    def __eq__(self, other):
        return isinstance(other, finfo) and vars(self) == vars(other)

    __hash__ = object.__hash__

    def __repr__(self):  # c10 prints doubles with %g
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: limits of an integer dtype."""

    def __init__(self, type: dtype):
        if type._cat >= 2:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), type.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
