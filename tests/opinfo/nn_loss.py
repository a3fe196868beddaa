"""OpInfo entries for torch.nn.functional losses: every reduction, weights, ignore_index, K-dim class
indices, class probabilities, label smoothing, float64, 0-size batches, legacy size_average/reduce, and
the inputs torch refuses (the generic test checks facade raises the same exception type)."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

REDS = ("mean", "sum", "none")
F = "nn.functional."


def _pair(shape=(3, 4), dtype=np.float32, tlow=-3.0, thigh=3.0):
    def gen(rng, s=shape, d=dtype):
        return arr(rng, s, d), arr(rng, s, d, tlow, thigh)
    return gen


def pointwise(extra=(), weight=False, tlow=-3.0, thigh=3.0, legacy=True):
    """input/target of one shape for each reduction, broadcasting, 0-dim, empty, float64, `extra` kwargs;
    with `weight` the elementwise weight of torch 2.13's l1/mse/huber."""
    def gen(rng):
        pair = _pair(tlow=tlow, thigh=thigh)
        out = [Sample(pair(rng), {"reduction": r}) for r in REDS]
        out += [Sample(pair(rng, (2, 3, 4), np.float64)), Sample(pair(rng, ())), Sample(pair(rng, (0, 3))),
                Sample((arr(rng, (3, 4)), arr(rng, (4,), np.float32, tlow, thigh))),
                Sample(pair(rng), {"reduction": "x"})]
        out += [Sample(pair(rng), dict(kw)) for kw in extra]
        if weight:
            out += [Sample(pair(rng), {"weight": arr(rng, (3, 4), np.float32, 0.1, 2.0), "reduction": r}) for r in REDS]
            out.append(Sample(pair(rng), {"weight": arr(rng, (4,), np.float32, 0.1, 2.0)}))
        if legacy:
            out += [Sample(pair(rng), {"size_average": False}), Sample(pair(rng), {"reduce": False})]
        return out
    return gen


def _targets(rng, shape, n_classes, ignore=None):
    t = rng.integers(0, n_classes, size=shape).astype(np.int64)
    if ignore is not None and t.size:
        t.flat[::3] = ignore
    return t


def _cw(rng, c, dtype=np.float32):
    """Class weights (torch refuses a gradient for them)."""
    return Arg(arr(rng, (c,), dtype, 0.2, 2.0), grad=False)


def _fixed(a):
    return Arg(a, grad=False)


def class_index(ce):
    """nll_loss / cross_entropy samples; `ce` feeds raw logits (else log-probabilities)."""
    def x(rng, shape, dtype=np.float32):
        a = arr(rng, shape, dtype)
        if ce:
            return a
        return Arg((a - np.log(np.exp(a).sum(axis=1 if a.ndim > 1 else 0, keepdims=True))).astype(dtype))

    def gen(rng):
        out = []
        for r in REDS:
            out.append(Sample((x(rng, (4, 5)), _targets(rng, (4,), 5)), {"reduction": r}))
            out.append(Sample((x(rng, (4, 5)), _targets(rng, (4,), 5, ignore=2)),
                              {"weight": _cw(rng, 5), "ignore_index": 2, "reduction": r}))
            out.append(Sample((x(rng, (2, 3, 4, 2)), _targets(rng, (2, 4, 2), 3, ignore=-100)),
                              {"weight": _cw(rng, 3), "reduction": r}))
        out += [
            Sample((x(rng, (2, 3, 4)), _targets(rng, (2, 4), 3)), {}),
            Sample((x(rng, (2, 3, 2, 2, 2)), _targets(rng, (2, 2, 2, 2), 3)), {"reduction": "sum"}),
            Sample((x(rng, (5,)), np.array(3)), {}),
            Sample((x(rng, (5,)), np.array(3)), {"reduction": "none", "weight": _cw(rng, 5)}),
            Sample((x(rng, (4, 5), np.float64), _targets(rng, (4,), 5)), {"weight": _cw(rng, 5, np.float64)}),
            Sample((x(rng, (0, 5)), np.zeros((0,), np.int64)), {}),
            Sample((x(rng, (0, 5)), np.zeros((0,), np.int64)), {"reduction": "none"}),
            Sample((x(rng, (3, 5)), np.array([-100, -100, -100])), {}),  # all ignored: 0 / 0
            Sample((x(rng, (3, 5)), np.array([-100, -100, -100])), {"reduction": "sum"}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5).astype(np.uint8)), {}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5)), {"size_average": False}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5)), {"reduce": False}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5), _cw(rng, 5), None, 1)),  # positional
            # refused
            Sample((x(rng, (3, 5)), np.array([0, 5, 1])), {}),
            Sample((x(rng, (3, 5)), np.array([0, -1, 1])), {}),
            Sample((x(rng, (3, 5)), np.array([0, 1])), {}),
            Sample((x(rng, (3, 5)), np.array([0, 1, 2], np.int32)), {}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5)), {"weight": _cw(rng, 4)}),
            Sample((x(rng, (2, 3, 4)), np.zeros((2, 5), np.int64)), {}),
            Sample((x(rng, (2, 3, 4, 4)), np.zeros((2, 5, 4), np.int64)), {}),
            Sample((x(rng, (3, 5)), _targets(rng, (3,), 5)), {"reduction": "avg"}),
        ]
        if not ce:
            out.append(Sample((x(rng, (3, 5)), arr(rng, (3,), np.float32, 0, 4)), {}))
        return out
    return gen


