"""The op table: every facade op is one `Op` row, from which torch.X, Tensor.X, the dunders
and the in-place X_ are all derived. Each family lives in its own file."""

from __future__ import annotations

import inspect

from .. import _ragged
from .._dispatch import ALL, call, call_inplace
from . import (
    core,
    fft,
    indexing,
    linalg,
    nn_activation,
    nn_attention,
    nn_conv,
    nn_loss,
    nn_misc,
    nn_norm,
    nn_pool,
    nn_rnn,
    nn_sampling,
    pointwise,
    reductions,
    shape,
    sorting,
    special,
)

FAMILIES = (core, pointwise, reductions, shape, indexing, sorting, linalg, fft, special,
            nn_activation, nn_conv, nn_sampling, nn_pool, nn_norm, nn_loss, nn_misc, nn_attention, nn_rnn)
OPS = [op for family in FAMILIES for op in family.OPS]
_ragged.install(ALL, {op for f in (pointwise, nn_activation) for op in f.OPS})  # rules of the bucketed path


def _function(op):
    def fn(*args, **kwargs):
        return call(op, args, kwargs)

    _describe(fn, op, op.name)
    fn.__module__ = _facade_module(op.modules[0])  # pickles as torch's name: torch.nn.functional.relu
    return fn


def _facade_module(torch_module):
    return "facade" + torch_module[len("torch"):]


# torch.X_ functions torch exports for table rows with an in-place Tensor.X_ (torch has no torch.add_ ...)
TORCH_INPLACE = frozenset((
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_ clamp_ "
    "clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ "
    "lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ "
    "rsqrt_ selu_ celu_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ addmv_ dropout_ "
    "alpha_dropout_ feature_alpha_dropout_ feature_dropout_ conj_physical_ zero_").split())


def _method(op):
    def method(self, *args, **kwargs):
        return call(op, (self, *args), kwargs)

    _describe(method, op, op.name)
    return method


def _rmethod(op):
    def rmethod(self, other):
        return call(op, (other, self), None)

    return rmethod


def _inplace(op):
    def method(self, *args, **kwargs):
        return call_inplace(op, self, args, kwargs)

    _describe(method, op, op.name + "_")
    return method


def _describe(fn, op, name):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: see functional.{op.fn.__name__}.\n\n{op.fn.__doc__ or ''}"
    try:
        fn.__signature__ = inspect.signature(op.fn)
    except (TypeError, ValueError):
        pass


def install(Tensor, modules):
    """Put every op of the table on its torch module(s), on Tensor, its dunders and in-place variants."""
    for op in OPS:
        fn = _function(op)
        names = (op.name, *op.aliases)
        if op.function:
            for module in op.modules:
                for n in names:
                    setattr(modules[module], n, fn)
        if op.method:
            m = property(_method(op)) if op.method == "property" else _method(op)  # x.real, x.imag
            for n in names:
                setattr(Tensor, n, m)
        for d in op.dunders:
            setattr(Tensor, d, _method(op))
        for d in op.rdunders:
            setattr(Tensor, d, _rmethod(op))
        if op.inplace:
            m = _inplace(op)
            for n in names:
                setattr(Tensor, n + "_", m)
                if n + "_" in TORCH_INPLACE and "torch" in op.modules:
                    setattr(modules["torch"], n + "_", m)
            for d in op.inplace_dunders:
                setattr(Tensor, d, m)
    for family in FAMILIES:  # compositions of rows (views of several inputs, __getitem__, dropout ...)
        for n, f in getattr(family, "FUNCTIONS", {}).items():  # FUNCTIONS: {name: f} on the family MODULE
            mod, _, n = n.rpartition(".")  # or a qualified name: "torch.relu_" from an nn family
            mod = mod or getattr(family, "MODULE", "torch")
            setattr(modules[mod], n, f)  # where the family's MODULE says
            if getattr(f, "__module__", "").startswith("facade._table"):  # pickles by torch's name
                f.__module__, f.__qualname__ = _facade_module(mod), n
        for n, f in getattr(family, "METHODS", {}).items():
            setattr(Tensor, n, f)
