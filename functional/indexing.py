"""Indexing, gathering and scattering with torch's semantics.

`getitem`/`setitem` take an index tuple of ints, slices, None, Ellipsis, Python bools and
integer arrays (boolean masks must be turned into integer arrays first, e.g. with
`nonzero`: their result shape depends on the data). As in torch, ints and slices apply
first; the integer arrays then index the resulting dims together (numpy's rule for
adjacent or separated advanced indices, on what is left after the ints).

Index values are not bounds-checked here (a traced array has no values to check):
JAX clamps out-of-range gathers and drops out-of-range scatters. The facade checks
them eagerly and raises torch's errors.

Where several updates hit one position (scatter, index_put, index_copy, put without
accumulation) the gradient is torch's: every update receives the output's gradient.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ._names import cpp_name
from .shape import _dim, _expand_shape, broadcast_shapes

__all__ = [
    "index_dim0", "getitem", "setitem", "getitem_window", "setitem_window",
    "gather", "scatter", "scatter_add", "scatter_reduce", "index_select",
    "index_add", "index_reduce",
    "index_copy", "index_fill", "index_put", "masked_fill", "masked_select", "masked_scatter", "take",
    "take_along_dim", "put", "nonzero", "argwhere",
]


# ---------------------------------------------------------------------------- scatter with torch's gradient

@jax.custom_vjp
def _set_flat(flat, idx, src):
    return flat.at[idx].set(src)


def _set_flat_fwd(flat, idx, src):
    return flat.at[idx].set(src), idx


def _set_flat_bwd(idx, g):
    return g.at[idx].set(0), None, g[idx]


_set_flat.defvjp(_set_flat_fwd, _set_flat_bwd)


def _scatter_flat(input, positions, src, accumulate=False):
    """input with the elements at flat `positions` (any shape) replaced by (or, accumulating, increased
    by) `src` broadcast to positions' shape."""
    pos = positions.reshape(-1)
    src = jnp.broadcast_to(src.astype(input.dtype), positions.shape).reshape(-1)
    flat = input.reshape(-1)
    out = flat.at[pos].add(src) if accumulate else _set_flat(flat, pos, src)
    return out.reshape(input.shape)


def _iota(shape):
    n = int(np.prod(shape, dtype=np.int64))
    return jnp.arange(n, dtype=jnp.int64 if n > np.iinfo(np.int32).max else jnp.int32).reshape(shape)


def _along(index, dim):
    """Full index tuple for positions (..., index[...], ...) along `dim`, other dims by their own position."""
    grid = list(jnp.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _is_index(a):
    return isinstance(a, (jax.Array, np.ndarray)) or hasattr(a, "aval")


# ---------------------------------------------------------------------------- __getitem__ / __setitem__

def _expand_index(shape, indices):
    """(basic index for jnp, [(result dim, integer array)]) for `indices` on an array of `shape`."""
    count = 0
    for it in indices:
        if it is None or it is Ellipsis or isinstance(it, bool):
            continue
        count += 1
    if count > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if sum(it is Ellipsis for it in indices) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    basic, adv = [], []
    d = r = 0  # input dim, result dim
    for it in indices:
        if it is Ellipsis:
            n = len(shape) - count
            basic.extend([slice(None)] * n)
            d, r = d + n, r + n
        elif it is None:
            basic.append(None)
            r += 1
        elif isinstance(it, bool):
            basic.append(None)
            adv.append((r, jnp.zeros(1 if it else 0, jnp.int64)))
            r += 1
        elif isinstance(it, int):
            n = shape[d]
            if not -n <= it < n:
                if not shape:
                    raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                     "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
                raise IndexError(f"index {it} is out of bounds for dimension {d} with size {n}")
            basic.append(it % n)
            d += 1
        elif isinstance(it, slice):
            if it.step is not None and it.step <= 0:
                raise ValueError("step must be greater than zero" if it.step else "slice step cannot be zero")
            basic.append(it)
            d, r = d + 1, r + 1
        elif _is_index(it):
            if not jnp.issubdtype(it.dtype, jnp.integer):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            basic.append(slice(None))
            adv.append((r, it))
            d, r = d + 1, r + 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {type(it).__name__})")
    if adv:
        try:
            broadcast_shapes(*(a.shape for _, a in adv))
        except RuntimeError:
            shapes = ", ".join(str(list(a.shape)) for _, a in adv)
            raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                             f"{shapes}") from None
    return tuple(basic), adv


