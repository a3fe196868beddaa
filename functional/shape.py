"""Shape and view ops with torch's semantics.

Shapes, dims and sizes are static Python values; every check on them runs at trace time
and raises torch's exception type with torch's message.
"""

import math
import operator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = [
    "reshape", "view", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "t", "movedim",
    "expand", "broadcast_to", "broadcast_tensors", "repeat", "repeat_interleave", "tile", "cat", "stack", "hstack",
    "vstack", "dstack", "column_stack", "split", "chunk", "unbind", "tensor_split", "narrow", "select", "flip",
    "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag", "diagonal", "diag_embed", "diagflat", "meshgrid",
    "atleast_1d", "atleast_2d", "atleast_3d", "unfold", "as_strided", "ravel", "broadcast_shapes", "infer_size",
]


# ---------------------------------------------------------------------------- helpers

def _dim(dim, ndim):
    """`dim` wrapped into [0, ndim) (a 0-dim tensor accepts -1 and 0), or torch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _dims(dims, ndim, what="dim"):
    """A tuple of wrapped dims with no repeats."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = tuple(_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"{what} {d} appears multiple times in the list of dims")
    return out


def _prod(xs):
    return math.prod(x if jax.export.is_symbolic_dim(x) else int(x) for x in xs)


def infer_size(shape, numel):
    """`shape` with its one -1 resolved for `numel` elements (torch's infer_size)."""
    shape = [s if jax.export.is_symbolic_dim(s) else int(s) for s in shape]  # torch.export's dynamic sizes
    infer = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
    known = _prod(s for s in shape if s != -1)
    if infer is None:
        if known != numel:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        return tuple(shape)
    if known == 0:
        if numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    if numel % known:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    shape[infer] = numel // known
    return tuple(shape)


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes, with torch's error for incompatible sizes."""
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != 1 and out[i] != 1 and n != out[i]:
                raise RuntimeError(f"The size of tensor a ({out[i]}) must match the size of tensor b ({n}) at "
                                   f"non-singleton dimension {i}")
            if out[i] == 1:
                out[i] = n
    return tuple(out)


# ---------------------------------------------------------------------------- reshaping

def reshape(input, shape):
    """input with a new shape holding the same elements in row-major order; one size may be -1."""
    return jnp.reshape(input, infer_size(shape, input.size))


def view(input, shape):
    """`reshape`, or with a dtype for `shape`: the same bytes read as that dtype (the last dim scales by the
    ratio of element sizes)."""
    if isinstance(shape, (tuple, list)) and len(shape) == 1 and isinstance(shape[0], np.dtype):
        shape = shape[0]
    if isinstance(shape, np.dtype):
        return _view_dtype(input, shape)
    return reshape(input, shape)


def _view_dtype(input, dtype):
    src, dst = input.dtype.itemsize, dtype.itemsize
    if src == dst:
        return lax.bitcast_convert_type(input, dtype)
    names = {np.dtype(np.float32): "Float", np.dtype(np.float64): "Double", np.dtype(np.float16): "Half",
             np.dtype(np.int64): "Long", np.dtype(np.int32): "Int", np.dtype(np.int16): "Short",
             np.dtype(np.int8): "Char", np.dtype(np.uint8): "Byte", np.dtype(np.bool_): "Bool"}
    how = f"to view {names.get(input.dtype, input.dtype)} as {names.get(dtype, dtype)} (different element sizes)"
    if input.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {how}")
    if src < dst:
        k = dst // src
        if input.shape[-1] % k:
            raise RuntimeError(f"self.size(-1) must be divisible by {k} {how}, but got {input.shape[-1]}")
        return lax.bitcast_convert_type(input.reshape(*input.shape[:-1], input.shape[-1] // k, k), dtype)
    out = lax.bitcast_convert_type(input, dtype)  # (..., n, k)
    return out.reshape(*input.shape[:-1], -1)


def flatten(input, start_dim=0, end_dim=-1):
    """input with dims start_dim..end_dim merged into one; a 0-dim input becomes shape (1,)."""
    s, e = _dim(start_dim, input.ndim), _dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if input.ndim == 0:
        return input.reshape(1)
    return input.reshape(*input.shape[:s], _prod(input.shape[s:e + 1]), *input.shape[e + 1:])


def ravel(input):
    """input flattened to 1-D."""
    return input.reshape(-1)


def unflatten(input, dim, sizes):
    """input with dim `dim` split into `sizes` (one of which may be -1)."""
    d = _dim(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d] if input.ndim else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error: only one dimension can be inferred")
    if -1 not in sizes and _prod(sizes) != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} ({n}) "
                           "in the input tensor")
    sizes = infer_size(sizes, n)
    return input.reshape(*input.shape[:d], *sizes, *input.shape[d + 1:])


