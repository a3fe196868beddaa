"""Loss modules against torch (outputs, input gradients, state_dict with class-weight buffers, repr),
their signatures, the legacy size_average/reduce mapping, and torch's error messages."""

import inspect
import re
import warnings

import numpy as np
import pytest
import torch

import facade

from ._nn import check_module

rng = np.random.default_rng(0)


def _x(*shape, low=-2.0, high=2.0, dtype=np.float32):
    return rng.uniform(low, high, shape).astype(dtype)


def _signs(*shape):
    return np.where(rng.random(shape) > 0.5, 1.0, -1.0).astype(np.float32)


def _detach_target(m, x, t, *rest):
    return m(x, t.detach(), *rest)


def _log_softmax_first(m, x, *rest):
    """torch's CTC gradient assumes normalised log-probabilities (see tests/opinfo/nn_loss.py)."""
    return m(x - x.logsumexp(-1, keepdim=True), *rest)


W5 = np.array([0.5, 1.0, 2.0, 1.5, 0.7], np.float32)
CASES = [
    ("L1Loss", (), {}, (_x(3, 4), _x(3, 4)), None),
    ("MSELoss", (), {"reduction": "sum"}, (_x(3, 4), _x(3, 4)), None),
    ("SmoothL1Loss", (), {"beta": 0.5, "reduction": "none"}, (_x(3, 4), _x(3, 4)), None),
    ("HuberLoss", (), {"delta": 0.5}, (_x(3, 4), _x(3, 4)), None),
    ("NLLLoss", (), {"ignore_index": 1}, (np.log(_x(4, 5, low=0.1, high=1)), np.array([0, 1, 4, 2])), None),
    ("CrossEntropyLoss", (), {"weight": W5, "label_smoothing": 0.1},
     (_x(4, 5), np.array([0, 1, 4, 2])), None),
    ("CrossEntropyLoss", (), {"reduction": "none"}, (_x(2, 5, 3), np.array([[0, 1, 4], [2, 2, 3]])), None),
    ("CrossEntropyLoss", (), {}, (_x(4, 5), _x(4, 5, low=0, high=1)), _detach_target),
    ("BCELoss", (), {"weight": np.array([0.5, 2.0, 1.0], np.float32)},
     (_x(4, 3, low=0.05, high=0.95), _x(4, 3, low=0, high=1)), None),
    ("BCEWithLogitsLoss", (), {"pos_weight": np.array([0.5, 2.0, 1.0], np.float32)},
     (_x(4, 3), _x(4, 3, low=0, high=1)), None),
    ("KLDivLoss", (), {"reduction": "batchmean"}, (_x(3, 4), _x(3, 4, low=0.1, high=1)), None),
    ("PoissonNLLLoss", (), {"full": True}, (_x(3, 4), _x(3, 4, low=0, high=4)), None),
    ("GaussianNLLLoss", (), {"full": True}, (_x(3, 4), _x(3, 4), _x(3, 4, low=0.1, high=2)), None),
    ("HingeEmbeddingLoss", (0.5,), {}, (_x(3, 4), _signs(3, 4)), _detach_target),
    ("SoftMarginLoss", (), {}, (_x(3, 4), _signs(3, 4)), _detach_target),
    ("MultiLabelMarginLoss", (), {}, (_x(2, 4), np.array([[3, 0, -1, 1], [1, 2, 3, 0]])), None),
    ("MultiLabelSoftMarginLoss", (), {"weight": np.array([1.0, 2.0, 0.5, 1.0], np.float32)},
     (_x(3, 4), (_x(3, 4) > 0).astype(np.float32)), None),
    ("CosineEmbeddingLoss", (0.1,), {}, (_x(4, 3), _x(4, 3), _signs(4)), _detach_target),
    ("MarginRankingLoss", (0.2,), {}, (_x(5), _x(5), _signs(5)), None),
    ("MultiMarginLoss", (2, 0.5), {"weight": W5}, (_x(4, 5), np.array([0, 1, 4, 2])), None),
    ("TripletMarginLoss", (), {"swap": True}, (_x(4, 3), _x(4, 3), _x(4, 3)), None),
    ("TripletMarginWithDistanceLoss", (), {"margin": 2.0}, (_x(4, 3), _x(4, 3), _x(4, 3)), None),
    ("CTCLoss", (), {"zero_infinity": True}, (_x(6, 2, 4), np.array([[1, 2], [3, 3]]), np.array([6, 5]),
                                              np.array([2, 2])), _log_softmax_first),
]