def ce_extra(rng):
    """cross_entropy's own paths: class probabilities and label smoothing, alone and with weights and
    ignore_index."""
    def probs(shape, dtype=np.float32):
        p = rng.random(shape).astype(dtype)
        return p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)

    out = []
    for r in REDS:
        out += [
            Sample((arr(rng, (2, 3, 4)), probs((2, 3, 4))), {"weight": _cw(rng, 3), "reduction": r}),
            Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5, ignore=1)),
                   {"label_smoothing": 0.3, "ignore_index": 1, "weight": _cw(rng, 5), "reduction": r}),
        ]
    out += [
        Sample((arr(rng, (4, 5)), probs((4, 5))), {"label_smoothing": 0.2, "weight": _cw(rng, 5)}),
        Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"label_smoothing": 0.1, "reduction": "sum"}),
        Sample((arr(rng, (2, 3, 2, 2)), _targets(rng, (2, 2, 2), 3, ignore=-100)), {"label_smoothing": 0.25}),
    ]
    out += [
        Sample((arr(rng, (5,)), probs((5,))), {}),
        Sample((arr(rng, (5,)), np.array(2)), {"label_smoothing": 0.5}),
        Sample((arr(rng, (4, 5), np.float64), probs((4, 5), np.float64)), {"label_smoothing": 0.1}),
        Sample((arr(rng, (4, 5)), probs((4, 5), np.float64)), {}),  # promotes to float64
        Sample((arr(rng, (0, 5)), probs((0, 5))), {}),
        Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"label_smoothing": 1.0}),
        Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"label_smoothing": 1.5}),
        Sample((arr(rng, (4, 5)), probs((4, 5))), {"label_smoothing": 1.5}),
        Sample((arr(rng, (4, 5)), probs((4, 5))), {"weight": _cw(rng, 4)}),
        Sample((arr(rng, (4, 5)), probs((4, 3))), {}),
    ]
    return out


def bce(rng):
    def p(shape, dtype=np.float32):
        return arr(rng, shape, dtype, 0.02, 0.98)

    edge = np.array([0.0, 1.0, 0.0, 1.0, 0.5], np.float32)
    out = [Sample((p((3, 4)), p((3, 4))), {"reduction": r}) for r in REDS]
    out += [Sample((p((3, 4)), p((3, 4))), {"weight": _fixed(p((3, 4))), "reduction": r}) for r in REDS]
    out += [
        Sample((p((3, 4)), p((3, 4))), {"weight": _fixed(p((4,)))}),
        Sample((p((2, 3), np.float64), p((2, 3), np.float64))),
        Sample((p(()), p(()))), Sample((p((0,)), p((0,)))),
        Sample((edge, Arg(np.array([0.0, 1.0, 1.0, 0.0, 1.0], np.float32), grad=False))),  # log clamped at -100
        Sample((p((3, 4)), p((3, 4))), {"size_average": False}),
        Sample((np.array([1.5, 0.5], np.float32), np.array([1.0, 0.0], np.float32))),
        Sample((np.array([0.5, 0.5], np.float32), np.array([2.0, 0.0], np.float32))),
        Sample((p((2,)), p((1,)))),
        Sample((p((2,)), p((2,), np.float64))),
    ]
    return out


