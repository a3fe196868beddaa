"""OpInfo entries for sorting, selection, uniqueness, binary search and counting."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register


def distinct(rng, shape, dtype=np.float32):
    """Values without ties (so every index torch picks is determined), shuffled."""
    n = int(np.prod(shape))
    v = rng.permutation(n).astype(np.float64) - n / 2
    if np.issubdtype(np.dtype(dtype), np.floating):
        v = v * 0.37 + rng.uniform(0, 0.1, n)
    return v.reshape(shape).astype(dtype)


def ties(rng, shape, dtype=np.float32):
    """Small integers: many ties, to check torch's order among equal values."""
    return rng.integers(-2, 3, size=shape).astype(dtype)


def with_nan(rng):
    a = arr(rng, (3, 6), np.float64)
    a[0, 2] = a[1, 4] = a[2, 0] = np.nan
    a[1, 1] = a[1, 3]
    return a


def sort_samples(rng):
    return [
        Sample((ties(rng, (7,)),)),
        Sample((ties(rng, (3, 5)),), dict(dim=0)),
        Sample((ties(rng, (3, 5)),), dict(descending=True, stable=True)),
        Sample((ties(rng, (2, 3, 4), np.float64), 1, True)),
        Sample((with_nan(rng),), dict(descending=True)),
        Sample((with_nan(rng),)),
        Sample((ties(rng, (4, 5), np.int64),), dict(dim=-2, descending=True)),
        Sample((ties(rng, (6,), np.int32),), dict(stable=True)),
        Sample((ties(rng, (6,), np.uint8),),),
        Sample((rng.random(6) > 0.5,),),
        Sample((ties(rng, (3, 5), np.float16),), dict(stable=True)),
        Sample((np.array(1.5, np.float32),),),
        Sample((np.array(1.5, np.float32),), dict(dim=1)),
        Sample((np.zeros((0, 3), np.float32),), dict(dim=0)),
        Sample((Arg(ties(rng, (4, 3)), transpose=True),), dict(dim=0, descending=True)),
        Sample((arr(rng, (3,), np.complex64),)),
    ]


def topk_samples(rng):
    return [
        Sample((distinct(rng, (7,)), 3)),
        Sample((distinct(rng, (4, 6)), 2), dict(dim=0)),
        Sample((distinct(rng, (4, 6), np.float64), 4), dict(largest=False)),
        Sample((distinct(rng, (2, 3, 5), np.int64), 5, 2)),
        Sample((distinct(rng, (5, 4), np.int32), 1, 0, False)),
        Sample((distinct(rng, (6,), np.float16), 6)),
        Sample((distinct(rng, (6,)), 7)),
        Sample((distinct(rng, (6,)), 0)),
        Sample((np.array(2.0, np.float32), 1)),
        Sample((np.zeros((0, 3), np.float32), 2)),
        Sample((Arg(distinct(rng, (5, 4)), transpose=True), 2)),
        Sample((rng.random(4) > 0.5, 1)),
    ]


def kthvalue_samples(rng):
    return [
        Sample((distinct(rng, (7,)), 3)),
        Sample((distinct(rng, (4, 6)), 2), dict(dim=0)),
        Sample((distinct(rng, (4, 6), np.float64), 6, 1, True)),
        Sample((distinct(rng, (2, 3, 5), np.int64), 1), dict(dim=1, keepdim=True)),
        Sample((distinct(rng, (6,), np.int16), 7)),
        Sample((distinct(rng, (6,)), 0)),
        Sample((distinct(rng, (6,)), 2), dict(dim=1)),
        Sample((np.array(2.0, np.float32), 1)),
        Sample((np.zeros((3, 0), np.float32), 1), dict(dim=0)),
        Sample((Arg(distinct(rng, (5, 4)), transpose=True), 2)),
        Sample((rng.random(4) > 0.5, 1)),
    ]


