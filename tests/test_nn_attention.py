"""nn.MultiheadAttention against torch (outputs, weights, gradients, state_dict, init, repr), the dropout of
scaled_dot_product_attention and multi-head attention, signatures and torch's errors."""

from __future__ import annotations

import inspect
import pickle
import re

import numpy as np
import pytest
import torch

import facade
from facade.nn.modules import activation as facade_activation

from ._compare import host
from ._nn import check_init, check_module

E, H, L, S, N = 6, 2, 4, 5, 3


def _x(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _mask(rng, *shape, p=0.3):
    m = rng.random(shape) < p
    m[..., 0] = False  # every row attends somewhere
    return m


CASES = {
    "self": ((E, H), {}, lambda r: (lambda x: (x, x, x))(_x(r, L, N, E))),
    "cross": ((E, H), {}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E))),
    "batch_first": ((E, H), {"batch_first": True}, lambda r: (_x(r, N, L, E), _x(r, N, S, E), _x(r, N, S, E))),
    "kdim_vdim": ((E, 3), {"kdim": 4, "vdim": 5}, lambda r: (_x(r, L, N, E), _x(r, S, N, 4), _x(r, S, N, 5))),
    "kdim_batch_first": ((E, H), {"kdim": 4, "vdim": 5, "batch_first": True},
                         lambda r: (_x(r, N, L, E), _x(r, N, S, 4), _x(r, N, S, 5))),
    "bias_kv_zero_attn": ((E, H), {"add_bias_kv": True, "add_zero_attn": True},
                          lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E))),
    "no_bias": ((E, H), {"bias": False}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E))),
    "float64": ((E, H), {},
                lambda r: tuple(_x(r, *s, dtype=np.float64) for s in ((L, N, E), (S, N, E), (S, N, E)))),
    "unbatched": ((E, H), {"batch_first": True}, lambda r: (_x(r, L, E), _x(r, S, E), _x(r, S, E))),
    # masks: key_padding_mask, need_weights, attn_mask, average_attn_weights passed positionally
    "kpm_bool": ((E, H), {}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E), _mask(r, N, S))),
    "attn_mask_bool_3d": ((E, H), {"batch_first": True},
                          lambda r: (_x(r, N, L, E), _x(r, N, S, E), _x(r, N, S, E), None, True,
                                     _mask(r, N * H, L, S))),
    "both_masks_float": ((E, H), {}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E),
                                                np.where(_mask(r, N, S), -np.inf, 0).astype(np.float32), True,
                                                _x(r, L, S))),
    "per_head_weights": ((E, H), {"add_bias_kv": True}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E),
                                                                   _mask(r, N, S), True, _mask(r, L, S), False)),
    "no_weights": ((E, H), {"add_zero_attn": True}, lambda r: (_x(r, L, N, E), _x(r, S, N, E), _x(r, S, N, E),
                                                               _mask(r, N, S), False, _mask(r, L, S))),
    "causal": ((E, H), {"batch_first": True}, lambda r: (lambda x: (
        x, x, x, None, False, np.triu(np.full((L, L), -np.inf, np.float32), 1), True, True))(_x(r, N, L, E))),
    "unbatched_masks": ((E, H), {}, lambda r: (_x(r, L, E), _x(r, S, E), _x(r, S, E), _mask(r, S), True,
                                               _mask(r, H, L, S))),
}


TRAIN = ("self", "kdim_batch_first", "bias_kv_zero_attn", "per_head_weights", "causal")  # train mode, dropout=0


@pytest.mark.parametrize("case,train", [(c, False) for c in CASES] + [(c, True) for c in TRAIN])
def test_multihead_attention(case, train):
    args, kwargs, inputs = CASES[case]
    inputs = inputs(np.random.default_rng(0))
    double = inputs[0].dtype == np.float64
    check_module("nn.MultiheadAttention", args, kwargs, inputs, train=train, steps=2 if train else 1,
                 rtol=1e-5, atol=1e-5, call=(lambda m, *xs: m.double()(*xs)) if double else None)


def test_multihead_attention_dtype_kwarg():
    m = facade.nn.MultiheadAttention(E, H, kdim=4, vdim=5, add_bias_kv=True, dtype=facade.float64)
    assert {p.dtype for p in m.parameters()} == {facade.float64}


@pytest.mark.parametrize("kwargs", [{}, {"kdim": 12, "vdim": 10}, {"bias": False}])
def test_multihead_attention_init(kwargs):
    check_init("nn.MultiheadAttention", (16, 2), kwargs, draws=20)