def bce_logits(rng):
    def p(shape, dtype=np.float32):
        return arr(rng, shape, dtype, 0.0, 1.0)

    out = [Sample((arr(rng, (3, 4)), p((3, 4))), {"reduction": r}) for r in REDS]
    out += [Sample((arr(rng, (3, 4)), p((3, 4))), {"weight": _fixed(p((3, 4))), "reduction": r,
                                                   "pos_weight": _fixed(arr(rng, (4,), low=0.5))}) for r in REDS]
    out += [
        Sample((arr(rng, (3, 4), low=-30, high=30), p((3, 4))), {"pos_weight": _fixed(arr(rng, (4,), low=0.5))}),
        Sample((arr(rng, (2, 3), np.float64), p((2, 3), np.float64))),
        Sample((arr(rng, ()), p(()))), Sample((arr(rng, (0, 2)), p((0, 2)))),
        Sample((arr(rng, (3, 4)), p((3, 4))), {"reduce": False}),
        Sample((arr(rng, (2,)), p((1,)))),
    ]
    return out


def kl(rng):
    def p(shape, dtype=np.float32):
        return arr(rng, shape, dtype, 0.05, 1.0)

    out = [Sample((arr(rng, (3, 4)), p((3, 4))), {"reduction": r}) for r in (*REDS, "batchmean")]
    out += [Sample((arr(rng, (3, 4)), arr(rng, (3, 4))), {"reduction": r, "log_target": True})
            for r in ("batchmean", "none")]
    out += [
        Sample((arr(rng, (3, 4)), _fixed(np.array([[0.0, 0.5, 0.2, 0.3]] * 3, np.float32))), {"reduction": "sum"}),
        Sample((arr(rng, (2, 3), np.float64), p((2, 3), np.float64)), {"reduction": "batchmean"}),
        Sample((arr(rng, ()), p(())), {"reduction": "batchmean"}),
        Sample((arr(rng, (3, 4)), p((3, 4))), {"size_average": False}),
        Sample((arr(rng, (3, 4)), np.ones((3, 4), np.int64)), {"reduction": "sum"}),
    ]
    return out


def poisson(rng):
    out = [Sample((arr(rng, (3, 4)), arr(rng, (3, 4), np.float32, 0, 4)), {"reduction": r}) for r in REDS]
    out += [
        Sample((arr(rng, (3, 4), low=0.1), arr(rng, (3, 4), np.float32, 0, 4)), {"log_input": False}),
        Sample((arr(rng, (3, 4), low=0.1), arr(rng, (3, 4), np.float32, 0, 4)), {"log_input": False, "eps": 0.5}),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4), np.float32, 0, 4)), {"full": True, "reduction": "none"}),
        Sample((arr(rng, (3, 4), np.float64), arr(rng, (3, 4), np.float64, 0, 4)), {"full": True}),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4), np.int64, 0, 4))),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4), np.float32, 0, 4)), {"reduction": "avg"}),
    ]
    return out


def gaussian(rng):
    def v(shape, dtype=np.float32):
        return arr(rng, shape, dtype, 0.1, 2.0)

    out = [Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), v((3, 4))), {"reduction": r}) for r in REDS]
    out += [
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), v((3,)))),  # one dim short
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), v((3, 1))), {"full": True}),
        Sample((arr(rng, (2, 3, 4)), arr(rng, (2, 3, 4)), v((2, 1, 4))), {"reduction": "none"}),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), 0.5), {}),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), Arg(np.full((3, 4), 1e-8, np.float32))), {"eps": 1e-3}),
        Sample((arr(rng, (3, 4), np.float64), arr(rng, (3, 4), np.float64), v((3, 4), np.float64)), {"full": True}),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), v((2, 4)))),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), -v((3, 4)))),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), -0.5)),
        Sample((arr(rng, (3, 4)), arr(rng, (3, 4)), v((3, 4))), {"reduction": "avg"}),
    ]
    return out


