"""Host mode: tensors inside DataLoader worker processes, which never start JAX's runtime.

A process that forks while JAX's runtime threads run can deadlock, and a worker that started JAX
would claim accelerator memory of its own. So a worker calls `enter()` before it touches a
dataset, and from then on in that process:

- tensors hold numpy arrays: creation ops build them with numpy, unpickled tensors keep theirs;
- an op's result dtype and shape, and torch's errors for bad input, come from its functional
  function traced abstractly (`jax.eval_shape` traces without starting a backend); its values
  come from the numpy rule for it in `_NUMPY` below: the ops a dataset's `__getitem__` needs
  (arithmetic, comparisons, casts, indexing, reshaping, joining, reductions; see `SUPPORTED`);
- random draws (`rand`, `randn`, `randint`, `randperm`, `normal`, `bernoulli`, `uniform_`,
  `normal_`, `random_`, `exponential_` ...) come from numpy, keyed by the torch Generator's state;
- any other op raises a RuntimeError that names it; autograd is not recorded.

Batches leave the worker pickled as numpy arrays and become device tensors in the main process.
"""

from __future__ import annotations

import math

import numpy as np

from functional.pointwise import _pow_kernel, pow_kernel_exponent
from functional.reductions import _axes as _dims_of  # the functional's own reading of dim= arguments
from functional.shape import _dim

ACTIVE = False  # set once, in a worker process, by enter()

_ABSTRACT = {}  # (Compiled, argument signature) -> result avals of the functional function


def enter():
    """Switch this process to host mode (DataLoader workers call this first)."""
    global ACTIVE
    ACTIVE = True
    import jax
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        # Should anything still reach JAX here, let it be the CPU, never a worker-owned accelerator.
        jax.config.update("jax_platforms", "cpu")


def jax_device(d):
    """_device.jax_device in host mode: None (creation ops then build numpy arrays); CPU tensors only."""
    if d.type != "cpu":
        raise RuntimeError(f"DataLoader worker processes make CPU tensors only (got device='{d}'); move the "
                           "batch to the device in the main process, e.g. with pin_memory_device= or batch.to().")
    return None


def _unsupported(what):
    return RuntimeError(f"{what} is not available in DataLoader worker processes, which build host (numpy) tensors "
                        "and never touch JAX. Do it on the batch in the main process, or with numpy in the dataset. "
                        f"Available in workers: {', '.join(SUPPORTED)}.")


# ---------------------------------------------------------------------------- ops

# Each rule below gives torch's values, NaN, +-inf and signed zeros included, where numpy's
# function of the same name differs (tests/test_ops.py::test_op_host holds every rule to torch).

def _axes(input, dim, empty_is_all=True):
    return _dims_of(dim, input.ndim, empty_is_all)


def _on_dims(f):
    """f for an input with dims; a 0-dim input (whose dim may be 0 or -1) is its own result."""
    def on_dims(input, *args, **kwargs):
        return input if input.ndim == 0 else f(input, *args, **kwargs)

    return on_dims


def _sign(input):
    if input.dtype == np.bool_:
        return input
    return np.where(input != input, 0, np.sign(input))  # torch CPU: sign(nan) is 0


def _at_least(input, low):  # torch's clamp: a NaN bound gives NaN, and x is kept where x == low (-0.0 stays)
    return np.where((input < low) | (low != low), low, input)


def _at_most(input, high):
    return np.where((input > high) | (high != high), high, input)


def _remainder(input, other):
    r = np.fmod(input, other)  # torch: a zero keeps the sign of fmod's (the dividend's), not the divisor's
    return np.where((r != 0) & ((r < 0) != (other < 0)), r + other, r)


def _pow(input, exponent):
    if not np.issubdtype(np.result_type(input, exponent), np.integer):
        return np.power(input, exponent)
    neg = exponent < 0  # integer powers: a negative exponent gives 0 unless the base is 1 or -1
    pos = np.power(input, np.where(neg, 0, exponent))
    return np.where(neg, np.where(input == 1, 1, np.where(input == -1, np.where(exponent % 2 == 0, 1, -1), 0)), pos)


