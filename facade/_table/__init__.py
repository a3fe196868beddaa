"""The op table: every facade op is one `Op` row, from which torch.X, Tensor.X, the dunders
and the in-place X_ are all derived. Each family lives in its own file."""

from __future__ import annotations

import inspect

from .._dispatch import call, call_inplace
from . import (
    core,
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
)

FAMILIES = (core, pointwise, reductions, shape, indexing, sorting, linalg,
            nn_activation, nn_conv, nn_sampling, nn_pool, nn_norm, nn_loss, nn_misc, nn_attention, nn_rnn)
OPS = [op for family in FAMILIES for op in family.OPS]


def _function(op):
    def fn(*args, **kwargs):
        return call(op, args, kwargs)

    _describe(fn, op, op.name)
    return fn


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
            for d in op.inplace_dunders:
                setattr(Tensor, d, m)
    for family in FAMILIES:  # compositions of rows (views of several inputs, __getitem__, dropout ...)
        for n, f in getattr(family, "FUNCTIONS", {}).items():  # FUNCTIONS: {name: f} on the family MODULE
            mod, _, n = n.rpartition(".")  # or a qualified name: "torch.relu_" from an nn family
            setattr(modules[mod or getattr(family, "MODULE", "torch")], n, f)  # where the family's MODULE says
        for n, f in getattr(family, "METHODS", {}).items():
            setattr(Tensor, n, f)