def _index(input, basic, adv):
    out = input[basic] if basic else input
    if adv:
        full = [slice(None)] * out.ndim
        for r, a in adv:
            full[r] = a
        out = out[tuple(full)]
    return out


def index_dim0(input, index):
    """input[index] for a non-negative integer `index` (a 0-dim array; may be traced) along the first dim."""
    return jax.lax.dynamic_index_in_dim(input, index, 0, keepdims=False)


def getitem(input, indices):
    """input[indices] with torch's rules (see the module docstring); `indices` is a tuple."""
    return _index(input, *_expand_index(input.shape, indices))


def _value_to(values, shape):
    """values (leading size-1 dims dropped, as torch does) broadcast to `shape`, or torch's error."""
    vs = tuple(values.shape)
    while len(vs) > len(shape) and vs[0] == 1:
        vs = vs[1:]
    try:
        if broadcast_shapes(vs, shape) != tuple(shape):
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}") from None
    return jnp.broadcast_to(values.reshape(vs), shape)


def setitem(input, indices, values):
    """input with input[indices] replaced by `values` (broadcast, cast to input's dtype)."""
    basic, adv = _expand_index(input.shape, indices)
    values = jnp.asarray(values).astype(input.dtype)
    if not adv:
        target = jax.eval_shape(lambda a: a[basic], input).shape
        vs = tuple(values.shape)
        while len(vs) > len(target) and vs[0] == 1:
            vs = vs[1:]
        return input.at[basic].set(jnp.broadcast_to(values.reshape(vs), _expand_shape(vs, target)))
    positions = _index(_iota(input.shape), basic, adv)
    return _scatter_flat(input, positions, _value_to(values, positions.shape))


# ---------------------------------------------------------------------------- windows: traced starts

def _window(shape, offset, spec):
    """Starts (traced, decoded from `offset`), spans, steps and result shape of a basic index `spec`.

    `spec` holds, in order, None (a new dim of size 1), "int" (a dim selected and dropped) or
    (length, step) (a dim sliced), one non-None item per input dim; `offset` is the window's first
    element as a flat position in a contiguous array of `shape` (so each start is below its size).
    """
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    offset = jnp.asarray(offset)
    starts, spans, steps, result = [], [], [], []
    d = 0
    for it in spec:
        if it is None:
            result.append(1)
            continue
        starts.append((offset // strides[d]) % shape[d])
        length, step = (1, 1) if it == "int" else it
        spans.append((length - 1) * step + 1)
        steps.append(step)
        if it != "int":
            result.append(length)
        d += 1
    return starts, spans, steps, tuple(result)


def getitem_window(input, offset, spec):
    """input[index] for a basic index (ints and non-empty slices) whose starts are traced: `offset`
    encodes them (see `_window`), so one program serves every start."""
    starts, spans, steps, result = _window(input.shape, offset, spec)
    out = jax.lax.dynamic_slice(input, starts, spans)
    if any(s != 1 for s in steps):
        out = out[tuple(slice(None, None, s) for s in steps)]
    return out.reshape(result)


def setitem_window(input, offset, spec, values):
    """input with input[index] (as in getitem_window) replaced by `values` (broadcast, cast to input's dtype)."""
    starts, spans, steps, result = _window(input.shape, offset, spec)
    values = jnp.asarray(values).astype(input.dtype)
    vs = tuple(values.shape)
    while len(vs) > len(result) and vs[0] == 1:
        vs = vs[1:]
    values = jnp.broadcast_to(values.reshape(vs), _expand_shape(vs, result))
    strided = tuple(len(range(0, n, s)) for n, s in zip(spans, steps))
    values = values.reshape(strided)
    if any(s != 1 for s in steps):
        window = jax.lax.dynamic_slice(input, starts, spans)
        values = window.at[tuple(slice(None, None, s) for s in steps)].set(values)
    return jax.lax.dynamic_update_slice(input, values, starts)


def index_put(input, indices, values, accumulate=False):
    """input with input[indices] (a tuple of integer arrays) set to, or with accumulate increased by, values."""
    positions = _index(_iota(input.shape), *_expand_index(input.shape, tuple(indices)))
    return _scatter_flat(input, positions, _value_to(values.astype(input.dtype), positions.shape), accumulate)


# ---------------------------------------------------------------------------- gather / scatter

def gather(input, dim, index, *, sparse_grad=False):
    """out[i][j][k] = input[index[i][j][k]][j][k] (for dim 0): values along `dim` picked by `index`,
    which has input's number of dims and is no larger than input in the others."""
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = _dim(dim, input.ndim)
    if input.ndim == 0 or index.ndim == 0:
        return jnp.take(input.reshape(-1), index.reshape(-1), mode="clip").reshape(index.shape)
    for i, (a, b) in enumerate(zip(index.shape, input.shape)):
        if i != d and a > b:
            raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index.shape)} to be no "
                               f"larger than self {list(input.shape)} apart from dimension {d}")
    return input[_along(index, d)]