def squeeze(input, dim=None):
    """input without its size-1 dims (all of them, or those among `dim`, an int or a tuple)."""
    if dim is None:
        return input.reshape([s for s in input.shape if s != 1])
    dims = _dims(dim, input.ndim)
    if input.ndim == 0:
        return input
    return input.reshape([s for i, s in enumerate(input.shape) if not (i in dims and s == 1)])


def unsqueeze(input, dim):
    """input with a new size-1 dim at `dim` (in [-ndim-1, ndim])."""
    return jnp.expand_dims(input, _dim(dim, input.ndim + 1))


def permute(input, dims):
    """input with its dims reordered: result dim i is input dim dims[i]."""
    if len(dims) != input.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    dims = [_dim(d, input.ndim) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return jnp.transpose(input, dims)


def transpose(input, dim0, dim1):
    """input with dims dim0 and dim1 swapped."""
    d0, d1 = _dim(dim0, input.ndim), _dim(dim1, input.ndim)
    return jnp.swapaxes(input, d0, d1) if input.ndim else input


def t(input):
    """The transpose of a matrix; 0-dim and 1-dim inputs come back as they are."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return input.T


def movedim(input, source, destination):
    """input with dims `source` moved to positions `destination` (ints or tuples); the others keep their order."""
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    s = [_dim(d, input.ndim) for d in src]
    d = [_dim(x, input.ndim) for x in dst]
    if len(set(s)) != len(s):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(d)) != len(d):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    return jnp.moveaxis(input, s, d) if input.ndim else input


# ---------------------------------------------------------------------------- broadcasting and repeating

def _expand_shape(shape, size):
    size = [int(s) for s in size]
    if len(size) < len(shape):
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(shape)}}}, size={size}): the number of sizes provided "
                           f"({len(size)}) must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})")
    lead = len(size) - len(shape)
    out = [0] * len(size)
    for i in range(len(size) - 1, -1, -1):  # torch checks from the last dim
        s = size[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            out[i] = s
            continue
        n = shape[i - lead]
        if s == -1:
            s = n
        elif n != 1 and s != n:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({n}) at "
                               f"non-singleton dimension {i}.  Target sizes: {size}.  Tensor sizes: {list(shape)}")
        out[i] = s
    return tuple(out)


def expand(input, size):
    """input broadcast to `size`; -1 keeps a dim's size, new dims go in front (torch's Tensor.expand)."""
    return jnp.broadcast_to(input, _expand_shape(input.shape, size))


def broadcast_to(input, size):
    """input broadcast to `size` (as `expand`)."""
    return expand(input, size)


def broadcast_tensors(*tensors):
    """The tensors broadcast to their common shape."""
    shape = broadcast_shapes(*(x.shape for x in tensors))
    return tuple(jnp.broadcast_to(x, shape) for x in tensors)


def repeat(input, repeats):
    """input tiled `repeats[i]` times along dim i; extra leading repeats add dims (torch's Tensor.repeat)."""
    repeats = tuple(int(r) for r in repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    shape = (1,) * (len(repeats) - input.ndim) + input.shape
    out = [s * r for s, r in zip(shape, repeats)]
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {out}")
    return jnp.tile(input.reshape(shape), repeats)


def tile(input, dims):
    """input tiled `dims[i]` times along dim i; a short `dims` is padded with leading 1s."""
    dims = tuple(int(d) for d in dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along `dim`) of input repeated `repeats` times, consecutively.

    repeats: an int, or an integer array with one count per element along `dim`. With
    `input` alone (an integer array of counts) it returns `arange(len(input))` repeated.
    Array repeats make the output size data-dependent unless `output_size` is given.
    """
    if repeats is None:
        counts = input
        _check_repeats(counts, output_size)
        return jnp.repeat(jnp.arange(counts.shape[0], dtype=jnp.int64), counts, total_repeat_length=output_size)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _dim(dim, input.ndim)
        if input.ndim == 0:
            input = input.reshape(1)
    if not isinstance(repeats, int):
        repeats = jnp.asarray(repeats)
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.ndim == 0 or repeats.shape[0] == 1:
            repeats = repeats.reshape(())
        elif repeats.shape[0] != input.shape[d]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.shape[0]} and input.size({d}) = {input.shape[d]}")
    elif repeats < 0:
        raise RuntimeError("repeats can not be negative")
    _check_repeats(repeats, output_size, input.shape[d])
    return jnp.repeat(input, repeats, axis=d, total_repeat_length=output_size)


def _check_repeats(repeats, output_size, n=None):
    try:
        r = np.asarray(repeats)
    except Exception:  # traced: the values are not known here
        return
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(r.sum()) if r.ndim else int(r) * (n if n is not None else 1)
    if output_size is not None and total != output_size:
        raise RuntimeError("allocated size does not match required size")


# ---------------------------------------------------------------------------- joining

def cat(tensors, dim=0, *, axis=None):
    """The tensors joined along `dim`. 1-D empty tensors (shape (0,)) are skipped, as torch's legacy rule."""
    if not isinstance(tensors, (list, tuple)) or len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dim = dim if axis is None else axis
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, x) for i, x in enumerate(tensors) if x.shape != (0,)]
    if not kept:
        return tensors[0]
    ref = kept[0][1]
    d = _dim(dim, ref.ndim)
    for i, x in kept:
        if x.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {x.ndim}")
        for j, (a, b) in enumerate(zip(ref.shape, x.shape)):
            if j != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but got "
                                   f"size {b} for tensor number {i} in the list.")
    return jnp.concatenate([x for _, x in kept], axis=d)