def _pow_number(input, exponent):
    """torch.pow(Tensor, Number), as functional.pow_number: torch's scalar kernel takes sqrt / rsqrt for +-0.5, and
    a Python number exponent of its own kernels (functional.pow_kernel_exponent) takes products and quotients."""
    if type(exponent) in (int, float) and input.dtype.kind == "f" and pow_kernel_exponent(input.dtype, exponent) \
            and exponent not in (0.5, -0.5):  # the products and quotients, on numpy arrays
        with np.errstate(all="ignore"):
            return _pow_kernel(input, exponent)
    if np.issubdtype(input.dtype, np.floating) and np.ndim(exponent) == 0 and float(exponent) in (0.5, -0.5):
        with np.errstate(all="ignore"):
            root = np.sqrt(input)
            return (root if exponent > 0 else 1 / root).astype(input.dtype)
    return _pow(input, exponent)


def _div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return np.true_divide(input, other)
    if rounding_mode == "floor":
        return np.floor_divide(input, other)
    if np.issubdtype(np.result_type(input, other), np.integer):
        return (input - np.fmod(input, other)) // other  # C division truncates toward zero
    return np.trunc(np.true_divide(input, other))


def _clamp(input, min=None, max=None):
    if min is not None:
        input = _at_least(input, min)
    if max is not None:
        input = _at_most(input, max)
    return input


def _reduce(f, empty_is_all=True):
    def reduce(input, dim=None, keepdim=False, *, dtype=None):
        if dtype is not None:  # torch accumulates in dtype: prod of ints as float64 keeps the sign of a zero
            input = input.astype(dtype)
        return f(input, axis=_axes(input, dim, empty_is_all), keepdims=keepdim)

    return reduce


def _extremum(f, arg):
    def extremum(input, dim=None, keepdim=False):
        if dim is None:
            return f(input)
        return f(input, axis=dim, keepdims=keepdim), arg(input, axis=dim, keepdims=keepdim)

    return extremum


def _arg(f):
    def arg(input, dim=None, keepdim=False):
        if dim is None:
            return f(input.reshape(-1))
        return f(input, axis=dim, keepdims=keepdim)

    return arg


def _moments(f):
    def moments(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # torch's std(input, unbiased) overload
            dim, unbiased = None, dim
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        return f(input, axis=_axes(input, dim), ddof=ddof, keepdims=keepdim)

    return moments


def _narrow(input, dim, start, length):
    dim %= input.ndim
    if start < 0:
        start += input.shape[dim]
    return input[(slice(None),) * dim + (slice(start, start + length),)]


def _cumsum(input, dim, *, dtype=None):
    return np.cumsum(input.reshape(-1) if input.ndim == 0 else input, axis=_dim(dim, input.ndim)).reshape(input.shape)


def _gather(input, dim, index, *, sparse_grad=False):
    if input.ndim == 0:  # the index may only hold 0s
        return np.broadcast_to(input, index.shape)
    dim %= input.ndim
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(input[cut], index, axis=dim)


def _is_int(it):
    return (isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_))) or (
        isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype.kind in "iu")


def _torch_index(ndim, indices):
    """`indices` as (basic, advanced) index tuples applied one after the other, as torch does: ints select
    first and index arrays then index what is left (numpy would count ints among the index arrays)."""
    idx = indices if isinstance(indices, tuple) else (indices,)
    arrays = [isinstance(it, np.ndarray) and not _is_int(it) for it in idx]
    if not any(arrays) or not any(map(_is_int, idx)):
        return indices, None
    basic = tuple(slice(None) if a else int(it) if _is_int(it) else it for it, a in zip(idx, arrays))
    used = sum(it is not None and it is not Ellipsis and not isinstance(it, bool) for it in idx)
    advanced = []
    for it, a in zip(idx, arrays):
        if it is Ellipsis:
            advanced += [slice(None)] * (ndim - used)
        elif not _is_int(it):
            advanced.append(it if a else slice(None))
    return basic, tuple(advanced)


def _getitem(input, indices):
    basic, advanced = _torch_index(input.ndim, indices)
    out = input[basic]
    return out if advanced is None else out[advanced]


def _setitem(input, indices, values):
    out = input.copy()
    basic, advanced = _torch_index(input.ndim, indices)
    if advanced is None:
        out[basic] = values
    else:
        out[basic][advanced] = values  # basic indexing gives a view of out
    return out


