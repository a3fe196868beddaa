"""torch.testing.assert_close: torch's comparison pairs (None, bool, number, tensor-like), recursion through
sequences and mappings, default tolerances per dtype and torch's error types and messages.

Values are compared on the host in numpy, in the inputs' (promoted) dtype, so the differences a
message reports are the numbers torch reports."""

from __future__ import annotations

import cmath
import collections.abc

import numpy as np

from .. import _dtype as D

__all__ = ["assert_close", "default_tolerances"]

_DTYPE_PRECISIONS = {"float16": (0.001, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5),
                     "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: D.int64, float: D.float64, complex: D.complex128}


class _ErrorMeta(Exception):
    """A comparison failure: the error type, its message and where in the nested inputs it happened."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    pass


def default_tolerances(*inputs):
    """(rtol, atol): the loosest of the inputs' dtypes (Tensors or dtypes); 0 for integral and bool."""
    from .._tensor import Tensor

    tols = []
    for x in inputs:
        if not isinstance(x, (Tensor, D.dtype)):
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
        tols.append(_DTYPE_PRECISIONS.get((x.dtype if isinstance(x, Tensor) else x).name, (0.0, 0.0)))
    return max(r for r, _ in tols), max(a for _, a in tols)


def _tolerances(dtypes, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                     f"{'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtypes)


def _mismatch_msg(kind, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff(name, value, idx, tol):
        msg = f"Greatest {name} difference: {value} at index {idx}" if idx is not None else \
            f"{name.title()} difference: {value}"
        return msg + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{kind} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
    return (msg + diff("absolute", abs_diff, abs_idx, atol) + diff("relative", rel_diff, rel_idx, rtol)).strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_msg("Scalars", extra, abs_diff, None, atol, rel_diff, None, rtol)


def _compare_none(a, e, id, opts):
    if a is not None or e is not None:
        raise _Unsupported
    if not (a is None and e is None):
        raise _ErrorMeta(AssertionError, f"None mismatch: {a} is not {e}", id=id)


def _compare_bool(a, e, id, opts):
    if not (isinstance(a, (bool, np.bool_)) and isinstance(e, (bool, np.bool_))):
        raise _Unsupported
    if bool(a) is not bool(e):
        raise _ErrorMeta(AssertionError, f"Booleans mismatch: {bool(a)} is not {bool(e)}", id=id)


def _compare_number(a, e, id, opts):
    kinds = (int, float, complex, np.number)
    if not (isinstance(a, kinds) and isinstance(e, kinds)):
        raise _Unsupported
    a, e = (x.item() if isinstance(x, np.number) else x for x in (a, e))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (a, e)], opts["rtol"], opts["atol"], id)
    if opts["check_dtype"] and type(a) is not type(e):
        raise _ErrorMeta(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", id=id)
    if a == e or (opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e)):
        return
    abs_diff = abs(a - e)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(e):
        return
    raise _ErrorMeta(AssertionError, _scalar_msg(a, e, rtol, atol), id=id)


def _as_tensor(x):
    from .. import _creation
    from .._tensor import Tensor

    return x if isinstance(x, Tensor) else _creation.as_tensor(x)


def _compare_tensors(a, e, id, opts):
    from .._tensor import Tensor

    if not (isinstance(a, (Tensor, np.ndarray)) and isinstance(e, (Tensor, np.ndarray))):
        raise _Unsupported
    if not (isinstance(a, type(e)) or isinstance(e, type(a))) or (not opts["allow_subclasses"]
                                                                   and type(a) is not type(e)):
        raise _Unsupported
    a, e = _as_tensor(a), _as_tensor(e)
    rtol, atol = _tolerances([a, e], opts["rtol"], opts["atol"], id)

    def mismatch(name, av, ev):
        raise _ErrorMeta(AssertionError, f"The values for attribute '{name}' do not match: {av} != {ev}.", id=id)

    if a.shape != e.shape:
        mismatch("shape", a.shape, e.shape)
    if opts["check_stride"] and a.stride() != e.stride():
        mismatch("stride()", a.stride(), e.stride())
    if opts["check_device"] and a.device != e.device:
        mismatch("device", a.device, e.device)
    if opts["check_dtype"] and a.dtype != e.dtype:
        mismatch("dtype", a.dtype, e.dtype)
    if "meta" in (a.device.type, e.device.type):
        return
    dtype = D.promote_types(a.dtype, e.dtype)
    av, ev = (np.asarray(t.detach()._arr()).astype(dtype.np) for t in (a, e))
    _compare_values(av, ev, dtype, rtol, atol, opts["equal_nan"], id)


def _compare_values(a, e, dtype, rtol, atol, equal_nan, id):
    with np.errstate(all="ignore"):
        if dtype.is_floating_point or dtype.is_complex:
            diff = np.abs(a - e)
            matches = (a == e) | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(e)))
            if equal_nan:
                matches |= np.isnan(a) & np.isnan(e)
        else:
            matches = a == e
        if matches.all():
            return
        if a.ndim == 0:
            raise _ErrorMeta(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol), id=id)
        if not (dtype.is_floating_point or dtype.is_complex):  # torch upcasts to int64 to avoid overflow
            a, e = a.astype(np.int64), e.astype(np.int64)
        abs_diff = np.abs(a - e).ravel()
        abs_diff[matches.ravel()] = 0
        expected = np.abs(e).ravel()
        if abs_diff.dtype.kind in "iu":  # int / int is a default-float (float32) division in torch
            rel_diff = abs_diff.astype(np.float32) / expected.astype(np.float32)
        else:
            rel_diff = abs_diff / expected
        rel_diff[matches.ravel()] = 0
    total, bad = matches.size, matches.size - int(matches.sum())

    def where(flat):
        i = int(np.nanargmax(flat) if not np.isnan(flat).any() else np.argmax(np.isnan(flat)))
        return flat[i].item(), tuple(int(j) for j in np.unravel_index(i, matches.shape))

    (ad, ai), (rd, ri) = where(abs_diff), where(rel_diff)
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    raise _ErrorMeta(AssertionError, _mismatch_msg("Tensor-likes", extra, ad, ai, atol, rd, ri, rtol), id=id)


