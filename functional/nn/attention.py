"""Attention: scaled dot-product attention and the multi-head attention forward of
`nn.MultiheadAttention`, with torch's math-backend semantics.

Dropout inside attention needs randomness: both functions take a keyword-only `rng`, either a
JAX PRNG key or the 0-dim int64 key data facade passes (see `functional.prng_key`); it is
required only when dropout is applied.
"""

import math

import jax
import jax.numpy as jnp

from .._names import cpp_name as _cpp
from ..linalg import _hi
from ..shape import broadcast_shapes
from .misc import dropout

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_HALF = (jnp.float16, jnp.bfloat16)
_SCALAR_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _dropout(x, p, rng):
    """functional.nn.dropout with `rng` a JAX PRNG key or facade's int64 key data."""
    if rng is None:
        raise ValueError("dropout inside attention needs a random key: pass rng=")
    if jnp.issubdtype(rng.dtype, jax.dtypes.prng_key):
        rng = jax.lax.bitcast_convert_type(jax.random.key_data(rng), jnp.int64)
    return dropout(x, rng, p)


def _safe_softmax(x):
    """softmax over the last dim, 0 (not NaN) on rows that are all -inf (torch's `_safe_softmax`)."""
    empty = jnp.all(x == -jnp.inf, axis=-1, keepdims=True)
    p = jax.nn.softmax(jnp.where(empty, 0, x), axis=-1)  # no NaN even in the gradient of masked rows
    return jnp.where(empty, 0, p)


def _bmm_error(batch, want, got):
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {want}] "
                        f"but got: [{batch}, {got}].")


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cpp(query.dtype)} key.dtype: {_cpp(key.dtype)} and value.dtype: {_cpp(value.dtype)} "
                           "instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None:
        m = attn_mask.dtype
        if m != jnp.bool_ and m != jnp.float32 and m != query.dtype:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {_cpp(m)} and  query.dtype: {_cpp(query.dtype)} instead.")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        if attn_mask.ndim < 2:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(attn_mask.ndim, 1)}, "
                             f"{max(attn_mask.ndim, 1) - 1}], but got -2)")
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    name = query.dtype.name
    if not jnp.issubdtype(query.dtype, jnp.floating):
        if jnp.issubdtype(query.dtype, jnp.complexfloating):
            raise NotImplementedError(f"\"softmax_lastdim_kernel_impl\" not implemented for '{_SCALAR_NAMES[name]}'")
        raise RuntimeError(f"expected scalar type Float but found {_SCALAR_NAMES.get(name, name)}")
    if enable_gqa:
        if min(query.ndim, key.ndim, value.ndim) < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{query.ndim}, {query.ndim - 1}], "
                             "but got -3)")
        h = query.shape[-3]
        if h % key.shape[-3] or h % value.shape[-3]:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, *, rng=None):
    """softmax(query @ key^T * scale + bias) @ value, torch's math backend.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); the batch dims broadcast.
    scale defaults to 1/sqrt(E). attn_mask broadcasts to (..., L, S): a bool mask keeps the True
    positions (False ones get -inf), a float mask is added. is_causal masks above the diagonal of the
    top-left-aligned (L, S) matrix (and excludes attn_mask). A row masked everywhere gives 0, not NaN.
    enable_gqa: key/value with fewer heads (dim -3) than query, each repeated to query's head count.
    dropout_p > 0 drops attention weights with key `rng`. Half types are computed in float32.
    """
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    L, E, S = query.shape[-2], query.shape[-1], key.shape[-2]
    out_dtype = query.dtype
    acc = jnp.float32 if out_dtype in _HALF else out_dtype
    q, k, v = (x.astype(acc) for x in (query, key, value))
    if enable_gqa:
        k = jnp.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = jnp.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    batch = broadcast_shapes(q.shape[:-2], k.shape[:-2])
    broadcast_shapes(batch, v.shape[:-2])
    if k.shape[-1] != E:
        raise _bmm_error(math.prod(batch), E, k.shape[-1])
    if v.shape[-2] != S:
        raise _bmm_error(math.prod(batch), S, v.shape[-2])
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    root = math.sqrt(abs(scale))  # torch scales q and k each by sqrt(scale)
    attn = jnp.matmul(q * root, jnp.swapaxes(k * root, -1, -2), precision=_hi())  # (..., L, S)
    if scale < 0:
        attn = -attn
    if is_causal:
        attn = jnp.where(jnp.tril(jnp.ones((L, S), bool)), attn, -jnp.inf)
    if attn_mask is not None:
        shape = broadcast_shapes(attn.shape, attn_mask.shape)
        if attn_mask.dtype == jnp.bool_:
            attn = jnp.where(attn_mask, attn, -jnp.inf)
        else:
            attn = attn + attn_mask.astype(acc)
        attn = jnp.broadcast_to(attn, shape)
    attn = _safe_softmax(attn)
    if dropout_p > 0:
        attn = _dropout(attn, dropout_p, rng)
    return jnp.matmul(attn, v, precision=_hi()).astype(out_dtype)


