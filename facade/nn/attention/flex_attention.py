"""torch.nn.attention.flex_attention over a JAX implementation.

`score_mod(score, b, h, q_idx, kv_idx)` and `mask_mod(b, h, q_idx, kv_idx)` are ordinary Python
functions of facade tensors. Where torch vmaps them over scalar indices, facade calls them once on
broadcasting index grids (b: (B,1,1,1), h: (1,H,1,1), q_idx: (1,1,L,1), kv_idx: (1,1,1,S)), so the
same elementwise code (comparisons, arithmetic, indexing a captured tensor with an index) yields the
whole (B, H, L, S) score modification or mask at once. The scores and mask are then materialised and
one op (functional.nn.flex_attention.flex_attention_core) does the masked softmax attention;
gradients flow through score_mod's ops and that op by JAX autodiff. A BlockMask keeps torch's
block-sparsity description (kv_num_blocks, kv_indices, ...), computed from the dense mask; the
attention itself evaluates `mask_mod` densely (the block structure is an optimisation in torch).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from functional.nn.flex_attention import flex_attention_core

from ..._dispatch import Op, call

__all__ = ["flex_attention", "create_block_mask", "create_mask", "BlockMask", "and_masks", "or_masks", "noop_mask",
           "AuxRequest", "AuxOutput"]

_CORE = Op("flex_attention", flex_attention_core, arrays=("scores", "value", "mask"), method=False, function=False,
           grad_name="FlexAttentionBackward0")
_DEFAULT_SPARSE_BLOCK_SIZE = 128


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention should return."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """The auxiliary outputs requested by AuxRequest (None where not requested)."""

    lse: object = None
    max_scores: object = None


def noop_mask(batch, head, token_q, token_kv):
    """A mask_mod that keeps every score."""
    return batch.new_ones(size=(), dtype=_torch().bool)


def _combine(mask_mods, op, start):
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def combined(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=_torch().bool) if start else b.new_zeros((), dtype=_torch().bool)
        for m in mask_mods:
            result = op(result, m(b, h, q_idx, kv_idx))
        return result

    return combined


def and_masks(*mask_mods):
    """The mask_mod keeping a score where every one of `mask_mods` keeps it."""
    return _combine(mask_mods, lambda a, b: a & b, True)


def or_masks(*mask_mods):
    """The mask_mod keeping a score where any of `mask_mods` keeps it."""
    return _combine(mask_mods, lambda a, b: a | b, False)


def _torch():
    import facade

    return facade


def _grids(B, H, L, S, device):
    """Broadcasting index grids: b (B,1,1,1), h (1,H,1,1), q_idx (1,1,L,1), kv_idx (1,1,1,S)."""
    torch = _torch()
    return tuple(torch.arange(n, device=device).reshape([n if i == k else 1 for i in range(4)])
                 for k, n in enumerate((B, H, L, S)))


def _num_params(fn):
    import inspect

    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return 4


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The dense bool mask (B, H, Q_LEN, KV_LEN) of a mask_mod, or of a score_mod (where it gives -inf)."""
    torch = _torch()
    device = device or "cpu"
    B, H = B or 1, H or 1
    b, h, m, n = _grids(B, H, Q_LEN, KV_LEN, device)
    if _num_params(mod_fn) == 5:
        out = mod_fn(torch.zeros(B, H, Q_LEN, KV_LEN, device=device), b, h, m, n)
        return torch.where(torch.isneginf(out), False, True).expand(B, H, Q_LEN, KV_LEN)
    return torch.as_tensor(mod_fn(b, h, m, n), device=device).expand(B, H, Q_LEN, KV_LEN)


def _ordered(blocks):
    """(num_blocks, indices) of a (..., rows, cols) bool block map: counts per row and the kept columns first."""
    num = blocks.sum(-1).astype(np.int32)
    idx = np.argsort(~blocks, axis=-1, kind="stable").astype(np.int32)
    return num, idx