def _scatter_index(input, dim, index, src):
    """(full index tuple, src cut to index's shape) for the scatter family, after torch's shape checks."""
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = _dim(dim, input.ndim)
    if src.ndim and src.ndim != index.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if input.ndim == 0:
        return (jnp.zeros(index.shape, jnp.int32),), src.reshape(-1)[:index.size].reshape(index.shape) \
            if src.ndim else src, 0
    for i, n in enumerate(index.shape):
        if (i != d and n > input.shape[i]) or (src.ndim and n > src.shape[i]):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
                               f"apart from dimension {d} and to be no larger size than src {list(src.shape)}")
    if src.ndim:
        src = src[tuple(slice(0, n) for n in index.shape)]
    return _along(index, d), src, d


def _flat_positions(input, where):
    return _iota(input.shape if input.ndim else (1,))[where]


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """input with out[index[i][j]][j] = src[i][j] (for dim 0); `src` an array shaped at least like index,
    or a scalar (`value`). reduce='add' | 'multiply' combines with the existing value instead."""
    src = value if src is None else src
    src = jnp.asarray(src).astype(input.dtype)
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    where, src, _ = _scatter_index(input, dim, index, src)
    src = jnp.broadcast_to(src, index.shape)
    if reduce == "add":
        return _reshape_like(input, _at(input).at[where].add(src))
    if reduce == "multiply":
        return _reshape_like(input, _at(input).at[where].multiply(src))
    return _scatter_flat(input, _flat_positions(input, where), src)


def _at(input):
    return input.reshape(1) if input.ndim == 0 else input


def _reshape_like(input, out):
    return out.reshape(input.shape)


def scatter_add(input, dim, index, src):
    """input with src[i][j] added at out[index[i][j]][j] (for dim 0); repeated indices accumulate."""
    where, src, _ = _scatter_index(input, dim, index, src)
    return _reshape_like(input, _at(input).at[where].add(src))


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with the src values at each position (index as in `scatter`) reduced into it by `reduce`:
    'sum', 'prod', 'mean', 'amax' or 'amin'; without include_self, input's own value at a position that
    receives any src value is left out. Integer 'mean' rounds down."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    where, src, _ = _scatter_index(input, dim, index, src)
    base = _at(input)
    if reduce == "prod":
        return _reshape_like(input, _scatter_prod(base, where, src, include_self))
    if reduce in ("amax", "amin"):
        return _reshape_like(input, _scatter_extreme(base, where, src, reduce, include_self))
    hit = jnp.zeros(base.shape, bool).at[where].set(True)
    if not include_self:
        base = jnp.where(hit, jnp.zeros_like(base), base)
    total = base.at[where].add(src)
    if reduce == "sum":
        return _reshape_like(input, total)
    count = jnp.zeros(base.shape, base.dtype).at[where].add(jnp.ones_like(src)) + (1 if include_self else 0)
    count = jnp.where(count == 0, jnp.ones_like(count), count)
    out = total // count if jnp.issubdtype(base.dtype, jnp.integer) else total / count
    return _reshape_like(input, out)


@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def _scatter_extreme(base, where, src, reduce, include_self):
    return _extreme_fwd(base, where, src, reduce, include_self)[0]


def _extreme_fwd(base, where, src, reduce, include_self):
    hit = jnp.zeros(base.shape, bool).at[where].set(True)
    if not include_self:
        if jnp.issubdtype(base.dtype, jnp.floating):
            fill = -jnp.inf if reduce == "amax" else jnp.inf
        elif base.dtype == jnp.bool_:
            fill = reduce == "amin"
        else:
            fill = jnp.iinfo(base.dtype).min if reduce == "amax" else jnp.iinfo(base.dtype).max
        base_in = jnp.where(hit, jnp.asarray(fill, base.dtype), base)
    else:
        base_in = base
    out = base_in.at[where].max(src) if reduce == "amax" else base_in.at[where].min(src)
    return out, (base, where, src, hit, out)


