"""torch.histogramdd, torch.batch_norm_update_stats and SyncBatchNorm's kernels (facade/_extras2.py) against real
torch. The kernels run only on CUDA in torch, so they are checked against the same math in torch CPU ops and
through a SyncBatchNorm-style forward/backward against torch's F.batch_norm."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import facade

from . import test_ops as _ops
from .test_extras_names import _both

_RNG = np.random.default_rng(0)
_PTS = _RNG.standard_normal((7, 2)).astype(np.float32)
_X = _RNG.standard_normal((4, 3, 5)).astype(np.float32)


def _same(fn, tol=1e-6):
    t, f = _both(fn)
    _ops.assert_same(t, f, tol, tol)


def _t(lib, a, dtype=None):
    return lib.tensor(a, dtype=None if dtype is None else getattr(lib, dtype))


# ---------------------------------------------------------------------------- histogramdd

@pytest.mark.parametrize("fn", [
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=3),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[2, 4]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=(2, 3), range=[-0.5, 0.5, -1.0, 2.0]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=3, weight=_t(lib, np.arange(7.0), "float32"), density=True),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[_t(lib, [-1.0, 0.0, 1.0]), _t(lib, [-2.0, 0.5, 0.7, 3.0])]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[_t(lib, [-1.0, 0.0, 1.0]), _t(lib, [-2.0, 0.5, 3.0])],
                                density=True),
    lambda lib: lib.histogramdd(_t(lib, _PTS.reshape(7, 1, 2), "float64"), bins=(2, 2)),
    lambda lib: lib.histogramdd(_t(lib, [[1.0, 2.0], [1.0, 2.0]]), bins=2),  # equal min and max: widened
    lambda lib: lib.histogramdd(lib.empty(0, 2), bins=3),
    lambda lib: lib.histogramdd(_t(lib, _PTS).long(), bins=2),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=0),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[2, 3, 4]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[2, 3], range=[0.0, 1.0]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=3, range=[1.0, 0.0, -1.0, 1.0]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=[_t(lib, [0.0, 1.0]), lib.empty(0)]),
    lambda lib: lib.histogramdd(_t(lib, _PTS), bins=3, weight=lib.ones(5)),
    lambda lib: lib.histogramdd(_t(lib, _PTS[0]), bins=3),
])
def test_histogramdd(fn):
    _same(fn)


def test_histogramdd_return_type():
    t, f = _both(lambda lib: lib.histogramdd(_t(lib, _PTS), bins=2))
    assert type(f).__name__ == type(t).__name__ == "histogramdd" and f._fields == ("hist", "bin_edges")
    assert isinstance(f.bin_edges, tuple)


# ---------------------------------------------------------------------------- batch_norm_update_stats

@pytest.mark.parametrize("buffers", [True, False])
def test_batch_norm_update_stats(buffers):
    def run(lib):
        rm, rv = (_t(lib, [0.1, -0.2, 0.3]), _t(lib, [1.0, 2.0, 0.5])) if buffers else (None, None)
        return lib.batch_norm_update_stats(_t(lib, _X), rm, rv, 0.3), rm, rv

    _same(run)


def test_batch_norm_update_stats_errors():
    _same(lambda lib: lib.batch_norm_update_stats(_t(lib, _X).long(), None, None, 0.1))


# ---------------------------------------------------------------------------- SyncBatchNorm's kernels

def _ref_stats(x, eps):
    axes = [0, *range(2, x.ndim)]
    return x.mean(axes), 1 / torch.sqrt(x.var(axes, unbiased=False) + eps)


def _bc(v, x):
    return v.reshape(1, -1, *[1] * (x.ndim - 2))


def _pair(a, dtype="float32"):
    return torch.tensor(a, dtype=getattr(torch, dtype)), facade.tensor(a, dtype=getattr(facade, dtype))


def test_batch_norm_stats_and_elemt():
    xt, xf = _pair(_X)
    (wt, wf), (bt, bf) = _pair([0.5, 1.5, -1.0]), _pair([0.1, 0.0, 2.0])
    mt, it = _ref_stats(xt, 1e-3)
    mf, if_ = facade.batch_norm_stats(xf, 1e-3)
    _ops.assert_same((mt, it), (mf, if_), 1e-6, 1e-6)
    ref = (xt - _bc(mt, xt)) * _bc(it, xt) * _bc(wt, xt) + _bc(bt, xt)
    _ops.assert_same(ref, facade.batch_norm_elemt(xf, wf, bf, mf, if_, 1e-3), 1e-6, 1e-6)
    _ops.assert_same((xt - _bc(mt, xt)) * _bc(it, xt), facade.batch_norm_elemt(xf, None, None, mf, if_, 1e-3),
                     1e-6, 1e-6)


@pytest.mark.parametrize("with_counts", [True, False])
def test_gather_stats_equals_batch_norm_of_all(with_counts):
    """Per-process stats of chunks, gathered, give F.batch_norm's statistics and running buffers of the whole."""
    sizes = (1, 2, 3) if with_counts else (2, 2, 2)
    x = _RNG.standard_normal((sum(sizes), 3, 4)).astype(np.float32)
    rm_t, rv_t = torch.zeros(3), torch.ones(3)
    torch.nn.functional.batch_norm(torch.tensor(x), rm_t, rv_t, training=True, momentum=0.2, eps=1e-5)
    xf = facade.tensor(x)
    chunks = facade.split(xf, list(sizes))
    stats = [facade.batch_norm_stats(c, 1e-5) for c in chunks]
    mean, invstd = facade.stack([s[0] for s in stats]), facade.stack([s[1] for s in stats])
    rm, rv = facade.zeros(3), facade.ones(3)
    if with_counts:
        counts = facade.tensor([float(s * 4) for s in sizes])
        out = facade.batch_norm_gather_stats_with_counts(xf, mean, invstd, rm, rv, 0.2, 1e-5, counts)
    else:
        out = facade.batch_norm_gather_stats(xf, mean, invstd, rm, rv, 0.2, 1e-5, 8)
    _ops.assert_same(_ref_stats(torch.tensor(x), 1e-5), out, 1e-5, 1e-5)
    _ops.assert_same((rm_t, rv_t), (rm, rv), 1e-5, 1e-6)