def _signs(rng, shape):
    return np.where(rng.random(shape) > 0.5, 1.0, -1.0).astype(np.float32)


def cosine(rng):
    out = [Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), _signs(rng, (4,))), {"reduction": r, "margin": 0.2})
           for r in REDS]
    out += [Sample((arr(rng, (3,)), arr(rng, (3,)), np.array(-1.0, np.float32))),
            Sample((arr(rng, (3,), np.float64), arr(rng, (3,), np.float64), np.array(1.0))),
            Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), _signs(rng, (4,)).astype(np.int64)), {"size_average": False}),
            Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), _signs(rng, (4, 1)))),
            Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), np.array(1.0, np.float32)))]
    return out


def ranking(rng):
    out = [Sample((arr(rng, (5,)), arr(rng, (5,)), _signs(rng, (5,))), {"reduction": r, "margin": 0.5}) for r in REDS]
    out += [Sample((arr(rng, (2, 3), np.float64), arr(rng, (2, 3), np.float64),
                    _signs(rng, (2, 3)).astype(np.float64))),
            Sample((np.array([1.0, 2.0], np.float32), np.array([1.0, 1.0], np.float32), np.array([1.0, -1.0],
                                                                                              np.float32))),  # ties
            Sample((arr(rng, (5,)), arr(rng, (5,)), _signs(rng, (1, 5))))]
    return out


def hinge(rng):
    out = [Sample((arr(rng, (3, 4)), _signs(rng, (3, 4))), {"reduction": r, "margin": 0.7}) for r in REDS]
    out += [Sample((arr(rng, (3, 4), np.float64), _signs(rng, (3, 4)).astype(np.int64))),
            Sample((np.array([1.0, 0.5, 2.0], np.float32), np.array([-1.0, -1.0, 0.0], np.float32)))]
    return out


def soft_margin(rng):
    out = [Sample((arr(rng, (3, 4)), _fixed(_signs(rng, (3, 4)))), {"reduction": r}) for r in REDS]
    out += [Sample((arr(rng, (3, 4), np.float64), _fixed(_signs(rng, (3, 4)).astype(np.float64)))),
            Sample((arr(rng, ()), _fixed(np.array(1.0, np.float32))))]
    return out


def multilabel_margin(rng):
    t = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2]], np.int64)
    out = [Sample((arr(rng, (3, 4)), t), {"reduction": r}) for r in REDS]
    out += [Sample((arr(rng, (4,)), np.array([2, 1, -1, 0]))), Sample((arr(rng, (3, 4), np.float64), t)),
            Sample((np.array([[0.0, 1.0, 0.0, 0.5]], np.float32), np.array([[1, -1, 0, 0]]))),  # hinge ties at 0
            Sample((arr(rng, (3, 4)), t.astype(np.int32))), Sample((arr(rng, (3, 4)), t[:, :3]))]
    return out


def multilabel_soft(rng):
    def t(shape):
        return (rng.random(shape) > 0.5).astype(np.float32)

    out = [Sample((arr(rng, (3, 4)), t((3, 4))), {"reduction": r}) for r in REDS]
    out += [Sample((arr(rng, (3, 4)), t((3, 4))), {"weight": arr(rng, (4,), low=0.1), "reduction": "none"}),
            Sample((arr(rng, (3, 4), np.float64), t((3, 4)).astype(np.float64))),
            Sample((arr(rng, (4,)), t((4,)))), Sample((arr(rng, (3, 4)), t((3, 4)).astype(np.int64)))]
    return out


def multi_margin(rng):
    out = []
    for r in REDS:
        out.append(Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"reduction": r}))
        out.append(Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)),
                          {"p": 2, "margin": 0.5, "weight": _fixed(arr(rng, (5,), low=0.1)), "reduction": r}))
    out += [Sample((arr(rng, (5,)), np.array(2))), Sample((arr(rng, (4, 5), np.float64), _targets(rng, (4,), 5))),
            Sample((np.array([[0.0, 1.0, 0.0]], np.float32), np.array([1]))),  # hinge tie at 0
            Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"p": 3}),
            Sample((arr(rng, (4, 5)), _targets(rng, (4,), 5)), {"weight": _fixed(arr(rng, (5, 1)))}),
            Sample((arr(rng, (4, 5)), _targets(rng, (3,), 5)))]
    return out


