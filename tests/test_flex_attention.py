"""torch.nn.attention (sdpa_kernel, SDPBackend) and flex_attention against real torch.

torch 2.13 runs flex_attention eagerly on CPU for the forward only (backward raises there), so values
are compared with torch's flex_attention and gradients with torch autograd through the same
attention written out (scores, score_mod, mask, softmax) in torch ops."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.attention.flex_attention  # noqa: F401  (torch does not import it with nn.attention)

import facade
from tests._compare import host

RNG = np.random.default_rng(0)
Q, K, V = (RNG.standard_normal((2, 2, 8, 4)).astype(np.float32) for _ in range(3))
BIAS = RNG.standard_normal(2).astype(np.float32)


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def window(b, h, q_idx, kv_idx):
    return (q_idx - kv_idx).abs() <= 2


def first_row_empty(b, h, q_idx, kv_idx):
    return (q_idx > 0) & (kv_idx < q_idx)


def relative(score, b, h, q_idx, kv_idx):
    return score + (q_idx - kv_idx) * 0.1 * (h + 1)


def _head_bias(lib):
    table = lib.tensor(BIAS)

    def score_mod(score, b, h, q_idx, kv_idx):
        return score + table[h] * (kv_idx == 0)

    return score_mod


MASKS = {"none": None, "causal": causal, "window": window, "first_row_empty": first_row_empty,
         "and": "and", "or": "or"}
SCORES = {"none": None, "relative": relative, "head_bias": "head_bias"}


def _mods(lib, mask, score):
    fa = lib.nn.attention.flex_attention
    mask_mod = {"and": fa.and_masks(causal, window), "or": fa.or_masks(causal, window)}.get(MASKS[mask], MASKS[mask])
    score_mod = _head_bias(lib) if SCORES[score] == "head_bias" else SCORES[score]
    return mask_mod, score_mod


def _flex(lib, mask, score, requires_grad=False, **kw):
    fa = lib.nn.attention.flex_attention
    mask_mod, score_mod = _mods(lib, mask, score)
    q, k, v = (lib.tensor(a, requires_grad=requires_grad) for a in (Q, K, V))
    bm = None if mask_mod is None else fa.create_block_mask(mask_mod, 2, 2, 8, 8, device="cpu", BLOCK_SIZE=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fa.flex_attention(q, k, v, score_mod=score_mod, block_mask=bm, **kw), (q, k, v)


def _reference(mask, score):
    """torch autograd through the written-out attention with the same mods (what flex computes)."""
    mask_mod, score_mod = _mods(torch, mask, score)
    q, k, v = (torch.tensor(a, requires_grad=True) for a in (Q, K, V))
    s = q @ k.transpose(-2, -1) / math.sqrt(4)
    grids = [torch.arange(n).reshape([n if i == j else 1 for i in range(4)]) for j, n in enumerate(s.shape)]
    if score_mod is not None:
        s = score_mod(s, *grids)
    if mask_mod is not None:
        s = s.masked_fill(~mask_mod(*grids).expand(s.shape), -math.inf)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return p @ v, (q, k, v)


VALUE_CASES = [(m, "none") for m in MASKS] + [("none", "relative"), ("causal", "head_bias"), ("or", "relative")]
GRAD_CASES = [("none", "none"), ("causal", "relative"), ("first_row_empty", "head_bias"), ("or", "none")]


@pytest.mark.parametrize(("mask", "score"), VALUE_CASES)
def test_values_match_torch_flex_attention(mask, score):
    (out, lse), _ = _flex(facade, mask, score, return_lse=True)
    (t_out, t_lse), _ = _flex(torch, mask, score, return_lse=True)
    np.testing.assert_allclose(host(out), host(t_out), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(host(lse), host(t_lse), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("mask", "score"), GRAD_CASES)
def test_gradients_match_torch_autograd(mask, score):
    out, ins = _flex(facade, mask, score, requires_grad=True)
    ref, t_ins = _reference(mask, score)
    g = np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(np.float32)
    (out * facade.tensor(g)).sum().backward()
    (ref * torch.tensor(g)).sum().backward()
    for a, b in zip(ins, t_ins):
        assert np.isfinite(host(a.grad)).all()
        np.testing.assert_allclose(host(a.grad), host(b.grad), rtol=1e-4, atol=1e-5)


def test_aux_outputs_and_gqa_like_torch():
    def run(lib, max_scores):
        fa = lib.nn.attention.flex_attention
        q, k, v = lib.tensor(Q), lib.tensor(K[:, :1]), lib.tensor(V[:, :1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, aux = fa.flex_attention(q, k, v, score_mod=relative, enable_gqa=True, scale=0.3,
                                         return_aux=fa.AuxRequest(lse=True, max_scores=max_scores))
        return host(out), host(aux.lse), aux.max_scores

    (f_out, f_lse, f_max), (t_out, t_lse, _) = run(facade, True), run(torch, False)  # torch: no max_scores on CPU
    np.testing.assert_allclose(f_out, t_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f_lse, t_lse, rtol=1e-5, atol=1e-5)
    s = torch.tensor(Q) @ torch.tensor(K[:, :1]).transpose(-2, -1) * 0.3
    grids = [torch.arange(n).reshape([n if i == j else 1 for i in range(4)]) for j, n in enumerate(s.shape)]
    np.testing.assert_allclose(host(f_max), host(relative(s, *grids).amax(-1)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mask", ["causal", "window", "first_row_empty"])
@pytest.mark.parametrize("block", [4, (2, 4), 128])
def test_block_mask_like_torch(mask, block):
    def describe(lib):
        fa = lib.nn.attention.flex_attention
        bm = fa.create_block_mask(MASKS[mask], 2, None, 8, 8, device="cpu", BLOCK_SIZE=block)
        fields = [getattr(bm, n).tolist() for n in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks",
                                                    "full_kv_indices", "q_num_blocks", "q_indices")]
        return fields + [bm.to_dense().tolist(), bm.shape, bm.BLOCK_SIZE, bm.sparsity(), bm.mask_mod is MASKS[mask]]

    assert describe(facade) == describe(torch)


def test_create_mask_and_combinators_like_torch():
    def masks(lib):
        fa = lib.nn.attention.flex_attention
        return [fa.create_mask(m, 2, 1, 5, 6, device="cpu").tolist() for m in
                (causal, window, fa.and_masks(causal, window), fa.or_masks(causal, window), fa.noop_mask,
                 fa.and_masks(), fa.or_masks())] + [fa.create_mask(relative, None, 2, 3, 3, device="cpu").tolist()]

    assert masks(facade) == masks(torch)


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)
    return None


ERRORS = {
    "heads": lambda L: L.nn.attention.flex_attention.flex_attention(L.ones(1, 4, 2, 3), L.ones(1, 2, 2, 3),
                                                                     L.ones(1, 2, 2, 3)),
    "gqa_multiple": lambda L: L.nn.attention.flex_attention.flex_attention(L.ones(1, 3, 2, 3), L.ones(1, 2, 2, 3),
                                                                            L.ones(1, 2, 2, 3), enable_gqa=True),
    "embed": lambda L: L.nn.attention.flex_attention.flex_attention(L.ones(1, 2, 2, 3), L.ones(1, 2, 2, 4),
                                                                     L.ones(1, 2, 2, 4)),
    "combine_not_callable": lambda L: L.nn.attention.flex_attention.and_masks(causal, 3),
    "sdpa_kernel_str": lambda L: L.nn.attention.sdpa_kernel("math").__enter__(),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    expected = _error(torch, ERRORS[case])
    assert expected is not None
    got = _error(facade, ERRORS[case])
    assert got[0] == expected[0]
    assert got[1].split(": (")[0] == expected[1].split(": (")[0]  # and_masks echoes its arguments


def test_sdpa_backend_and_kernel_context():
    A, TA = facade.nn.attention, torch.nn.attention
    assert {k: int(v) for k, v in A.SDPBackend.__members__.items()} == \
        {k: int(v.value) for k, v in TA.SDPBackend.__members__.items()}
    assert repr(A.SDPBackend.MATH) == repr(TA.SDPBackend.MATH)
    q = facade.tensor(Q)
    ref = facade.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    before = A._enabled_backends()
    with A.sdpa_kernel([A.SDPBackend.MATH, A.SDPBackend.MATH]) as ctx, TA.sdpa_kernel(TA.SDPBackend.MATH) as tctx:
        assert ctx == tctx == {}
        assert A._enabled_backends() == [A.SDPBackend.MATH]
        out = facade.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        with A.sdpa_kernel(A.SDPBackend.FLASH_ATTENTION):
            assert A._enabled_backends() == [A.SDPBackend.FLASH_ATTENTION]
        assert A._enabled_backends() == [A.SDPBackend.MATH]
    assert A._enabled_backends() == before
    np.testing.assert_array_equal(host(out), host(ref))
    assert A.can_use_flash_attention(None) is False and A.can_use_efficient_attention(None) is False