def _ctor(lib, kwargs):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("name,args,kwargs,inputs,call", CASES, ids=[c[0] for c in CASES])
def test_module(name, args, kwargs, inputs, call):
    if not any(isinstance(v, np.ndarray) for v in kwargs.values()):
        check_module("nn." + name, args, kwargs, inputs, call=call, rtol=1e-4, atol=1e-5)
        return
    # a tensor constructor argument (class weights) is built per library; the buffer is in state_dict
    tm = getattr(torch.nn, name)(*args, **_ctor(torch, kwargs))
    fm = getattr(facade.nn, name)(*args, **_ctor(facade, kwargs))
    assert repr(fm) == repr(tm)
    t_sd, f_sd = tm.state_dict(), fm.state_dict()
    assert list(f_sd) == list(t_sd)
    for k, v in t_sd.items():
        np.testing.assert_array_equal(f_sd[k].numpy(), v.numpy())
    xt = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    xf = [facade.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    lt, lf = tm(*xt), fm(*xf)
    np.testing.assert_allclose(lf.detach().numpy(), lt.detach().numpy(), rtol=1e-5, atol=1e-6)
    lt.sum().backward()
    lf.sum().backward()
    for a, b in zip(xt, xf):
        if a.grad is not None:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_weighted_losses_grad_and_buffers():
    """Class weights are buffers: in state_dict (as torch), loaded by load_state_dict, moved by to()."""
    w = torch.tensor(W5)
    tm = torch.nn.CrossEntropyLoss(weight=w, ignore_index=3)
    fm = facade.nn.CrossEntropyLoss(weight=facade.ones(5))
    fm.ignore_index = 3
    fm.load_state_dict({"weight": facade.tensor(W5)})
    x = _x(6, 5)
    t = np.array([0, 3, 4, 2, 3, 1])
    xt, xf = torch.tensor(x, requires_grad=True), facade.tensor(x, requires_grad=True)
    lt, lf = tm(xt, torch.tensor(t)), fm(xf, facade.tensor(t))
    lt.backward()
    lf.backward()
    np.testing.assert_allclose(lf.item(), lt.item(), rtol=1e-5)
    np.testing.assert_allclose(xf.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert [n for n, _ in fm.named_buffers()] == [n for n, _ in tm.named_buffers()] == ["weight"]
    assert fm.double().weight.dtype == facade.float64
    b = facade.nn.BCEWithLogitsLoss(pos_weight=facade.ones(3))
    assert list(b.state_dict()) == list(torch.nn.BCEWithLogitsLoss(pos_weight=torch.ones(3)).state_dict())


LOSS_CLASSES = [n for n in facade.nn.modules.loss.__all__]


@pytest.mark.parametrize("name", LOSS_CLASSES)
def test_signature(name):
    tc, fc = getattr(torch.nn, name), getattr(facade.nn, name)
    strip = [p.replace(annotation=inspect.Parameter.empty) for p in inspect.signature(tc.__init__).parameters.values()]
    mine = [p.replace(annotation=inspect.Parameter.empty) for p in inspect.signature(fc.__init__).parameters.values()]
    assert mine == strip
    assert [p.name for p in inspect.signature(fc.forward).parameters.values()] == \
           [p.name for p in inspect.signature(tc.forward).parameters.values()]
    assert [b.__name__ for b in fc.__mro__[1:3]] == [b.__name__ for b in tc.__mro__[1:3]]
    assert getattr(fc, "__constants__", None) == getattr(tc, "__constants__", None)


FUNCTIONS = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
             "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
             "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
             "multilabel_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "soft_margin_loss",
             "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functional_signature(name):
    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(getattr(facade.nn.functional, name)) == params(getattr(torch.nn.functional, name))


@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True), (False, True)])
def test_legacy_reduction(size_average, reduce):
    x, t = _x(3, 4), _x(3, 4)
    with pytest.warns(UserWarning) as rec_t:
        tm = torch.nn.MSELoss(size_average=size_average, reduce=reduce)
    with pytest.warns(UserWarning) as rec_f:
        fm = facade.nn.MSELoss(size_average=size_average, reduce=reduce)
    assert fm.reduction == tm.reduction
    assert str(rec_f[0].message) == str(rec_t[0].message)
    with pytest.warns(UserWarning, match=re.escape(str(rec_t[0].message))):
        out = facade.nn.functional.mse_loss(facade.tensor(x), facade.tensor(t), size_average, reduce)
    np.testing.assert_allclose(out.numpy(), tm(torch.tensor(x), torch.tensor(t)).numpy(), rtol=1e-6)