def _index_select(input, dim, index):
    if input.ndim == 0:  # the index holds one 0
        return input
    return np.take(input, index.reshape(-1), axis=dim)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad(input, pad, mode="constant", value=None):
    """F.pad: (left, right) pairs from the last dim backwards; negative widths crop."""
    widths = [(0, 0)] * (input.ndim - len(pad) // 2) + [(int(pad[i]), int(pad[i + 1])) for i in
                                                         range(len(pad) - 2, -1, -2)]
    input = input[tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in zip(widths, input.shape))]
    widths = [(max(a, 0), max(b, 0)) for a, b in widths]
    if not any(a or b for a, b in widths):
        return input
    kwargs = {"constant_values": 0 if value is None else value} if mode == "constant" else {}
    return np.pad(input, widths, _PAD_MODES[mode], **kwargs)


def _index_put(input, indices, values, accumulate=False):
    out = input.copy()
    if accumulate:
        np.add.at(out, tuple(indices), values)
    else:
        out[tuple(indices)] = values
    return out


def put_flat(base, index, src):
    out = base.copy()
    out.reshape(-1)[np.asarray(index).reshape(-1)] = np.asarray(src).reshape(-1)
    return out


def _nonzero(input, *, as_tuple=False):
    if as_tuple:
        return tuple(i.astype(np.int64) for i in np.nonzero(np.atleast_1d(input)))
    return np.argwhere(input).astype(np.int64)


def _cat(tensors, dim=0, *, axis=None):
    kept = [t for t in tensors if t.shape != (0,)] or list(tensors[:1])  # torch skips legacy empty 1-D tensors
    return np.concatenate(kept, axis=dim if axis is None else axis)


def _pieces(name, args, kwargs, avals):
    """split/chunk/tensor_split: pieces of `input` along `dim`, as sized by the functional function, or
    for tensor_split at positions (Python slice rules: pieces may overlap nothing or be empty)."""
    input, dim = args[0], _dim(args[2], args[0].ndim)
    sections = next((s for s in (kwargs.get("indices"), kwargs.get("sections")) if s is not None), args[1])
    if name == "tensor_split" and (isinstance(sections, (list, tuple)) or np.ndim(sections) == 1):
        bounds = [None, *(int(i) for i in sections), None]
        return tuple(input[(slice(None),) * dim + (slice(a, b),)] for a, b in zip(bounds, bounds[1:]))
    edges = np.cumsum([a.shape[dim] for a in avals])[:-1]
    return tuple(np.split(input, edges, axis=dim))


def _reshaped(input, aval):
    """view/reshape/expand ...: `input` with the functional's result shape (view(dtype): its bytes as aval's dtype)."""
    if input.dtype != aval.dtype:
        input = np.ascontiguousarray(input).view(aval.dtype)
    return np.reshape(input, aval.shape)


_SPLITS = {"split", "chunk", "tensor_split"}  # (input, sections, dim): pieces as sized by the functional
_SHAPED = {"view", "reshape", "flatten", "ravel", "unflatten", "squeeze", "unsqueeze", "expand", "broadcast_to"}

