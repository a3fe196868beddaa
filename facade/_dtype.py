"""torch dtypes over numpy/JAX dtypes, and torch's type-promotion rules."""

from __future__ import annotations

import builtins

import jax.numpy as jnp
import ml_dtypes
import numpy as np

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast", "finfo",
           "iinfo", "check_kernel"]


class dtype:
    """A torch dtype: `torch.float32` etc. One instance per dtype; compare by identity."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_cat", "_bits", "_c10")

    def __init__(self, name, np_dtype, cat, c10=None):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._cat = cat  # 0 bool, 1 int, 2 float, 3 complex
        self.is_floating_point = cat == 2
        self.is_complex = cat == 3
        self.is_signed = not (name in ("bool", "uint8", "float8_e8m0fnu") or name.startswith("uint"))
        self.itemsize = self.np.itemsize
        self._bits = self.itemsize * 8
        self._c10 = c10 or name.capitalize()  # c10's ScalarType name, as torch's kernel errors print it

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float64": complex128, "complex128": complex128}.get(self.name, complex64)


class _placeholder(dtype):
    """A dtype torch names but has (almost) no kernels for: sub-byte ints, bits, quantized, complex32, packed
    float4. The object behaves like torch's (repr, itemsize, flags, pickling); making a tensor of it raises."""

    __slots__ = ("_signed_error",)

    def __init__(self, name, itemsize, c10, cat=1, signed=False, signed_error=None):
        self.name, self._cat, self._c10, self._signed_error = name, cat, c10, signed_error
        self.is_floating_point, self.is_complex = cat == 2, cat == 3
        self.itemsize, self._bits = itemsize, itemsize * 8
        self.is_signed = signed

    def __getattribute__(self, attr):
        if attr == "is_signed" and object.__getattribute__(self, "_signed_error"):
            raise RuntimeError(object.__getattribute__(self, "_signed_error"))
        if attr == "np":
            name = object.__getattribute__(self, "name")
            raise NotImplementedError(f"torch.{name} tensors are not supported: JAX has no {name} arrays with "
                                      f"torch's layout (\"copy_\" not implemented for "
                                      f"'{object.__getattribute__(self, '_c10')}')")
        return object.__getattribute__(self, attr)

    def to_real(self):
        return float16 if self is complex32 else self

    def to_complex(self):
        if self is complex32:
            return self
        raise RuntimeError(f"Unknown Complex ScalarType for {self._c10}")


def _by_name(name):
    return _NAMES[name]


bool = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1, "Byte")
int8 = dtype("int8", np.int8, 1, "Char")
int16 = dtype("int16", np.int16, 1, "Short")
int32 = dtype("int32", np.int32, 1, "Int")
int64 = dtype("int64", np.int64, 1, "Long")
float16 = dtype("float16", np.float16, 2, "Half")
bfloat16 = dtype("bfloat16", jnp.bfloat16, 2, "BFloat16")
float32 = dtype("float32", np.float32, 2, "Float")
float64 = dtype("float64", np.float64, 2, "Double")
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDouble")
# torch's "barebones" dtypes: storage, conversion and a few ops, no promotion with others (see _KERNELS)
uint16 = dtype("uint16", np.uint16, 1, "UInt16")
uint32 = dtype("uint32", np.uint32, 1, "UInt32")
uint64 = dtype("uint64", np.uint64, 1, "UInt64")
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 2, "Float8_e4m3fn")
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, 2, "Float8_e5m2")
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 2, "Float8_e4m3fnuz")
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 2, "Float8_e5m2fnuz")

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128,
       uint16, uint32, uint64, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)
_UINTS = (uint16, uint32, uint64)
_FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)

_BITS = "Bits types are undefined"
_QUANT = "isSignedType not supported for quantized types"
complex32 = _placeholder("complex32", 4, "ComplexHalf", cat=3, signed=True)
float4_e2m1fn_x2 = _placeholder("float4_e2m1fn_x2", 1, "Float4_e2m1fn_x2", cat=2, signed=True)
# ml_dtypes has float8_e8m0fnu, but casts 0 and negative numbers to nan where torch gives 2**-127 and |x|
float8_e8m0fnu = _placeholder("float8_e8m0fnu", 1, "Float8_e8m0fnu", cat=2)
PLACEHOLDERS = (
    complex32, float4_e2m1fn_x2, float8_e8m0fnu,
    *(_placeholder(f"int{i}", 1, f"Int{i}", signed=True) for i in range(1, 8)),
    *(_placeholder(f"uint{i}", 1, f"UInt{i}") for i in range(1, 8)),
    *(_placeholder(n, size, n.capitalize(), signed_error=_BITS)
      for n, size in (("bits8", 1), ("bits16", 2), ("bits1x8", 1), ("bits2x4", 1), ("bits4x2", 1))),
    *(_placeholder(n, size, c10, signed_error=_QUANT) for n, size, c10 in (
        ("qint8", 1, "QInt8"), ("quint8", 1, "QUInt8"), ("qint32", 4, "QInt32"), ("quint4x2", 1, "QUInt4x2"),
        ("quint2x4", 1, "QUInt2x4"))),
)
_NAMES = {d.name: d for d in (*ALL, *PLACEHOLDERS)}
ALIASES = {
    "half": float16, "float": float32, "double": float64, "short": int16, "int": int32, "long": int64,
    "cfloat": complex64, "cdouble": complex128, "chalf": complex32, "bit": _NAMES["uint1"],
}
_FROM_NP = {d.np: d for d in ALL}