# ---------------------------------------------------------------------------- multi-head attention

def _linear(x, w, b):
    y = jnp.matmul(x, w.T, precision=_hi())
    return y if b is None else y + b


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's checks of the input ranks; True when the input is batched (3-D query)."""
    kd, vd = key.ndim, value.ndim
    if query.ndim == 3:
        if kd != 3 or vd != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if kd != 2 or vd != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {kd}-D and {vd}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.ndim}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {_size(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _size(shape):
    return f"torch.Size([{', '.join(map(str, shape))}])"


def _canonical_mask(mask, name, dtype):
    """A bool mask (True = masked out) as a float mask of -inf/0 in `dtype`; a float mask as is."""
    if mask is None:
        return None
    if mask.dtype == jnp.bool_:
        return jnp.where(mask, -jnp.inf, 0).astype(dtype)
    if not jnp.issubdtype(mask.dtype, jnp.floating):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _pad_last(x):
    return None if x is None else jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, 1)])


def _in_projection(query, key, value, E, in_proj_weight, in_proj_bias, use_separate, q_w, k_w, v_w):
    if not use_separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        ws = jnp.split(in_proj_weight, 3)
    else:
        for n, w in (("q", q_w), ("k", k_w), ("v", v_w)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is None")
        for n, w, x in (("query", q_w, query), ("key", k_w, key), ("value", v_w, value)):
            if w.shape != (E, x.shape[-1]):
                raise AssertionError(f"expecting {n} weights shape of {(E, x.shape[-1])}, but got {_size(w.shape)}")
        ws = (q_w, k_w, v_w)
    bs = (None,) * 3 if in_proj_bias is None else jnp.split(in_proj_bias, 3)
    return tuple(_linear(x, w, b) for x, w, b in zip((query, key, value), ws, bs))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False, *, rng=None):
    """Multi-head attention of `nn.MultiheadAttention`, sequence-first. Returns (output, weights or None).

    query (L, N, E) or unbatched (L, E); key (S, N, Ek), value (S, N, Ev). The inputs are projected
    (packed in_proj_weight (3E, E), or q/k/v_proj_weight with use_separate_proj_weight), split into
    num_heads heads of E // num_heads, attended, merged and projected by out_proj -> (L, N, E).
    Masks: bool True = masked out (-inf), float = added; key_padding_mask (N, S); attn_mask (L, S) or
    (N * num_heads, L, S). bias_k/bias_v (1, 1, E) append one key/value position, add_zero_attn a zero
    one. need_weights returns the softmax weights (N, num_heads, L, S), averaged over heads by default
    (a fully masked row is NaN there, as in torch); otherwise scaled_dot_product_attention computes
    the output (is_causal then applies when no key_padding_mask is given). Dropout applies if training.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[None]
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # sdpa applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
                                 f"{_size(value.shape[:2])}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}")
    q, k, v = _in_projection(query, key, value, embed_dim, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                             q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask[None]
        elif attn_mask.ndim == 3:
            if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = jnp.concatenate([k, jnp.broadcast_to(bias_k, (1, bsz, bias_k.shape[-1])).astype(k.dtype)])
        v = jnp.concatenate([v, jnp.broadcast_to(bias_v, (1, bsz, bias_v.shape[-1])).astype(v.dtype)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    def heads(x, static, name):  # (S, N, E) -> (N * num_heads, S, head_dim)
        if static is None:
            return jnp.swapaxes(x.reshape(x.shape[0], bsz * num_heads, head_dim), 0, 1)
        for d, want in ((0, bsz * num_heads), (2, head_dim)):
            if static.shape[d] != want:
                raise AssertionError(f"expecting {name}.size({d}) of {want}, but got {static.shape[d]}")
        return static

    q = heads(q, None, "")
    k, v = heads(k, static_k, "static_k"), heads(v, static_v, "static_v")
    if add_zero_attn:
        k = jnp.concatenate([k, jnp.zeros((bsz * num_heads, 1, head_dim), k.dtype)], axis=1)
        v = jnp.concatenate([v, jnp.zeros((bsz * num_heads, 1, head_dim), v.dtype)], axis=1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = jnp.broadcast_to(key_padding_mask[:, None, None, :], (bsz, num_heads, 1, src_len))
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        scores = jnp.matmul(q * math.sqrt(1.0 / head_dim), jnp.swapaxes(k, -1, -2), precision=_hi())  # (B*h, L, S)
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = jax.nn.softmax(scores, axis=-1)
        if dropout_p > 0.0:
            weights = _dropout(weights, dropout_p, rng)
        out = jnp.matmul(weights, v, precision=_hi())  # (N * num_heads, L, head_dim)
        out = jnp.swapaxes(out, 0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(axis=1)
        if not is_batched:
            out, weights = out[:, 0], weights[0]
        return out, weights

    if attn_mask is not None:
        attn_mask = attn_mask[None] if attn_mask.shape[0] == 1 else attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, rng=rng)
    out = jnp.transpose(out, (2, 0, 1, 3)).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if is_batched else out[:, 0]), None