def stack(tensors, dim=0):
    """The tensors (all of one shape) joined along a new dim `dim`."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _dim(dim, tensors[0].ndim + 1)
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(x.shape)} at entry {i}")
    return jnp.stack(tensors, axis=d)


def hstack(tensors):
    """The tensors (made at least 1-D) joined along dim 0 if 1-D, else dim 1."""
    ts = atleast_1d(*tensors) if len(tensors) > 1 else (atleast_1d(*tensors),)
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors):
    """The tensors (made at least 2-D) joined along dim 0."""
    ts = atleast_2d(*tensors) if len(tensors) > 1 else (atleast_2d(*tensors),)
    return cat(ts, 0)


def dstack(tensors):
    """The tensors (made at least 3-D) joined along dim 2."""
    ts = atleast_3d(*tensors) if len(tensors) > 1 else (atleast_3d(*tensors),)
    return cat(ts, 2)


def column_stack(tensors):
    """The tensors joined along dim 1, 0-dim and 1-D ones first made columns (n, 1)."""
    return cat([x.reshape(-1, 1) if x.ndim <= 1 else x for x in tensors], 1)


# ---------------------------------------------------------------------------- splitting

def split_bounds(kind, n, spec):
    """[(start, stop), ...] of the pieces of a dim of size n cut by split / chunk / tensor_split with `spec`."""
    if kind == "split":
        if isinstance(spec, int):
            if spec < 0:
                raise RuntimeError(f"split expects split_size be non-negative, but got split_size={spec}")
            if spec == 0 and n != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
            k = max(-(-n // spec) if spec else 1, 1)
            sizes = [spec] * (k - 1) + [n - spec * (k - 1)]
        else:
            sizes = [int(x) for x in spec]
            if any(x < 0 for x in sizes) or sum(sizes) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                                   f"at dimension {{dim}}), but got split_sizes={sizes}")
    elif kind == "chunk":
        if spec <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {spec}")
        if n == 0:
            return [(0, 0)] * spec
        return split_bounds("split", n, -(-n // spec))
    elif isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        q, r = divmod(n, spec)
        sizes = [q + 1] * r + [q] * (spec - r)
    else:
        cuts = [0, *(int(i) for i in spec), None]
        return [slice(a, b).indices(n)[:2] for a, b in zip(cuts[:-1], cuts[1:])]
    out, a = [], 0
    for x in sizes:
        out.append((a, a + x))
        a += x
    return out


def _split(kind, input, spec, dim):
    if input.ndim == 0:
        if kind == "tensor_split":
            raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
        raise RuntimeError(f"{kind} expects at least a 1-dimensional tensor")
    d = _dim(dim, input.ndim)
    try:
        bounds = split_bounds(kind, input.shape[d], spec)
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("{dim}", str(d))) from None
    return tuple(lax.slice_in_dim(input, a, max(a, b), axis=d) for a, b in bounds)


def split(tensor, split_size_or_sections, dim=0):
    """tensor cut along `dim` into pieces of `split_size_or_sections` (an int: equal pieces, the last
    smaller; a list: those sizes, summing to the dim's size)."""
    return _split("split", tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    """input cut along `dim` into at most `chunks` pieces of ceil(size / chunks)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return _split("chunk", input, chunks, dim)


def unbind(input, dim=0):
    """The slices of input along `dim`, that dim removed."""
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(dim, input.ndim)
    return tuple(lax.index_in_dim(input, i, axis=d, keepdims=False) for i in range(input.shape[d]))


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None):
    """input cut along `dim` into `sections` near-equal pieces (the first size % sections one longer), or at
    the positions `indices` (Python slice rules: a piece may be empty)."""
    if sections is not None:
        indices_or_sections = sections
    elif indices is not None:
        indices_or_sections = indices
    return _split("tensor_split", input, indices_or_sections, dim)


def _traced(v):
    return isinstance(v, jax.Array) or hasattr(v, "aval")


def narrow_start(shape, d, start, length):
    """narrow's start in [0, n] for a concrete `start`, or torch's error."""
    n = shape[d]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    start %= max(n, 1) if start < 0 else n + 1
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return start


def narrow(input, dim, start, length):
    """input[..., start:start + length, ...] along `dim` (start may be negative). A traced `start` (one
    program for every value) is not range-checked: like lax.dynamic_slice, it is clamped to fit."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input.ndim)
    if _traced(start):
        start = jnp.where(start < 0, start + input.shape[d], start)
        return lax.dynamic_slice_in_dim(input, start, int(length), axis=d)
    start = narrow_start(input.shape, d, start, length)
    return lax.slice_in_dim(input, start, start + length, axis=d)


def select_index(shape, d, index):
    """select's index in [0, n) for a concrete `index`, or torch's error."""
    n = shape[d]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at "
                         f"dimension {d}")
    return index % n


def select(input, dim, index):
    """input[..., index, ...] along `dim`, that dim removed. A traced `index` (one program for every value)
    is not range-checked: like lax.dynamic_index_in_dim, it is clamped to fit."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input.ndim)
    if _traced(index):
        index = jnp.where(index < 0, index + input.shape[d], index)
        return lax.dynamic_index_in_dim(input, index, axis=d, keepdims=False)
    return lax.index_in_dim(input, select_index(input.shape, d, index), axis=d, keepdims=False)


def unfold(input, dimension, size, step):
    """All windows of `size` elements along `dimension`, `step` apart, as a new last dim (torch's Tensor.unfold)."""
    d = _dim(dimension, input.ndim)
    scalar = input.ndim == 0
    if scalar:
        input = input.reshape(1)
    n = input.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (n - size) // step + 1
    idx = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    out = jnp.take(input, idx, axis=d)  # (..., count, size, ...)
    out = jnp.moveaxis(out, d + 1, -1)
    return out.reshape(size) if scalar else out


def strided_positions(size, stride, storage_offset=0):
    """The flat positions offset + sum(i_k * stride_k) of a strided view of shape `size` (an int64 numpy array)."""
    idx = np.full(tuple(size), int(storage_offset), dtype=np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def as_strided(input, size, stride, storage_offset=None):
    """The elements of input's row-major storage at offset + sum(i_k * stride_k), in shape `size`."""
    off = int(storage_offset or 0)
    idx = strided_positions(size, stride, off)
    if idx.size and idx.max() >= input.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                           f"itemsize {input.dtype.itemsize} requiring a storage size of "
                           f"{(int(idx.max()) + 1) * input.dtype.itemsize} are out of bounds for storage of size "
                           f"{input.size * input.dtype.itemsize}")
    return input.reshape(-1)[idx]


# ---------------------------------------------------------------------------- reordering

def flip(input, dims):
    """input reversed along each of `dims`."""
    dims = _dims(dims, input.ndim, "dim")
    return jnp.flip(input, dims) if input.ndim and dims else input


def fliplr(input):
    """input reversed along dim 1."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return jnp.flip(input, 1)


def flipud(input):
    """input reversed along dim 0."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return jnp.flip(input, 0)


def _shift_list(shifts):
    """roll's shifts as a list of ints and traced integer scalars (an array gives one per element)."""
    if isinstance(shifts, (list, tuple)):
        return [s for x in shifts for s in _shift_list(x)]
    if _traced(shifts) or isinstance(shifts, np.ndarray):
        if not jnp.issubdtype(shifts.dtype, jnp.integer) and shifts.dtype != jnp.bool_:
            raise TypeError(f"roll(): shifts must be integers, not {shifts.dtype}")
        flat = jnp.asarray(shifts).reshape(-1).astype(jnp.int64)
        return [flat[i] for i in range(flat.shape[0])]
    return [operator.index(shifts)]


def roll(input, shifts, dims=None):
    """input rolled by `shifts` along `dims` (elements leaving one end re-enter at the other); with no dims,
    rolled as if flattened. A shift may be a traced integer scalar: one program serves every shift."""
    shifts = _shift_list(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return input if input.size == 0 else jnp.roll(input.reshape(-1), shifts[0]).reshape(input.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = [_dim(d, input.ndim) for d in dims]
    if input.size == 0:
        return input
    for s, d in zip(shifts, dims):  # jnp.roll slices statically for an int, dynamically for a traced shift
        input = jnp.roll(input, s, d)
    return input


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by k * 90 degrees in the plane of `dims`, from the first towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _dim(dims[0], input.ndim), _dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return jnp.rot90(input, k, (d0, d1))


# ---------------------------------------------------------------------------- triangles and diagonals

def tril(input, diagonal=0):
    """input with elements above the `diagonal`-th diagonal of its last two dims zeroed."""
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return jnp.tril(input, diagonal)


def triu(input, diagonal=0):
    """input with elements below the `diagonal`-th diagonal of its last two dims zeroed."""
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return jnp.triu(input, diagonal)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The `offset`-th diagonal of the planes (dim1, dim2), as a new last dim."""
    return _diagonal(input, offset, dim1, dim2)


def _diagonal(input, offset, dim1, dim2):
    d1, d2 = _dim(dim1, input.ndim), _dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return jnp.diagonal(input, offset, d1, d2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices in the planes (dim1, dim2) of the output whose `offset`-th diagonal is input's last dim."""
    nd = input.ndim + 1
    d1, d2 = _dim(dim1, nd), _dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + abs(offset)
    i = np.arange(input.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out = jnp.zeros((*input.shape[:-1], n, n), input.dtype).at[..., rows, cols].set(input)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


def diag(input, diagonal=0):
    """A 1-D input as the `diagonal`-th diagonal of a square matrix; of a 2-D input, that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        return _diagonal(input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    """input flattened, as the `offset`-th diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


# ---------------------------------------------------------------------------- grids and dims

def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-D/1-D tensors; 'ij' (default) gives shape (len0, len1, ...), 'xy' swaps the first two."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for x in tensors:
        if x.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a {x.ndim}-D "
                               "tensor")
        if x.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    return tuple(jnp.meshgrid(*[x.reshape(-1) for x in tensors], indexing=indexing))


_ATLEAST = {  # (n, ndim) -> the shape an input of that ndim takes
    (1, 0): lambda s: (1,), (2, 0): lambda s: (1, 1), (2, 1): lambda s: (1, *s), (3, 0): lambda s: (1, 1, 1),
    (3, 1): lambda s: (1, *s, 1), (3, 2): lambda s: (*s, 1),
}


def _atleast(n, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(n, (x,)) for x in tensors[0])
    out = [x.reshape(_ATLEAST[n, x.ndim](x.shape)) if x.ndim < n else x for x in tensors]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (0-dim -> (1,)); one tensor in, one out."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims ((n,) -> (1, n))."""
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims ((n,) -> (1, n, 1), (m, n) -> (m, n, 1))."""
    return _atleast(3, tensors)
