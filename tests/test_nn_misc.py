"""Dropout (random masks tested by their statistics and consistency: values cannot equal torch's RNG), the
dropout, embedding and distance modules against torch, signatures and torch's error messages. The
deterministic cases of the functions are in tests/opinfo/nn_misc.py."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import torch

import facade

from ._nn import check_init, check_module

F = facade.nn.functional
NAMES = {"dropout": ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"],
         "sparse": ["Embedding", "EmbeddingBag"], "distance": ["CosineSimilarity", "PairwiseDistance"]}


def _params(obj):
    return [(p.name, p.kind, p.default) for p in inspect.signature(obj).parameters.values()]


@pytest.mark.parametrize("file,name", [(f, n) for f, ns in NAMES.items() for n in ns])
def test_signature_and_constants(file, name):
    t, f = getattr(torch.nn, name), getattr(facade.nn, name)
    assert _params(f) == _params(t)
    assert f.__constants__ == t.__constants__
    assert f.__module__ == f"facade.nn.modules.{file}"
    if hasattr(t, "from_pretrained"):
        assert _params(f.from_pretrained) == _params(t.from_pretrained)


FUNCS = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "embedding",
         "embedding_bag", "one_hot", "normalize", "cosine_similarity", "pairwise_distance", "pdist"]


@pytest.mark.parametrize("name", [n for n in FUNCS if not inspect.isbuiltin(getattr(torch.nn.functional, n))])
def test_functional_signature(name):
    assert _params(getattr(F, name)) == _params(getattr(torch.nn.functional, name))


# ---------------------------------------------------------------------------- dropout by statistics

def test_dropout_mask_and_scale():
    facade.manual_seed(0)
    x = facade.ones(100, 100, requires_grad=True)
    y = F.dropout(x, 0.3)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    v = y.detach().numpy()
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.3) < 0.02
    y.backward(facade.ones(100, 100))
    np.testing.assert_array_equal(x.grad.numpy(), v)  # the gradient uses the same mask and scale
    y2 = F.dropout(x, 0.3)
    assert (y2.detach().numpy() != v).any()  # a fresh mask per call
    facade.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(x, 0.3).detach().numpy(), v)  # seeded: reproducible


def test_dropout_float64_and_inplace():
    x = facade.randn(50, 40, dtype=facade.float64)
    y = x.clone()
    out = F.dropout(y, 0.5, inplace=True)
    assert out is y and y.dtype == facade.float64
    xv, yv = x.numpy(), y.numpy()
    kept = yv != 0
    np.testing.assert_allclose(yv[kept], 2 * xv[kept])
    assert 0.4 < kept.mean() < 0.6


def test_dropout_identity_cases():
    x = facade.randn(3, 4)
    for fn in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
        assert getattr(F, fn)(x, 0.5, False) is x
        assert getattr(F, fn)(x, 0.0, True) is x
    m = facade.nn.Dropout(0.5).eval()
    assert m(x) is x
    assert facade.nn.Dropout(0.0)(x) is x
    assert F.dropout2d(facade.zeros(2, 3, 4, 4), training=False).shape == (2, 3, 4, 4)


@pytest.mark.parametrize("fn,shape,channel", [("dropout1d", (8, 30, 5), 2), ("dropout1d", (30, 5), 1),
                                              ("dropout2d", (8, 30, 3, 3), 2), ("dropout3d", (8, 30, 2, 2, 2), 2),
                                              ("dropout3d", (30, 2, 2, 2), 1), ("dropout2d", (8, 30, 5), 2)])
def test_channel_dropout(fn, shape, channel):
    """Whole channels are zeroed together: every (N, C) slice is all zero or all scaled."""
    x = facade.ones(*shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(F, fn)(x, 0.4)
    v = y.detach().numpy().reshape(*shape[:channel], -1)
    per = v.reshape(-1, v.shape[-1])
    assert all(np.all(r == 0) or np.allclose(r, 1 / 0.6) for r in per)
    assert 0.2 < (per[:, 0] == 0).mean() < 0.6
    if channel == 1:
        assert type(y.grad_fn).__name__ == "SqueezeBackward1"  # unbatched: through unsqueeze/squeeze, as torch
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_alpha_dropout_keeps_mean_and_variance():
    facade.manual_seed(1)
    x = facade.randn(200000)
    for fn in (F.alpha_dropout, lambda t, p, tr: F.feature_alpha_dropout(t.reshape(20000, 10, 1), p, tr)):
        y = fn(x, 0.2, True).reshape(-1).numpy()
        assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
        _, counts = np.unique(y, return_counts=True)
        assert 0.15 < counts.max() / y.size < 0.25  # dropped elements share one value (SELU's saturation, rescaled)
    x = facade.randn(10, 10, requires_grad=True)
    y = F.alpha_dropout(x, 0.5, True)
    assert type(y.grad_fn).__name__ == "AddBackward0"


def test_dropout_warnings():
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d and assuming"):
        F.dropout2d(facade.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input to dropout2d, which is deprecated"):
        F.dropout2d(facade.ones(2, 3))
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        F.dropout3d(facade.ones(2, 3, 4))


@pytest.mark.parametrize("name", NAMES["dropout"])
def test_dropout_modules(name):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4, 2)[: 5 if "3d" in name else 4 if "2d" in name
                                                                   else 3]).astype(np.float32)
    check_module("nn." + name, (0.3,), {}, (x,), train=False)  # eval: identity
    tm, fm = check_module("nn." + name, (), {"p": 1.0}, (x,), train=True)  # p = 1: zeros
    assert repr(fm) == f"{name}(p=1.0, inplace=False)"
    m = getattr(facade.nn, name)(0.5, inplace=True)
    y = facade.tensor(x)
    assert m(y) is y


ERRORS = {
    "F.dropout_p": lambda m: m.nn.functional.dropout(m.ones(3), 1.5),
    "F.dropout1d_p": lambda m: m.nn.functional.dropout1d(m.ones(3, 3), -0.5),
    "Dropout_p": lambda m: m.nn.Dropout(1.5),
    "AlphaDropout_p": lambda m: m.nn.AlphaDropout(-0.1),
    "torch.dropout_p": lambda m: m.dropout(m.ones(3), 1.5, True),
    "dropout1d_dims": lambda m: m.nn.functional.dropout1d(m.ones(2, 3, 4, 5)),
    "feature_dims": lambda m: m.nn.functional.feature_alpha_dropout(m.ones(5), 0.5, True),
    "embedding_range": lambda m: m.nn.functional.embedding(m.tensor([0, 5]), m.ones(3, 2)),
    "embedding_negative": lambda m: m.nn.functional.embedding(m.tensor([-1]), m.ones(3, 2)),
    "embedding_float": lambda m: m.nn.functional.embedding(m.tensor([0.0]), m.ones(3, 2)),
    "embedding_weight": lambda m: m.nn.functional.embedding(m.tensor([0]), m.ones(3)),
    "embedding_padding": lambda m: m.nn.functional.embedding(m.tensor([0]), m.ones(3, 2), padding_idx=3),
    "Embedding_padding": lambda m: m.nn.Embedding(3, 2, padding_idx=-4),
    "Embedding_weight": lambda m: m.nn.Embedding(3, 2, _weight=m.ones(2, 2)),
    "from_pretrained_dim": lambda m: m.nn.Embedding.from_pretrained(m.ones(3)),
    "one_hot_dtype": lambda m: m.nn.functional.one_hot(m.tensor([0.0])),
    "one_hot_negative": lambda m: m.nn.functional.one_hot(m.tensor([0, -1]), 3),
    "one_hot_big": lambda m: m.nn.functional.one_hot(m.tensor([0, 3]), 3),
    "one_hot_empty": lambda m: m.nn.functional.one_hot(m.tensor([], dtype=m.long)),
    "pdist_dims": lambda m: m.nn.functional.pdist(m.ones(2, 3, 4)),
    "pdist_p": lambda m: m.nn.functional.pdist(m.ones(2, 3), -1.0),
    "cosine_long": lambda m: m.nn.functional.cosine_similarity(m.tensor([[1, 2]]), m.tensor([[1, 3]])),
    "cosine_shapes": lambda m: m.nn.functional.cosine_similarity(m.ones(3, 4), m.ones(2, 4)),
    "normalize_long": lambda m: m.nn.functional.normalize(m.tensor([[1, 2]])),
    "bag_mode": lambda m: m.nn.functional.embedding_bag(m.tensor([[0, 1]]), m.ones(3, 2), mode="foo"),
    "bag_offsets": lambda m: m.nn.functional.embedding_bag(m.tensor([0, 1]), m.ones(3, 2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    with pytest.raises(Exception) as et:
        ERRORS[name](torch)
    with pytest.raises(type(et.value)) as ef:
        ERRORS[name](facade)
    assert str(ef.value) == str(et.value)


# ---------------------------------------------------------------------------- embedding

IDX = np.array([[0, 2, 4], [4, 9, 2]], np.int64)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                    {"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0}, {"dtype": torch.float64}],
                         ids=str)
def test_embedding_module(kwargs):
    fk = {k: (facade.float64 if v is torch.float64 else v) for k, v in kwargs.items()}

    def call(m, x):
        return m(x)

    tm, fm = check_module("nn.Embedding", (10, 3), kwargs, (IDX,), steps=2, call=call,
                          rtol=1e-5) if "dtype" not in kwargs else (None, None)
    if "dtype" in kwargs:
        m = facade.nn.Embedding(10, 3, **fk)
        assert m.weight.dtype == facade.float64
        return
    if "max_norm" in kwargs:  # the looked-up rows of the weight were renormalised in place, as torch's
        np.testing.assert_allclose(fm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_embedding_init_and_padding():
    check_init("nn.Embedding", (50, 8), tol=1.0)  # N(0, 1): min/max of normal samples vary by a whole std
    w = facade.nn.Embedding(500, 40).weight.detach().numpy()
    assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02
    m = facade.nn.Embedding(6, 3, padding_idx=4)
    assert not m.weight[4].detach().numpy().any() and m.weight[3].detach().numpy().any()
    assert repr(m) == repr(torch.nn.Embedding(6, 3, padding_idx=4))
    assert repr(facade.nn.Embedding(6, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)) == \
        repr(torch.nn.Embedding(6, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True))


def test_embedding_from_pretrained():
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    for freeze in (True, False):
        t = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=freeze, padding_idx=1)
        f = facade.nn.Embedding.from_pretrained(facade.tensor(w), freeze=freeze, padding_idx=1)
        assert f.weight.requires_grad == t.weight.requires_grad and repr(f) == repr(t)
        np.testing.assert_array_equal(f(facade.tensor([1, 3])).detach().numpy(), t(torch.tensor([1, 3])).detach())
    bag = facade.nn.EmbeddingBag.from_pretrained(facade.tensor(w), mode="sum")
    np.testing.assert_array_equal(bag(facade.tensor([[0, 1]])).numpy(), [w[0] + w[1]])
    assert not bag.weight.requires_grad


BAGS = [({"mode": "sum"}, (np.array([0, 2, 4, 5, 1, 7], np.int64), np.array([0, 2, 2, 5], np.int64))),
        ({"mode": "mean"}, (IDX,)), ({"mode": "max"}, (np.array([0, 2, 4, 5, 1], np.int64), np.array([0, 3]))),
        # the last offset closes the last bag at the end of the input: indices past it get torch's gradient from
        # uninitialised memory (torch.empty), which no test can compare
        ({"mode": "sum", "include_last_offset": True}, (np.array([0, 2, 4, 5, 1], np.int64), np.array([0, 1, 5]))),
        ({"mode": "mean", "padding_idx": 2}, (IDX,)), ({"mode": "sum", "max_norm": 1.0}, (IDX,))]


@pytest.mark.parametrize("kwargs,inputs", BAGS, ids=[str(b[0]) for b in BAGS])
def test_embedding_bag_module(kwargs, inputs):
    check_module("nn.EmbeddingBag", (10, 3), kwargs, inputs, steps=2)


def test_embedding_bag_per_sample_weights():
    x, off = np.array([0, 2, 4, 5, 1], np.int64), np.array([0, 2], np.int64)
    psw = np.random.default_rng(0).standard_normal(5).astype(np.float32)
    check_module("nn.EmbeddingBag", (10, 3), {"mode": "sum"}, (x, off, psw))


# ---------------------------------------------------------------------------- distances

def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name,args,inputs", [
    ("CosineSimilarity", (), (_r(4, 5), _r(4, 5, seed=1))), ("CosineSimilarity", (0, 1e-3), (_r(4, 5), _r(4, 1))),
    ("PairwiseDistance", (), (_r(4, 5), _r(4, 5, seed=1))),
    ("PairwiseDistance", (1.0, 1e-3, True), (_r(4, 5), _r(5, seed=1))),
    ("PairwiseDistance", (float("inf"),), (_r(2, 4, 5), _r(2, 4, 5, seed=1)))], ids=str)
def test_distance_modules(name, args, inputs):
    check_module("nn." + name, args, {}, inputs)


def test_one_hot():
    for args in [([0, 3, 1],), ([0, 3, 1], 6), ([[1], [2]],)]:
        t = torch.nn.functional.one_hot(torch.tensor(args[0]), *args[1:])
        f = F.one_hot(facade.tensor(args[0]), *args[1:])
        assert f.dtype == facade.int64 and tuple(f.shape) == tuple(t.shape)
        np.testing.assert_array_equal(f.numpy(), t.numpy())
