"""Tensor creation: torch.tensor and its inference rules, zeros/ones/full/empty(_like), arange,
linspace, logspace, eye, and the legacy constructors (torch.Tensor(2, 3), torch.FloatTensor([1])).

Every array is made with an explicit dtype directly on its device; `meta` tensors are made
as shapes only, without computing anything.
"""

from __future__ import annotations

import builtins
import collections
import functools
import itertools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from functional._names import cpp_name

from . import _dtype as D
from . import _host, _ragged
from ._device import CPU, META, jax_device, put
from ._device import device as _devcls
from ._tensor import Size, Tensor

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "empty_strided", "arange", "range", "linspace", "logspace", "eye",
           "scalar_tensor", "set_default_device", "get_default_device"]

_default_device = [CPU]  # a stack: `with torch.device(...)` pushes onto it


def default_device():
    return _default_device[-1]


def set_default_device(device):
    """torch.set_default_device: the device factories use when none is given (None resets to cpu)."""
    _default_device[0] = CPU if device is None else _devcls(device)


def get_default_device():
    return _default_device[-1]


# ---------------------------------------------------------------------------- helpers

def _type_name(x):
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _sizes(size, name="empty"):
    """Normalise `(2, 3)`, `((2, 3),)`, `(torch.Size([2, 3]),)`, `([2, 3],)` to a tuple of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    elif len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size[0])}")
    out = []
    for i, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(s)}\"")
        out.append(s.__index__())
    if any(s < 0 for s in out):
        if name == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        bad = next(s for s in out if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {out}")
    return tuple(out)


def _is_int(x):
    if isinstance(x, Tensor):
        return x.dtype._cat == 1 and x.numel() == 1
    return isinstance(x, (int, np.integer))


def _dt(dtype, default=None):
    """A torch dtype from a dtype argument (torch dtype, numpy dtype or Python type); None -> default."""
    if dtype is None:
        return default or D.get_default_dtype()
    if isinstance(dtype, D.dtype):
        return dtype
    if isinstance(dtype, type) and issubclass(dtype, (builtins.bool, int, float, complex)):
        return {builtins.bool: D.bool, int: D.int64, float: D.float64, complex: D.complex128}[
            next(t for t in (builtins.bool, int, float, complex) if issubclass(dtype, t))]
    return D.from_np(dtype)


def _device(device):
    if device is None:
        device = default_device()
    device = _devcls(device)
    if device.type == "cuda" and device.index is None:
        device = _devcls("cuda", 0)
    return device


def _check_grad(dtype, requires_grad):
    if requires_grad and dtype._cat < 2:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _new(make, shape, dtype, device, requires_grad):
    """A tensor of `shape` and torch `dtype` on `device`; `make(jax_device)` builds its array (not on meta)."""
    device = _device(device)
    _check_grad(dtype, requires_grad)
    if device.type == "meta":
        t = Tensor._from_array(jax.ShapeDtypeStruct(tuple(shape), dtype.np), META)
    else:
        a = make(_host.jax_device(device) if _host.ACTIVE else jax_device(device))  # host mode: None, numpy
        t = Tensor._from_array(a, device)
    if requires_grad:
        t.requires_grad = True
    return t


_SMALL = 1 << 14  # arrays up to this many elements are made on the host and copied over (cheaper than a dispatch)


def _put(arr, jd):
    """A fresh host array onto JAX device `jd` (left uncommitted when `jd` is JAX's default device)."""
    if jd is None:  # host mode (a DataLoader worker): the numpy array itself
        return arr
    # put, not jnp.asarray: asarray compiles a copy program per new shape (~30 ms each)
    return put(arr, _committed(jd))


def _committed(jd):
    """`jd`, or None for JAX's default device: arrays there stay uncommitted, as jit's outputs of uncommitted
    inputs are, since jit compiles a committed and an uncommitted argument separately (twice the programs)."""
    return None if jd == jax.local_devices()[0] else jd


_HOST_FILLS = collections.Counter()  # elements of larger fills made on the host so far, by (shape, dtype)
_HOST_FILL_BUDGET = 1 << 23  # about 40 ms of filling and copying, the cost of compiling the program


def _full(shape, value, np_dt, jd):
    """A filled array on JAX device `jd`: made on the host and copied where that is cheaper than a program, which
    compiles per shape (20-60 ms): every small one, and on a CPU a larger shape until its fills have cost about a
    compile (an optimizer's state of every parameter; a shape filled in every step soon gets its program)."""
    n = math.prod(shape)
    if n <= _SMALL or jd is None or (jd.platform == "cpu" and _HOST_FILLS[(shape, np_dt)] < _HOST_FILL_BUDGET):
        try:
            arr = np.full(shape, value, np_dt)
        except (OverflowError, TypeError, ValueError):
            arr = None
        if arr is not None:
            if jd is not None and n > _SMALL:
                _HOST_FILLS[(shape, np_dt)] += n
            return _put(arr, jd)
    return jnp.full(shape, value, np_dt, device=_committed(jd))


def full_as(a, value, dtype=None, shape=None):
    """`jnp.full_like(a, value, dtype, shape)` on `a`'s device and sharding; where `a` is one CPU array, through
    `_full` (no program per shape: an optimizer's state of every parameter shape)."""
    s = None if isinstance(a, jax.core.Tracer) else getattr(a, "sharding", None)
    if type(s) is not jax.sharding.SingleDeviceSharding:
        return jnp.full_like(a, value, dtype=dtype, shape=shape)
    jd = next(iter(s.device_set))
    shape = tuple(a.shape if shape is None else shape)
    out = _full(shape, value, np.dtype(a.dtype if dtype is None else dtype), jd)
    return jax.device_put(out, s) if a.committed and not out.committed else out


def _from_host(arr, dtype, device, requires_grad=False):
    """A tensor holding a copy of host (numpy) array `arr`, cast to torch `dtype`."""
    return _new(lambda jd: _put(arr.astype(dtype.np, copy=False), jd), arr.shape, dtype, device, requires_grad)


def _scalar_category_dtype(x):
    """The dtype a number (or one-element Tensor) stands for as a fill value: bool, int64, default float/complex."""
    if isinstance(x, Tensor):
        cat = x.dtype._cat
    elif isinstance(x, (builtins.bool, np.bool_)):
        cat = 0
    elif isinstance(x, (int, np.integer)):
        cat = 1
    elif isinstance(x, (float, np.floating)):
        cat = 2
    elif isinstance(x, (complex, np.complexfloating)):
        cat = 3
    else:
        raise TypeError(f"expected a number as fill value, got {type(x).__name__}")
    return (D.bool, D.int64, D.get_default_dtype(), D.default_complex())[cat]


def _num(x):
    """A Python number from a number or a one-element Tensor (0-dim tensor arguments of factories)."""
    if isinstance(x, Tensor):
        return x.item()
    if isinstance(x, np.generic):
        return x.item()
    return x


# ---------------------------------------------------------------------------- torch.tensor

def _leaf_dtype(x):
    """torch's infer_scalar_type of one element (or None for a sequence to descend into)."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, np.ndarray):
        return _np_dtype(x.dtype)
    if isinstance(x, np.generic):
        return _np_dtype(x.dtype)
    if isinstance(x, float):
        return D.get_default_dtype()
    if isinstance(x, builtins.bool):
        return D.bool
    if isinstance(x, int):
        return D.int64
    if isinstance(x, complex):
        d = D.get_default_dtype()
        if d is D.bfloat16 or d is D.float16:
            raise RuntimeError("invalid default scalar type for complex")
        return D.default_complex()
    if isinstance(x, jax.Array):
        return _np_dtype(x.dtype)
    if isinstance(x, str):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    if isinstance(x, (list, tuple, builtins.range)):
        return None
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _np_dtype(npd):
    try:
        return D.from_np(npd)
    except TypeError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(npd).type.__module__}."
                        f"{np.dtype(npd).type.__name__}. The only supported types are: float64, float32, float16, "
                        "complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
                        ) from None


def _is_seq(x):
    return isinstance(x, (list, tuple, builtins.range, str)) or (isinstance(x, (np.ndarray, jax.Array))
                                                                  and x.ndim > 0)


def _compute_sizes(data):
    """torch's compute_sizes: follow the first element down while it is a sequence."""
    sizes = []
    x = data
    while _is_seq(x):
        sizes.append(len(x))
        if len(sizes) > 64:
            raise ValueError(f"too many dimensions '{type(x).__name__}'")
        if len(x) == 0:
            break
        x = x[0]
    if isinstance(x, (np.ndarray, jax.Array)) and sizes:  # a 0-dim array where a sequence was followed
        raise TypeError("len() of unsized object")
    return sizes


def _infer_dtype(data):
    """torch's infer_scalar_type over nested data: torch.promote_types of all elements' dtypes."""
    d = _leaf_dtype(data)
    if d is not None:
        return d
    result = None
    for x in data:
        d = _infer_dtype(x)
        result = d if result is None else D.promote_types(result, d)
    return result or D.get_default_dtype()


_NP_HOST = {0: np.bool_, 1: np.int64, 2: np.float64, 3: np.complex128}


def _store(data, sizes, dtype):
    """The nested `data` as a numpy array of `dtype` (torch's recursive_store, with its errors)."""
    flat = []

    def scalar(x):
        if isinstance(x, Tensor):
            if x.device.type == "meta":
                raise RuntimeError("Tensor.item() cannot be called on meta tensors")
            if x.numel() != 1:
                if dtype._cat == 1:
                    raise TypeError("only integer tensors of a single element can be converted to an index")
                raise ValueError("only one element tensors can be converted to Python scalars")
            return x.item()
        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, (list, tuple, np.ndarray)):
            if dtype._cat == 1:
                raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
            raise TypeError(f"must be real number, not {type(x).__name__}")
        if isinstance(x, complex) and dtype._cat < 3:
            raise TypeError("must be real number, not complex")
        return x

    def rec(x, dim):
        if dim == len(sizes):
            flat.append(scalar(x))
            return
        if isinstance(x, (np.ndarray, jax.Array)) and x.shape == tuple(sizes[dim:]):
            flat.extend(np.asarray(x).reshape(-1).tolist())
            return
        if not isinstance(x, (list, tuple, builtins.range, np.ndarray, jax.Array)):
            raise TypeError("not a sequence")
        if len(x) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(x)})")
        for e in x:
            rec(e, dim + 1)

    rec(data, 0)
    host = _NP_HOST[dtype._cat]
    try:
        arr = np.array(flat, dtype=host)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if dtype._cat == 1 and arr.size:
        info = np.iinfo(dtype.np)
        if arr.min() < info.min or arr.max() > info.max:
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    np_dt = dtype.np
    return arr.astype(np_dt).reshape(sizes)


