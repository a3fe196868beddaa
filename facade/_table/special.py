"""Table rows for torch.special and the torch-level gamma/Bessel ops it shares (lgamma, digamma,
polygamma, mvlgamma, i0, igamma, igammac: functions, Tensor methods and in-place X_).

A torch.special name that is also a torch op (special.gammaln is torch.lgamma) is its own row
over the same functional function, installed only on torch.special. torch records no autograd
node for the Bessel, Airy and polynomial functions (`differentiable=False`).
"""

import re

import functional as F
import functional.nn as A
import functional.special as SP

from .._dispatch import Op
from .._tensor import Tensor

_SP = "torch.special"


def _node(name):
    """torch's node name: special_i1e -> SpecialI1EBackward0 (a letter after a digit is capitalised too)."""
    return re.sub(r"(?:^|_|(?<=\d))([a-z])", lambda m: m.group(1).upper(), name) + "Backward0"


def _row(name, fn, arrays=("input",), *, module=_SP, method=False, inplace=False, grad_name=None, **kw):
    return Op(name, fn, arrays=arrays, promote=kw.pop("promote", "all"), to_float=kw.pop("to_float", True),
              module=module, method=method, inplace=inplace,
              grad_name=grad_name or _node(("special_" if module == _SP else "") + name), **kw)


def _special(name, fn, arrays=("input",), **kw):
    return _row(name, fn, arrays, **kw)


_BIN = ("input", "other")


def _tensors_only(name):
    """torch's igamma/igammac take no Python numbers."""
    def check(vals):
        for i, (p, v) in enumerate(zip(_BIN, vals)):
            if not isinstance(v, Tensor):
                raise TypeError(f"{name}(): argument '{p}' (position {i + 1}) must be Tensor, not {type(v).__name__}")
    return check


def _igamma(name, fn, module="torch", **kw):
    qual = name if module == "torch" else "special_" + name
    return _row(name, fn, _BIN, module=module, to_float=False, check=_tensors_only(qual), **kw)

_polygamma = _row("polygamma", SP.polygamma, module="torch")
_NONDIFF = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
            "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "spherical_bessel_j0", "airy_ai"]
_POLYS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

OPS = [
    # ------------------------------------------------------------------ torch.X, Tensor.X, Tensor.X_
    _row("lgamma", SP.gammaln, module="torch", method=True, inplace=True),
    _row("digamma", SP.digamma, module="torch", method=True, inplace=True),
    _polygamma,
    _row("polygamma", SP.polygamma_method, module="torch", function=False, method=True, inplace=True,
         grad_name="PolygammaBackward0"),
    _row("mvlgamma", SP.multigammaln, module="torch", method=True, inplace=True),
    _row("i0", SP.i0, module="torch", method=True, inplace=True),
    _igamma("igamma", SP.gammainc, method=True, inplace=True),
    _igamma("igammac", SP.gammaincc, method=True, inplace=True),
    # ------------------------------------------------------------------ torch.special
    _special("gammaln", SP.gammaln, grad_name="LgammaBackward0"),
    _special("digamma", SP.digamma, aliases=("psi",), grad_name="DigammaBackward0"),
    _special("polygamma", SP.polygamma, grad_name="PolygammaBackward0"),
    _special("multigammaln", SP.multigammaln, grad_name="MvlgammaBackward0"),
    _special("i0", SP.i0, grad_name="I0Backward0"),
    _igamma("gammainc", SP.gammainc, _SP, grad_name="IgammaBackward0"),
    _igamma("gammaincc", SP.gammaincc, _SP, grad_name="IgammacBackward0"),
    *(_special(n, getattr(SP, n)) for n in ("i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr")),
    _special("zeta", SP.zeta, _BIN),
    _special("xlog1py", SP.xlog1py, _BIN),
    *(_special(n, getattr(SP, n), differentiable=False) for n in _NONDIFF),
    *(_special(n, getattr(SP, n), ("input", "n"), differentiable=False) for n in _POLYS),
    _special("softmax", A.softmax, promote=(), to_float=False, grad_name="SoftmaxBackward0", saves="result"),
    _special("log_softmax", A.log_softmax, promote=(), to_float=False, grad_name="LogSoftmaxBackward0",
             saves="result"),
    _special("logsumexp", F.logsumexp, grad_name="LogsumexpBackward0"),
]
