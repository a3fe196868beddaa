"""Table rows for indexing, and Tensor.__getitem__ / __setitem__.

Indices are put into the form functional.getitem takes before the call: Python lists
and numpy arrays become tensors, 0-dim integer tensors become ints (so `x[t]` is a view,
as in torch), and boolean masks become integer indices with `nonzero` here, eagerly,
because their result shape depends on the data; the jitted op only sees integer indices.
Index values are checked here against the sizes they index (torch's errors), which needs
concrete values: under tracing the check is skipped.
"""

import math
import numbers
import operator
import warnings

import jax
import numpy as np
from jax._src.array import ArrayImpl
from jax.sharding import SingleDeviceSharding

import functional as F

from .. import _deferred, _dispatch, _host, _ragged
from .. import _dtype as D
from .._device import put
from .._dispatch import Op, call, call_inplace
from .._tensor import _TYPE_NAMES, Tensor, _contiguous_strides
from ..autograd import forward_ad as _fwd
from ..autograd.grad_mode import STATE
from .shape import _rule, _w

# ---------------------------------------------------------------------------- checks on index values


def _values(t):
    """Host values of a Tensor, or None while tracing / on the meta device."""
    if t._device.type == "meta":
        return None
    if t._np is not None and t._base is None:  # numpy-backed (from_numpy, iterating a CPU tensor): no copy
        return t._np
    a = t._arr()
    return None if isinstance(a, jax.core.Tracer) else np.asarray(a)


def _bounds(index, size, error, dim=0, negative=True):
    """Raise error(value) for the first value of index outside [-size, size) ([0, size) unless `negative`),
    deferred on an accelerator."""
    _deferred.check_range(index, -size if negative else 0, size - 1, error, op="an index bounds check")


def _oob(kind=RuntimeError, dim=0, size=0):
    return lambda v: kind(f"index {v} is out of bounds for dimension {dim} with size {size}")


def _name(t):
    return _TYPE_NAMES[t.dtype.name]


def _long_index(fn, index, allow_int=False, kind=RuntimeError, msg=None):
    ok = (D.int64, D.int32) if allow_int else (D.int64,)
    if index.dtype not in ok:
        raise kind(msg or f"{fn}(): Expected dtype int64 for index")


def _same_dtype(fn, self, src, msg=None):
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if src.dtype is not self.dtype:
        raise RuntimeError(msg or f"{fn}(): Expected self.dtype to be equal to src.dtype")


def _dim_size(t, dim):
    return t.shape[_w(dim, t.ndim)] if t.ndim else 1


def _check_gather(vals):
    self, dim, index = vals[0], vals[1], vals[2]
    _long_index("gather", index, True)
    _bounds(index, _dim_size(self, dim), _oob(RuntimeError, _w(dim, self.ndim), _dim_size(self, dim)), negative=False)


def _check_scatter(vals, fn="scatter", src_name="src"):
    self, dim, index = vals[0], vals[1], vals[2]
    _long_index(fn, index, True)
    if isinstance(vals[3], Tensor) and src_name:
        _same_dtype(fn if fn != "scatter_reduce" else "scatter", self, vals[3])
        if vals[3].ndim != index.ndim and not (vals[3].ndim <= 1 and index.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    elif src_name and fn != "scatter":
        _same_dtype(fn, self, vals[3])
    _bounds(index, _dim_size(self, dim), _oob(RuntimeError, _w(dim, self.ndim), _dim_size(self, dim)), negative=False)


def _check_index_select(vals):
    self, dim, index = vals[0], vals[1], vals[2]
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' must be Tensor, not {type(index).__name__}")
    _long_index("index_select", index, True, msg="index_select(): Expected dtype int32 or int64 for index")
    # torch refuses negative positions here (its kernel for an inner dim with its own words); the index itself
    # stays traced, a 0-dim one too: one program serves every value
    n, d = _dim_size(self, dim), _w(dim, self.ndim)
    error = (lambda v: RuntimeError(f"INDICES element is out of DATA bounds, id={v} axis_dim={n}")) if (
        0 < d < self.ndim - 1) else (lambda v: IndexError("index out of range in self"))
    _deferred.check_range(index, 0, n - 1, error, op="index_select's bounds check")


def _check_index_add(vals, fn="index_add_"):
    self, dim, index, source = vals[0], vals[1], vals[2], vals[3]
    _long_index(fn, index, True, msg=f"{fn}(): Expected dtype int32/int64 for index but got: {_name(index)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"{fn}(): self ({_name(self)}) and source ({_name(source)}) must have the same "
                           "scalar type")
    oob = _oob(RuntimeError, _w(dim, self.ndim), _dim_size(self, dim)) if fn == "index_add_" and self.ndim > 1 else (
        lambda v: IndexError("index out of range in self"))
    _bounds(index, _dim_size(self, dim), oob, negative=False)


def _check_index_reduce(vals):
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=4)
    _check_index_add(vals, "index_reduce_")


