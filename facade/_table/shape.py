"""Table rows for shape and view ops. `view=True` rows return views: writes through
the result reach the input (see facade/_tensor.py).

Each view row also carries a `geometry` rule, (shape, strides, offset) of the input ->
(strides, offset) of the result, so `stride()`, `storage_offset()` and `is_contiguous()`
are torch's without reading any data (size-1 and expanded dims included).
"""

import functools

import jax
import numpy as np

import functional as F
from functional.shape import infer_size, narrow_start, select_index, split_bounds

from .. import _dtype as D
from .._dispatch import Op, _scalar, call
from .._tensor import Tensor

# ---------------------------------------------------------------------------- strides


def compute_stride(shape, strides, new_shape):
    """Strides of `new_shape` viewing memory laid out as (shape, strides), or None where no view can
    (torch's computeStride: each run of dims that is contiguous in memory may be re-split freely)."""
    try:
        return _compute_stride(tuple(shape), tuple(strides), tuple(new_shape))
    except TypeError:  # an unhashable size: computed without the cache
        return _compute_stride.__wrapped__(shape, strides, new_shape)


@functools.lru_cache(4096)  # every view and reshape asks, twice (is it a view? its strides), with a few shapes
def _compute_stride(shape, strides, new_shape):
    if not shape:
        return (1,) * len(new_shape)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        if tuple(shape) == tuple(new_shape):
            return tuple(strides)
        out, acc = [0] * len(new_shape), 1
        for i in range(len(new_shape) - 1, -1, -1):
            out[i] = acc
            acc *= max(new_shape[i], 1)
        return tuple(out)
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base, tensor_numel, view_numel = strides[d - 1], 1, 1
    return tuple(out) if view_d == -1 else None


def _geom(t):
    g = t._geometry()
    return g if g is not None else (tuple(t.shape), t.stride(), t.storage_offset())


def _w(d, n):
    return d % max(n, 1)


def _reshaped(g, out, vals, k):
    return compute_stride(g[0], g[1], out), g[2]


def _permuted(perm):
    def rule(g, out, vals, k):
        p = perm(len(g[0]), vals)
        return tuple(g[1][i] for i in p), g[2]
    return rule


def _swap(n, a, b):
    p = list(range(n))
    if n:
        p[a], p[b] = p[b], p[a]
    return p


def _movedim_perm(n, vals):
    if n == 0:
        return []
    src, dst = vals[1], vals[2]
    src = [_w(d, n) for d in ((src,) if isinstance(src, int) else src)]
    dst = [_w(d, n) for d in ((dst,) if isinstance(dst, int) else dst)]
    perm = [-1] * n
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(n) if i not in src)
    return [p if p >= 0 else next(rest) for p in perm]


def _squeezed(g, out, vals, k):
    shape, st = g[0], g[1]
    dim = vals[1]
    dims = range(len(shape)) if dim is None else {_w(d, len(shape)) for d in ((dim,) if isinstance(dim, int) else dim)}
    return tuple(s for i, (n, s) in enumerate(zip(shape, st)) if not (i in dims and n == 1)), g[2]


def _unsqueezed(g, out, vals, k):
    shape, st = g[0], list(g[1])
    d = _w(vals[1], len(shape) + 1)
    st.insert(d, shape[d] * st[d] if d < len(shape) else 1)
    return tuple(st), g[2]


def _expanded(g, out, vals, k):
    shape, st, nd = g[0], g[1], len(out)
    res = [0] * nd
    for i in range(nd - 1, -1, -1):
        d = len(shape) - nd + i
        size, s = (shape[d], st[d]) if d >= 0 else (1, out[i + 1] * res[i + 1] if i < nd - 1 else 1)
        res[i] = 0 if size != out[i] else s
    return tuple(res), g[2]


def _at(d, start, g, drop):
    st = list(g[1])
    off = g[2] + start * st[d]
    if drop:
        del st[d]
    return tuple(st), off


def _selected(g, out, vals, k):
    d = _w(vals[1], len(g[0]))
    return _at(d, int(vals[2]) % g[0][d], g, True)