_PAIRS = (_compare_none, _compare_bool, _compare_number, _compare_tensors)


def _originate(a, e, id, opts, out):
    """Append (compare, actual, expected, id) for every leaf pair, recursing through sequences and mappings."""
    seq = collections.abc.Sequence
    if isinstance(a, seq) and not isinstance(a, str) and isinstance(e, seq) and not isinstance(e, str):
        if len(a) != len(e):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(a)} != {len(e)}", id=id)
        for i in range(len(a)):
            _originate(a[i], e[i], (*id, i), opts, out)
        return
    if isinstance(a, collections.abc.Mapping) and isinstance(e, collections.abc.Mapping):
        ak, ek = set(a.keys()), set(e.keys())
        if ak != ek:
            msg = "The keys of the mappings do not match:\n"
            if ek - ak:
                msg += f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
            if ak - ek:
                msg += f"Additional keys in the actual mapping: {sorted(ak - ek)}"
            raise _ErrorMeta(AssertionError, msg.strip(), id=id)
        try:
            keys = sorted(ak)
        except Exception:
            keys = list(ak)
        for k in keys:
            _originate(a[k], e[k], (*id, k), opts, out)
        return
    out.append((a, e, id))


def _compare_leaf(a, e, id, opts):
    for compare in _PAIRS:
        try:
            return compare(a, e, id, opts)
        except _Unsupported:
            continue
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(a)} and {type(e)}.",
                     id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Assert `actual` and `expected` are close: |actual - expected| <= atol + rtol * |expected| elementwise,
    with torch's default (rtol, atol) per dtype when both are omitted (float32: 1.3e-6, 1e-5; float64: 1e-7, 1e-7;
    float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5; integral and bool: exact). Nested sequences and mappings are
    compared item by item. Raises AssertionError (mismatch), TypeError (incomparable types) or ValueError."""
    __tracebackhide__ = True
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    leaves = []
    try:
        _originate(actual, expected, (), opts, leaves)
    except _ErrorMeta as meta:
        raise meta.to_error() from None
    for a, e, id in leaves:
        try:
            _compare_leaf(a, e, id, opts)
        except _ErrorMeta as meta:
            raise meta.to_error(msg if meta.type is AssertionError else None) from None