def from_np(np_dtype) -> dtype:
    """The torch dtype of a numpy/JAX dtype (raises TypeError for ones torch lacks)."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype).type.__module__}."
                        f"{np.dtype(np_dtype).type.__name__}. The only supported types are: float64, float32, "
                        "float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
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
    if isinstance(a, _placeholder) or isinstance(b, _placeholder):
        return _promote_placeholder(a, b)
    if a in _UINTS or b in _UINTS or a in _FLOAT8 or b in _FLOAT8:
        return _promote_barebones(a, b)
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


def _promote_barebones(a, b):
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {a._c10} and "
                           f"{b._c10}")
    other = b if a in _UINTS else a
    if other.is_floating_point:
        return other
    raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                       f"{a._c10} and {b._c10}")


def _promote_placeholder(a, b):
    other = b if a is complex32 else a
    if complex32 in (a, b) and not isinstance(other, _placeholder) and other not in (*_UINTS, *_FLOAT8):
        if other._cat <= 1 or other is float16:
            return complex32
        if other.is_floating_point or other.is_complex:
            return complex128 if other in (float64, complex128) else complex64
    if a.name.startswith("uint") or b.name.startswith("uint"):  # c10 lets uint1..uint7 promote to a float
        u, other = (a, b) if a.name.startswith("uint") and isinstance(a, _placeholder) else (b, a)
        if other in (float16, bfloat16, float32, float64):
            return other
    raise RuntimeError(f"Promotion from {a._c10} and {b._c10} is unsupported.")


# torch's CPU kernels for the barebones dtypes: the ops (by table name) that raise NotImplementedError there.
_UINT_MISSING = frozenset("""abs absolute adaptive_max_pool1d add amax amin aminmax argmax argmin argwhere avg_pool1d
bincount bitwise_left_shift bitwise_not bitwise_right_shift celu cholesky clamp clamp_max clamp_min clip cummax cummin
einsum fliplr floor_divide fmax fmin fmod frac ge greater greater_equal gt hardshrink heaviside histc hypot inner
kthvalue le less less_equal log_softmax logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or
logical_xor lt matmul matrix_power max max_pool1d max_pool1d_with_indices maximum median min minimum mm mode nanmedian
neg negative nonzero pairwise_distance relu remainder searchsorted selu sgn sign softmax square sub subtract tensordot
threshold topk trace tril triu""".split())
_FLOAT8_MISSING = frozenset("""acos acosh adaptive_max_pool1d add allclose amax amin aminmax angle arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin argsort argwhere asin asinh atan atan2 atanh avg_pool1d bincount
bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor cdist ceil celu cholesky clamp
clamp_max clamp_min clip copysign cos cosh cosine_similarity cummax cummin cumprod cumsum deg2rad det div divide einsum
equal erf erfc erfinv exp exp2 expm1 fix fliplr floor floor_divide fmax fmin fmod frac ge greater greater_equal gt
hardshrink heaviside histc hypot isclose isneginf isposinf kthvalue le less less_equal log log10 log1p log2
log_softmax logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor logit logsumexp lt
matrix_exp max max_pool1d max_pool1d_with_indices maximum mean median min minimum mode msort nan_to_num nanmean
nanmedian nansum neg negative nonzero norm pairwise_distance pdist prod qr rad2deg reciprocal relu remainder round
rsqrt searchsorted selu sgn sigmoid sign sin sinc sinh softmax sort sqrt square std std_mean sub subtract sum svd tan
tanh tensordot threshold topk trace tril triu true_divide trunc unique unique_consecutive var var_mean xlogy""".split())
_KERNELS = {**{d.np: _UINT_MISSING for d in _UINTS}, **{d.np: _FLOAT8_MISSING for d in _FLOAT8}}


def check_kernel(name, arrays):
    """Raise torch's NotImplementedError when op `name` has no kernel for a barebones dtype among `arrays`
    (called when an op is traced, so it costs nothing per call)."""
    for a in arrays:
        missing = _KERNELS.get(getattr(a, "dtype", None))
        if missing is not None and name in missing:
            raise NotImplementedError(f"\"{name}\" not implemented for '{_FROM_NP[a.dtype]._c10}'")


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
        if isinstance(type, _placeholder) and type._cat == 2 and type is not float8_e8m0fnu:
            raise TypeError("bad argument type for built-in operation")
        if type._cat < 2:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        real = type.to_real()
        info = ml_dtypes.finfo(ml_dtypes.float8_e8m0fnu) if real is float8_e8m0fnu else jnp.finfo(real.np)
        self.bits = info.bits
        self.eps = float(info.eps) if real is not float8_e5m2fnuz else 0.125  # c10's epsilon for this one
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        fp8 = real in _FLOAT8 or real is float8_e8m0fnu
        self.resolution = 1.0 if fp8 else 10.0 ** -int(info.precision)  # 10**-digits10, which is 0 for fp8
        self.dtype = real.name

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
        if isinstance(type, _placeholder):
            if type._signed_error == _QUANT:
                raise NotImplementedError(f"\"dtype\" not implemented for '{type._c10}'")
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), type.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
