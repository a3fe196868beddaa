"""torch's printed form of a tensor (`tensor([[1., 2.]], requires_grad=True)`), and torch.set_printoptions.

The algorithm is torch's (torch/_tensor_str.py) run on a host numpy copy: one formatter per tensor
chooses integer, fixed or scientific mode and a common width from the (summarised) values.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype as D

__all__ = ["set_printoptions", "get_printoptions", "printoptions"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """torch.set_printoptions: digits after the point, the element count above which a tensor is summarised
    with '...', items kept at each edge when summarised, line width, and forced (True/False) or automatic
    (None) scientific notation. `profile` is one of 'default', 'short', 'full'."""
    if profile is not None:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Chooses int/fixed/sci mode and the column width for the values of `a` (a numpy array)."""

    def __init__(self, a, floating):
        self.floating = floating
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in a.reshape(-1).tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = a[np.isfinite(a) & (a != 0)]
        if vals.size == 0:
            return
        absv = np.abs(vals)
        vmin, vmax = float(absv.min()), float(absv.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        values = vals.tolist()
        if self.sci_mode:
            width = max(len(f"{v:.{p}e}") for v in values)
        elif self.int_mode:
            width = max(len(f"{v:.0f}") + 1 for v in values)
        else:
            width = max(len(f"{v:.{p}f}") for v in values)
        self.max_width = max(self.max_width, width)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _val_str(val, f1, f2):
    if f2 is None:
        return f1.format(val)
    real = f1.format(val.real)
    imag = (f2.format(val.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(a, indent, summarize, f1, f2):
    element_length = f1.width() + 2 + (f2.width() + 1 if f2 is not None else 0)
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [_val_str(v, f1, f2) for v in a[:e].tolist()] + [" ..."] + \
               [_val_str(v, f1, f2) for v in a[-e:].tolist()]
    else:
        data = [_val_str(v, f1, f2) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _str_with(a, indent, summarize, f1, f2):
    if a.ndim == 0:
        return _val_str(a.item(), f1, f2)
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, f1, f2)
    e = PRINT_OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * e:
        slices = [_str_with(a[i], indent + 1, summarize, f1, f2) for i in range(e)] + ["..."] + \
                 [_str_with(a[i], indent + 1, summarize, f1, f2) for i in range(n - e, n)]
    else:
        slices = [_str_with(a[i], indent + 1, summarize, f1, f2) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(a):
    """The values that show when `a` is summarised (torch's get_summarized_data)."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    if not e:
        return np.zeros((0,) * a.ndim, a.dtype)
    rows = list(range(e)) + list(range(a.shape[0] - e, a.shape[0])) if a.shape[0] > 2 * e else range(a.shape[0])
    return np.stack([_summarized(a[i]) for i in rows])


def tensor_str(a, dtype, indent):
    """The bracketed body of a tensor's repr from its host values `a` (numpy) and torch `dtype`."""
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    if dtype._cat >= 2:
        a = a.astype(np.complex128 if dtype._cat == 3 else np.float64)
    shown = _summarized(a) if summarize else a
    if dtype._cat == 3:
        f1, f2 = _Formatter(shown.real, True), _Formatter(shown.imag, True)
    else:
        f1, f2 = _Formatter(shown, dtype._cat == 2), None
    return _str_with(a, indent, summarize, f1, f2)


def _add_suffixes(s, suffixes, indent):
    out = [s]
    last_line_len = len(s) - s.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t, tensor_contents=None):
    """repr(t) exactly as torch prints it."""
    from ._tensor import Tensor

    cls = type(t)
    plain = cls is Tensor or cls.__name__ == "Parameter"
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    dev = t.device
    if dev.type != "cpu":  # torch compares with its default tensor type's device, which is cpu here
        suffixes.append(f"device='{dev}'")
    dtype = t.dtype
    default = D.get_default_dtype()
    has_default_dtype = dtype in (default, D.default_complex(), D.int64, D.bool)
    body = tensor_contents
    if dev.type == "meta":
        suffixes.append(f"size={tuple(t.shape)}")
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        body = "..." if body is None else body
    elif t.numel() == 0:
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        body = "[]" if body is None else body
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype={dtype}")
        if body is None:
            body = tensor_str(np.asarray(t._host()), dtype, indent)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