def _narrowed(g, out, vals, k):
    d = _w(vals[1], len(g[0]))
    start = int(vals[2])
    return _at(d, start + g[0][d] if start < 0 else start, g, False)


def _concrete(input, dim, v):
    """v as an int, or None where it cannot be checked (a bad dim, a 0-dim input, a traced value)."""
    if not input.ndim or not isinstance(dim, int) or not -input.ndim <= dim < input.ndim:
        return None  # the functional function raises torch's error
    if isinstance(v, jax.core.Tracer) or isinstance(getattr(v, "_data", None), jax.core.Tracer):
        return None
    return int(v)


def _check_select(vals):  # the index goes in traced (one program for every value): its range is checked here
    input, dim, index = vals
    index = _concrete(input, dim, index)
    if index is not None:
        select_index(input.shape, _w(dim, input.ndim), index)


def _check_narrow(vals):  # the start goes in traced: its range is checked here
    input, dim, start, length = vals
    start = _concrete(input, dim, start)
    if start is not None:
        narrow_start(input.shape, _w(dim, input.ndim), start, length)


def _piece(kind, spec):
    def rule(g, out, vals, k):
        d = _w(vals[2], len(g[0]))
        return _at(d, split_bounds(kind, g[0][d], spec(vals))[k][0], g, False)
    return rule


def _tensor_split_spec(vals):
    spec = next(v for v in (vals[3], vals[4], vals[1]) if v is not None)
    return spec.tolist() if hasattr(spec, "tolist") else spec


def _unbound(g, out, vals, k):
    return _at(_w(vals[1], len(g[0])), k, g, True)


def _diagonal_rule(g, out, vals, k):
    off, n = vals[1], len(g[0])
    d1, d2 = _w(vals[2], n), _w(vals[3], n)
    st = g[1]
    offset = g[2]
    if out[-1]:
        offset += off * st[d2] if off >= 0 else -off * st[d1]
    return tuple(s for i, s in enumerate(st) if i not in (d1, d2)) + (st[d1] + st[d2],), offset


def _unfolded(g, out, vals, k):
    if not g[0]:
        return (1,), g[2]
    d, step = _w(vals[1], len(g[0])), vals[3]
    st = list(g[1])
    st.append(st[d])
    st[d] *= step
    return tuple(st), g[2]


def _strided(g, out, vals, k):
    return tuple(vals[2]), int(vals[3] or 0)


def _rule(op, geometry, lazy=False):
    """`op` with its view geometry rule; `lazy`: the rule reads only the op's other arguments, not its input
    (indexing), so a view it makes works its geometry out when first asked for (Tensor._geometry)."""
    op.geometry, op.geometry_lazy = geometry, lazy
    return op


# ---------------------------------------------------------------------------- when reshape is a view

_VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one dimension spans "
               "across two contiguous subspaces). Use .reshape(...) instead.")


def _viewable(t, new_shape):
    if any(jax.export.is_symbolic_dim(d) for d in (*t.shape, *new_shape)):
        return True  # torch.export's dynamic sizes: a traced program has no strides to refuse a view by
    g = _geom(t)
    return compute_stride(g[0], g[1], new_shape) is not None


def _view_check(vals):
    shape = vals[1]
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return False  # x.view(dtype): a reinterpreting copy here
    if not _viewable(vals[0], infer_size(shape, vals[0].numel())):
        raise RuntimeError(_VIEW_ERROR)
    return True


def _reshape_is_view(vals):
    return _viewable(vals[0], infer_size(vals[1], vals[0].numel()))


def _flatten_is_view(vals):
    t = vals[0]
    if t.ndim == 0:
        return True
    s, e = _w(vals[1], t.ndim), _w(vals[2], t.ndim)
    shape = tuple(t.shape)
    n = 1
    for x in shape[s:e + 1]:
        n *= x
    return _viewable(t, shape[:s] + (n,) + shape[e + 1:])


def _ravel_is_view(vals):
    return _viewable(vals[0], (vals[0].numel(),))


# ---------------------------------------------------------------------------- overloads with their own nodes

def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return (kwargs or {}).get(name, default)