def triplet(rng):
    def t(shape=(4, 3), dtype=np.float32):
        return tuple(arr(rng, shape, dtype) for _ in range(3))

    out = [Sample(t(), {"reduction": r}) for r in REDS]
    out += [Sample(t(), {"swap": True, "margin": 2.0}), Sample(t(), {"p": 1}), Sample(t(), {"p": 3.0, "eps": 0.1}),
            Sample(t((5,))), Sample(t((2, 3), np.float64), {"swap": True}), Sample(t(), {"margin": 0.0}),
            Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), arr(rng, (3,))))]
    return out


def triplet_distance(rng):
    def t(shape=(4, 3), dtype=np.float32):
        return tuple(arr(rng, shape, dtype) for _ in range(3))

    out = [Sample(t(), {"reduction": r}) for r in REDS]
    out += [Sample(t(), {"swap": True, "margin": 2.0}), Sample(t((2, 3), np.float64)), Sample(t(), {"margin": -1.0}),
            Sample(t(), {"reduction": "avg"}), Sample((arr(rng, (4, 3)), arr(rng, (4, 3)), arr(rng, (3,))))]
    return out


def triplet_custom(rng):
    t = [tuple(arr(rng, (4, 3)) for _ in range(3)) for _ in range(2)]
    return [Sample(t[0], {"swap": True}), Sample(t[1], {"reduction": "none", "margin": 0.5})]


def _cosine_distance(mod, *args, **kwargs):
    def dist(a, b):
        return 1 - (a * b).sum(-1) / ((a * a).sum(-1) * (b * b).sum(-1)).sqrt()
    return mod.nn.functional.triplet_margin_with_distance_loss(*args, distance_function=dist, **kwargs)


def ctc(rng):
    def x(t, n, c=5, dtype=np.float32):
        return arr(rng, (t, n, c), dtype) if n else arr(rng, (t, c), dtype)

    padded = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]], np.int64)
    out = [Sample((x(8, 3), padded, np.array([8, 7, 8]), np.array([3, 2, 3])), {"reduction": r})
           for r in ("mean", "none")]
    out += [
        Sample((x(8, 3), np.array([1, 2, 2, 3, 1, 4, 4, 4]), [8, 7, 8], [3, 2, 3])),  # concatenated, lists
        Sample((x(6, 2), np.array([[1, 2], [3, 3]]), (6, 6), (2, 0)), {"blank": 0, "reduction": "sum"}),
        Sample((x(6, 2), np.array([[1, 2], [3, 3]]), np.array([6, 4]), np.array([2, 2])), {"blank": 4}),
        Sample((x(7, 0), np.array([1, 2, 1]), np.array(7), np.array(3))),  # unbatched
        Sample((x(7, 2, dtype=np.float64), padded[:2], np.array([7, 7]), np.array([3, 2])), {"reduction": "none"}),
        # impossible alignments (T too short for the repeats): infinite loss, zeroed with its gradient
        Sample((x(3, 2), np.array([[1, 1, 1], [2, 3, 0]]), np.array([3, 3]), np.array([3, 2])),
               {"zero_infinity": True, "reduction": "none"}),
        Sample((x(4, 2), padded[:2], np.array([5, 4]), np.array([3, 2]))),
    ]
    return out


def _ctc_call(mod, x, *args, **kwargs):
    """CTC of log_softmax(x), the way CTC is used (the row without it checks torch's gradient convention)."""
    return mod.nn.functional.ctc_loss(x - x.logsumexp(-1, keepdim=True), *args, **kwargs)