_PY_CAT = {builtins.bool: 0, int: 1, float: 2, complex: 3}


def _fast_to_host(data, sizes, dtype):
    """The common case at C speed: regular nested lists/tuples of Python numbers (None otherwise)."""
    level = data
    for s in sizes[1:]:
        if not all(type(x) in (list, tuple) for x in level) or set(map(len, level)) - {s}:
            return None
        level = list(itertools.chain.from_iterable(level))
    types = set(map(type, level))
    if not types <= _PY_CAT.keys():
        return None
    if dtype is None:
        cat = max((_PY_CAT[t] for t in types), default=2)
        dtype = (D.bool, D.int64, D.get_default_dtype(), None)[cat] or _leaf_dtype(1j)
    try:
        arr = np.array(level, dtype=_NP_HOST[dtype._cat])
    except (TypeError, ValueError, OverflowError):
        return None  # the general path raises torch's error
    if dtype._cat == 1 and arr.size:
        info = np.iinfo(dtype.np)
        if arr.min() < info.min or arr.max() > info.max:
            return None
    return arr.astype(dtype.np).reshape(sizes), dtype


def _to_host(data, dtype=None):
    """(numpy array, torch dtype) of `data` by torch.tensor's rules; `dtype` overrides the inferred one."""
    if isinstance(data, (np.ndarray, np.generic, jax.Array)) and not isinstance(data, Tensor):
        inferred = _np_dtype(data.dtype)
        dtype = dtype or inferred
        return np.asarray(data).astype(dtype.np), dtype
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    sizes = _compute_sizes(data)
    fast = _fast_to_host(data, sizes, dtype) if sizes else None
    if fast is not None:
        return fast
    inferred = _infer_dtype(data)
    dtype = dtype or inferred
    if not sizes:  # a scalar
        return _store([data], [1], dtype).reshape(()), dtype
    return _store(data, sizes, dtype), dtype


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.tensor: a new tensor holding a copy of `data` (nested sequences of numbers or 0-dim Tensors,
    numpy arrays and scalars, Tensors). Without `dtype`: bools -> bool, ints -> int64, floats -> the default
    dtype, complex -> the default complex dtype, numpy arrays and Tensors keep theirs; mixed elements promote."""
    dtype = None if dtype is None else _dt(dtype)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        return _copy_tensor(data, dtype, data.device if device is None else device, requires_grad)
    arr, dtype = _to_host(data, dtype)
    return _from_host(arr, dtype, device, requires_grad)


def _copy_tensor(t, dtype, device, requires_grad):
    dtype = dtype or t.dtype
    device = _device(device)
    _check_grad(dtype, requires_grad)
    if device.type == "meta" or t.device.type == "meta":
        if device.type != "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        out = Tensor._from_array(jax.ShapeDtypeStruct(tuple(t.shape), dtype.np), META)
    elif _host.ACTIVE:  # a DataLoader worker: a numpy copy
        _host.jax_device(device)
        out = Tensor._from_array(np.array(t._arr(), dtype=dtype.np), device)
    else:
        a = t._arr()
        if a.dtype != dtype.np:
            from functional import astype

            a = astype(a, dtype.np)
        out = Tensor._from_array(jax.device_put(jnp.array(a, copy=True), jax_device(device)), device)
    if requires_grad:
        out.requires_grad = True
    return out


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """torch.scalar_tensor: a 0-dim tensor of the default dtype (not inferred from `s`)."""
    dtype = _dt(dtype)
    return _new(lambda jd: _put(np.asarray(_num(s), dtype=dtype.np), jd), (), dtype, device, requires_grad)


def from_numpy(ndarray):
    """torch.from_numpy: a CPU tensor sharing memory with `ndarray`; writes through either show in the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _np_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a copy "
                         "of your array  with array.copy().) ")
    return Tensor._from_numpy(ndarray)