_squeeze_dim = Op("squeeze", F.squeeze, view=True, saves=(), grad_name="SqueezeBackward1")
_squeeze_dims = Op("squeeze", F.squeeze, view=True, saves=(), grad_name="SqueezeBackward2")
_split_sizes = Op("split", F.split, arrays=("tensor",), view=True, saves=(), grad_name="SplitWithSizesBackward0")
_repeat_interleave_int = Op("repeat_interleave", F.repeat_interleave, saves=(), grad_name="ViewBackward0")


def _route_squeeze(args, kwargs):
    dim = _arg(args, kwargs, 1, "dim")
    return None if dim is None else _squeeze_dim if isinstance(dim, int) else _squeeze_dims


def _route_split(args, kwargs):
    return None if isinstance(_arg(args, kwargs, 1, "split_size_or_sections"), int) else _split_sizes


def _route_repeat_interleave(args, kwargs):
    return _repeat_interleave_int if isinstance(_arg(args, kwargs, 1, "repeats"), int) else None


# ---------------------------------------------------------------------------- roll: shifts are data

_ROLL = Op("roll", F.roll, arrays=("input", "shifts"), saves=())
_INT64 = np.dtype(np.int64)


def _type_name(v):
    return "numpy.ndarray" if isinstance(v, np.ndarray) else type(v).__name__


def _shift_ok(v, bool_ok):
    """torch reads v as an int of roll's shifts (a bool only after the first element of a sequence)."""
    if isinstance(v, Tensor):
        return v.numel() == 1 and v.dtype._cat <= 1
    return isinstance(v, (int, np.integer)) and (bool_ok or not isinstance(v, bool))


def _roll_shifts(shifts, pos):
    """shifts checked by torch's argument rules (pos: its position, None as a keyword), with the ints of a
    sequence as cached 0-dim tensors: every shift is a traced value, so one program serves them all."""
    head = "roll(): argument 'shifts'" + ("" if pos is None else f" (position {pos})") + " must be tuple of ints"
    if not isinstance(shifts, (list, tuple)):
        if not (_shift_ok(shifts, False) and not isinstance(shifts, np.ndarray)):
            raise TypeError(f"{head}, not {_type_name(shifts)}")
        return shifts
    for i, v in enumerate(shifts):
        if not _shift_ok(v, i > 0):
            if i:
                raise TypeError(f"roll(): argument 'shifts' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {_type_name(v)}\"")
            raise TypeError(f"{head}, but found element of type {_type_name(v)} at pos 0" if pos is not None else
                            f"{head}, not {type(shifts).__name__}")
    return tuple(v if isinstance(v, Tensor) else Tensor._from_array(_scalar(int(v), _INT64)) for v in shifts)


def _roll(args, kwargs, pos):
    if len(args) > 1:
        args = (args[0], _roll_shifts(args[1], pos), *args[2:])
    elif kwargs and "shifts" in kwargs:
        kwargs = {**kwargs, "shifts": _roll_shifts(kwargs["shifts"], None)}
    return call(_ROLL, args, kwargs)


def roll(*args, **kwargs):
    return _roll(args, kwargs, 2)


def _roll_method(*args, **kwargs):
    return _roll(args, kwargs, 1)


# ---------------------------------------------------------------------------- the rows

_TENSOR_SPLIT = _rule(Op("tensor_split", F.tensor_split, view=True, saves=(), grad_name="SliceBackward0"),
                      _piece("tensor_split", _tensor_split_spec))
_TENSOR_SPLIT.multi_view = False  # its pieces are separate slices: torch lets them be written with grad on
# reads its input's root storage; torch.as_strided / Tensor.as_strided below pass that root
_AS_STRIDED = _rule(Op("as_strided", F.as_strided, view=True, saves=(), function=False, method=False), _strided)

