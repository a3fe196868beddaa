"""The op table of the tests (like PyTorch's OpInfo): each entry names a torch API and a
sample-input generator; `tests/test_ops.py` runs every sample through real torch and
through facade and compares values, dtypes, shapes, gradients and jit vs eager.

Sample arguments are numpy arrays (become tensors on both sides), `Arg` (an array with
options: requires_grad off, a non-contiguous view), or any other Python value (passed as is).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass
class Arg:
    """A tensor argument: `value` as a numpy array; `transpose` makes it a non-contiguous view
    (the array is stored transposed and `.mT`-ed back); `grad=False` keeps it out of gradients."""

    value: np.ndarray
    transpose: bool = False
    grad: bool = True


@dataclasses.dataclass
class Sample:
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)

    def __repr__(self):
        def r(a):
            if isinstance(a, Arg):
                a = a.value
            if isinstance(a, np.ndarray):
                return f"{a.dtype}{list(a.shape)}"
            return repr(a)
        return "(" + ", ".join([r(a) for a in self.args] + [f"{k}={r(v)}" for k, v in self.kwargs.items()]) + ")"


@dataclasses.dataclass
class OpInfo:
    """name: a torch path such as "add", "linalg.inv", "nn.functional.relu", or "Tensor.view"
    (called as a method on the first argument), or "__add__" style dunders (method too).
    samples(rng) -> list of Sample. call(mod, *args, **kwargs) overrides how it is called."""

    name: str
    samples: Callable[[np.random.Generator], list]
    grad: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    call: Callable[..., Any] | None = None
    jit: bool = True
    xfail: str | None = None
    grad_rtol: float | None = None
    compare: Callable[..., Any] | None = None  # custom comparison(torch_out, facade_out)


OPS: list[OpInfo] = []


def register(*infos):
    OPS.extend(infos)


# ------------------------------------------------------------------ sample helpers

FLOATS = (np.float32, np.float64)


def arr(rng, shape, dtype=np.float32, low=-3.0, high=3.0):
    """A random array; ints in [low, high), bools at random, floats uniform in [low, high)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        lo = max(int(low), np.iinfo(dtype).min)
        return rng.integers(lo, int(high) + 1, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


UNARY_SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]
BINARY_SHAPES = [((), ()), ((5,), (5,)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((3, 4), ()), ((0, 3), (3,))]


def unary(dtypes=FLOATS, low=-3.0, high=3.0, noncontig=True, **kwargs):
    """Sample generator for a unary op: several shapes (0-dim, empty) and dtypes, one transposed view."""
    def gen(rng):
        out = [Sample((arr(rng, s, d, low, high),), dict(kwargs)) for d in dtypes for s in UNARY_SHAPES]
        if noncontig:
            out.append(Sample((Arg(arr(rng, (4, 3), dtypes[0], low, high), transpose=True),), dict(kwargs)))
        return out
    return gen


def binary(dtypes=FLOATS, low=-3.0, high=3.0, scalars=(2.5, 3), mixed=((np.int64, np.float32),
           (np.float32, np.float64), (np.int32, np.int64), (np.uint8, np.int8), (np.bool_, np.int64)), **kwargs):
    """Sample generator for a binary op: broadcasting shapes, dtypes, mixed-dtype promotion, Python scalars."""
    def gen(rng):
        out = [Sample((arr(rng, a, d, low, high), arr(rng, b, d, low, high)), dict(kwargs))
               for d in dtypes for a, b in BINARY_SHAPES]
        out += [Sample((arr(rng, (3, 4), a, low, high), arr(rng, (4,), b, low, high)), dict(kwargs)) for a, b in mixed]
        out += [Sample((arr(rng, (3,), dtypes[0], low, high), s), dict(kwargs)) for s in scalars]
        out.append(Sample((Arg(arr(rng, (4, 3), dtypes[0], low, high), transpose=True),
                           arr(rng, (4, 3), dtypes[0], low, high)), dict(kwargs)))
        return out
    return gen


# ------------------------------------------------------------------ special values (NaN, +-inf, +-0)

SPECIAL_VALUES = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 0.5)


def _special_like(rng, a):
    """`a` (a float array) with its values replaced by NaN, +-inf, +-0 and a few ordinary values:
    each special value appears once where the array has room, the rest drawn at random from them."""
    if isinstance(a, Arg):
        return dataclasses.replace(a, value=_special_like(rng, a.value))
    if not (isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating)):
        if isinstance(a, (list, tuple)) and any(isinstance(x, (np.ndarray, Arg)) for x in a):
            return type(a)(_special_like(rng, x) for x in a)
        return a
    vals = np.array(SPECIAL_VALUES, a.dtype)
    flat = rng.choice(vals, a.size)
    flat[:min(a.size, vals.size)] = rng.permutation(vals)[:a.size]
    return flat.reshape(a.shape)


def _float_size(a):
    """Elements of the float arrays in a sample argument."""
    if isinstance(a, Arg):
        a = a.value
    if isinstance(a, np.ndarray):
        return a.size if np.issubdtype(a.dtype, np.floating) else 0
    if isinstance(a, (list, tuple)):
        return sum(_float_size(x) for x in a)
    return 0


def float_size(sample):
    """Elements of a sample's float arrays (arguments and keyword tensors)."""
    return sum(_float_size(a) for a in (*sample.args, *sample.kwargs.values()))


def special_sample(sample, rng):
    """`sample` with every float array filled with NaN, +-inf, +-0 and ordinary values (shapes, dtypes and
    all other arguments unchanged): the generic special-values sample of an op (tests/test_special_values.py)."""
    return Sample(tuple(_special_like(rng, a) for a in sample.args),
                  {k: _special_like(rng, v) for k, v in sample.kwargs.items()})