def as_tensor(data, dtype=None, device=None):
    """torch.as_tensor: shares memory with a Tensor or a CPU numpy array when no conversion is needed."""
    dtype = None if dtype is None else _dt(dtype)
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and (dtype is None or dtype.np == data.dtype) and \
            _device(device).type == "cpu" and not any(s < 0 for s in data.strides):
        return from_numpy(data)
    arr, dtype = _to_host(data, dtype)
    return _from_host(arr, dtype, device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: like as_tensor; `copy=True` always copies, `copy=False` refuses to copy."""
    dtype = None if dtype is None else _dt(dtype)
    if isinstance(obj, Tensor):
        same = (dtype is None or dtype is obj.dtype) and (device is None or _device(device) == obj.device)
        if copy is False and not same:
            raise ValueError(f"can't alias tensor with dtype '{_legacy_name(obj.dtype)}' into dtype "
                             f"'{_legacy_name(dtype)}'." if dtype is not obj.dtype else
                             "can't alias tensor to a different device.")
        out = obj.to(dtype=dtype, device=device, copy=bool(copy))
    elif isinstance(obj, np.ndarray):
        if copy is False and dtype is not None and dtype.np != obj.dtype:
            raise ValueError(f"can't alias tensor with dtype '{_legacy_name(_np_dtype(obj.dtype))}' into dtype "
                             f"'{_legacy_name(dtype)}'.")
        out = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype=dtype, device=device)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        arr, dtype = _to_host(obj, dtype)
        out = _from_host(arr, dtype, device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _legacy_name(dtype):
    from ._tensor import _TYPE_NAMES

    return _TYPE_NAMES[dtype.name]


# ---------------------------------------------------------------------------- filled

def _size_arg(args, size, name):
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        args = (size,)
    return _sizes(args, name)


def _filled(value, name, doc):
    def make(*size_args, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False, memory_format=None, names=None):
        shape = _size_arg(size_args, size, name)
        dt = _dt(dtype)
        t = _new(lambda jd: _full(shape, value, dt.np, jd), shape, dt, device, requires_grad)
        return _to_out(t, out)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = doc
    return make


def _to_out(t, out):
    if out is None:
        return t
    out._resize_assign(t)
    return out


zeros = _filled(0, "zeros", "torch.zeros(*size): a tensor filled with 0 (size as varargs, a tuple or torch.Size).")
ones = _filled(1, "ones", "torch.ones(*size): a tensor filled with 1.")
empty = _filled(0, "empty", "torch.empty(*size): uninitialised in torch; zeros here (JAX has no uninitialised "
                "memory).")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    """torch.full: without `dtype`, bool fill -> bool, int -> int64, float -> default, complex -> default complex."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    shape = _sizes((size,), "full")
    dt = _dt(dtype) if dtype is not None else _scalar_category_dtype(fill_value)
    v = _num(fill_value)
    return _to_out(_new(lambda jd: _full(shape, v, dt.np, jd), shape, dt, device, requires_grad), out)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """torch.empty_strided: strides are ignored (arrays here have no user-visible strides)."""
    return empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def _like(fn, name):
    def make(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
             pin_memory=False):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return fn(tuple(input.shape), dtype=dtype or input.dtype, device=input.device if device is None else device,
                  requires_grad=requires_grad)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"torch.{name}(input): {fn.__name__} of input's shape, dtype and device."
    return make


zeros_like, ones_like, empty_like = _like(zeros, "zeros_like"), _like(ones, "ones_like"), _like(empty, "empty_like")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False):
    """torch.full_like: `fill_value` cast to input's dtype (or `dtype`)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"full_like(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return full(tuple(input.shape), fill_value, dtype=dtype or input.dtype,
                device=input.device if device is None else device, requires_grad=requires_grad)


# ---------------------------------------------------------------------------- ranges

def _fmt(v):
    """A number as c10::Scalar prints it (ints as ints, doubles as %g)."""
    return str(v) if isinstance(v, (int, np.integer)) else f"{v:g}"


def _is_integral(v):
    if isinstance(v, Tensor):
        return v.dtype._cat <= 1
    return isinstance(v, (int, np.integer, np.bool_))


def _not_implemented(fn, dtype):
    return NotImplementedError(f"\"{fn}_cpu\" not implemented for '{_legacy_name(dtype)}'")


_BUCKET_RANGES = {}  # (bucket, dtype, device) -> arange(bucket), the buffer of the bucketed arange(T)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    """torch.arange: [start, end) by step. int64 when start, end and step are all integers, else the default
    float dtype. The length is torch's: ceil((end - start) / step) computed in double."""
    _arange_numbers(start, end, step, dtype)
    if (_ragged.SEEN and type(start if end is None else end) is _ragged.RaggedInt and step == 1 and out is None
            and (end is None or start == 0) and not requires_grad and _ragged.ON):  # arange(T) of a bucketed T
        n = int(start if end is None else end)
        key = (_ragged.bucket(n), dtype, _device(device))
        t = _BUCKET_RANGES.get(key)  # (its array is never written: each bucketed arange is a new tensor of it)
        if t is None:
            t = _BUCKET_RANGES[key] = arange(key[0], dtype=dtype, device=device)
        return _ragged.arange(t, n)
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = D.int64 if all(_is_integral(v) for v in (start, end, step)) else D.get_default_dtype()
    dt = _dt(dtype)
    start, end, step = _num(start), _num(end), _num(step)
    if dt._cat in (0, 3):
        raise _not_implemented("arange", dt)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_fmt(start)} -> {_fmt(end)}")
    if dt._cat == 1:
        istart, istep = int(start), int(step)
        if istep == 0 and dt is D.int64:
            raise (ValueError if step != 0 else RuntimeError)("step must be nonzero")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt is D.int64:
        iend = int(end)
        sgn = (istep > 0) - (istep < 0)
        num = iend - istart + istep - sgn
        n = abs(num) // abs(istep) * (1 if (num >= 0) == (istep > 0) else -1)  # C++ truncating division
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    if not 0 <= n <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")

    # start + k * step, in int64 for integer dtypes, else in double (torch's formula) and cast
    acc = np.int64 if dt._cat == 1 else np.float64
    first, by = (istart, istep) if dt._cat == 1 else (float(start), float(step))

    def make(jd):
        if n <= _SMALL or jd is None:  # made on the host: no program at all
            return _put((first + np.arange(n, dtype=acc) * by).astype(dt.np), jd)
        # start and step go in as data: one program per (length, dtype) serves every offset
        return _arange_program(n, acc, dt.np)(*(_put(np.asarray(v, acc), jd) for v in (first, by)))

    return _to_out(_new(make, (n,), dt, device, requires_grad), out)