register(
    OpInfo(F + "l1_loss", pointwise(weight=True)),
    OpInfo(F + "mse_loss", pointwise(weight=True)),
    OpInfo(F + "smooth_l1_loss", pointwise(extra=({"beta": 0.5}, {"beta": 0.0}, {"beta": 2.0, "reduction": "sum"}))),
    OpInfo(F + "huber_loss", pointwise(extra=({"delta": 0.5}, {"delta": 2.0, "reduction": "none"}), weight=True,
                                       legacy=False)),
    OpInfo(F + "nll_loss", class_index(ce=False)),
    OpInfo(F + "cross_entropy", class_index(ce=True)),
    OpInfo(F + "cross_entropy", ce_extra),
    OpInfo(F + "binary_cross_entropy", bce, grad_rtol=1e-4),
    OpInfo(F + "binary_cross_entropy_with_logits", bce_logits),
    OpInfo(F + "kl_div", kl),
    OpInfo(F + "poisson_nll_loss", poisson),
    OpInfo(F + "gaussian_nll_loss", gaussian),
    OpInfo(F + "cosine_embedding_loss", cosine),
    OpInfo(F + "margin_ranking_loss", ranking),
    OpInfo(F + "hinge_embedding_loss", hinge),
    OpInfo(F + "soft_margin_loss", soft_margin),
    OpInfo(F + "multilabel_margin_loss", multilabel_margin),
    OpInfo(F + "multilabel_soft_margin_loss", multilabel_soft),
    OpInfo(F + "multi_margin_loss", multi_margin),
    OpInfo(F + "triplet_margin_loss", triplet),
    OpInfo(F + "triplet_margin_with_distance_loss", triplet_distance),
    OpInfo(F + "triplet_margin_with_distance_loss", triplet_custom, call=_cosine_distance),
    OpInfo(F + "ctc_loss", ctc, call=_ctc_call, rtol=1e-4, atol=1e-5, jit=False),
    # log_probs as a free leaf: torch's gradient is exp(log_probs) - posterior, not the true one
    OpInfo(F + "ctc_loss", ctc, rtol=1e-4, atol=1e-5, jit=False),
)


# ---------------------------------------------------------------------------- torch.<loss>: ATen signatures

def _aten_losses(rng):
    x, y = arr(rng, (3, 4)), arr(rng, (3, 4))
    p = rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
    sign = np.where(rng.random((3,)) > 0.5, 1.0, -1.0).astype(np.float32)
    sign4 = np.where(rng.random((3, 4)) > 0.5, 1.0, -1.0).astype(np.float32)
    lp = arr(rng, (6, 2, 5))
    lp = (lp - np.log(np.exp(lp).sum(-1, keepdims=True))).astype(np.float32)
    return {
        "binary_cross_entropy_with_logits": [Sample((x, p)), Sample((x, p, None, None, 1)),
                                             Sample((x, p, Arg(arr(rng, (4,)), grad=False),
                                                     Arg(arr(rng, (4,), high=2, low=0.5), grad=False), 2))],
        "cosine_embedding_loss": [Sample((x, y, sign)), Sample((x, y, sign, 0.2, 1)), Sample((x, y, sign, 0.0, 2))],
        "ctc_loss": [Sample((lp, np.array([[1, 2], [3, 3]]), np.array([6, 5]), np.array([2, 2]))),
                     Sample((lp, np.array([[1, 2], [3, 3]]), [6, 6], [2, 1], 0, 1)),
                     Sample((lp, np.array([[1, 1, 1], [2, 0, 0]]), [2, 6], [3, 1], 0, 2, True))],
        "hinge_embedding_loss": [Sample((x, sign4)), Sample((x, sign4, 0.5, 1))],
        "kl_div": [Sample((x, p)), Sample((x, p, 1)), Sample((x, x, 2), {"log_target": True})],
        "margin_ranking_loss": [Sample((x, y, sign4)), Sample((x, y, sign4, 0.3, 1))],
        "poisson_nll_loss": [Sample((x, p, True, False, 1e-8, 0)), Sample((p, y * y, False, True, 1e-8, 1))],
        "triplet_margin_loss": [Sample((x, y, arr(rng, (3, 4)))),
                                Sample((x, y, arr(rng, (3, 4)), 0.5, 1.0, 1e-6, True, 2)),
                                Sample((x, y, x, 1.0, 2.0, 1e-6, False, "mean"))],
    }


register(*(OpInfo(n, lambda rng, n=n: _aten_losses(rng)[n], rtol=1e-4, atol=1e-5)
           for n in _aten_losses(np.random.default_rng(0))))
