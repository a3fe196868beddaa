"""torch.sym_*: torch's SymInt-aware helpers. There are no symbolic shapes here, so each is what torch's does
for plain Python numbers (and 0-dim tensors where torch takes them): int(), float(), max() ... with torch's
type rules and checks."""

from __future__ import annotations

import builtins
import math

import numpy as np

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
           "sym_sum", "sym_sqrt", "sym_fresh_size"]


class _Symbolic:
    """Base of torch's symbolic scalars; nothing here is ever symbolic, so none can be made."""

    def __init__(self, node):
        raise NotImplementedError(f"torch.{type(self).__name__}: symbolic shapes are not supported here "
                                  "(dynamic shapes under torch.compile belong to the compile issue)")


class SymInt(_Symbolic):
    """torch.SymInt: an int that may be symbolic. Plain ints are never instances."""


class SymFloat(_Symbolic):
    """torch.SymFloat: a float that may be symbolic."""


class SymBool(_Symbolic):
    """torch.SymBool: a bool that may be symbolic."""


_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


def sym_int(a):
    """int(a), truncating toward zero."""
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


def _type(x):
    """type(x) as torch's messages print it (facade's Tensor is torch.Tensor)."""
    from ._tensor import Tensor

    return "<class 'torch.Tensor'>" if type(x) is Tensor else str(type(x))


def _check_numbers(a, b):
    for x in (a, b):
        if not isinstance(x, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {_type(x)}")
    return isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES)


def sym_max(a, b):
    """max(a, b), a float if either is one (unlike builtins.max)."""
    return builtins.float(builtins.max(a, b)) if _check_numbers(a, b) else builtins.max(a, b)


def sym_min(a, b):
    """min(a, b), a float if either is one."""
    return builtins.float(builtins.min(a, b)) if _check_numbers(a, b) else builtins.min(a, b)


def sym_not(a):
    return not a


def sym_ite(b, t, f):
    """`t if b else f` for a bool b and t, f of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {_type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {_type(t)} vs {_type(f)}")
    return t if b else f


def sym_sum(*args):
    """sum(args); accepts sym_sum([a, b, c]) and sym_sum(a, b, c)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    return math.sqrt(a)


def sym_fresh_size(expr):
    from ._creation import tensor

    return tensor(expr).item()
