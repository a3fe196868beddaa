"""torch.autograd.forward_ad: dual tensors and forward-mode derivatives through `jax.jvp`.

Inside `dual_level()`, `make_dual(x, t)` gives a view of `x` carrying the tangent `t`. Every facade
op passes through the dispatch chokepoint; when one of its inputs carries a tangent, `propagate`
runs the JVP of the op's functional function (jitted and cached per op and tangent mask) and gives
each floating result its tangent. Leaving the level drops every tangent made in it.
(In-place ops on dual tensors keep the primal's tangent unchanged: not propagated.)
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import jax
import numpy as np

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]


class _State:
    level = None  # the active level's token (unique per entered level), or None outside any
    depth = -1


STATE = _State()
_tokens = itertools.count()
_ATTR = "_fw_tangent"  # in Tensor.__dict__: (level token, jax array)


def enter_dual_level():
    """Enter a forward-AD level (only one at a time); returns its index."""
    if STATE.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    STATE.level, STATE.depth = next(_tokens), 0
    return STATE.depth


def exit_dual_level(*, level=None):
    """Leave the current level; the tangents made in it are gone."""
    if STATE.level is None or (level is not None and level != STATE.depth):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    STATE.level, STATE.depth = None, -1


class dual_level:
    """Context manager (and decorator) for one forward-AD level."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal (a view without tangent) and the tangent (or None)."""

    primal: object
    tangent: object


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def _check_float(t, what):
    if not (t.is_floating_point() or t.is_complex()):
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose forward gradient is `tangent` (same shape), within the current dual level."""
    if STATE.level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    _check_float(tensor, "primal")
    _check_float(tangent, "tangent")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    dual = tensor.view_as(tensor)
    _set(dual, tangent._arr().astype(tensor._arr().dtype))
    return dual


def _set(t, a):
    t.__dict__[_ATTR] = (STATE.level, a)


def _get(t):
    d = getattr(t, "__dict__", None)
    entry = d.get(_ATTR) if d else None
    return entry[1] if entry is not None and entry[0] == STATE.level else None


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a tensor: the tangent is None outside its level or for a tensor without one."""
    from .._tensor import Tensor

    a = _get(tensor) if STATE.level is not None else None
    if a is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensor.view_as(tensor)
    primal.__dict__.pop(_ATTR, None)
    return UnpackedDualTensor(primal, Tensor._from_array(a, tensor._device))


def propagate(comp, dyn, arrays, res):
    """Called by the dispatch chokepoint inside a dual level: give `res` the JVP of the op at the inputs' tangents."""
    from .._tensor import Tensor

    tangents = [_get(t) if isinstance(t, Tensor) else None for t in dyn]
    mask = tuple(t is not None for t in tangents)
    if True not in mask:
        return
    key = ("jvp", mask)  # kept with the op's cached VJPs, per tangent mask
    fn = comp.vjps.get(key)
    if fn is None:
        fn = comp.vjps[key] = jax.jit(_make_jvp(comp.raw, mask)) if comp.op.jit else _make_jvp(comp.raw, mask)
    tans = tuple(t.astype(a.dtype) for t, a in zip(tangents, arrays) if t is not None)
    outs = fn(tuple(arrays), tans)
    for r, t in zip(res if isinstance(res, tuple) else (res,), outs if isinstance(outs, tuple) else (outs,)):
        if np.issubdtype(t.dtype, np.inexact) or t.dtype == jax.numpy.bfloat16:
            _set(r, t)


def _make_jvp(raw, mask):
    def jvp(primals, tangents):
        def f(*diff):
            it = iter(diff)
            return raw(*[next(it) if m else p for p, m in zip(primals, mask)])

        return jax.jvp(f, tuple(p for p, m in zip(primals, mask) if m), tangents)[1]

    return jvp
