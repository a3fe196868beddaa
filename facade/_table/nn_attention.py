"""Table rows of torch.nn.functional: attention.

Both rows take a random key (`rng`) for dropout; the functions installed on torch.nn.functional
draw it (only when dropout applies) and give torch's signatures."""

import inspect
import warnings

from functional.nn import attention as A

from .._dispatch import Op, call
from .._random import next_key

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed

_SDPA = Op("scaled_dot_product_attention", A.scaled_dot_product_attention,
           arrays=("query", "key", "value", "attn_mask", "rng"), method=False, grad_name="UnsafeViewBackward0")
_MHA_ARRAYS = ("query", "key", "value", "in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj_weight",
               "out_proj_bias", "key_padding_mask", "attn_mask", "q_proj_weight", "k_proj_weight", "v_proj_weight",
               "static_k", "static_v", "rng")


def _mha_rows(*args, **kwargs):
    out, weights = A.multi_head_attention_forward(*args, **kwargs)
    return (out,) if weights is None else (out, weights)


_mha_rows.__signature__ = inspect.signature(A.multi_head_attention_forward)
_MHA = Op("multi_head_attention_forward", _mha_rows, arrays=_MHA_ARRAYS, method=False, grad_name="ViewBackward0")

OPS = []  # both rows are reached through FUNCTIONS only


def _key(p, x):
    return next_key(device=x.device) if p > 0 and hasattr(x, "device") else None


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    return call(_SDPA, (query, key, value, attn_mask, dropout_p, is_causal),
                {"scale": scale, "enable_gqa": enable_gqa, "rng": _key(dropout_p, query)})


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    if key_padding_mask is not None and attn_mask is not None and key_padding_mask.dtype != attn_mask.dtype:
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    kwargs = dict(training=training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                  attn_mask=attn_mask, use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
                  k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k, static_v=static_v,
                  average_attn_weights=average_attn_weights, is_causal=is_causal,
                  rng=_key(dropout_p if training else 0.0, query))
    out = call(_MHA, (query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                      add_zero_attn, dropout_p, out_proj_weight, out_proj_bias), kwargs)
    return (out[0], out[1]) if need_weights else (out[0], None)


for _f in (scaled_dot_product_attention, multi_head_attention_forward):
    _doc = getattr(A, _f.__name__).__doc__
    _f.__doc__ = f"torch.nn.functional.{_f.__name__}: see functional.nn.{_f.__name__}.\n\n{_doc}"

FUNCTIONS = {"scaled_dot_product_attention": scaled_dot_product_attention,
             "multi_head_attention_forward": multi_head_attention_forward}
