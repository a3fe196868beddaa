"""OpInfo entries for attention: scaled_dot_product_attention (masks, causal, scale, GQA, broadcast
batch dims, half precision, torch's refusals) and multi_head_attention_forward (eval mode: dropout
is random, tested in tests/test_nn_attention.py)."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64 = np.float32, np.float64


def S(*args, **kwargs):
    return Sample(args, kwargs)


def qkv(rng, q, k, v, dtype=F32):
    return tuple(arr(rng, s, dtype, -2, 2) for s in (q, k, v))


def bool_mask(rng, shape, dead_row=True):
    m = rng.random(shape) > 0.3
    if dead_row:
        m[..., 1, :] = False  # a row that attends nowhere: 0 in torch's math backend, not NaN
    return m


def _sdpa(rng):
    b = qkv(rng, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))
    d = qkv(rng, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), F64)
    fmask = arr(rng, (4, 6), F32)
    fmask[2] = -np.inf
    return [
        S(*b), S(*d),
        S(*qkv(rng, (3, 4, 5), (3, 6, 5), (3, 6, 2))),  # one batch dim
        S(*qkv(rng, (4, 5), (6, 5), (6, 3))),  # unbatched
        S(*b, attn_mask=bool_mask(rng, (4, 6))),
        S(*d, attn_mask=bool_mask(rng, (2, 1, 4, 6))),
        S(*b, fmask),  # float mask, positional, with a row of -inf
        S(*d, attn_mask=arr(rng, (2, 3, 4, 6), F64)),
        S(*b, attn_mask=Arg(arr(rng, (4, 6), F32), grad=False)),
        S(*b, is_causal=True),
        S(*qkv(rng, (1, 2, 7, 3), (1, 2, 3, 3), (1, 2, 3, 4)), is_causal=True),  # L > S: top-left aligned
        S(*b, scale=0.3), S(*d, scale=-0.7),
        S(*qkv(rng, (2, 6, 4, 5), (2, 3, 6, 5), (2, 1, 6, 7)), enable_gqa=True),
        S(*qkv(rng, (6, 4, 5), (2, 6, 5), (2, 6, 7), F64), enable_gqa=True, is_causal=True),
        S(*qkv(rng, (2, 3, 4, 5), (3, 6, 5), (1, 3, 6, 7))),  # batch dims broadcast
        S(*qkv(rng, (2, 3, 0, 5), (2, 3, 6, 5), (2, 3, 6, 7))),  # L = 0
        S(*qkv(rng, (2, 4, 5), (2, 0, 5), (2, 0, 7))),  # S = 0: zeros
        S(*b, dropout_p=0.0),
        # torch's refusals
        S(b[0], b[1].astype(F64), b[2]),
        S(*b, attn_mask=bool_mask(rng, (4, 6)), is_causal=True),
        S(*b, attn_mask=arr(rng, (4, 6), F64)),
        S(*b, attn_mask=arr(rng, (4, 6), np.int64)),
        S(*b, attn_mask=bool_mask(rng, (5, 6))),
        S(*qkv(rng, (2, 4, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), enable_gqa=True),
        S(*qkv(rng, (2, 6, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))),  # heads differ without enable_gqa
        S(*qkv(rng, (5,), (5,), (5,))),
        S(*qkv(rng, (2, 4, 5), (2, 6, 4), (2, 6, 7))),
        S(*qkv(rng, (2, 4, 5), (2, 6, 5), (2, 5, 7))),
        S(*qkv(rng, (2, 4, 5), (2, 6, 5), (2, 6, 7), np.int64)),
        S(*b, dropout_p=1.5),
    ]


def _sdpa_half(rng):
    out = []
    for d in (np.float16,):
        q, k, v = qkv(rng, (2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 3), d)
        out += [S(q, k, v), S(q, k, v, is_causal=True), S(q, k, v, attn_mask=arr(rng, (4, 5), F32)),
                S(q, k, v, attn_mask=bool_mask(rng, (4, 5)))]
    return out


def _mha_weights(rng, E, kdim=None, vdim=None, dtype=F32, bias=True, bias_kv=False):
    """The positional weight arguments of multi_head_attention_forward (from in_proj_weight on)."""
    w = dict(in_proj_weight=arr(rng, (3 * E, E), dtype, -0.5, 0.5) if kdim is None else None,
             in_proj_bias=arr(rng, (3 * E,), dtype, -0.5, 0.5) if bias else None,
             bias_k=arr(rng, (1, 1, E), dtype) if bias_kv else None,
             bias_v=arr(rng, (1, 1, E), dtype) if bias_kv else None)
    sep = {} if kdim is None else dict(use_separate_proj_weight=True, q_proj_weight=arr(rng, (E, E), dtype, -.5, .5),
                                       k_proj_weight=arr(rng, (E, kdim), dtype, -.5, .5),
                                       v_proj_weight=arr(rng, (E, vdim), dtype, -.5, .5))
    out = (arr(rng, (E, E), dtype, -0.5, 0.5), arr(rng, (E,), dtype, -0.5, 0.5) if bias else None)
    return w, out, sep


def _mha(rng):
    E, H, L, S_, N = 6, 2, 4, 5, 3
    out = []
    for i, (dtype, kdim, bias_kv, zero, bias) in enumerate(((F32, None, False, False, True),
                                                           (F64, None, True, True, True),
                                                           (F32, 4, False, True, False),
                                                           (F64, 3, True, False, True))):
        w, (ow, ob), sep = _mha_weights(rng, E, kdim, kdim and kdim + 1, dtype, bias, bias_kv)
        q = arr(rng, (L, N, E), dtype)
        k = arr(rng, (S_, N, kdim or E), dtype)
        v = arr(rng, (S_, N, (kdim and kdim + 1) or E), dtype)
        pos = (q, k, v, E, H, w["in_proj_weight"], w["in_proj_bias"], w["bias_k"], w["bias_v"], zero, 0.0, ow, ob)
        kpm = rng.random((N, S_)) > 0.7
        am = bool_mask(rng, (L, S_), dead_row=False)
        variants = [S(*pos, training=False, **sep),
                    S(*pos, training=False, key_padding_mask=kpm, attn_mask=am, **sep),
                    S(*pos, training=False, need_weights=False, attn_mask=arr(rng, (N * H, L, S_), dtype), **sep),
                    S(*pos, training=False, average_attn_weights=False, key_padding_mask=arr(rng, (N, S_), dtype),
                      **sep)]
        out += variants[i % 2::2]  # two mask variants per configuration (the module tests cover the rest)
    # unbatched, causal hint, static keys
    w, (ow, ob), _ = _mha_weights(rng, E)
    q = arr(rng, (L, E))
    causal = np.triu(np.full((L, L), -np.inf, F32), 1)
    pos = (q, q, q, E, H, w["in_proj_weight"], w["in_proj_bias"], None, None, False, 0.0, ow, ob)
    out += [S(*pos, training=False),
            S(*pos, training=False, key_padding_mask=np.array([False, True, False, False])),
            S(*pos, training=False, attn_mask=causal, is_causal=True, need_weights=False),
            S(*pos, training=False, attn_mask=causal, is_causal=True),
            S(*pos, training=False, attn_mask=bool_mask(rng, (H, L, L), dead_row=False)),
            S(*pos, training=False, need_weights=False, static_k=arr(rng, (H, 7, E // H)),
              static_v=arr(rng, (H, 7, E // H)))]
    # a batch whose keys are all padded: NaN with need_weights (plain softmax), 0 through sdpa
    q3 = arr(rng, (L, N, E))
    dead = np.zeros((N, L), bool)
    dead[1] = True
    pos3 = (q3, q3, q3, E, H, w["in_proj_weight"], w["in_proj_bias"], None, None, False, 0.0, ow, ob)
    out += [S(*pos3, training=False, key_padding_mask=dead, need_weights=nw) for nw in (True, False)]
    # torch's refusals
    out += [S(*pos, is_causal=True),  # causal hint without a mask
            S(*pos3, attn_mask=bool_mask(rng, (L, L + 1))),
            S(*pos3, attn_mask=bool_mask(rng, (H, L, L))),
            S(*pos3, key_padding_mask=rng.random((N, L + 1)) > 0.5),
            S(*pos3, key_padding_mask=arr(rng, (N, L), np.int64)),
            S(q3, q3, q3, E + 1, *pos3[4:]),
            S(q3, q3, q3[:, :, :4], *pos3[3:]),
            S(q3, arr(rng, (L, N)), q3, *pos3[3:])]
    return out


register(
    OpInfo("nn.functional.scaled_dot_product_attention", _sdpa, rtol=1e-5, atol=1e-5),
    OpInfo("nn.functional.scaled_dot_product_attention", _sdpa_half, rtol=1e-2, atol=2e-3, grad_rtol=2e-2),
    OpInfo("nn.functional.multi_head_attention_forward", _mha, rtol=1e-5, atol=1e-5),
)
