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

def _axes(dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


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
        input = np.maximum(input, min)
    if max is not None:
        input = np.minimum(input, max)
    return input


def _reduce(f):
    def reduce(input, dim=None, keepdim=False, *, dtype=None):
        return f(input, axis=_axes(dim), keepdims=keepdim)

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
        ddof = correction if correction is not None else (0 if unbiased is False else 1)
        return f(input, axis=_axes(dim), ddof=ddof, keepdims=keepdim)

    return moments


def _narrow(input, dim, start, length):
    dim %= input.ndim
    if start < 0:
        start += input.shape[dim]
    return input[(slice(None),) * dim + (slice(start, start + length),)]


def _gather(input, dim, index, *, sparse_grad=False):
    dim %= max(input.ndim, 1)
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(input[cut], index, axis=dim)


def _setitem(input, indices, values):
    out = input.copy()
    out[indices] = values
    return out


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


def _split_like(input, dim, avals):
    """Pieces of `input` along `dim` with the sizes the functional function gave its outputs."""
    dim %= input.ndim
    edges = np.cumsum([a.shape[dim] for a in avals])[:-1]
    return tuple(np.split(input, edges, axis=dim))


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
    "floor_divide": lambda input, other: np.floor_divide(input, other),
    "remainder": lambda input, other: np.remainder(input, other),
    "fmod": lambda input, other: np.fmod(input, other),
    "pow": lambda input, exponent: np.power(input, exponent),
    "neg": lambda input: np.negative(input),
    "positive": lambda input: input,
    "abs": lambda input: np.abs(input),
    "sign": lambda input: np.sign(input),
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
    "clamp_min": lambda input, min: np.maximum(input, min),
    "clamp_max": lambda input, max: np.minimum(input, max),
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
    "amax": lambda input, dim=(), keepdim=False: np.amax(input, axis=_axes(dim), keepdims=keepdim),
    "amin": lambda input, dim=(), keepdim=False: np.amin(input, axis=_axes(dim), keepdims=keepdim),
    "max": _extremum(np.max, np.argmax), "min": _extremum(np.min, np.argmin),
    "argmax": _arg(np.argmax), "argmin": _arg(np.argmin),
    "all": lambda input, dim=None, keepdim=False: np.all(input, axis=_axes(dim), keepdims=keepdim),
    "any": lambda input, dim=None, keepdim=False: np.any(input, axis=_axes(dim), keepdims=keepdim),
    "std": _moments(np.std), "var": _moments(np.var),
    "cumsum": lambda input, dim, *, dtype=None: np.cumsum(input, axis=dim),
    # shapes, views and joins
    "transpose": lambda input, dim0, dim1: np.swapaxes(input, dim0, dim1),
    "t": lambda input: input.T,
    "permute": lambda input, dims: np.transpose(input, [d % max(input.ndim, 1) for d in dims]),
    "movedim": lambda input, source, destination: np.moveaxis(input, source, destination),
    "select": lambda input, dim, index: np.take(input, index, axis=dim),
    "narrow": _narrow,
    "unbind": lambda input, dim=0: tuple(np.moveaxis(input, dim, 0)),
    "flip": lambda input, dims: np.flip(input, axis=tuple(dims)),
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
    "getitem": lambda input, indices: input[indices],
    "index_dim0": lambda input, index: input[int(index)],
    "setitem": _setitem,
    "index_put": _index_put,
    "index_select": lambda input, dim, index: np.take(input, index.reshape(-1), axis=dim),
    "gather": _gather,
    "masked_fill": lambda input, mask, value: np.where(mask, value, input),
    "nonzero": _nonzero,
}
_INTERNAL = {"astype", "invert", "getitem", "index_dim0", "setitem", "copy", "fill", "put_flat", "_where_method"}
SUPPORTED = [
    *sorted(n for n in (*_NUMPY, *_SHAPED, *_SPLITS) if n not in _INTERNAL),
    "indexing and index assignment", "copy_", "fill_", "to(dtype)", "float()/long()/...",
    "creation (tensor, as_tensor, from_numpy, zeros, ones, empty, full, arange, eye, linspace, logspace, *_like)",
    "random (rand, randn, randint, randperm, normal, bernoulli, *_like, uniform_, normal_, random_, bernoulli_, "
    "exponential_)",
]


def _np_scalar(a, dtype):
    return np.asarray(a).astype(dtype)  # astype wraps ints as torch does


def _rebuild(s, it):
    """dispatch._rebuild with numpy scalars: the argument values of one call from its skeleton."""
    from ._dispatch import _rebuild as rebuild

    return rebuild(s, it, _np_scalar)


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


def run(comp, skel, dyn):
    """dispatch.run in host mode: the op's values with numpy, wrapped as CPU tensors."""
    from ._device import CPU
    from ._tensor import Tensor

    op = comp.op
    name = op.fn.__name__
    impl = _NUMPY.get(name)
    if impl is None and name not in _SHAPED and name not in _SPLITS:
        raise _unsupported(f"torch.{op.name}")
    arrays = [np.asarray(t._arr()) if isinstance(t, Tensor) else t for t in dyn]
    avals = _abstract(comp, arrays) if op.jit else None
    it = iter(arrays)
    vals = [_rebuild(s, it) for s in skel]
    args, kwargs = vals[:op.npos], dict(zip(op.params[op.npos:], vals[op.npos:]))
    if name in _SHAPED:
        out = np.broadcast_to(args[0], avals.shape) if name in ("expand", "broadcast_to") else \
            np.reshape(args[0], avals.shape)
    elif name in _SPLITS:
        out = _split_like(args[0], args[2], avals)
    else:
        with np.errstate(all="ignore"):  # torch gives inf/nan silently
            out = impl(*args, **kwargs)
    if avals is None:  # a data-dependent shape: numpy's result is the reference
        avals = tuple(map(np.asarray, out)) if isinstance(out, (tuple, list)) else np.asarray(out)
    if isinstance(out, (tuple, list)):
        res = tuple(Tensor._from_array(_fit(o, a, op, arrays), CPU) for o, a in zip(out, avals))
        return op.out(*res) if op.out is not None else res
    return Tensor._from_array(_fit(out, avals, op, arrays), CPU)


def _fit(out, aval, op, arrays):
    """`out` as a fresh array of the dtype (and shape) the functional function gives."""
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