_VIEWS = [
    _rule(Op("view", F.view, view=_view_check, saves=(), varargs="shape", function=False,
             grad_name="ViewBackward0"), _reshaped),
    _rule(Op("reshape", F.reshape, view=_reshape_is_view, saves=(), varargs="shape", grad_name="ViewBackward0"),
          _reshaped),
    _rule(Op("flatten", F.flatten, view=_flatten_is_view, saves=(), grad_name="ViewBackward0"), _reshaped),
    _rule(Op("ravel", F.ravel, view=_ravel_is_view, saves=(), grad_name="ViewBackward0"), _reshaped),
    _rule(Op("unflatten", F.unflatten, view=True, saves=(), grad_name="ViewBackward0"), _reshaped),
    _rule(Op("squeeze", F.squeeze, view=True, saves=(), route=_route_squeeze), _squeezed),
    _rule(Op("unsqueeze", F.unsqueeze, view=True, saves=()), _unsqueezed),
    _rule(Op("transpose", F.transpose, view=True, saves=(), aliases=("swapaxes", "swapdims")),
          _permuted(lambda n, v: _swap(n, _w(v[1], n), _w(v[2], n)))),
    _rule(Op("t", F.t, view=True, saves=(), grad_name="TBackward0"), _permuted(lambda n, v: _swap(n, 0, n - 1))),
    _rule(Op("permute", F.permute, view=True, saves=(), varargs="dims"),
          _permuted(lambda n, v: [_w(d, n) for d in v[1]])),
    _rule(Op("movedim", F.movedim, view=True, saves=(), aliases=("moveaxis",), grad_name="PermuteBackward0"),
          _permuted(_movedim_perm)),
    _rule(Op("expand", F.expand, view=True, saves=(), varargs="size", function=False), _expanded),
    _rule(Op("broadcast_to", F.broadcast_to, view=True, saves=(), varargs="size", grad_name="ExpandBackward0"),
          _expanded),
    _rule(Op("select", F.select, arrays=("input", "index"), view=True, saves=(), check=_check_select), _selected),
    _rule(Op("narrow", F.narrow, arrays=("input", "start"), view=True, saves=(), grad_name="SliceBackward0",
             check=_check_narrow), _narrowed),
    _rule(Op("split", F.split, arrays=("tensor",), view=True, saves=(), route=_route_split),
          _piece("split", lambda v: v[1])),
    _rule(Op("chunk", F.chunk, view=True, saves=(), grad_name="SplitBackward0"), _piece("chunk", lambda v: v[1])),
    _TENSOR_SPLIT,
    _rule(Op("unbind", F.unbind, view=True, saves=()), _unbound),
    _rule(Op("diagonal", F.diagonal, view=True, saves=()), _diagonal_rule),
    _rule(Op("unfold", F.unfold, view=True, saves=(), function=False), _unfolded),
    _AS_STRIDED,
]
_split_sizes.geometry = _piece("split", lambda v: v[1])
_squeeze_dim.geometry = _squeeze_dims.geometry = _squeezed

_COPIES = [
    Op("repeat", F.repeat, saves=(), varargs="repeats", function=False),
    Op("tile", F.tile, saves=(), grad_name="RepeatBackward0"),
    Op("repeat_interleave", F.repeat_interleave, arrays=("input", "repeats"), saves=(), jit=False,
       grad_name="ViewBackward0", route=_route_repeat_interleave),
    Op("cat", F.cat, arrays=("tensors",), promote="all", method=False, saves=(), aliases=("concat", "concatenate")),
    Op("stack", F.stack, arrays=("tensors",), promote="all", method=False, saves=()),
    Op("hstack", F.hstack, arrays=("tensors",), promote="all", method=False, saves=(), grad_name="CatBackward0"),
    Op("vstack", F.vstack, arrays=("tensors",), promote="all", method=False, saves=(), grad_name="CatBackward0",
       aliases=("row_stack",)),
    Op("dstack", F.dstack, arrays=("tensors",), promote="all", method=False, saves=(), grad_name="CatBackward0"),
    Op("column_stack", F.column_stack, arrays=("tensors",), promote="all", method=False, saves=(),
       grad_name="CatBackward0"),
    Op("flip", F.flip, saves=(), varargs="dims"),
    Op("fliplr", F.fliplr, saves=(), grad_name="FlipBackward0"),
    Op("flipud", F.flipud, saves=(), grad_name="FlipBackward0"),
    _ROLL,
    Op("rot90", F.rot90, saves=()),
    Op("tril", F.tril, saves=(), inplace=True),
    Op("triu", F.triu, saves=(), inplace=True),
    Op("diag", F.diag, saves=()),
    Op("diag_embed", F.diag_embed, saves=()),
    Op("diagflat", F.diagflat, saves=(), grad_name="DiagEmbedBackward0"),
]