def unique_samples(rng):
    ints = ties(rng, (4, 5), np.int64)
    rows = np.array([[3, 1, 0], [2, 1, 0], [3, 1, 0], [0, 0, 0]], np.int32)
    return [
        Sample((ints,)),
        Sample((ints,), dict(return_inverse=True, return_counts=True)),
        Sample((ints, False, True)),
        Sample((ties(rng, (9,)),), dict(return_counts=True)),
        Sample((with_nan(rng),), dict(return_counts=True)),  # NaNs are distinct; their inverse order is unspecified
        Sample((rows,), dict(dim=0, return_inverse=True, return_counts=True)),
        Sample((rows,), dict(dim=1, return_inverse=True)),
        Sample((rows,), dict(dim=-2)),
        Sample((rng.random(7) > 0.5,), dict(return_counts=True)),
        Sample((np.array(2.0, np.float32),), dict(return_inverse=True, return_counts=True)),
        Sample((np.zeros((0,), np.float32),), dict(return_inverse=True, return_counts=True)),
        Sample((np.zeros((0, 3), np.float32),), dict(dim=0, return_inverse=True)),
        Sample((np.zeros((0, 3), np.float32),), dict(dim=1)),
        Sample((rows,), dict(dim=2)),
        Sample((Arg(ties(rng, (4, 3)), transpose=True),), dict(return_inverse=True)),
        Sample((arr(rng, (3,), np.complex64),)),
    ]


def unique_consecutive_samples(rng):
    runs = np.repeat(ties(rng, (8,), np.int64), rng.integers(1, 4, 8))
    rows = np.array([[3, 1], [3, 1], [2, 1], [3, 1], [3, 1]], np.int64)
    return [
        Sample((runs,)),
        Sample((runs,), dict(return_inverse=True, return_counts=True)),
        Sample((np.repeat(ties(rng, (6,)), 2).reshape(3, 4),), dict(return_inverse=True)),
        Sample((rows,), dict(dim=0, return_inverse=True, return_counts=True)),
        Sample((rows,), dict(dim=1, return_counts=True)),
        Sample((np.array([np.nan, np.nan, 1.0, 1.0]),), dict(return_counts=True)),
        Sample((np.repeat(rng.random(5) > 0.5, 2),), dict(return_inverse=True)),
        Sample((np.array(2.0, np.float32),), dict(return_inverse=True, return_counts=True)),
        Sample((np.zeros((0,), np.float32),), dict(return_inverse=True, return_counts=True)),
    ]


def searchsorted_samples(rng):
    seq = np.sort(ties(rng, (8,)))
    vals = arr(rng, (3, 4), np.float32, -3, 3)
    vals[0, :2] = seq[2], seq[5]
    batch = np.sort(ties(rng, (2, 3, 6), np.float64), axis=-1)
    perm = rng.permutation(8)
    return [
        Sample((seq, vals)),
        Sample((seq, vals), dict(right=True)),
        Sample((seq, vals), dict(side="right", out_int32=True)),
        Sample((seq, vals), dict(side="left", right=True)),
        Sample((seq, vals), dict(side="middle")),
        Sample((batch, arr(rng, (2, 3, 5), np.float64))),
        Sample((batch, arr(rng, (2, 3, 5), np.float64)), dict(right=True)),
        Sample((batch, arr(rng, (3, 5), np.float64))),
        Sample((seq, 1.5)),
        Sample((seq, np.array(-0.5, np.float32))),
        Sample((np.arange(6, dtype=np.int64), vals)),
        Sample((seq[perm], vals), dict(sorter=perm.astype(np.int64))),
        Sample((seq[perm], vals), dict(sorter=perm.astype(np.int32))),
        Sample((np.array(1.0, np.float32), vals)),
        Sample((np.zeros((0,), np.float32), vals)),
        Sample((seq, np.zeros((0, 2), np.float32))),
    ]


def bucketize_samples(rng):
    bounds = np.sort(ties(rng, (6,)))
    vals = arr(rng, (2, 5), np.float32)
    vals[0, 0] = bounds[3]
    return [
        Sample((vals, bounds)),
        Sample((vals, bounds), dict(right=True)),
        Sample((vals, bounds), dict(out_int32=True)),
        Sample((ties(rng, (4,), np.int64), bounds)),
        Sample((2.5, bounds)),
        Sample((np.array(0.0, np.float32), bounds.astype(np.float64))),
        Sample((vals, bounds.reshape(2, 3))),
        Sample((Arg(arr(rng, (4, 3)), transpose=True), bounds)),
    ]