def _arange_numbers(start, end, step, dtype):
    """torch.arange takes numbers and 0-dim tensors; torch's TypeError for any other tensor."""
    given = [v for v in (start, end, step) if v is not None]
    if not any(isinstance(v, Tensor) and v.ndim for v in given):
        return
    if end is None and step == 1:
        raise TypeError(f"arange(): argument 'end' (position 1) must be Number, not {type(start).__name__}")
    got = [type(v).__name__ for v in (start, end) if v is not None] + ([type(step).__name__] if step != 1 else [])
    got += ["dtype=torch.dtype"] if dtype is not None else []
    raise TypeError(f"arange() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                    "one of:\n * (Number end, ...)\n * (Number start, Number end, ...)\n"
                    " * (Number start, Number end, Number step = 1, ...)")


@functools.lru_cache(maxsize=64)
def _arange_program(n, acc, np_dtype):
    def arange(first, by):
        return (first + jnp.arange(n, dtype=acc) * by).astype(np_dtype)

    return jax.jit(arange)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Deprecated torch.range: [start, end] by step, in the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    start, end, step = _num(start), _num(end), _num(step)
    dt = _dt(dtype)
    n = int(math.floor((end - start) / step)) + 1
    return _new(lambda jd: (start + jnp.arange(n, dtype=jnp.float64, device=_committed(jd)) * step).astype(dt.np),
                (n,), dt, device, requires_grad)