OPS = _VIEWS + _COPIES


# ---------------------------------------------------------------------------- compositions

def contiguous(self, memory_format=None):
    """self if its elements are laid out in row-major order, else a row-major copy."""
    return self if self.is_contiguous() else self.clone()


def view_as(self, other):
    return self.view(other.shape)


def reshape_as(self, other):
    return self.reshape(other.shape)


def expand_as(self, other):
    return self.expand(other.shape)


def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage (its root's row-major elements) with the given sizes and strides."""
    root = input._base if input._base is not None else input
    if input._base is not None and input._detached:
        root = root.detach()
    offset = input.storage_offset() if storage_offset is None else storage_offset
    return call(_AS_STRIDED, (root, tuple(size), tuple(stride), offset), None)


def broadcast_shapes(*shapes):
    return F.broadcast_shapes(*(tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in shapes))


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common shape."""
    shape = F.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Views of 0-D/1-D tensors expanded into coordinate grids (see functional.meshgrid)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shapes = jax.eval_shape(lambda *a: F.meshgrid(*a, indexing=indexing),
                            *(jax.ShapeDtypeStruct(tuple(t.shape), t.dtype.np) for t in tensors))
    full = shapes[0].shape if shapes else ()
    swap = indexing == "xy" and len(tensors) >= 2
    out = []
    for i, t in enumerate(tensors):
        d = (1 - i if i < 2 else i) if swap else i
        shape = [1] * len(full)
        shape[d] = -1
        out.append(t.reshape(shape).expand(full))
    return tuple(out)


def _atleast(n):
    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(fn(t) for t in tensors[0])
        out = []
        for t in tensors:
            if t.ndim == 0:
                t = t.reshape((1,) * n)
            elif t.ndim == 1 and n >= 2:
                t = t.unsqueeze(0) if n == 2 else t.unsqueeze(0).unsqueeze(-1)
            elif t.ndim == 2 and n == 3:
                t = t.unsqueeze(-1)
            out.append(t)
        return out[0] if len(out) == 1 else tuple(out)

    fn.__name__ = f"atleast_{n}d"
    fn.__doc__ = f"Each tensor with at least {n} dims, as a view (see functional.atleast_{n}d)."
    return fn


def _inplace_view(name):
    """Tensor.t_ and friends: self becomes the view `self.name(...)` of its own storage."""
    def method(self, *args, **kwargs):
        from ..autograd.grad_mode import STATE

        if self.requires_grad and self.is_leaf and STATE.enabled:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        res = getattr(self, name)(*args, **kwargs)
        data = res._arr()
        if self._base is not None:
            self._view, self._geom, self._idx, self._bsv = res._view, res._geom, None, res._bsv
        else:  # a base stays one, holding its elements in the new order (views taken before see stale data)
            self._sv += 1
        self._data = data
        (self._base if self._base is not None else self)._vc += 1
        if res._grad_fn is not None:
            self._grad_fn, self._output_nr = res._grad_fn, res._output_nr
        return self

    method.__name__ = name + "_"
    return method


def _directional_split(name, dim, min_dim):
    """torch.hsplit/vsplit/dsplit: tensor_split along one dim, an int must divide it evenly."""
    def fn(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int):
            n = input.shape[d]
            if indices_or_sections == 0 or n % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {n} is not divisible by the split_size {indices_or_sections}!")
        return input.tensor_split(indices_or_sections, d)

    fn.__name__ = name
    return fn


def _slice(input, dim=0, start=None, end=None, step=1):
    """input[..., start:end:step] along `dim`, a view (torch.ops.aten.slice)."""
    return input[(slice(None),) * _w(dim, input.ndim) + (slice(start, end, step),)]


def split_with_sizes(input, split_sizes, dim=0):
    return input.split(list(split_sizes), dim)


def _unsafe(view):
    """unsafe_split/unsafe_chunk: the pieces as copies (torch skips their view tracking)."""
    def fn(input, *args, **kwargs):
        return tuple(p.clone() for p in view(input, *args, **kwargs))

    fn.__name__ = "unsafe_" + view.__name__
    return fn


def _copy_of(view, name):
    """torch.X_copy: the view X as a new contiguous tensor (functionalization's out-of-place views)."""
    def fn(input, *args, **kwargs):
        out = view(input, *args, **kwargs)
        return tuple(o.clone() for o in out) if isinstance(out, (tuple, list)) else out.clone()

    fn.__name__ = name + "_copy"
    return fn


def _scatter_into(view, name):
    """torch.X_scatter(input, src, ...): a copy of input with its view X(...) replaced by src (same shape)."""
    def fn(input, src, *args, **kwargs):
        out = input.clone()
        part = view(out, *args, **kwargs)
        if tuple(part.shape) != tuple(src.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(src.shape)}, slice size = {list(part.shape)}")
        part.copy_(src)
        return out

    fn.__name__ = name + "_scatter"
    return fn


def _view_fn(name):
    return lambda input, *args, **kwargs: getattr(input, name)(*args, **kwargs)


def _detach(input):
    return input.detach()


def _alias(input):
    return input.view(input.shape)


def _split_int(input, split_size, dim=0):
    if not isinstance(split_size, int):
        raise TypeError(f"split_copy(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return input.split(split_size, dim)


_VIEW_FUNCTIONS = {"slice": _slice, "split": _split_int, "view": _view_fn("reshape"),
                   "split_with_sizes": split_with_sizes, "detach": _detach, "alias": _alias,
                   "as_strided": as_strided, **{n: _view_fn(n) for n in (
                       "diagonal", "expand", "narrow", "permute", "select", "squeeze", "t", "transpose", "unbind",
                       "unfold", "unsqueeze")}}
_VIEW_FUNCTIONS["view_as_real"] = lambda input: _torch().view_as_real(input)
_VIEW_FUNCTIONS["view_as_complex"] = lambda input: _torch().view_as_complex(input)


def _torch():
    import facade

    return facade


FUNCTIONS = {
    **{n + "_copy": _copy_of(f, n) for n, f in _VIEW_FUNCTIONS.items()},
    **{n + "_scatter": _scatter_into(_VIEW_FUNCTIONS[n], n) for n in ("slice", "select", "diagonal", "as_strided")},
    "hsplit": _directional_split("hsplit", 1, 1), "vsplit": _directional_split("vsplit", 0, 2),
    "dsplit": _directional_split("dsplit", 2, 3), "split_with_sizes": split_with_sizes,
    "unsafe_split": _unsafe(_view_fn("split")), "unsafe_chunk": _unsafe(_view_fn("chunk")),
    "unsafe_split_with_sizes": _unsafe(split_with_sizes),
    "as_strided_": lambda input, size, stride, storage_offset=None: input.as_strided_(size, stride, storage_offset),
    "broadcast_tensors": broadcast_tensors, "broadcast_shapes": broadcast_shapes, "meshgrid": meshgrid,
    "atleast_1d": _atleast(1), "atleast_2d": _atleast(2), "atleast_3d": _atleast(3), "as_strided": as_strided,
    "roll": roll,
}
METHODS = {
    **{n: FUNCTIONS[n] for n in ("hsplit", "vsplit", "dsplit", "split_with_sizes", "unsafe_split", "unsafe_chunk",
                                 "unsafe_split_with_sizes", "slice_scatter", "select_scatter", "diagonal_scatter",
                                 "as_strided_scatter", "narrow_copy")},
    "contiguous": contiguous, "view_as": view_as, "reshape_as": reshape_as, "expand_as": expand_as,
    "as_strided": as_strided, "roll": _roll_method,
    **{n + "_": _inplace_view(n) for n in ("t", "transpose", "swapaxes", "swapdims", "squeeze", "unsqueeze",
                                          "as_strided")},
}