def bincount_samples(rng):
    idx = rng.integers(0, 6, 10)
    return [
        Sample((idx,)),
        Sample((idx,), dict(minlength=9)),
        Sample((idx, arr(rng, (10,), np.float32))),
        Sample((idx, arr(rng, (10,), np.float64)), dict(minlength=3)),
        Sample((idx, ties(rng, (10,), np.int64))),
        Sample((idx, arr(rng, (10,), np.float16))),
        Sample((idx.astype(np.int32),)),
        Sample((idx.astype(np.uint8),)),
        Sample((np.zeros((0,), np.int64),)),
        Sample((np.zeros((0,), np.int64),), dict(minlength=3)),
        Sample((idx.astype(np.float32),)),
        Sample((idx - 2,)),
        Sample((idx.reshape(2, 5),)),
        Sample((idx,), dict(minlength=-1)),
        Sample((idx, arr(rng, (4,)))),
    ]


def histc_samples(rng):
    x = arr(rng, (50,), np.float32, -2, 2)
    x[:3] = [-1.0, 1.0, 0.0]  # on the range ends and a bin edge
    return [
        Sample((x,)),
        Sample((x,), dict(bins=7, min=-1, max=1)),
        Sample((x.reshape(5, 10), 4, -1.5, 0.5)),
        Sample((x.astype(np.float64),), dict(bins=9)),
        Sample((x.astype(np.float16),), dict(bins=5, min=-1, max=1)),
        Sample((np.array([1.0, 1.0], np.float32),), dict(bins=4)),
        Sample((np.zeros((0,), np.float32),), dict(bins=3)),
        Sample((np.array(0.25, np.float32),), dict(bins=3)),
        Sample((Arg(arr(rng, (4, 3)), transpose=True),), dict(bins=6)),
        Sample((x,), dict(bins=3, min=2, max=1)),
        Sample((x,), dict(bins=0)),
        Sample((ties(rng, (5,), np.int64),), dict(bins=3)),
    ]



def first(samples, k):
    """The first k samples: a method or dunder form only needs to show it binds the same op."""
    return lambda rng: samples(rng)[:k]


register(
    OpInfo("sort", sort_samples),
    OpInfo("Tensor.sort", first(sort_samples, 3)),
    OpInfo("argsort", first(sort_samples, 8)),
    OpInfo("Tensor.argsort", first(sort_samples, 3)),
    OpInfo("msort", lambda rng: [Sample((ties(rng, s),)) for s in [(6,), (4, 3), (2, 3, 2)]]
           + [Sample((ties(rng, (5, 2), np.int64),))]),
    OpInfo("topk", topk_samples),
    OpInfo("Tensor.topk", first(topk_samples, 2)),
    OpInfo("kthvalue", kthvalue_samples),
    OpInfo("Tensor.kthvalue", first(kthvalue_samples, 2)),
    OpInfo("unique", unique_samples, grad=False, jit=False),
    OpInfo("Tensor.unique", first(unique_samples, 4), grad=False, jit=False),
    OpInfo("unique_consecutive", unique_consecutive_samples, grad=False, jit=False),
    OpInfo("Tensor.unique_consecutive", first(unique_consecutive_samples, 2), grad=False, jit=False),
    OpInfo("searchsorted", searchsorted_samples),
    OpInfo("bucketize", bucketize_samples),
    OpInfo("bincount", bincount_samples, grad=False, jit=False),
    OpInfo("Tensor.bincount", first(bincount_samples, 2), grad=False, jit=False),
    OpInfo("histc", histc_samples, grad=False),
    OpInfo("Tensor.histc", first(histc_samples, 2), grad=False),
)


def _histogram_samples(rng):
    x = rng.uniform(-2, 2, (30,)).astype(np.float32)
    return [
        Sample((x, 5)), Sample((x.reshape(5, 6), 4), {"range": (-1.0, 1.0)}),
        Sample((x, np.array([-2.0, -0.5, 0.0, 2.0], np.float32))),
        Sample((x, 3), {"weight": rng.uniform(0, 1, (30,)).astype(np.float32), "density": True}),
        Sample((x.astype(np.float64), 6), {"density": True}), Sample((np.ones(4, np.float32), 2)),
        Sample((np.arange(4, dtype=np.int64), 2)),
    ]


register(OpInfo("histogram", _histogram_samples, grad=False),
         OpInfo("Tensor.histogram", _histogram_samples, grad=False))
