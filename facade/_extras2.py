"""More torch.* names: histogramdd, choose_qparams_optimized and SyncBatchNorm's kernels (batch_norm_stats,
batch_norm_elemt, batch_norm_gather_stats[_with_counts], batch_norm_backward_reduce/elemt, batch_norm_update_stats).
Each is an Op run through the dispatch chokepoint; the ones that move running statistics write them into the
buffers in place, as torch's kernels do. The math (and its docstrings) is in functional/extras.py."""

from __future__ import annotations

import inspect
from collections import namedtuple

import functional.extras as FX

from ._dispatch import Op, call
from ._tensor import Tensor
from .autograd.grad_mode import no_grad

__all__ = ["histogramdd", "batch_norm_stats", "batch_norm_update_stats", "batch_norm_elemt", "batch_norm_gather_stats",
           "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce", "batch_norm_backward_elemt",
           "choose_qparams_optimized"]

_histogramdd = namedtuple("histogramdd", ("hist", "bin_edges"))
_histogramdd.__module__ = "torch.return_types"


def _flat_histogramdd(input, bins, *, range=None, weight=None, density=False):
    """functional.extras.histogramdd as one flat tuple (hist, *bin_edges): the chokepoint wraps flat tuples."""
    hist, edges = FX.histogramdd(input, bins, range=range, weight=weight, density=density)
    return (hist, *edges)


_HIST_INT = Op("histogramdd", _flat_histogramdd, arrays=("input", "weight"), differentiable=False)
_HIST_EDGES = Op("histogramdd", _flat_histogramdd, arrays=("input", "bins", "weight"), differentiable=False)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd: see functional.extras.histogramdd."""
    edges = not isinstance(bins, int) and any(isinstance(b, Tensor) for b in bins)
    hist, *bin_edges = call(_HIST_EDGES if edges else _HIST_INT, (input, bins),
                            {"range": range, "weight": weight, "density": density})
    return _histogramdd(hist, tuple(bin_edges))


def _present(*outs):
    """The results without the running statistics that were not given (None)."""
    return tuple(o for o in outs if o is not None)


_STATS = Op("batch_norm_stats", FX.batch_norm_stats)
_ELEMT = Op("batch_norm_elemt", FX.batch_norm_elemt, arrays=("input", "weight", "bias", "mean", "invstd"))
_REDUCE = Op("batch_norm_backward_reduce", FX.batch_norm_backward_reduce,
             arrays=("grad_out", "input", "mean", "invstd", "weight"))
_BELEMT = Op("batch_norm_backward_elemt", FX.batch_norm_backward_elemt,
             arrays=("grad_out", "input", "mean", "invstd", "weight", "sum_dy", "sum_dy_xmu", "count"))


def _moving(fn, name, arrays):
    """An Op of `fn` whose None running statistics are dropped from the results (saves=(): they are rewritten
    right after the call, by design)."""
    def present(*args, **kwargs):
        return _present(*fn(*args, **kwargs))
    present.__signature__ = inspect.signature(fn)
    return Op(name, present, arrays=arrays, saves=())


_RUNNING = ("running_mean", "running_var", "momentum")  # momentum traced: no recompile per value
_UPDATE = _moving(FX.batch_norm_update_stats, "batch_norm_update_stats", ("input", *_RUNNING))
_GATHER = _moving(FX.batch_norm_gather_stats, "batch_norm_gather_stats", ("input", "mean", "invstd", *_RUNNING))
_GATHER_N = _moving(FX.batch_norm_gather_stats_with_counts, "batch_norm_gather_stats_with_counts",
                    ("input", "mean", "invstd", *_RUNNING, "counts"))


def _call_moving(op, args, running_mean, running_var):
    first, second, *new = call(op, args, {})
    with no_grad():
        for buf, value in zip([b for b in (running_mean, running_var) if b is not None], new):
            buf.copy_(value)
    return first, second


def batch_norm_stats(input, eps):
    return call(_STATS, (input, eps), {})


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    return _call_moving(_UPDATE, (input, running_mean, running_var, momentum), running_mean, running_var)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    return call(_ELEMT, (input, weight, bias, mean, invstd, eps), {})


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    return _call_moving(_GATHER, (input, mean, invstd, running_mean, running_var, momentum, eps, count),
                        running_mean, running_var)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    return _call_moving(_GATHER_N, (input, mean, invstd, running_mean, running_var, momentum, eps, counts),
                        running_mean, running_var)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias), each None where its flag is off, as torch."""
    out = call(_REDUCE, (grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g), {})
    return tuple(o if keep else None for o, keep in zip(out, (input_g, input_g, weight_g, bias_g)))


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    return call(_BELEMT, (grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count), {})


_QPARAMS = Op("choose_qparams_optimized", FX.choose_qparams_optimized, differentiable=False)


def choose_qparams_optimized(input, numel, n_bins, ratio, bit_width):
    return call(_QPARAMS, (input, numel, n_bins, ratio, bit_width), {})
