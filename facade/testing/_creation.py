"""torch.testing.make_tensor: a random tensor of a given shape and dtype, with torch's value ranges and checks."""

from __future__ import annotations

import collections.abc
import math
import warnings

from .. import _dtype as D

__all__ = ["make_tensor"]

_INTEGRAL = (D.uint8, D.int8, D.int16, D.int32, D.int64)
_BOOL_OR_INTEGRAL = (D.bool, *_INTEGRAL)
_FLOATING = (D.float16, D.bfloat16, D.float32, D.float64)
_COMPLEX = (D.complex64, D.complex128)
_FLOATING_OR_COMPLEX = (*_FLOATING, *_COMPLEX)


def _low_high(dtype, low, high, lowest, highest, default_low, default_high):
    """torch's bounds: defaults, NaN/order/range checks, clamping to the dtype (rounded up for integers)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING_OR_COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                      "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning,
                      stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if dtype in _BOOL_OR_INTEGRAL else (low, high)


def _uniform(shape, dtype, device, low, high):
    from .. import _creation

    t = _creation.empty(shape, dtype=dtype, device=device)
    if high - low >= D.finfo(dtype).max:  # uniform_ needs high - low representable: sample half the range
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` filled with values uniformly drawn from [low, high) (defaults: [-9, 9] for floating and
    complex dtypes, [-9, 10) for integral ones, clamped to the dtype's range; bool: [0, 2))."""
    import facade

    from .. import _random

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"{noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice as wide, then every other column: a strided view with distinct values
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is D.bool:
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2)
        result = _random.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = D.iinfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max + (dtype is not D.int64), -9, 10)
        result = _random.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX:
        info = D.finfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max, -9, 9)
        if dtype in _COMPLEX:
            part = D.float32 if dtype is D.complex64 else D.float64
            result = facade.complex(_uniform(shape, part, device, low, high), _uniform(shape, part, device, low, high))
        else:
            result = _uniform(shape, dtype, device, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else D.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result
