"""Row bucketing: a new length costs fewer programs.

A script whose sequence length grows by one each step (sampling from a language model) meets a new shape in
every op every step, and each new shape is a new XLA program. Ops whose result rows depend only on the
matching input rows (`linear`, `embedding`, elementwise arithmetic, `cat` along the last dim) run instead on
their inputs flattened to (rows, *features) and padded with zeros to a power-of-two row count, and the
result is cut back on the host: one program per op serves every length up to the next power of two. A shape
seen more than `_REPEATS` times (a fixed-size loop) gets its exact program, which needs no host copies.

Only where the result does not depend on the padding and is bit-identical to the exact-shape program
(checked for every op here by tests/test_bench_scripts.py against the unbucketed call), and only where it
is free: eager calls on host memory (cpu) that record no autograd node, with small arrays.
`FACADE_BUCKET=0` turns it off (every call runs its exact shape), to measure what it saves.
"""

from __future__ import annotations

import math
import os

import jax
import numpy as np

__all__ = ["RULES", "run"]

_MAX = 1 << 20  # elements of a padded array: larger ones run exactly (a host copy would cost more than a compile)
_REPEATS = 64  # calls of one exact shape that run bucketed; later ones run the exact program, without host copies
_SEEN = {}  # (compiled op, input shapes) -> bucketed calls so far


def _elementwise(dyn, vals):
    """Every non-scalar Tensor is rows of no features (shapes equal up to leading 1s: `x + y`, `(T, C) + (1, T, C)`)."""
    return {i: 0 for i, t in enumerate(dyn) if getattr(t, "ndim", 0)}


def _first(k):
    return lambda dyn, vals: {0: k}


def _cat(dyn, vals):
    d = vals[1]
    ok = dyn and all(t.ndim and d in (-1, t.ndim - 1) for t in dyn)
    return {i: 1 for i in range(len(dyn))} if ok else None


# op name -> (dyn, vals) -> {position in dyn: trailing feature dims} (None: run exactly). Not layer_norm or
# softmax: their padded programs differ from the exact ones in the last bit on XLA CPU.
RULES = {
    "linear": _first(1),
    "embedding": lambda dyn, vals: {1: 0},  # (weight, indices): padding indices are 0, a valid row
    "cat": _cat,
    **{name: _elementwise for name in ("add", "sub", "mul", "relu", "eq", "ne", "masked_fill")},
}
if os.environ.get("FACADE_BUCKET", "1").strip().lower() in ("0", "false", "no", "off"):
    RULES.clear()


def _bucket(r):
    return 1 << (r - 1).bit_length()


def run(rule, comp, dyn, vals, run_exact, Tensor):
    """`run_exact(comp, dyn)` on bucketed inputs and cut back, or None when the call cannot be bucketed
    (the caller has checked that no autograd node, forward-AD tangent or trace is involved)."""
    key = (id(comp), *(getattr(t, "shape", None) for t in dyn))
    seen = _SEEN.get(key, 0)
    if seen >= _REPEATS:  # a shape the script keeps using: its exact program is worth compiling (same bits)
        return None
    if len(_SEEN) > 1 << 14:
        _SEEN.clear()
    _SEEN[key] = seen + 1
    found = _rows(rule, dyn, vals, Tensor)
    if found is None:
        return None
    rows, lead, spec = found
    padded = list(dyn)
    for i, k in spec.items():
        padded[i] = Tensor._from_array(pad(dyn[i]._arr(), rows, k), dyn[i]._device)
    res = run_exact(comp, padded)
    outs = res if isinstance(res, tuple) else (res,)
    if any(r.ndim == 0 or r.shape[0] != _bucket(rows) for r in outs):
        return None  # not row by row after all (a shape that depends on the values): run exactly
    out = tuple(Tensor._from_array(cut(r._data, rows, lead), r._device) for r in outs)
    return out[0] if not isinstance(res, tuple) else type(res)(*out) if type(res) is not tuple else out


def _rows(rule, dyn, vals, Tensor):
    """(rows, leading shape, {dyn position: trailing feature dims}) when the call can be bucketed, else None."""
    if any(isinstance(t, Tensor) and (t._device.type != "cpu" or isinstance(t._data, jax.core.Tracer))
           for t in dyn):
        return None
    spec = rule(dyn, vals)
    if not spec:
        return None
    rows = lead = None
    for i, k in spec.items():
        t = dyn[i]
        if not isinstance(t, Tensor) or not 0 <= k < t.ndim:
            return None
        shape = t.shape[:t.ndim - k]
        r = math.prod(shape)
        if rows is None:
            rows, lead = r, shape
        elif r != rows or (shape != lead and _strip(shape) != _strip(lead)):
            return None
        elif len(shape) > len(lead):
            lead = shape
        if _bucket(r) * math.prod(t.shape[t.ndim - k:]) > _MAX:
            return None
    return (rows, tuple(lead), spec) if rows else None


def _strip(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def pad(a, rows, k):
    """Array `a` as (bucket(rows), *its k trailing dims), zero-padded, on its device."""
    flat = np.asarray(a).reshape(rows, *a.shape[a.ndim - k:])
    out = np.zeros((_bucket(rows), *flat.shape[1:]), flat.dtype)
    out[:rows] = flat
    return jax.device_put(out, next(iter(a.devices())))


def cut(a, rows, lead):
    """The first `rows` rows of a bucketed result, reshaped to the call's leading shape."""
    return jax.device_put(np.asarray(a)[:rows].reshape(*lead, *a.shape[1:]), next(iter(a.devices())))