def _endpoints(fn, start, end, steps):
    for v in (start, end):
        if isinstance(v, Tensor) and v.ndim:
            raise RuntimeError(f"{fn} only supports 0-dimensional start and end tensors, but got start with "
                               f"{start.ndim if isinstance(start, Tensor) else 0} dimension(s) and end with "
                               f"{end.ndim if isinstance(end, Tensor) else 0} dimension(s).")
    if not _is_int(steps):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got steps of type "
                        f"{_type_name(steps)}, but expected int steps")
    steps = steps.__index__()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _num(start), _num(end)
    return start, end, steps


def _range_dtype(dtype, start, end):
    if dtype is not None:
        return _dt(dtype)
    if isinstance(start, complex) or isinstance(end, complex):
        return D.default_complex()
    return D.get_default_dtype()


def _spaced(fn, start, end, steps, dt, base=None):
    """torch's linspace/logspace CPU kernels on the host: the first half counts up from start, the second
    half down from end, in the dtype's own arithmetic (double for integer dtypes)."""
    if dt._cat == 0:
        raise _not_implemented(fn, dt)
    np_dt = dt.np
    host = np.dtype(np.float64) if dt._cat == 1 else np_dt
    if dt._cat == 1:
        s, e = np.float64(int(start.real if isinstance(start, complex) else start)), \
            np.float64(int(end.real if isinstance(end, complex) else end))
    else:
        s, e = np.asarray(start, dtype=np_dt)[()], np.asarray(end, dtype=np_dt)[()]
    if steps == 1:  # torch fills with start (logspace: base ** start) computed in double
        vals = np.asarray([start], dtype=np.complex128 if isinstance(start, complex) else np.float64)
        with np.errstate(all="ignore"):
            return (vals if base is None else np.power(np.float64(base), vals)).astype(np_dt)
    idx = np.arange(steps)
    step = (e.astype(host) - s.astype(host)) / host.type(max(steps - 1, 1))
    half = steps // 2
    with np.errstate(all="ignore"):
        lo = s + step * idx[:half].astype(host)
        hi = e - step * (steps - idx[half:] - 1).astype(host)
    vals = np.concatenate([lo, hi]).astype(host)
    if base is not None:
        b = np.asarray(base, dtype=host)
        with np.errstate(all="ignore"):
            vals = np.power(b, vals)
    with np.errstate(all="ignore"):
        return vals.astype(np_dt)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """torch.linspace: `steps` values evenly spaced from start to end inclusive (default float dtype)."""
    start, end, steps = _endpoints("linspace", start, end, steps)
    dt = _range_dtype(dtype, start, end)
    return _to_out(_from_host(_spaced("linspace", start, end, steps, dt), dt, device, requires_grad), out)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """torch.logspace: base ** linspace(start, end, steps)."""
    start, end, steps = _endpoints("logspace", start, end, steps)
    dt = _range_dtype(dtype, start, end)
    return _to_out(_from_host(_spaced("logspace", start, end, steps, dt, base=base), dt, device, requires_grad),
                   out)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """torch.eye: an n x m (default n x n) identity matrix."""
    for name, v in (("n", n), ("m", m)):
        if v is not None and not _is_int(v):
            raise TypeError(f"eye(): argument '{name}' (position {1 if name == 'n' else 2}) must be int, not "
                            f"{_type_name(v)}")
    n = n.__index__()
    m = n if m is None else m.__index__()
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = _dt(dtype)
    def make(jd):
        if n * m <= _SMALL or jd is None:
            return _put(np.eye(n, m, dtype=dt.np), jd)
        return jnp.eye(n, m, dtype=dt.np, device=_committed(jd))

    return _to_out(_new(make, (n, m), dt, device, requires_grad), out)


