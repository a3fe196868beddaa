"""OpInfo entries for dropout (its deterministic cases), embedding, embedding_bag, one_hot, normalize and
the distances (functional/nn/misc.py, facade/_table/nn_misc.py). Dropout's random masks are tested by
their statistics in tests/test_nn_misc.py."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64, I64, I32, B = np.float32, np.float64, np.int64, np.int32, np.bool_
NN = "nn.functional."


def fixed(*samples):
    def gen(rng):
        return [s if isinstance(s, Sample) else Sample(s) for s in samples]
    return gen


def _r(shape, dtype=F32, seed=0, low=-3.0, high=3.0):
    return arr(np.random.default_rng(seed), shape, dtype, low, high)


def I(*v, dtype=I64):  # noqa: E743
    return np.array(v, dtype=dtype)


X = _r((3, 4))

# eval mode / p = 0 / p = 1 are deterministic (p = 1: zeros); a bad p is refused
_DROP = fixed(Sample((X,), dict(training=False)), Sample((X, 0.0)), Sample((X, 1.0)), Sample((X, 1.5)),
              Sample((X, -0.1), dict(training=False)), Sample((np.zeros((0, 3), F32), 0.5)),
              Sample((_r((2, 3), F64), 1.0)))

register(
    *(OpInfo(NN + n, _DROP) for n in ("dropout", "alpha_dropout", "feature_alpha_dropout")),
    OpInfo(NN + "dropout1d", fixed(Sample((X, 1.0)), Sample((_r((2, 3, 4)),), dict(training=False)),
                                   Sample((_r((2, 3, 4, 5)),)), Sample((X, 2.0)))),
    OpInfo(NN + "dropout2d", fixed(Sample((_r((2, 3, 2, 2)), 1.0)), Sample((_r((2, 3, 4)),), dict(training=False)))),
    OpInfo(NN + "dropout3d", fixed(Sample((_r((2, 3, 2, 2, 2)), 1.0)), Sample((_r((3, 2, 2, 2)), 1.0)),
                                   Sample((_r((3, 2, 2, 2)),), dict(training=False)))),
    OpInfo("dropout", fixed((X, 0.5, False), (X, 1.0, True), (X, 1.5, True))),
    OpInfo("feature_dropout", fixed((X, 1.0, True), (_r((2, 3, 2)), 0.5, False))),
    OpInfo("alpha_dropout", fixed((X, 1.0, True), (X, 0.3, False))),
)

# ---------------------------------------------------------------------------- embedding
W = _r((6, 3))
register(
    OpInfo(NN + "embedding", fixed(
        (I(0, 2, 5, 2), W), (I(3, dtype=I64).reshape(()), W), (np.array([[0, 1], [5, 5]], I64), W),
        (np.zeros((0,), I64), W), (I(0, 1, dtype=I32), _r((6, 3), F64)),
        Sample((I(0, 2, 5, 2, 2), W), dict(padding_idx=2)), Sample((I(0, 2, 5), W), dict(padding_idx=-1)),
        Sample((I(0, 2), W), dict(padding_idx=6)), Sample((I(0, 2), W), dict(padding_idx=-7)),
        Sample((I(0, 2, 2, 2, 5), W), dict(scale_grad_by_freq=True)),
        Sample((I(0, 2, 2, 4), W), dict(scale_grad_by_freq=True, padding_idx=4)),
        Sample((I(0, 2, 2), _r((6, 3), seed=1) * 3), dict(max_norm=1.0)),
        Sample((I(0, 2, 2), _r((6, 3), seed=2) * 3), dict(max_norm=2.0, norm_type=1.0)),
        (I(0, 6), W), (I(-1, 0), W), (np.array([0.0, 1.0], F32), W), (I(0, 1), _r((6,))), (I(0, 1), I(1, 2, 3)))),
    OpInfo("embedding", fixed((W, I(0, 3, 3)), (W, I(0, 3, 3), 3), (W, I(0, 3, 3), -1, True))),
)


def _bag(mode, **kw):
    return [Sample((np.array([[0, 2], [4, 5], [1, 1]], I64), W), dict(mode=mode, **kw)),
            Sample((I(0, 2, 4, 5, 1), W, I(0, 2, 2, 4)), dict(mode=mode, **kw)),
            Sample((I(0, 2, 4, 5, 1), W, I(0, 1, 3, 5)), dict(mode=mode, include_last_offset=True, **kw)),
            Sample((I(0, 2, 4, 5, 1), W, I(0, 3)), dict(mode=mode, padding_idx=2, **kw))]


register(
    OpInfo(NN + "embedding_bag", fixed(
        *_bag("sum"), *_bag("mean"), *_bag("max"),
        Sample((I(0, 2, 4, 5, 1), W, I(0, 2)), dict(mode="sum", per_sample_weights=_r((5,), seed=3))),
        Sample((np.array([[0, 2], [4, 5]], I64), W), dict(mode="sum", per_sample_weights=_r((2, 2), seed=4))),
        Sample((I(0, 2, 4, 5, 1), W, I(0, 2)), dict(mode="mean", per_sample_weights=_r((5,), seed=3))),
        Sample((I(0, 2, 4), W, I(0, 2)), dict(mode="foo")), Sample((I(0, 2, 4), W)),
        Sample((np.array([[0, 2]], I64), W, I(0))), Sample((I(0, 2, 2), _r((6, 3), seed=1) * 3, I(0, 1)),
                                                           dict(max_norm=1.0)))),
)

# ---------------------------------------------------------------------------- one_hot, normalize, distances
register(
    OpInfo(NN + "one_hot", fixed((I(0, 3, 1),), (I(0, 3, 1), 5), (np.array([[0, 1], [2, 0]], I64),),
                                 (I(2, dtype=I64).reshape(()),), (np.zeros((0,), I64), 3), (np.zeros((0,), I64),),
                                 (I(0, 3), 2), (I(0, -1), 3), (np.array([0.0, 1.0], F32),), (I(0, 1, dtype=I32), 3)),
           grad=False),
    OpInfo(NN + "normalize", fixed(
        (X,), Sample((X,), dict(dim=0)), Sample((_r((2, 3, 4), F64),), dict(p=1.0, dim=-1)),
        Sample((X,), dict(p=3.0, eps=0.5)), Sample((np.zeros((2, 3), F32),)), Sample((_r((4,)),), dict(dim=0)),
        Sample((np.array([[1e-13, 0.0, 0.0]], F32),)), Sample((X,), dict(p=float("inf"))),
        Sample((np.array(2.0, F32),), dict(dim=0)), Sample((np.zeros((0, 3), F32),)),
        Sample((I(1, 2),), dict(dim=0)), Sample((X,), dict(dim=2)), Sample((Arg(_r((4, 3)), transpose=True),)))),
    OpInfo(NN + "cosine_similarity", fixed(
        (X, _r((3, 4), seed=1)), Sample((X, _r((4,), seed=1)), dict(dim=-1)), (_r((2, 3), F64), _r((2, 3), F64, 1)),
        Sample((_r((4,)), _r((4,), seed=2)), dict(dim=0)), (X, _r((3, 4), F64, 1)),
        (np.array([[1e-9, 0, 0]], F32), np.array([[1.0, 2.0, 3.0]], F32)), (np.zeros((2, 3), F32), X[:2, :3]),
        Sample((np.array(1.0, F32), np.array(3.0, F32)), dict(dim=0)), (X, _r((2, 4))),
        (np.array([[1, 2]], I64), np.array([[1, 3]], I64)), (I(1, 2).reshape(1, 2), np.array([[1.0, 3.0]], F32)),
        Sample((X, X * 2), dict(eps=0.5)))),
    OpInfo("cosine_similarity", fixed((X, _r((3, 4), seed=1)))),
    OpInfo(NN + "pairwise_distance", fixed(
        (X, _r((3, 4), seed=1)), (X, _r((4,), seed=1)), Sample((X, _r((3, 4), seed=1)), dict(p=1.0, keepdim=True)),
        Sample((X, _r((3, 4), seed=1)), dict(p=float("inf"))), Sample((X, X), dict(eps=0.0)),
        (_r((2, 3), F64), _r((2, 3), F64, 1)), (np.array(1.0, F32), np.array(3.0, F32)),
        (I(1, 2).reshape(1, 2), I(1, 3).reshape(1, 2)), (X, _r((2, 4))), Sample((X, _r((3, 4))), dict(p=0.5)))),
    OpInfo("pairwise_distance", fixed((X, _r((3, 4), seed=1)))),
    OpInfo(NN + "pdist", fixed(
        (X,), (_r((5, 2), F64),), ((np.array([[1.0, 2], [1, 2], [3, 4]], F32)),), Sample((X,), dict(p=1.0)),
        Sample((X,), dict(p=float("inf"))), Sample((X, 3.0)), (_r((1, 3)),),
        (_r((2, 3, 4)),), (X, -1.0), (np.array([[1, 2], [3, 4]], I64),))),
    OpInfo("pdist", fixed((X,))),
    OpInfo(NN + "pdist", fixed((np.zeros((0, 3), F32),)), grad=False),  # torch's backward of 0 rows segfaults
)