def test_multihead_attention_bias_kv_init():
    """bias_k, bias_v: xavier_normal_ (check_init's min/max bounds suit uniform draws, not normal ones)."""
    stats = []
    for lib in (torch, facade):
        lib.manual_seed(0)
        ms = [lib.nn.MultiheadAttention(64, 2, add_bias_kv=True) for _ in range(20)]
        stats.append([np.concatenate([host(getattr(m, n)).ravel() for m in ms]) for n in ("bias_k", "bias_v")])
    for t, f in zip(*stats):
        assert abs(f.std() - t.std()) < 0.08 * t.std() and abs(f.mean()) < 0.1 * t.std()


@pytest.mark.parametrize("kwargs", [{}, {"kdim": 4, "vdim": 5}, {"add_bias_kv": True, "bias": False}])
def test_multihead_attention_state_dict_keys(kwargs):
    tm, fm = torch.nn.MultiheadAttention(E, H, **kwargs), facade.nn.MultiheadAttention(E, H, **kwargs)
    assert list(fm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in fm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert repr(fm) == repr(tm)
    assert fm.head_dim == tm.head_dim and fm._qkv_same_embed_dim == tm._qkv_same_embed_dim


def test_multihead_attention_pickle_name():
    assert facade.nn.MultiheadAttention is facade_activation.MultiheadAttention
    assert facade.nn.MultiheadAttention.__module__ == "facade.nn.modules.activation"
    m = pickle.loads(pickle.dumps(facade.nn.MultiheadAttention(E, H, kdim=3)))
    assert list(m.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
                                    "out_proj.weight", "out_proj.bias"]


def _params(sig):
    return [(p.name, p.kind, getattr(p.default, "__name__", p.default)) for p in sig.parameters.values()]


@pytest.mark.parametrize("path", ["nn.MultiheadAttention", "nn.MultiheadAttention.forward",
                                  "nn.functional.multi_head_attention_forward"])
def test_signatures(path):
    t, f = torch, facade
    for part in path.split("."):
        t, f = getattr(t, part), getattr(f, part)
    assert _params(inspect.signature(f)) == _params(inspect.signature(t))


def test_sdpa_signature():
    # torch's builtin has no inspectable signature: scale and enable_gqa are keyword-only (7 positionals refused)
    p = inspect.signature(facade.nn.functional.scaled_dot_product_attention).parameters
    assert list(p) == ["query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"]
    assert p["scale"].kind is inspect.Parameter.KEYWORD_ONLY
    q = np.zeros((1, 2, 3), np.float32)
    for lib in (torch, facade):
        x = lib.tensor(q)
        with pytest.raises(TypeError):
            lib.nn.functional.scaled_dot_product_attention(x, x, x, None, 0.0, False, 0.5)


# ------------------------------------------------------------------------------------------------ dropout

def _sdpa_probs(rng, lib):
    """q, k and an identity value: the output is the (dropped-out) attention weights themselves."""
    q, k = _x(rng, 2, 3, 16, 8), _x(rng, 2, 3, 24, 8)
    return lib.tensor(q), lib.tensor(k), lib.eye(24).expand(2, 3, 24, 24)


@pytest.mark.parametrize("p", [0.25, 0.6])
def test_sdpa_dropout(p):
    F = facade.nn.functional
    q, k, v = _sdpa_probs(np.random.default_rng(0), facade)
    q.requires_grad_(True)
    full = host(F.scaled_dot_product_attention(q, k, v))
    facade.manual_seed(0)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
    got = host(out)
    kept = got != 0
    np.testing.assert_allclose(got[kept], full[kept] / (1 - p), rtol=1e-5)
    assert abs((~kept).mean() - p) < 0.05
    facade.manual_seed(0)
    again = host(F.scaled_dot_product_attention(q, k, v, dropout_p=p))
    np.testing.assert_array_equal(again, got)  # the generator's seed fixes the mask
    assert np.any(host(F.scaled_dot_product_attention(q, k, v, dropout_p=p)) != got)  # and advances
    (g,) = facade.autograd.grad(out.sum(), [q])
    assert np.all(np.isfinite(host(g)))


def test_sdpa_dropout_one():
    for lib in (torch, facade):
        q, k, v = _sdpa_probs(np.random.default_rng(0), lib)
        q.requires_grad_(True)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
        assert not np.any(host(out))
        (g,) = lib.autograd.grad(out.sum(), [q])
        assert not np.any(host(g))


def test_sdpa_dropout_under_jit():
    import jax

    from functional.nn import scaled_dot_product_attention

    rng = np.random.default_rng(0)
    q, k, v = _x(rng, 2, 4, 3), _x(rng, 2, 5, 3), np.eye(5, dtype=np.float32)
    f = jax.jit(lambda q, k, v, key: scaled_dot_product_attention(q, k, v, dropout_p=0.5, rng=key))
    a = np.asarray(f(q, k, v, jax.random.key(0)))
    b = np.asarray(f(q, k, v, jax.random.key(1)))
    full = np.asarray(scaled_dot_product_attention(q, k, v))
    for out in (a, b):
        np.testing.assert_allclose(out[out != 0], 2 * full[out != 0], rtol=1e-5)
    assert np.any(a != b)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_dropout(need_weights):
    """Train-mode dropout zeroes attention weights and scales the rest (per-head weights show it directly);
    eval mode is deterministic."""
    rng = np.random.default_rng(0)
    m = facade.nn.MultiheadAttention(E, H, dropout=0.5)
    x = facade.tensor(_x(rng, 16, N, E))
    m.eval()
    out_eval, w_eval = m(x, x, x, average_attn_weights=False)
    m.train()
    out, w = m(x, x, x, need_weights=need_weights, average_attn_weights=False)
    assert tuple(out.shape) == (16, N, E) and not np.allclose(host(out), host(out_eval))
    if need_weights:
        got, full = host(w), host(w_eval)
        kept = got != 0
        np.testing.assert_allclose(got[kept], 2 * full[kept], rtol=1e-5)
        assert abs((~kept).mean() - 0.5) < 0.05
    else:
        assert w is None
    m.eval()
    again, _ = m(x, x, x)
    np.testing.assert_array_equal(host(again), host(out_eval))


# ------------------------------------------------------------------------------------------------ errors

def _same_error(fn_t, fn_f):
    """torch raises; facade raises the same type with the same message."""
    with pytest.raises(Exception) as t:
        fn_t()
    with pytest.raises(type(t.value), match=re.escape(str(t.value))):
        fn_f()


@pytest.mark.parametrize("args", [(5, 2), (0, 1), (4, 0), (6, 4)])
def test_multihead_attention_constructor_errors(args):
    _same_error(lambda: torch.nn.MultiheadAttention(*args), lambda: facade.nn.MultiheadAttention(*args))


def test_embed_dim_not_divisible_message():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        facade.nn.MultiheadAttention(5, 2)


def _forward_error_cases(rng):
    x3, x2 = _x(rng, L, N, E), _x(rng, L, E)
    return {
        "2d_mask_shape": ((x3, x3, x3), {"attn_mask": _mask(rng, L, L + 1)}),
        "3d_mask_shape": ((x3, x3, x3), {"attn_mask": _mask(rng, H, L, L)}),
        "4d_mask": ((x3, x3, x3), {"attn_mask": _mask(rng, 1, N * H, L, L)}),
        "kpm_shape": ((x3, x3, x3), {"key_padding_mask": _mask(rng, N, L + 2)}),
        "kpm_rank": ((x3, x3, x3), {"key_padding_mask": _mask(rng, N)}),
        "kpm_int": ((x3, x3, x3), {"key_padding_mask": np.zeros((N, L), np.int64)}),
        "mask_int": ((x3, x3, x3), {"attn_mask": np.zeros((L, L), np.int64)}),
        "unbatched_3d_mask": ((x2, x2, x2), {"attn_mask": _mask(rng, H + 1, L, L)}),
        "key_rank": ((x3, x2, x3), {}),
        "query_rank": ((x3[None], x3, x3), {}),
        "embed_dim": ((_x(rng, L, N, E + 2),) * 3, {}),
        "key_value_shape": ((x3, x3, x3[:-1]), {}),
        "causal_without_mask": ((x3, x3, x3), {"is_causal": True}),
    }


@pytest.mark.parametrize("case", list(_forward_error_cases(np.random.default_rng(0))))
def test_multihead_attention_forward_errors(case):
    args, kwargs = _forward_error_cases(np.random.default_rng(0))[case]
    torch.manual_seed(0)
    tm, fm = torch.nn.MultiheadAttention(E, H), facade.nn.MultiheadAttention(E, H)

    def run(lib, m):
        conv = {k: lib.tensor(v) for k, v in kwargs.items() if isinstance(v, np.ndarray)}
        return lambda: m(*[lib.tensor(a) for a in args], **{**kwargs, **conv})

    _same_error(run(torch, tm), run(facade, fm))


def test_mismatched_mask_types_warn():
    x = np.zeros((L, N, E), np.float32)
    m = facade.nn.MultiheadAttention(E, H)
    t = facade.tensor(x)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        m(t, t, t, key_padding_mask=facade.zeros(N, L, dtype=facade.bool), attn_mask=facade.zeros(L, L))