def _made(fn, dt, device, requires_grad):
    """A tensor of the array a functional creation function `fn()` returns (windows, fftfreq)."""
    return _new(lambda jd: _put(np.asarray(fn()), jd), jax.eval_shape(fn).shape, dt, device, requires_grad)


def _window(name):
    from functional import fft

    fn = getattr(fft, name)

    def window(window_length, *args, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
               **params):
        dt = _dt(dtype)
        return _made(lambda: fn(window_length, *args, dtype=dt.np, **params), dt, device, requires_grad)

    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"torch.{name}: see functional.fft.{name}.\n\n{fn.__doc__}"
    return window


hann_window, hamming_window, bartlett_window, blackman_window, kaiser_window = (_window(n + "_window") for n in (
    "hann", "hamming", "bartlett", "blackman", "kaiser"))


# ---------------------------------------------------------------------------- legacy constructors

def legacy_new(cls, args, device, dtype=None):
    """torch.Tensor(...) / torch.FloatTensor(...): sizes give an uninitialised (here zero) tensor, a sequence
    or numpy array is copied into the constructor's dtype, a Tensor of that dtype is aliased."""
    if cls is not Tensor:
        # subclasses (Parameter ...) build themselves in their own __new__
        return object.__new__(cls)
    explicit, dtype = dtype is not None, dtype or D.get_default_dtype()
    if device is not None and _devcls(device).type not in ("cpu", "cuda"):
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {_devcls(device).type} "
                           "was passed")
    if not args:
        return _new(lambda jd: _full((0,), 0, dtype.np, jd), (0,), dtype, device, False)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if explicit and args[0].dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(args[0].dtype)})")
        return args[0].detach()
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, builtins.bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        shape = _sizes(args, "new")
        return _new(lambda jd: _full(shape, 0, dtype.np, jd), shape, dtype, device, False)
    if len(args) == 1 and _is_seq(args[0]) and not isinstance(args[0], str):
        arr, dtype = _to_host(args[0], dtype)
        return _from_host(arr, dtype, device)
    if len(args) == 1:
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    raise TypeError(f"new() received an invalid combination of arguments - got "
                    f"({', '.join(_type_name(a) for a in args)})")


