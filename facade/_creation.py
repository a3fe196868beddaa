"""Tensor creation: torch.tensor, zeros/ones/full/empty(_like), arange ... and legacy constructors."""

from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype as D
from ._device import CPU, META, device as _devcls, jax_device
from ._tensor import Size, Tensor

_default_device = [CPU]


def default_device():
    return _default_device[-1]


def set_default_device(device):
    _default_device[:] = [CPU if device is None else _devcls(device)]


def get_default_device():
    return _default_device[-1]


def _sizes(size):
    """Normalise `(2, 3)`, `((2, 3),)`, `(torch.Size([2, 3]),)` to a tuple of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        try:
            out.append(s.__index__())
        except (AttributeError, TypeError):
            raise TypeError(f"expected a sequence of integers as size, but got an element of type "
                            f"{type(s).__name__}") from None
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(out)}")
    return tuple(out)


def _place(a, device, requires_grad=False):
    """Wrap a fresh array as a Tensor on `device`."""
    device = default_device() if device is None else _devcls(device)
    if device.type == "cuda" and device.index is None:
        device = _devcls("cuda", 0)
    if device.type == "meta":
        t = Tensor._from_array(jax.ShapeDtypeStruct(a.shape, a.dtype), META)
    else:
        jd = jax_device(device)
        if device.type != "cpu" or not isinstance(a, jax.Array):
            a = jax.device_put(a, jd)
        t = Tensor._from_array(a, device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _dt(dtype, default=None):
    if dtype is None:
        return default or D.get_default_dtype()
    if isinstance(dtype, D.dtype):
        return dtype
    if isinstance(dtype, type) and issubclass(dtype, (bool, int, float, complex)):
        return {bool: D.bool, int: D.int64, float: D.float64, complex: D.complex128}[dtype]
    return D.from_np(dtype)


# ---------------------------------------------------------------------------- from data

def _infer(data):
    """numpy array and torch dtype of nested Python data (torch.tensor's inference rules)."""
    if isinstance(data, Tensor):
        return np.asarray(data._arr()), data.dtype
    if isinstance(data, np.ndarray):
        return data, D.from_np(data.dtype)
    if isinstance(data, np.generic):
        return np.asarray(data), D.from_np(data.dtype)
    leaves = []
    shape = _shape_of(data, leaves, ())
    kind = D.bool
    for x in leaves:
        if isinstance(x, Tensor):
            d = x.dtype
        elif isinstance(x, (bool, np.bool_)):
            d = D.bool
        elif isinstance(x, numbers.Integral):
            d = D.int64
        elif isinstance(x, numbers.Real):
            d = D.get_default_dtype() if not isinstance(x, np.floating) else D.from_np(x.dtype)
        elif isinstance(x, numbers.Complex):
            d = D.default_complex()
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        kind = d if kind._cat < d._cat or (kind._cat == d._cat and d._cat >= 1 and isinstance(x, Tensor)) else kind
    if leaves and kind is D.bool and not all(isinstance(x, (bool, np.bool_)) or (isinstance(x, Tensor) and x.dtype is D.bool) for x in leaves):
        kind = D.int64
    vals = [x.item() if isinstance(x, Tensor) else x for x in leaves]
    np_dt = np.float32 if kind is D.bfloat16 else kind.np
    arr = np.array(vals, dtype=np_dt).reshape(shape)
    return arr, kind


def _shape_of(x, leaves, path):
    if isinstance(x, (list, tuple)):
        shapes = [_shape_of(e, leaves, path + (i,)) for i, e in enumerate(x)]
        if shapes and any(s != shapes[0] for s in shapes):
            bad = next(i for i, s in enumerate(shapes) if s != shapes[0])
            raise ValueError(f"expected sequence of length {shapes[0][0] if shapes[0] else 0} at dim {len(path) + 1}"
                             f" (got {shapes[bad][0] if shapes[bad] else 0})")
        return (len(x),) + (shapes[0] if shapes else ())
    if isinstance(x, Tensor):
        if x.ndim:
            raise ValueError("only one element tensors can be converted to Python scalars")
        leaves.append(x)
        return ()
    if isinstance(x, np.ndarray):
        for e in x.reshape(-1).tolist():
            leaves.append(e)
        return x.shape
    leaves.append(x)
    return ()


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.tensor: always copies `data` (nested lists, numbers, numpy arrays, Tensors)."""
    arr, inferred = _infer(data)
    dt = _dt(dtype, inferred) if dtype is not None else inferred
    a = jnp.array(arr, dtype=dt.np)
    if device is None and isinstance(data, Tensor):
        device = data.device
    return _place(a, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """torch.as_tensor: shares memory with a Tensor or CPU numpy array when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    if isinstance(data, np.ndarray) and (dtype is None or _dt(dtype).np == data.dtype) and \
            (device is None or _devcls(device).type == "cpu") and default_device().type == "cpu":
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr):
    """A CPU tensor sharing memory with numpy array `arr`."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    D.from_np(arr.dtype)
    return Tensor._from_numpy(arr)


# ---------------------------------------------------------------------------- filled

def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, out=None):
    size = _sizes((size,) if not isinstance(size, (tuple, list)) else size)
    if dtype is None:
        dtype = D.result_type(fill_value) if not isinstance(fill_value, Tensor) else fill_value.dtype
    return _place(jnp.full(size, fill_value, _dt(dtype).np), device, requires_grad)


def _filled(value):
    def make(*size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, out=None,
             memory_format=None, names=None):
        t = _place(jnp.full(_sizes(size), value, _dt(dtype).np), device, requires_grad)
        if out is not None:
            out._resize_assign(t)
            return out
        return t

    return make


zeros = _filled(0)
ones = _filled(1)
empty = _filled(0)  # uninitialized in torch; zeros here (no uninitialized memory in JAX)


def _like(fn):
    def make(input, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False,
             memory_format=None):
        return fn(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)

    return make


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False,
              memory_format=None):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, out=None,
           pin_memory=False):
    """torch.arange: int64 when start, end and step are all integers, else the default float dtype."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else D.get_default_dtype()
    dt = _dt(dtype)
    n = max(int(np.ceil((end - start) / step)), 0)
    a = (start + jnp.arange(n, dtype=jnp.float64 if dt._cat >= 2 or not isinstance(step, int) else jnp.int64) * step)
    return _place(a.astype(dt.np), device, requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    """Deprecated torch.range: includes `end`."""
    if end is None:
        start, end = 0, start
    dt = _dt(dtype)
    n = int(np.floor((end - start) / step)) + 1
    return _place((start + jnp.arange(n, dtype=jnp.float64) * step).astype(dt.np), device, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    dt = _dt(dtype)
    a = jnp.linspace(_num(start), _num(end), steps, dtype=jnp.float64)
    return _place(a.astype(dt.np), device, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    dt = _dt(dtype)
    a = jnp.power(base, jnp.linspace(_num(start), _num(end), steps, dtype=jnp.float64))
    return _place(a.astype(dt.np), device, requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, layout=None, out=None, pin_memory=False):
    return _place(jnp.eye(n, m, dtype=_dt(dtype).np), device, requires_grad)


# ---------------------------------------------------------------------------- legacy constructors

def legacy_new(cls, args, device, dtype=None):
    """torch.Tensor(...) / torch.FloatTensor(...): sizes give an (uninitialised) tensor, data is copied."""
    dtype = dtype or D.get_default_dtype()
    if cls is not Tensor and not getattr(cls, "_legacy", False):
        # subclasses (Parameter ...) build themselves in their own __new__
        return object.__new__(cls)
    if not args:
        return _place(jnp.zeros((0,), dtype.np), device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0] if dtype is args[0].dtype else args[0].to(dtype)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        return _place(jnp.zeros(_sizes(args), dtype.np), device)
    if len(args) == 1:
        return tensor(args[0], dtype=dtype, device=device)
    raise TypeError(f"new(): invalid arguments {args!r}")


def _legacy_class(name, dt, cuda=False):
    def __new__(cls, *args, device=None):
        return legacy_new(Tensor, args, device or ("cuda" if cuda else None), dt)

    meta = type(Tensor)

    class _LegacyMeta(meta):
        def __instancecheck__(self, obj):
            return isinstance(obj, Tensor) and obj.dtype is dt and obj.is_cuda == cuda

    return _LegacyMeta(name, (), {"__new__": __new__, "_legacy_dtype": dt, "__module__": "torch"})


_LEGACY = {"FloatTensor": D.float32, "DoubleTensor": D.float64, "HalfTensor": D.float16,
           "BFloat16Tensor": D.bfloat16, "LongTensor": D.int64, "IntTensor": D.int32, "ShortTensor": D.int16,
           "CharTensor": D.int8, "ByteTensor": D.uint8, "BoolTensor": D.bool}
LEGACY_CPU = {n: _legacy_class(n, d) for n, d in _LEGACY.items()}
LEGACY_CUDA = {n: _legacy_class(n, d, cuda=True) for n, d in _LEGACY.items()}


def legacy_type(name):
    """('torch.cuda.FloatTensor') -> (float32, device 'cuda')."""
    parts = name.split(".")
    try:
        dt = _LEGACY[parts[-1]]
    except KeyError:
        raise ValueError(f"invalid type: '{name}'") from None
    return dt, ("cuda" if "cuda" in parts else "cpu")