def _check_index_copy(vals):
    self, dim, index, source = vals[0], vals[1], vals[2], vals[3]
    if index.dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_name(index)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_name(self)} and (source) {_name(source)}")
    n = _dim_size(self, dim)
    _bounds(index, n, lambda v: IndexError(f"index_copy_(): index {v} is out of bounds for dimension "
                                           f"{_w(dim, self.ndim)} with size {n}"), negative=False)


def _check_index_fill(vals):
    self, dim, index, value = vals[0], vals[1], vals[2], vals[3]
    _long_index("index_fill_", index, kind=IndexError, msg="index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    _bounds(index, _dim_size(self, dim), _oob(IndexError, _w(dim, self.ndim), _dim_size(self, dim)))


def _check_masked_scatter(vals):
    self, mask, source = vals
    if source.dtype is not self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{_name(self)} and "
                           f"{_name(source)}")
    m = _values(mask) if mask.dtype is D.bool else None
    if m is not None:
        need = int(np.broadcast_to(m, np.broadcast_shapes(m.shape, tuple(self.shape))).sum())
        if need > source.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")


def _check_take(vals):
    self, index = vals[0], vals[1]
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_name(index)}")
    n = self.numel()
    _bounds(index, n, lambda v: IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements."))


def _check_take_along_dim(vals):
    if vals[1].dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_name(vals[1])}")


def _check_put(vals):
    self, index, source = vals[0], vals[1], vals[2]
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_name(index)}")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_name(self)} and source.dtype = {_name(source)}")
    n = self.numel()
    _bounds(index, n, lambda v: IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements."))


def _check_index_put(vals):
    self, values = vals[0], vals[2]
    if isinstance(values, Tensor) and values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_name(self)} for the "
                           f"destination and {_name(values)} for the source.")


def _check_masked_fill(vals):
    if isinstance(vals[2], Tensor) and vals[2].ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{vals[2].ndim} dimension(s).")


# ---------------------------------------------------------------------------- index normalisation

def _seq_as_tuple(index):
    """torch's legacy rule: a short list holding tensors, sequences, slices, None or ... is a tuple of indices."""
    if len(index) >= 32:
        return False
    return any(isinstance(x, (Tensor, list, tuple, range, np.ndarray, slice)) or x is None or x is Ellipsis
               for x in index)


def _as_int(v):
    if v is None:
        return None
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _to_tensor(seq):
    from .._creation import tensor

    if isinstance(seq, (list, tuple)) and len(seq) == 0:
        return tensor([], dtype=D.int64)
    return tensor(seq)


def _item(it):
    """One index item in canonical form: int, slice of ints, None, Ellipsis, bool or Tensor."""
    if isinstance(it, Tensor) or it is None or it is Ellipsis:
        return it
    if isinstance(it, bool):
        return it
    if isinstance(it, np.bool_):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                         "indices (got numpy.bool)")
    if isinstance(it, slice):
        return slice(_as_int(it.start), _as_int(it.stop), _as_int(it.step))
    if isinstance(it, (list, tuple, np.ndarray)):
        return _to_tensor(it)
    if isinstance(it, range):  # torch reads a range as the sequence of its ints
        return _to_tensor(list(it))
    if isinstance(it, numbers.Integral) or hasattr(it, "__index__"):
        return operator.index(it)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     f"indices (got {type(it).__name__})")


def _is_mask(t):
    return t.dtype is D.bool or t.dtype is D.uint8