def _extreme_bwd(reduce, include_self, res, g):
    # torch's formula: the gradient is shared evenly by every value equal to the result, input's own
    # value counted among them even without include_self (whose share is then dropped).
    base, where, src, hit, out = res
    self_is = (base == out).astype(g.dtype)
    src_is = (src == out[where]).astype(g.dtype)
    share = g / (self_is.at[where].add(src_is))
    g_base = self_is * share
    if not include_self:
        g_base = jnp.where(hit, jnp.zeros_like(g_base), g_base)
    return g_base, None, src_is * share[where]


_scatter_extreme.defvjp(_extreme_fwd, _extreme_bwd)


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def _scatter_prod(base, where, src, include_self):
    return _prod_fwd(base, where, src, include_self)[0]


def _prod_fwd(base, where, src, include_self):
    hit = jnp.zeros(base.shape, bool).at[where].set(True)
    start = base if include_self else jnp.where(hit, jnp.ones_like(base), base)
    out = start.at[where].multiply(src)
    return out, (base, where, src, hit, out)


def _prod_bwd(include_self, res, g):
    # torch's formula: exclusive products, computed by replacing a lone zero with 1.
    base, where, src, hit, out = res
    one = jnp.ones_like(base)
    masked_base = jnp.where(base == 0, one, base)
    start = masked_base if include_self else jnp.where(hit, one, masked_base)
    g_base = g * start.at[where].multiply(src) / masked_base
    if not include_self:
        g_base = jnp.where(hit, jnp.zeros_like(g_base), g)
    src_zero = src == 0
    zeros = jnp.zeros(base.shape, base.dtype).at[where].add(src_zero.astype(base.dtype))[where]
    single = src_zero & (zeros == 1)
    start = base if include_self else jnp.where(hit, one, base)
    with_one = start.at[where].multiply(jnp.where(single, jnp.ones_like(src), src))
    g_src = jnp.where(single, (g * with_one)[where], (g * out)[where] / jnp.where(src_zero, jnp.ones_like(src), src))
    return g_base, None, g_src


_scatter_prod.defvjp(_prod_fwd, _prod_bwd)


# ---------------------------------------------------------------------------- index_*

def _index_vector(index, what):
    if index.ndim > 1:
        raise IndexError(f"{what}(): Index is supposed to be a vector")
    return index.reshape(-1)


def _slots(input, d, index):
    """Index tuple addressing input[..., index, ...] along dim d (input made at least 1-D)."""
    return (slice(None),) * d + (index,)


def index_select(input, dim, index):
    """input's slices along `dim` at positions `index` (a vector), in that order."""
    d = _dim(dim, input.ndim)
    index = _index_vector(index, "index_select")
    if input.ndim == 0:
        return jnp.take(input.reshape(1), index, mode="clip").reshape(())
    return jnp.take(input, index, axis=d, mode="clip")