@pytest.mark.parametrize("flags", [(True, True, True), (True, False, True), (False, True, False)])
def test_batch_norm_backward_reduce(flags):
    (xt, xf), (gt, gf) = _pair(_X), _pair(_X[::-1].copy())
    wf = facade.tensor([0.5, 1.5, -1.0])
    mt, it = _ref_stats(xt, 1e-5)
    axes = [0, 2]
    sum_dy, sum_dy_xmu = gt.sum(axes), (gt * (xt - _bc(mt, xt))).sum(axes)
    ref = tuple(v if keep else None for v, keep in zip((sum_dy, sum_dy_xmu, sum_dy_xmu * it, sum_dy),
                                                        (flags[0], flags[0], flags[1], flags[2])))
    mf, if_ = facade.batch_norm_stats(xf, 1e-5)
    _ops.assert_same(ref, facade.batch_norm_backward_reduce(gf, xf, mf, if_, wf, *flags), 1e-5, 1e-5)


def test_sync_batch_norm_forward_backward_equals_batch_norm():
    """SyncBatchNorm's forward/backward on one process, through the kernels, equals torch's F.batch_norm."""
    (xt, xf), (gt, gf) = _pair(_X), _pair(_RNG.standard_normal(_X.shape).astype(np.float32))
    (wt, wf), (bt, bf) = _pair([0.5, 1.5, -1.0]), _pair([0.1, 0.0, 2.0])
    xt.requires_grad_(), wt.requires_grad_(), bt.requires_grad_()
    rm_t, rv_t = torch.zeros(3), torch.ones(3)
    yt = torch.nn.functional.batch_norm(xt, rm_t, rv_t, wt, bt, training=True, momentum=0.1, eps=1e-5)
    yt.backward(gt)

    rm, rv = facade.zeros(3), facade.ones(3)
    mean, invstd = facade.batch_norm_stats(xf, 1e-5)
    count = facade.full((1,), xf.numel() // xf.size(1), dtype=mean.dtype)
    mean, invstd = facade.batch_norm_gather_stats_with_counts(xf, mean[None], invstd[None], rm, rv, 0.1, 1e-5, count)
    yf = facade.batch_norm_elemt(xf, wf, bf, mean, invstd, 1e-5)
    sum_dy, sum_dy_xmu, gw, gb = facade.batch_norm_backward_reduce(gf, xf, mean, invstd, wf, True, True, True)
    gx = facade.batch_norm_backward_elemt(gf, xf, mean, invstd, wf, sum_dy, sum_dy_xmu, count.int())
    _ops.assert_same((yt.detach(), xt.grad, wt.grad, bt.grad, rm_t, rv_t), (yf, gx, gw, gb, rm, rv), 1e-5, 1e-5)


# ---------------------------------------------------------------------------- choose_qparams_optimized

@pytest.mark.parametrize("numel, n_bins, ratio, bit_width", [
    (64, 200, 0.16, 8), (64, 200, 0.16, 4), (64, 200, 0.16, 2), (30, 100, 0.5, 4), (64, 7, 0.3, 3)])
def test_choose_qparams_optimized(numel, n_bins, ratio, bit_width):
    # its own generator: data drawn from the module's _RNG depended on which tests of this file ran first
    a = (np.random.default_rng(0).standard_normal(64) * 3).astype(np.float32)
    _same(lambda lib: lib.choose_qparams_optimized(_t(lib, a), numel, n_bins, ratio, bit_width), 0)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.choose_qparams_optimized(lib.ones(4), 4, 200, 0.16, 8),  # constant input: no search
    lambda lib: lib.choose_qparams_optimized(lib.ones(4, dtype=lib.float64), 4, 200, 0.16, 8),
    lambda lib: lib.choose_qparams_optimized(lib.ones(4), 5, 200, 0.16, 8),
    lambda lib: lib.choose_qparams_optimized(lib.ones(4), -1, 200, 0.16, 8),
])
def test_choose_qparams_optimized_edges(fn):
    _same(fn, 0)