def normalize(self, index):
    """The index tuple for functional.getitem: ints, slices, None, ..., bools and integer Tensors."""
    if type(index) is slice and self.ndim:  # x[a:b], the commonest index: nothing to count or check
        return (_item(index),)
    if isinstance(index, tuple):
        items = index
    elif isinstance(index, list) and _seq_as_tuple(index):
        items = tuple(index)
    else:
        items = (index,)
    items = [_item(it) for it in items]
    for i, it in enumerate(items):  # 0-dim tensors act like Python scalars (select, not advanced indexing)
        if isinstance(it, Tensor) and it.ndim == 0 and it.dtype._cat <= 1:
            v = _values(it)
            if v is not None:
                items[i] = bool(v) if _is_mask(it) else int(v)
    count = sum(0 if it is None or it is Ellipsis or isinstance(it, bool) else
                it.ndim if isinstance(it, Tensor) and _is_mask(it) else 1 for it in items)
    shape, nd = tuple(self.shape), self.ndim
    if count > nd:
        if nd == 0 and any(isinstance(it, int) and not isinstance(it, bool) for it in items):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                             "C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out, d, k = [], 0, 0
    for it in items:
        if it is Ellipsis:
            d += max(nd - count, 0)
        elif isinstance(it, (int, slice)) and not isinstance(it, bool):
            d += 1
        elif isinstance(it, Tensor):
            if _is_mask(it):
                if d + it.ndim > nd:
                    raise IndexError(f"too many indices for tensor of dimension {nd}")
                for j, n in enumerate(it.shape):
                    if n != shape[d + j]:
                        raise IndexError(f"The shape of the mask {list(it.shape)} at index {j} does not match the "
                                         f"shape of the indexed tensor {list(shape)} at index {d + j}")
                if it.dtype is D.uint8:
                    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                                  "instead.", UserWarning, stacklevel=3)
                found = [f if f._device == self._device else f.to(self._device) for f in it.nonzero(as_tuple=True)]
                out.extend(found)
                d, k = d + it.ndim, k + len(found)
                continue
            if it.dtype not in (D.int64, D.int32):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if it._device != self._device:  # torch takes CPU indices for a tensor on any device
                it = it.to(self._device)
            if d < nd:
                _bounds(it, shape[d], _oob(IndexError, k, shape[d]))
            d, k = d + 1, k + 1
        out.append(it)
    return tuple(out)


def _is_basic(index):
    return not any(isinstance(it, (Tensor, bool)) for it in index)


# ---------------------------------------------------------------------------- __getitem__ / __setitem__

def _getitem_geometry(g, out, vals, k):
    """Strides and offset after applying basic index items one by one, as torch's applySlicing does."""
    shape, st, off = list(g[0]), list(g[1]), g[2]
    index = vals[1]
    count = sum(1 for it in index if it is not None and it is not Ellipsis)
    r = 0
    for it in index:
        if it is Ellipsis:
            r += len(g[0]) - count
        elif it is None:
            st.insert(r, shape[r] * st[r] if r < len(shape) else 1)
            shape.insert(r, 1)
            r += 1
        elif isinstance(it, int):
            off += (it % shape[r]) * st[r]
            del shape[r], st[r]
        else:
            start, stop, step = it.indices(shape[r])
            shape[r] = len(range(start, stop, step))
            off += start * st[r]
            st[r] *= step
            r += 1
    return tuple(st), off


def _basic_op(grad_name):
    return _rule(Op("__getitem__", F.getitem, arrays=("input", "indices"), view=True, saves=(), method=False,
                    function=False, grad_name=grad_name), _getitem_geometry, lazy=True)


_GET = {name: _basic_op(name + "Backward0") for name in ("Select", "Slice", "Unsqueeze", "Alias")}
# x[i] for a Python int i: the index is traced, so a DataLoader reading x[0], x[1] ... compiles once
_GET_INT = _rule(Op("__getitem__", F.index_dim0, arrays=("input", "index"), view=True, saves=(), method=False,
                    function=False, grad_name="SelectBackward0"),
                 lambda g, out, vals, k: _getitem_geometry(g, out, (vals[0], (int(vals[1]),)), k), lazy=True)
_GET_ADVANCED = Op("__getitem__", F.getitem, arrays=("input", "indices"), saves=(), method=False, function=False,
                   grad_name="IndexBackward0")
_SET_BASIC = Op("__setitem__", F.setitem, arrays=("input", "indices", "values"), saves=(), method=False,
                function=False, grad_name="CopySlices")
_SET_ADVANCED = Op("__setitem__", F.setitem, arrays=("input", "indices", "values"), saves=(), method=False,
                   function=False, grad_name="IndexPutBackward0")