def test_mse_size_warning():
    with pytest.warns(UserWarning, match=re.escape("Using a target size (torch.Size([3])) that is different to "
                                                   "the input size (torch.Size([3, 1]))")):
        facade.nn.functional.mse_loss(facade.ones(3, 1), facade.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        facade.nn.functional.mse_loss(facade.ones(3), facade.ones(3))


def test_kl_div_mean_warning():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        facade.nn.functional.kl_div(facade.zeros(2, 3), facade.ones(2, 3))


def _msg(fn):
    """torch's exception type and message for fn(torch)."""
    try:
        fn(torch)
    except Exception as e:
        return type(e), str(e)
    raise AssertionError("torch did not raise")


def _t(lib, a):
    return lib.tensor(np.asarray(a))


ERRORS = {
    "target out of bounds": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, [0, 5, 1])),
    "negative target": lambda L: L.nn.functional.nll_loss(_t(L, _x(3, 5)), _t(L, [0, -1, 1])),
    "K-dim target out of bounds": lambda L: L.nn.functional.cross_entropy(_t(L, _x(2, 3, 2)), _t(L, [[0, 1], [3, 0]])),
    "batch size": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, [0, 1])),
    "float target": lambda L: L.nn.functional.nll_loss(_t(L, _x(3, 5)), _t(L, _x(3))),
    "int32 target": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, np.array([0, 1, 2], np.int32))),
    "weight size": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, [0, 1, 2]), _t(L, np.ones(4,
                                                                                                         np.float32))),
    "weight size probs": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, _x(3, 5)),
                                                                 _t(L, np.ones(4, np.float32))),
    "K-dim target size": lambda L: L.nn.functional.nll_loss(_t(L, _x(2, 3, 4)), _t(L, np.zeros((2, 5), np.int64))),
    "0-dim input": lambda L: L.nn.functional.nll_loss(_t(L, np.float32(1.0)), _t(L, np.int64(0))),
    "label smoothing": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, [0, 1, 2]),
                                                               label_smoothing=1.5),
    "reduction": lambda L: L.nn.functional.cross_entropy(_t(L, _x(3, 5)), _t(L, [0, 1, 2]), reduction="avg"),
    "reduction l1": lambda L: L.nn.functional.l1_loss(_t(L, _x(3)), _t(L, _x(3)), reduction="avg"),
    "l1 weight size": lambda L: L.nn.functional.l1_loss(_t(L, _x(3, 2)), _t(L, _x(3, 2)), weight=_t(L, _x(2))),
    "bce input range": lambda L: L.nn.functional.binary_cross_entropy(_t(L, [1.5, 0.5]), _t(L, [1.0, 0.0])),
    "bce target range": lambda L: L.nn.functional.binary_cross_entropy(_t(L, [0.5, 0.5]), _t(L, [2.0, 0.0])),
    "bce size": lambda L: L.nn.functional.binary_cross_entropy(_t(L, [0.5, 0.5]), _t(L, [1.0])),
    "bce dtype": lambda L: L.nn.functional.binary_cross_entropy(_t(L, np.float32([0.5, 0.5])), _t(L, [1.0, 0.0])),
    "bce logits size": lambda L: L.nn.functional.binary_cross_entropy_with_logits(_t(L, [0.5, 0.5]), _t(L, [1.0])),
    "gaussian var negative": lambda L: L.nn.functional.gaussian_nll_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)),
                                                                         _t(L, -np.ones((2, 3), np.float32))),
    "gaussian var float negative": lambda L: L.nn.functional.gaussian_nll_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)),
                                                                               -1.0),
    "gaussian var size": lambda L: L.nn.functional.gaussian_nll_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)),
                                                                     _t(L, np.ones((3, 3), np.float32))),
    "kl int target": lambda L: L.nn.functional.kl_div(_t(L, _x(2, 3)), _t(L, np.ones((2, 3), np.int64)),
                                                      reduction="sum"),
    "multi margin p": lambda L: L.nn.functional.multi_margin_loss(_t(L, _x(2, 3)), _t(L, [0, 1]), p=3),
    "triplet margin": lambda L: L.nn.functional.triplet_margin_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)),
                                                                    _t(L, _x(2, 3)), margin=0),
    "triplet dims": lambda L: L.nn.functional.triplet_margin_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)), _t(L, _x(3))),
    "cosine target": lambda L: L.nn.functional.cosine_embedding_loss(_t(L, _x(2, 3)), _t(L, _x(2, 3)),
                                                                     _t(L, np.ones((2, 1), np.float32))),
    "ranking dims": lambda L: L.nn.functional.margin_ranking_loss(_t(L, _x(3)), _t(L, _x(3)), _t(L, _x(1, 3))),
    "ctc input length": lambda L: L.nn.functional.ctc_loss(_t(L, _x(4, 2, 3)), _t(L, [[1, 2], [1, 1]]), [5, 4],
                                                           [2, 2]),
    "triplet module margin": lambda L: L.nn.TripletMarginLoss(margin=-1.0),
    "multi margin module weight": lambda L: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error(name):
    fn = ERRORS[name]
    kind, msg = _msg(fn)
    with pytest.raises(kind, match="^" + re.escape(msg)):  # jax may append a note on its traceback filtering
        fn(facade)