_NUMPY = {
    # core and casts
    "clone": lambda input, *, memory_format=None: input.copy(),
    "copy": lambda input, src, non_blocking=False: np.broadcast_to(src, input.shape),
    "fill": lambda input, value: np.full_like(input, value),
    "astype": lambda input, dtype: input.astype(dtype),
    "put_flat": put_flat,
    # arithmetic
    "add": lambda input, other, *, alpha=1: input + other * alpha,
    "sub": lambda input, other, *, alpha=1: input - other * alpha,
    "mul": lambda input, other: input * other,
    "div": _div,
    "rdiv": lambda input, other, *, rounding_mode=None: (np.reciprocal(other) * input if rounding_mode is None
                                                         else _div(input, other, rounding_mode=rounding_mode)),
    "floor_divide": lambda input, other: np.floor_divide(input, other),
    "remainder": _remainder,
    "fmod": lambda input, other: np.fmod(input, other),
    "pow": _pow,
    "pow_number": _pow_number,
    "neg": lambda input: np.negative(input),
    "positive": lambda input: input,
    "abs": lambda input: np.abs(input),
    "sign": _sign,
    "reciprocal": lambda input: np.reciprocal(input),
    "square": lambda input: np.square(input),
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda input: 1 / np.sqrt(input),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "atan2": lambda input, other: np.arctan2(input, other),
    "sigmoid": lambda input: 1 / (1 + np.exp(-input)),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "frac": lambda input: input - np.trunc(input),
    "round": lambda input, *, decimals=0: np.round(input, decimals),
    "clamp": _clamp,
    "clamp_min": lambda input, min: _at_least(input, min),
    "clamp_max": lambda input, max: _at_most(input, max),
    "maximum": lambda input, other: np.maximum(input, other),
    "minimum": lambda input, other: np.minimum(input, other),
    "matmul": lambda input, other: np.matmul(input, other),
    "mm": lambda input, mat2: np.matmul(input, mat2),
    # comparisons and logic
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "eq": lambda input, other: np.equal(input, other),
    "ne": lambda input, other: np.not_equal(input, other),
    "lt": lambda input, other: np.less(input, other),
    "le": lambda input, other: np.less_equal(input, other),
    "gt": lambda input, other: np.greater(input, other),
    "ge": lambda input, other: np.greater_equal(input, other),
    "where": lambda condition, input, other: np.where(condition, input, other),
    "_where_method": lambda input, condition, other: np.where(condition, input, other),
    "logical_and": lambda input, other: np.logical_and(input, other),
    "logical_or": lambda input, other: np.logical_or(input, other),
    "logical_xor": lambda input, other: np.logical_xor(input, other),
    "logical_not": lambda input: np.logical_not(input),
    "bitwise_and": lambda input, other: np.bitwise_and(input, other),
    "bitwise_or": lambda input, other: np.bitwise_or(input, other),
    "bitwise_xor": lambda input, other: np.bitwise_xor(input, other),
    "bitwise_not": lambda input: np.invert(input),
    "invert": lambda input: np.invert(input),
    # reductions
    "sum": _reduce(np.sum), "mean": _reduce(np.mean), "prod": _reduce(np.prod),
    "amax": lambda input, dim=(), keepdim=False: np.amax(input, axis=_axes(input, dim), keepdims=keepdim),
    "amin": lambda input, dim=(), keepdim=False: np.amin(input, axis=_axes(input, dim), keepdims=keepdim),
    "max": _extremum(np.max, np.argmax), "min": _extremum(np.min, np.argmin),
    "argmax": _arg(np.argmax), "argmin": _arg(np.argmin),
    "all": _reduce(np.all, empty_is_all=False), "any": _reduce(np.any, empty_is_all=False),
    "std": _moments(np.std), "var": _moments(np.var),
    "cumsum": _cumsum,
    # shapes, views and joins
    "transpose": _on_dims(lambda input, dim0, dim1: np.swapaxes(input, dim0, dim1)),
    "t": lambda input: input.T,
    "permute": _on_dims(lambda input, dims: np.transpose(input, [d % input.ndim for d in dims])),
    "movedim": _on_dims(lambda input, source, destination: np.moveaxis(input, source, destination)),
    "select": lambda input, dim, index: np.take(input, index, axis=dim),
    "narrow": _narrow,
    "unbind": lambda input, dim=0: tuple(np.moveaxis(input, dim, 0)),
    "flip": _on_dims(lambda input, dims: np.flip(input, axis=tuple(dims))),
    "roll": lambda input, shifts, dims=None: np.roll(input, shifts, axis=dims),
    "repeat": lambda input, repeats: np.tile(input, repeats),
    "tile": lambda input, dims: np.tile(input, dims),
    "tril": lambda input, diagonal=0: np.tril(input, diagonal),
    "triu": lambda input, diagonal=0: np.triu(input, diagonal),
    "cat": _cat,
    "stack": lambda tensors, dim=0: np.stack(tensors, axis=dim),
    "hstack": lambda tensors: np.hstack(tensors),
    "vstack": lambda tensors: np.vstack(tensors),
    # indexing
    "getitem": _getitem,
    "index_dim0": lambda input, index: input[int(index)],
    "setitem": _setitem,
    "index_put": _index_put,
    "index_select": _index_select,
    "gather": _gather,
    "masked_fill": lambda input, mask, value: np.where(mask, value, input),
    "nonzero": _nonzero,
    # what torchvision-style transforms and targets use
    "pad": _pad,
    "one_hot": lambda tensor, num_classes: (tensor[..., None] == np.arange(num_classes)).astype(np.int64),
}
_INTERNAL = {"astype", "invert", "getitem", "index_dim0", "setitem", "copy", "fill", "put_flat", "_where_method"}
SUPPORTED = [
    *sorted(n for n in (*_NUMPY, *_SHAPED, *_SPLITS) if n not in _INTERNAL),
    "indexing and index assignment", "copy_", "fill_", "to(dtype)", "float()/long()/...",
    "creation (tensor, as_tensor, from_numpy, zeros, ones, empty, full, arange, eye, linspace, logspace, *_like)",
    "random (rand, randn, randint, randperm, normal, bernoulli, *_like, uniform_, normal_, random_, bernoulli_, "
    "exponential_)",
]