def _window(self, index):
    """(offset, spec) for functional.getitem_window of a basic index, or None where it does not apply
    (host mode, an empty tensor or slice, a bad step): ints and slice starts become one traced offset."""
    shape = tuple(self.shape)
    if _host.ACTIVE or 0 in shape:
        return None
    strides = _contiguous_strides(shape)
    count = sum(1 for it in index if it is not None and it is not Ellipsis)
    spec, offset, d = [], 0, 0
    for pos, it in enumerate(index):
        if it is None:
            spec.append(None)
            continue
        if it is Ellipsis:
            spec.extend((n, 1) for n in shape[d:d + len(shape) - count])
            d += len(shape) - count
            continue
        n = shape[d]
        if isinstance(it, int):
            if not -n <= it < n:  # torch names the position of the item in the index as its dimension
                raise IndexError(f"index {it} is out of bounds for dimension {pos} with size {n}")
            offset += it % n * strides[d]
            spec.append("int")
        else:
            if it.step is not None and it.step <= 0:
                return None  # functional.getitem raises torch's error
            start, stop, step = it.indices(n)
            length = len(range(start, stop, step))
            if length == 0:
                return None
            offset += start * strides[d]
            spec.append((length, step))
        d += 1
    spec.extend((n, 1) for n in shape[d:])
    return offset, tuple(spec)


def _window_geometry(g, out, vals, k):
    """_getitem_geometry of the index a window's (offset, spec) stands for."""
    shape, offset, items, d = g[0], vals[1], [], 0
    strides = _contiguous_strides(shape)
    for it in vals[2]:
        if it is None:
            items.append(None)
            continue
        start = offset // strides[d] % shape[d]
        items.append(start if it == "int" else slice(start, start + (it[0] - 1) * it[1] + 1, it[1]))
        d += 1
    return _getitem_geometry(g, out, (vals[0], tuple(items)), k)


_GET_WINDOW = {name: _rule(Op("__getitem__", F.getitem_window, arrays=("input", "offset"), view=True, saves=(),
                              method=False, function=False, grad_name=name + "Backward0"), _window_geometry, lazy=True)
               for name in _GET}
_SET_WINDOW = Op("__setitem__", F.setitem_window, arrays=("input", "offset", "values"), saves=(), method=False,
                 function=False, grad_name="CopySlices")


_HOST_VIEW_MAX = 1 << 16  # elements: a larger view is one XLA copy rather than a numpy copy and a transfer


def _host_view(self, index, n, op, args):
    """self[index] (basic: ints, slices, None, ...) as numpy copies it, for a CPU tensor whose view records no
    autograd and whose array is concrete: the same values as the op's program, with no dispatch and no program
    to compile per shape (a slice per sample in get_batch, a row per Dataset item). The result is an ordinary
    view made by `op`; None where this does not apply."""
    if (n > _HOST_VIEW_MAX or self._rg is not None or _dispatch.TRACING or (STATE.enabled and self.requires_grad)
            or _fwd.STATE.level is not None or not _deferred.host_memory(self._device)):
        return None
    a = self._data if self._base is None else self._sync()  # as the dispatcher reads it (a DTensor's is None)
    if type(a) is not ArrayImpl or type(a.sharding) is not SingleDeviceSharding:
        return None
    jd = next(iter(a.devices())) if a.committed else None
    res = Tensor._from_array(put(np.asarray(np.asarray(a)[index]), jd), self._device)
    return res._mark_view(self, op, args, None)


def _getitem_kind(self, index, single):
    """torch's grad_fn of a basic index: that of the last view op its items apply."""
    kind = "Alias"
    shape, r = list(self.shape), 0
    count = sum(1 for it in index if it is not None and it is not Ellipsis)
    for it in index:
        if it is Ellipsis:
            r += len(shape) - count
        elif it is None:
            kind, r = "Unsqueeze", r + 1
            shape.insert(r - 1, 1)
        elif isinstance(it, int):
            kind = "Select"
            del shape[r]
        else:
            if single or it.indices(shape[r]) != (0, shape[r], 1):
                kind = "Slice"
            r += 1
    return kind


