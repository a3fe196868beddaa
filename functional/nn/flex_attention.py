"""The softmax-attention core of flex attention over materialised (score-modified) scores and mask."""

import jax.numpy as jnp

from ..linalg import _hi

__all__ = ["flex_attention_core"]


def flex_attention_core(scores, value, mask):
    """Masked softmax attention with torch flex_attention's conventions for fully masked rows.

    scores: (B, H, L, S) attention scores after `score_mod`; value: (B, H, S, Ev); mask: bool, broadcastable
    to scores (False: excluded). Returns (out (B, H, L, Ev) in value's dtype, logsumexp (B, H, L), max score
    (B, H, L)). A row with every key excluded gives out 0 and logsumexp -inf (and no NaN gradient).
    """
    s = jnp.where(mask, scores, -jnp.inf)
    top = jnp.max(s, axis=-1, keepdims=True)
    safe_top = jnp.where(jnp.isfinite(top), top, 0.0)
    e = jnp.exp(s - safe_top)
    denom = jnp.sum(e, axis=-1, keepdims=True)
    live = denom > 0
    p = e / jnp.where(live, denom, 1.0)
    out = jnp.matmul(p.astype(value.dtype), value, precision=_hi())
    lse = jnp.where(live, jnp.log(jnp.where(live, denom, 1.0)) + safe_top, -jnp.inf)
    return out, lse[..., 0], top[..., 0]