def _source_check(fn, input, d, index, source):
    n = source.shape[d] if source.ndim else 1
    if index.shape[0] != n:
        raise RuntimeError(f"{fn}(): Number of indices ({index.shape[0]}) should be equal to source.size(dim): "
                           f"({n}), for dim: {d}")
    if source.ndim != input.ndim or any(a != b for i, (a, b) in enumerate(zip(input.shape, source.shape)) if i != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")


def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha * source's slices added at positions `index` along `dim` (repeats accumulate)."""
    d = _dim(dim, input.ndim)
    index = _index_vector(index, "index_add")
    base, source = _at(input), _at(source)
    _source_check("index_add_", base, d, index, source)
    return _reshape_like(input, base.at[_slots(base, d, index)].add(source * alpha))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices reduced into its slices at positions `index` along `dim` by `reduce`
    ('prod', 'mean', 'amax' or 'amin'): scatter_reduce with the index spread over source's shape."""
    d = _dim(dim, input.ndim)
    index = _index_vector(index, "index_reduce")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    base, source = _at(input), _at(source)
    _source_check("index_reduce_", base, d, index, source)
    shape = [1] * source.ndim
    shape[d] = -1
    spread = jnp.broadcast_to(index.reshape(shape), source.shape)
    return _reshape_like(input, scatter_reduce(base, d, spread, source, reduce, include_self=include_self))


def index_copy(input, dim, index, source):
    """input with its slices at positions `index` along `dim` replaced by source's."""
    d = _dim(dim, input.ndim)
    index = _index_vector(index, "index_copy")
    base, source = _at(input), _at(source)
    if index.shape[0] != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({index.shape[0]}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    _source_check("index_copy_", base, d, index, source)
    positions = _iota(base.shape)[_slots(base, d, index)]
    return _scatter_flat(input, positions, source)


def index_fill(input, dim, index, value):
    """input with its slices at positions `index` along `dim` set to the scalar `value`."""
    d = _dim(dim, input.ndim)
    index = _index_vector(index, "index_fill")
    base = _at(input)
    return _reshape_like(input, base.at[_slots(base, d, index)].set(jnp.asarray(value).astype(input.dtype)))


# ---------------------------------------------------------------------------- masks

def masked_fill(input, mask, value):
    """input with the scalar `value` where the boolean `mask` (broadcast to input) is True."""
    if mask.dtype != jnp.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {cpp_name(mask.dtype)}")
    shape = broadcast_shapes(input.shape, mask.shape)
    value = jnp.asarray(value)
    if value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    return jnp.where(mask, value.astype(input.dtype), jnp.broadcast_to(input, shape))


def masked_select(input, mask):
    """The elements of input (broadcast with mask) where mask is True, as a 1-D array (data-dependent size)."""
    if mask.dtype != jnp.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    input, mask = jnp.broadcast_arrays(input, mask)
    return input[mask]


def masked_scatter(input, mask, source):
    """input with the positions where mask is True filled, in row-major order, by source's first elements."""
    if mask.dtype != jnp.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_name(mask.dtype)}")
    shape = broadcast_shapes(input.shape, mask.shape)
    mask = jnp.broadcast_to(mask, shape)
    flat = source.reshape(-1)
    pick = jnp.cumsum(mask.reshape(-1)) - 1
    taken = flat[jnp.clip(pick, 0, max(flat.shape[0] - 1, 0))] if flat.shape[0] else jnp.zeros(pick.shape,
                                                                                                input.dtype)
    return jnp.where(mask, taken.reshape(shape).astype(input.dtype), jnp.broadcast_to(input, shape))


# ---------------------------------------------------------------------------- flat and along-dim picks

def take(input, index):
    """input's elements at flat (row-major) positions `index`, in index's shape; negative ones count from the end."""
    flat = input.reshape(-1)
    return jnp.take(flat, jnp.where(index < 0, index + flat.shape[0], index), mode="clip")


def take_along_dim(input, indices, dim=None):
    """Values of input picked along `dim` by `indices` (broadcast against input in the other dims);
    with no dim, from the flattened input."""
    if dim is None:
        return take(input, indices.reshape(-1)) if indices.ndim else take(input, indices.reshape(1))
    d = _dim(dim, input.ndim)
    if indices.ndim != input.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    shape_i = list(input.shape)
    shape_x = list(indices.shape)
    shape_i[d] = shape_x[d] = 1
    common = list(broadcast_shapes(tuple(shape_i), tuple(shape_x)))
    bi, bx = common.copy(), common.copy()
    bi[d], bx[d] = input.shape[d], indices.shape[d]
    return gather(jnp.broadcast_to(input, bi), d, jnp.broadcast_to(indices, bx))


def put(input, index, source, accumulate=False):
    """input with the elements at flat positions `index` replaced by (or increased by) source's, in order."""
    if index.size != source.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.size}, index.numel() = {index.size}")
    n = max(input.size, 1)
    pos = jnp.where(index < 0, index + n, index).reshape(-1)
    return _scatter_flat(input, pos, source.reshape(-1), accumulate)


def nonzero(input, *, as_tuple=False):
    """Coordinates of input's nonzero elements: (count, ndim), or with as_tuple one vector per dim.
    The count is data-dependent, so this cannot run under jit."""
    flat = input.reshape(1) if input.ndim == 0 else input
    if not isinstance(flat, jax.core.Tracer):  # concrete: one host pass instead of several eager device ops
        found = np.argwhere(np.asarray(flat)).astype(np.int64)
        out = tuple(np.ascontiguousarray(found[:, i]) for i in range(flat.ndim)) if as_tuple else found
        if input.ndim == 0 and not as_tuple:
            out = found[:, :0]
        return jax.device_put(out, next(iter(flat.devices())))
    found = jnp.argwhere(flat).astype(jnp.int64)
    if input.ndim == 0:
        return (found[:, 0],) if as_tuple else found[:, :0]
    return tuple(found[:, i] for i in range(input.ndim)) if as_tuple else found


def argwhere(input):
    """nonzero(input): the (count, ndim) coordinates of input's nonzero elements."""
    return nonzero(input)