def has_rule(op):
    """Whether host mode computes this op-table row (with numpy), rather than refusing it."""
    name = op.fn.__name__
    return name in _NUMPY or name in _SHAPED or name in _SPLITS


def _np_scalar(a, dtype):
    return np.asarray(a).astype(dtype)  # astype wraps ints as torch does


_LATE = []  # (CPU, Tensor, dispatch._rebuild), imported on first use: those modules import this one


def _late():
    if not _LATE:
        from ._device import CPU
        from ._dispatch import _rebuild
        from ._tensor import Tensor

        _LATE.extend((CPU, Tensor, _rebuild))
    return _LATE


def _signature(arrays):
    return tuple((a.shape, a.dtype) if isinstance(a, np.ndarray) else type(a) for a in arrays)


def _abstract(comp, arrays):
    """The result avals of the op (raising torch's errors for bad input), cached per signature."""
    key = (comp, _signature(arrays))
    avals = _ABSTRACT.get(key)
    if avals is None:
        import jax

        args = [jax.ShapeDtypeStruct(a.shape, a.dtype) if isinstance(a, np.ndarray) else a for a in arrays]
        avals = _ABSTRACT[key] = jax.eval_shape(comp.raw, *args)
    return avals


def run(comp, skel, dyn, numpy_backed=False):
    """dispatch.run in host mode: the op's values with numpy, wrapped as CPU tensors (`numpy_backed`: as
    Tensor._from_numpy makes them, outside host mode, where a tensor's `_data` is a jax array)."""
    CPU, Tensor, rebuild = _LATE or _late()
    op = comp.op
    name = op.fn.__name__
    if not has_rule(op):
        raise _unsupported(f"torch.{op.name}")
    impl = _NUMPY.get(name)
    arrays = [(t._np if t._np is not None and t._base is None else np.asarray(t._arr())) if isinstance(t, Tensor)
              else t for t in dyn]
    avals = _abstract(comp, arrays) if op.jit else None
    it = iter(arrays)
    vals = [rebuild(s, it, _np_scalar) for s in skel]  # dispatch's, with numpy scalars
    args, kwargs = vals[:op.npos], dict(zip(op.params[op.npos:], vals[op.npos:]))
    if name in _SHAPED:
        out = np.broadcast_to(args[0], avals.shape) if name in ("expand", "broadcast_to") else \
            _reshaped(args[0], avals)
    elif name in _SPLITS:
        out = _pieces(name, args, kwargs, avals)
    else:
        with np.errstate(all="ignore"):  # torch gives inf/nan silently
            out = impl(*args, **kwargs)
    if avals is None:  # a data-dependent shape: numpy's result is the reference
        avals = tuple(map(np.asarray, out)) if isinstance(out, (tuple, list)) else np.asarray(out)
    wrap = Tensor._from_numpy if numpy_backed else lambda a: Tensor._from_array(a, CPU)
    if isinstance(out, (tuple, list)):
        res = tuple(wrap(_fit(o, a, op, arrays)) for o, a in zip(out, avals))
        return op.out(*res) if op.out is not None else res
    return wrap(_fit(out, avals, op, arrays))


