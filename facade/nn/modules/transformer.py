"""torch.nn.modules.transformer: Transformer and its encoder/decoder stacks and layers.

Compositions of MultiheadAttention, Linear, Dropout and LayerNorm (no math here). torch's fused
"fast paths" give the same values as the composed modules, except one visible effect kept here:
an eval-mode, no-grad TransformerEncoder with a left-aligned src_key_padding_mask runs on nested
tensors and returns zeros at the padded positions (before its final norm)."""

from __future__ import annotations

import copy
import warnings

import facade

from ..._table import nn_activation as _activation_table
from .. import functional as F
from ..init import xavier_uniform_
from . import activation, dropout, linear, normalization
from ._multihead import MultiheadAttention
from .container import ModuleList
from .module import Module

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]

_relu = _activation_table.FUNCTIONS["relu"]  # torch.nn.functional.relu (installed there after this import)


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    return facade.triu(facade.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """is_causal, or when it is None whether `mask` is the square subsequent mask (a value check)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = mask.size() == causal.size() and bool((mask == causal).all())
    return make_causal


def _canonical_mask(mask, name, other, other_name, dtype, check_other=True):
    """torch's F._canonical_mask: a bool mask (True = masked out) as a float -inf/0 mask of `dtype`."""
    if mask is None:
        return None
    if mask.dtype is not facade.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and mask.dtype is not other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    if mask.dtype is facade.bool:
        mask = facade.zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))
    return mask


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


def _layer_parts(self, d_model, nhead, dim_feedforward, dropout_p, layer_norm_eps, norm_first, bias, norms,
                 factory_kwargs):
    """The feed-forward block, norms and dropouts shared by encoder and decoder layers (torch's order)."""
    self.linear1 = linear.Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
    self.dropout = dropout.Dropout(dropout_p)
    self.linear2 = linear.Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
    self.norm_first = norm_first
    for i in range(1, norms + 1):
        setattr(self, f"norm{i}", normalization.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs))
    for i in range(1, norms + 1):
        setattr(self, f"dropout{i}", dropout.Dropout(dropout_p))


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm (after it,
    or before it with norm_first)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory_kwargs)
        _layer_parts(self, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, norm_first, bias, 2,
                     factory_kwargs)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, _activation_class("ReLU")):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, _activation_class("GELU")):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask",
                                               src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _activation_class(name):
    """nn.ReLU / nn.GELU (looked up when used: activation.py is filled independently of this file)."""
    return getattr(activation, name, ())


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then a feed-forward block; each with a residual
    connection and LayerNorm (after it, or before it with norm_first)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **factory_kwargs)
        _layer_parts(self, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, norm_first, bias, 3,
                     factory_kwargs)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _why_not_sparsity_fast_path(layer, prefix):
    """torch's reason (at construction) why an encoder cannot run on nested tensors, or ''."""
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{prefix} was not TransformerEncoderLayer"
    attn = layer.self_attn
    for bad, why in ((layer.norm_first, "norm_first was True"),
                     (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for better "
                                            "inference performance)"),
                     (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
                     (attn.in_proj_bias is None, "self_attn was passed bias=False"),
                     (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
                     (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {prefix}.norm2.eps"),
                     (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")):
        if bad:
            return f"{prefix}.{why}"
    return ""


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then the optional norm."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_sparsity_fast_path(encoder_layer, "encoder_layer")
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", mask, "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first = self.layers[0]
        nested = self._runs_nested(src, mask, src_key_padding_mask)
        seq_len = _get_seq_len(src, first.self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if nested:  # torch's nested-tensor path returns zeros at the padded positions
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _runs_nested(self, src, mask, kpm):
        """Whether torch would run this call on nested tensors (eval, no grad, batched, left-aligned padding)."""
        first = self.layers[0]
        if (not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3 or kpm is None
                or mask is not None):
            return False
        if getattr(self, "mask_check", True):
            keep = kpm == 0
            if bool((keep[:, 1:] & ~keep[:, :-1]).any()):  # a kept position after a padded one
                return False
        attn = first.self_attn
        params = (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, first.norm1.weight,
                  first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight, first.linear1.bias,
                  first.linear2.weight, first.linear2.bias)
        return not (facade.is_grad_enabled() and any(p is not None and p.requires_grad for p in (src, *params)))


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer applied in turn over (tgt, memory), then the optional norm."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder-decoder transformer (Vaswani et al. 2017): TransformerEncoder over src, TransformerDecoder over
    tgt and the encoder's output, each with a final LayerNorm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=_relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            norm = normalization.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args, **factory_kwargs),
                                              num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            norm = normalization.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args, **factory_kwargs),
                                              num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        if src.dim() == 3 and src.size(0 if self.batch_first else 1) != tgt.size(0 if self.batch_first else 1):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A (sz, sz) float mask: -inf above the diagonal (future positions), 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
