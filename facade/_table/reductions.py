"""Table rows for reductions and scans.

torch overloads some of these by their arguments (`max(x)`, `max(x, dim)`, `max(x, other)`), with a
different autograd node each; `route` picks the row of the overload called.
"""

import functional as F
from functional.extras import hash_tensor as _hash_tensor

from .._dispatch import Op
from .._tensor import Tensor

_VI = ("values", "indices")


def _given(args, kwargs, i, name):
    """The argument at position i (counting input) or keyword `name`, None if absent."""
    if len(args) > i:
        return args[i]
    return kwargs.get(name) if kwargs else None


def _with_dim(dim_op):
    """Route to `dim_op` when a dim is given (torch's FooBackward1 / namedtuple overloads)."""
    return lambda args, kwargs: dim_op if _given(args, kwargs, 1, "dim") is not None else None


_pointwise = {}


def _elementwise(name):
    """The table row of a pointwise op, looked up when first needed (max(a, b) is maximum(a, b))."""
    if name not in _pointwise:
        from . import OPS

        _pointwise[name] = next(op for op in OPS if op.name == name)
    return _pointwise[name]


def _extreme(name, binary):
    dim_op = Op(name, getattr(F, name), out=(name, _VI), grad_name=name.capitalize() + "Backward0")

    def route(args, kwargs):
        other = _given(args, kwargs, 1, "other")
        if isinstance(other, Tensor):
            return _elementwise(binary)
        return dim_op if _given(args, kwargs, 1, "dim") is not None else None

    return Op(name, getattr(F, name), grad_name=name.capitalize() + "Backward1", route=route)


def _reduce(name, **kw):
    """A reduction whose dim overload has its own node name (SumBackward0 / SumBackward1)."""
    base = name.capitalize() + "Backward"
    return Op(name, getattr(F, name), grad_name=base + "0", route=_with_dim(
        Op(name, getattr(F, name), grad_name=base + "1", **kw)), **kw)


def _median(name):
    base = name.capitalize() + "Backward"
    return Op(name, getattr(F, name), grad_name=base + "0", route=_with_dim(
        Op(name, getattr(F, name), out=(name, _VI), grad_name=base + "1")))


def _quantile(name):
    """q a Python number is static (checked, no gradient); q a Tensor is traced. The tensor form runs
    unjitted so torch's check that q's values lie in [0, 1] can see them."""
    tensor_q = Op(name, getattr(F, name), arrays=("input", "q"), jit=False, grad_name="SqueezeBackward4")
    return Op(name, getattr(F, name), grad_name="SqueezeBackward4",
              route=lambda args, kwargs: tensor_q if isinstance(_given(args, kwargs, 1, "q"), Tensor) else None)


OPS = [
    _reduce("sum", saves=()),
    _reduce("mean", saves=()),
    _reduce("prod"),
    Op("nansum", F.nansum),
    Op("nanmean", F.nanmean, grad_name="DivBackward0"),
    Op("var", F.var),
    Op("std", F.std),
    Op("var_mean", F.var_mean, method=False),
    Op("std_mean", F.std_mean, method=False),
    _extreme("max", "maximum"),
    _extreme("min", "minimum"),
    Op("amax", F.amax),
    Op("amin", F.amin),
    Op("aminmax", F.aminmax, out=("aminmax", ("min", "max"))),
    Op("argmax", F.argmax),
    Op("argmin", F.argmin),
    Op("logsumexp", F.logsumexp, promote="all", to_float=True),
    Op("norm", F.norm, grad_name="LinalgVectorNormBackward0"),
    Op("all", F.all),
    Op("any", F.any),
    Op("count_nonzero", F.count_nonzero),
    Op("hash_tensor", _hash_tensor),
    _median("median"),
    _median("nanmedian"),
    _quantile("quantile"),
    _quantile("nanquantile"),
    Op("mode", F.mode, out=("mode", _VI)),
    Op("cumsum", F.cumsum, inplace=True, saves=()),
    Op("cumprod", F.cumprod, inplace=True),
    Op("cummax", F.cummax, out=("cummax", _VI)),
    Op("cummin", F.cummin, out=("cummin", _VI)),
    Op("logcumsumexp", F.logcumsumexp),
    Op("diff", F.diff, arrays=("input", "prepend", "append"), promote="all", saves=(), grad_name="SubBackward0"),
    Op("gradient", F.gradient, arrays=("input", "spacing"), method=False),
]