def test_ctc_concatenated_matches_padded_under_jit():
    """The traced path (no concrete lengths: concatenated targets padded inside the jitted function) agrees
    with the eager one that pads on the host."""
    import jax

    from functional.nn import ctc_loss

    lp = jax.nn.log_softmax(jax.numpy.asarray(_x(7, 3, 5)), -1)
    flat = np.array([1, 2, 2, 3, 4, 4, 1])
    lens = np.array([3, 1, 3])
    padded = np.array([[1, 2, 2], [3, 0, 0], [4, 4, 1]])
    a = jax.jit(ctc_loss, static_argnames=("reduction",))(lp, flat, np.array([7, 6, 7]), lens, reduction="none")
    b = ctc_loss(lp, padded, np.array([7, 6, 7]), lens, reduction="none")
    want = torch.nn.functional.ctc_loss(torch.tensor(np.asarray(lp)), torch.tensor(flat), [7, 6, 7], lens.tolist(),
                                        reduction="none")
    np.testing.assert_allclose(np.asarray(a), want.numpy(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(b), want.numpy(), rtol=1e-5)


def test_nll_out_of_range_under_jit_gives_nan():
    """Under jit the values are unknown, so the IndexError cannot be raised: the loss becomes NaN instead."""
    import jax

    from functional.nn import nll_loss

    out = jax.jit(nll_loss)(jax.numpy.zeros((2, 3)), jax.numpy.array([0, 7]))
    assert np.isnan(float(out))