def _options(dtype):
    return (f"TensorOptions(dtype={cpp_name(dtype.np)}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.is_cuda == cls.is_cuda

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _legacy_class(name, dt, cuda=False):
    def __new__(cls, *args, device=None):
        return legacy_new(Tensor, args, device or ("cuda" if cuda else None), dt)

    return _LegacyMeta(name, (), {"__new__": __new__, "dtype": dt, "is_cuda": cuda, "_legacy_dtype": dt,
                                  "__module__": "torch.cuda" if cuda else "torch"})


_LEGACY = {"FloatTensor": D.float32, "DoubleTensor": D.float64, "HalfTensor": D.float16,
           "BFloat16Tensor": D.bfloat16, "LongTensor": D.int64, "IntTensor": D.int32, "ShortTensor": D.int16,
           "CharTensor": D.int8, "ByteTensor": D.uint8, "BoolTensor": D.bool}
LEGACY_CPU = {n: _legacy_class(n, d) for n, d in _LEGACY.items()}
LEGACY_CUDA = {n: _legacy_class(n, d, cuda=True) for n, d in _LEGACY.items()}


def legacy_type(name):
    """('torch.cuda.FloatTensor') -> (float32, device 'cuda')."""
    parts = name.split(".")
    if parts[0] != "torch" or parts[-1] not in _LEGACY or len(parts) > 3 or (len(parts) == 3 and parts[1] != "cuda"):
        raise ValueError(f"invalid type: '{name}'")
    return _LEGACY[parts[-1]], ("cuda" if len(parts) == 3 else "cpu")