class BlockMask:
    """A mask_mod with torch's block-sparse summary of it: per (batch, head, query block) the number and
    indices of key blocks that are partly kept (`kv_num_blocks`, `kv_indices`) and, with separate full
    blocks, wholly kept (`full_kv_num_blocks`, `full_kv_indices`); `q_*` the same by key block."""

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, q_num_blocks,
                 q_indices, full_q_num_blocks, full_q_indices, BLOCK_SIZE, mask_mod):
        self.seq_lengths, self.BLOCK_SIZE, self.mask_mod = tuple(seq_lengths), tuple(BLOCK_SIZE), mask_mod
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices

    @property
    def shape(self):
        return (*self.kv_num_blocks.shape[:2], *self.seq_lengths)

    def to_dense(self):
        """The block-level mask (B, H, query blocks, key blocks): 1 where a block is (partly or wholly) kept."""
        def dense(num, idx):
            n, i = num.numpy(), idx.numpy()
            out = np.zeros(i.shape, np.int32)
            cols = np.arange(i.shape[-1])
            np.put_along_axis(out, i, (cols < n[..., None]).astype(np.int32), axis=-1)
            return out

        out = dense(self.kv_num_blocks, self.kv_indices)
        if self.full_kv_num_blocks is not None:
            out = out | dense(self.full_kv_num_blocks, self.full_kv_indices)
        return _torch().from_numpy(out)

    def sparsity(self):
        """Percentage of the dense score matrix the blocks skip (negative when blocks overhang short sequences)."""
        computed = self.kv_num_blocks.sum().item()
        if self.full_kv_num_blocks is not None:
            computed += self.full_kv_num_blocks.sum().item()
        dense = math.prod(self.shape)
        return 100 * (1 - computed * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1] / dense)

    def __repr__(self):
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, mask_mod={self.mask_mod.__name__})"


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks=True, compute_dq_write_order=False, dq_kv_order=True):
    """The BlockMask of `mask_mod` over (B, H, Q_LEN, KV_LEN) (B or H None: broadcast over it)."""
    torch = _torch()
    q_bs, kv_bs = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    dense = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device).numpy()
    nq, nkv = -(-Q_LEN // q_bs), -(-KV_LEN // kv_bs)
    padded = np.zeros((*dense.shape[:2], nq * q_bs, nkv * kv_bs), bool)
    padded[:, :, :Q_LEN, :KV_LEN] = dense
    blocks = padded.reshape(*dense.shape[:2], nq, q_bs, nkv, kv_bs)
    any_kept = blocks.any(axis=(3, 5))
    valid = np.zeros_like(padded)
    valid[:, :, :Q_LEN, :KV_LEN] = True
    full = (blocks | ~valid.reshape(blocks.shape)).all(axis=(3, 5)) & any_kept if separate_full_blocks else None
    partial = any_kept & ~full if separate_full_blocks else any_kept

    def tensors(m):
        if m is None:
            return None, None
        num, idx = _ordered(m)
        return torch.from_numpy(num), torch.from_numpy(idx)

    kv = tensors(partial) + tensors(full)
    q = tensors(np.swapaxes(partial, -1, -2)) + tensors(None if full is None else np.swapaxes(full, -1, -2))
    return BlockMask((Q_LEN, KV_LEN), *kv, *q, (q_bs, kv_bs), mask_mod)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    """Attention with a user score modification and mask: softmax(mask(score_mod(q k^T * scale))) v.

    query (B, Hq, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev); with enable_gqa Hq may be a multiple of
    Hkv. Returns out (B, Hq, L, Ev); with return_lse also the logsumexp (B, Hq, L); with return_aux an
    AuxOutput(lse, max_scores) of what AuxRequest asked for."""
    if query.size(-1) != key.size(-1):
        raise ValueError(f"Expect query and key/value to have the same embedding dimension but got "
                         f"E={query.size(-1)} and E={key.size(-1)}.")
    hq, hkv = query.size(-3), key.size(-3)
    if not enable_gqa and hq != hkv:
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={hq} and "
                         f"Hkv={hkv}. Try setting enable_gqa=True for GQA.")
    if enable_gqa and hq % hkv != 0:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got Hq={hq} and "
                         f"Hkv={hkv}.")
    if hq != hkv:
        key, value = key.repeat_interleave(hq // hkv, dim=-3), value.repeat_interleave(hq // hkv, dim=-3)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale  # (B, H, L, S)
    B, H, L, S = scores.shape
    b, h, q_idx, kv_idx = _grids(B, H, L, S, query.device)
    if score_mod is not None:
        scores = score_mod(scores, b, h, q_idx, kv_idx)
    mask = (block_mask.mask_mod if block_mask is not None else noop_mask)(b, h, q_idx, kv_idx)
    out, lse, max_scores = call(_CORE, (scores, value, mask), None)
    if return_aux is not None:
        return out, AuxOutput(lse if return_aux.lse else None, max_scores if return_aux.max_scores else None)
    return (out, lse) if return_lse else out