def __getitem__(self, index):
    if _ragged.ON and (_ragged.SEEN and (self._rg is not None or _ragged.has_rint(index))
                       or _ragged.crops(self, index)):
        got = _ragged.getitem(self, index)
        if got is not NotImplemented:
            return got
    norm = normalize(self, index)
    if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)) and self.ndim:
        n = self.shape[0]  # x[i], as a Dataset does
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {n}")
        if self._np is not None and self._base is None and not self.requires_grad:  # from_numpy data, as in a
            return Tensor._from_numpy(self._np[index, ...])  # TensorDataset: a numpy view (0-dim too), no JAX work
        index = int(index) % n
        got = _host_view(self, index, self.numel() // n, _GET_INT, (index,))
        return got if got is not None else call(_GET_INT, (self, index), None)
    if not _is_basic(norm):
        return call(_GET_ADVANCED, (self, norm), None)
    kind = _getitem_kind(self, norm, not isinstance(index, tuple))
    window = _window(self, norm)  # ints and slice starts are traced: one program serves every value
    if window is not None:
        op, size = _GET_WINDOW[kind], math.prod(s[0] for s in window[1] if type(s) is tuple)
        got = _host_view(self, norm, size, op, window)
        return got if got is not None else call(op, (self, *window), None)
    return call(_GET[kind], (self, norm), None)


def __setitem__(self, index, value):
    if not isinstance(value, (Tensor, numbers.Number, np.ndarray, np.generic)):
        raise TypeError(f"can't assign a {type(value).__name__} to a {self.type()}")
    norm = normalize(self, index)
    basic = _is_basic(norm)
    if basic and self.requires_grad and self.is_leaf and STATE.enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    window = _window(self, norm) if basic else None
    if window is not None:
        call_inplace(_SET_WINDOW, self, (*window, value), None)
        return
    call_inplace(_SET_BASIC if basic else _SET_ADVANCED, self, (norm, value), None)


# ---------------------------------------------------------------------------- index_put (masks allowed)

_INDEX_PUT = Op("index_put", F.index_put, arrays=("input", "indices", "values"), saves=(), method=False,
                function=False, check=_check_index_put)


def _put_indices(self, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return normalize(self, tuple(indices))


def index_put(input, indices, values, accumulate=False):
    return call(_INDEX_PUT, (input, _put_indices(input, indices), values, accumulate), None)


def index_put_(input, indices, values, accumulate=False):
    return call_inplace(_INDEX_PUT, input, (_put_indices(input, indices), values, accumulate), None)


# ---------------------------------------------------------------------------- the rows

def _route_scatter(args, kwargs):
    src = args[3] if len(args) > 3 else (kwargs or {}).get("src")
    return None if isinstance(src, Tensor) else _SCATTER_VALUE


_SCATTER_VALUE = Op("scatter", F.scatter, arrays=("input", "index", "src", "value"), promote=("input",),
                    scalars=("src", "value"), saves=(), inplace=True, grad_name="ScatterBackward1",
                    check=lambda v: _check_scatter(v, "scatter", None))

OPS = [
    Op("gather", F.gather, arrays=("input", "index"), saves=(), check=_check_gather),
    Op("take_along_dim", F.take_along_dim, arrays=("input", "indices"), saves=(), grad_name="GatherBackward0",
       check=_check_take_along_dim),
    Op("take", F.take, arrays=("input", "index"), saves=(), check=_check_take),
    Op("index_select", F.index_select, arrays=("input", "index"), saves=(), check=_check_index_select),
    Op("scatter", F.scatter, arrays=("input", "index", "src", "value"), saves=(), inplace=True,
       route=_route_scatter, check=_check_scatter),
    Op("scatter_add", F.scatter_add, arrays=("input", "index", "src"), saves=(), inplace=True,
       check=lambda v: _check_scatter(v, "scatter_add")),
    Op("scatter_reduce", F.scatter_reduce, arrays=("input", "index", "src"), saves="inputs", inplace=True,
       check=lambda v: _check_scatter(v, "scatter_reduce")),
    Op("index_add", F.index_add, arrays=("input", "index", "source", "alpha"), promote=("input",),
       scalars=("alpha",), saves=(), inplace=True, check=_check_index_add),
    Op("index_reduce", F.index_reduce, arrays=("input", "index", "source"), saves=(), inplace=True,
       check=_check_index_reduce),
    Op("index_copy", F.index_copy, arrays=("input", "index", "source"), saves=(), inplace=True,
       check=_check_index_copy),
    Op("index_fill", F.index_fill, arrays=("input", "index", "value"), promote=("input",), scalars=("value",),
       saves=(), inplace=True, check=_check_index_fill),
    Op("masked_fill", F.masked_fill, arrays=("input", "mask", "value"), promote=("input",), scalars=("value",),
       saves=(), inplace=True, check=_check_masked_fill),
    Op("masked_select", F.masked_select, arrays=("input", "mask"), saves=(), jit=False),
    Op("masked_scatter", F.masked_scatter, arrays=("input", "mask", "source"), saves=(), inplace=True,
       check=_check_masked_scatter),
    Op("put", F.put, arrays=("input", "index", "source"), saves=(), inplace=True, check=_check_put),
    Op("nonzero", F.nonzero, jit=False, differentiable=False, saves=()),
    Op("argwhere", F.argwhere, jit=False, differentiable=False, saves=(), grad_name="NonzeroBackward0"),
]

FUNCTIONS = {"index_put": index_put, "index_put_": index_put_}
METHODS = {"__getitem__": __getitem__, "__setitem__": __setitem__, "index_put": index_put,
           "index_put_": index_put_}