class Replay:
    """`run(comp, skel, dyn, numpy_backed=True)` again for the two arguments of a call of the signature it was
    made from (two host integer scalars, or one and a Python int: `i + block_size`), without rebuilding what does
    not change: the slots' casts, the other parameters' defaults, the result's dtype. `make` gives None where the
    two arguments are not both slots (a static argument's value would be kept) or the op is not elementwise."""

    __slots__ = ("op", "impl", "slots", "static", "aval")

    @classmethod
    def make(cls, comp, skel, dyn):
        op = comp.op
        name = op.fn.__name__
        if name in _SHAPED or name in _SPLITS or name not in _NUMPY or not op.jit or len(dyn) != 2:
            return None
        self, slots, static = cls(), [], list(skel)
        for i, s in enumerate(skel):
            kind = s[0] if type(s) is tuple else None
            if kind in ("T", "S"):
                slots.append((i, kind, s[1], len(slots)))
            elif kind is not None:  # lists, slices, constants: not a flat call
                return None
        if len(slots) != 2:
            return None
        arrays = [t._np if hasattr(t, "_np") else t for t in dyn]
        self.op, self.impl, self.slots, self.static = op, _NUMPY[name], slots, static
        self.aval = _abstract(comp, arrays)
        return self if hasattr(self.aval, "dtype") else None

    def __call__(self, dyn):
        _, Tensor, _ = _LATE or _late()
        vals = self.static[:]
        arrays = []
        for i, kind, cast, k in self.slots:
            a = dyn[k]
            if kind == "T":
                a = a._np
                arrays.append(a)
                vals[i] = a if cast is None or cast == a.dtype else a.astype(cast)
            else:
                vals[i] = _np_scalar(a, cast) if cast is not None else a
        op = self.op
        kwargs = dict(zip(op.params[op.npos:], vals[op.npos:]))
        with np.errstate(all="ignore"):
            out = self.impl(*vals[:op.npos], **kwargs)
        return Tensor._from_numpy(_fit(out, self.aval, op, arrays))


def _fit(out, aval, op, arrays):
    """`out` as a fresh array of the dtype (and shape) the functional function gives."""
    if isinstance(out, np.generic) and aval.shape == ():  # a numpy scalar: np.asarray makes a fresh array of it
        out = np.asarray(out)
        return out if out.dtype == aval.dtype else out.astype(aval.dtype)
    out = np.asarray(out)
    if out.dtype != aval.dtype:
        out = out.astype(aval.dtype)
    if out.shape != tuple(aval.shape):
        raise AssertionError(f"host {op.name}: numpy gave shape {out.shape}, functional {tuple(aval.shape)}")
    if not op.view and (out.base is not None or not out.flags.writeable or any(out is a for a in arrays)):
        out = out.copy()  # a result that is not a view must not share memory with its input
    return out


# ---------------------------------------------------------------------------- random numbers

def _float(dt):
    return np.float64 if dt == np.float64 else np.float32


def _uniform(rng, static, low, high):
    shape, dt = static
    if np.issubdtype(dt, np.complexfloating):
        real = np.finfo(dt).dtype
        return (rng.random(shape, real) + 1j * rng.random(shape, real)).astype(dt)
    return (low + (high - low) * rng.random(shape, _float(dt))).astype(dt)


def _normal(rng, static, mean, std):
    shape, dt = static
    if np.issubdtype(dt, np.complexfloating):
        real = np.finfo(dt).dtype
        z = (rng.standard_normal(shape, real) + 1j * rng.standard_normal(shape, real)) / math.sqrt(2)
        return (mean + std * z).astype(dt)
    return (mean + std * rng.standard_normal(shape, _float(dt))).astype(dt)


_SAMPLERS = {
    "uniform": _uniform,
    "normal": _normal,
    "randint": lambda rng, static, low, high: rng.integers(low, high, static[0], np.int64).astype(static[1]),
    "bernoulli": lambda rng, static, p: (rng.random(static[0], static[2]) < p).astype(static[1]),
    "perm": lambda rng, static: rng.permutation(static[0]).astype(static[1]),
    "exponential": lambda rng, static, lambd: (rng.standard_exponential(static[0], _float(static[1])) / lambd
                                               ).astype(static[1]),
}


def draw(gen, kind, static, params):
    """One sample with numpy, from and advancing `gen`'s key (random._draw in host mode)."""
    sampler = _SAMPLERS.get(kind)
    if sampler is None:
        raise _unsupported(f"sampling '{kind}'")
    rng = np.random.default_rng(np.asarray(gen._key, dtype=np.uint32))
    gen._key = rng.integers(0, 2**32, 2, dtype=np.uint32)
    params = tuple(np.asarray(p._arr()) if hasattr(p, "_arr") else p for p in params)
    return sampler(rng, static, *params)
