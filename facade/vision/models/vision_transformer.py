"""Vision Transformer, ViT-B/16 ... ViT-H/14 (torchvision.models.vision_transformer), with torchvision's module
names and weights."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import facade as torch

from ... import nn
from ._api import WeightsEnum
from ._utils import (
    _NEW_RECIPE,
    MLP,
    Conv2dNormActivation,
    _imagenet_weights,
    _load_weights,
    _model_builder,
    _ovewrite_named_param,
)

__all__ = [
    "VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights", "ViT_L_32_Weights",
    "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14",
]


def _check(cond: bool, message: str) -> None:  # torch._assert
    if not cond:
        raise AssertionError(message)


class ConvStemConfig(NamedTuple):
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d
    activation_layer: Callable[..., nn.Module] = nn.ReLU


class MLPBlock(MLP):
    """Transformer MLP block."""

    _version = 2

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
        if local_metadata.get("version", None) is None or local_metadata["version"] < 2:
            # checkpoints from before the block became an MLP name its linears linear_1, linear_2
            for i in range(2):
                for kind in ("weight", "bias"):
                    old_key = f"{prefix}linear_{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)


_LayerNorm = partial(nn.LayerNorm, eps=1e-6)


class EncoderBlock(nn.Module):
    """Transformer encoder block (pre-norm): x + attention(ln_1(x)), then + mlp(ln_2(.))."""

    def __init__(self, num_heads: int, hidden_dim: int, mlp_dim: int, dropout: float, attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = _LayerNorm):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        _check(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Transformer encoder: learned position embedding, the blocks, a final norm."""

    def __init__(self, seq_length: int, num_layers: int, num_heads: int, hidden_dim: int, mlp_dim: int,
                 dropout: float, attention_dropout: float, norm_layer: Callable[..., nn.Module] = _LayerNorm):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim).normal_(std=0.02))  # from BERT
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                                                norm_layer)) for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        _check(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """Vision Transformer as per https://arxiv.org/abs/2010.11929."""

    def __init__(self, image_size: int, patch_size: int, num_layers: int, num_heads: int, hidden_dim: int,
                 mlp_dim: int, dropout: float = 0.0, attention_dropout: float = 0.0, num_classes: int = 1000,
                 representation_size: int | None = None, norm_layer: Callable[..., nn.Module] = _LayerNorm,
                 conv_stem_configs: list[ConvStemConfig] | None = None):
        super().__init__()
        _check(image_size % patch_size == 0, "Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer

        if conv_stem_configs is not None:  # as per https://arxiv.org/abs/2106.14881
            seq_proj = nn.Sequential()
            prev_channels = 3
            for i, cfg in enumerate(conv_stem_configs):
                seq_proj.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                    in_channels=prev_channels, out_channels=cfg.out_channels, kernel_size=cfg.kernel_size,
                    stride=cfg.stride, norm_layer=cfg.norm_layer, activation_layer=cfg.activation_layer))
                prev_channels = cfg.out_channels
            seq_proj.add_module("conv_last", nn.Conv2d(in_channels=prev_channels, out_channels=hidden_dim,
                                                       kernel_size=1))
            self.conv_proj: nn.Module = seq_proj
        else:
            self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim, kernel_size=patch_size,
                                       stride=patch_size)

        seq_length = (image_size // patch_size) ** 2 + 1  # + the class token
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                               norm_layer)
        self.seq_length = seq_length

        heads_layers: OrderedDict[str, nn.Module] = OrderedDict()
        if representation_size is None:
            heads_layers["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads_layers["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads_layers["act"] = nn.Tanh()
            heads_layers["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads_layers)

        if isinstance(self.conv_proj, nn.Conv2d):
            fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] * self.conv_proj.kernel_size[1]
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            if self.conv_proj.bias is not None:
                nn.init.zeros_(self.conv_proj.bias)
        elif isinstance(getattr(self.conv_proj, "conv_last", None), nn.Conv2d):
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            if last.bias is not None:
                nn.init.zeros_(last.bias)
        if isinstance(getattr(self.heads, "pre_logits", None), nn.Linear):
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / self.heads.pre_logits.in_features))
            nn.init.zeros_(self.heads.pre_logits.bias)
        if isinstance(self.heads.head, nn.Linear):
            nn.init.zeros_(self.heads.head.weight)
            nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, c, h, w = x.shape
        p = self.patch_size
        _check(h == self.image_size, f"Wrong image height! Expected {self.image_size} but got {h}!")
        _check(w == self.image_size, f"Wrong image width! Expected {self.image_size} but got {w}!")
        x = self.conv_proj(x)  # (n, hidden_dim, n_h, n_w)
        x = x.reshape(n, self.hidden_dim, (h // p) * (w // p))
        return x.permute(0, 2, 1)  # (n, seq, hidden_dim), as batch_first attention expects

    def forward(self, x):
        x = self._process_input(x)
        batch_class_token = self.class_token.expand(x.shape[0], -1, -1)
        x = self.encoder(torch.cat([batch_class_token, x], dim=1))
        return self.heads(x[:, 0])  # the class token's output


def _vision_transformer(patch_size: int, num_layers: int, num_heads: int, hidden_dim: int, mlp_dim: int,
                        weights: WeightsEnum | None, progress: bool, **kwargs: Any) -> VisionTransformer:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        assert weights.meta["min_size"][0] == weights.meta["min_size"][1]
        _ovewrite_named_param(kwargs, "image_size", weights.meta["min_size"][0])
    image_size = kwargs.pop("image_size", 224)
    model = VisionTransformer(image_size=image_size, patch_size=patch_size, num_layers=num_layers,
                              num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim, **kwargs)
    return _load_weights(model, weights, progress)


_DEIT = ("These weights were trained from scratch by using a modified version of "
         "`DeIT <https://arxiv.org/abs/2012.12877>`_'s training recipe.")
_SWAG = "`SWAG <https://arxiv.org/abs/2201.08371>`_"
_SWAG_E2E = (f"These weights are learnt via transfer learning by end-to-end fine-tuning the original {_SWAG} weights "
             "on ImageNet-1K data.")
_SWAG_LINEAR = (f"These weights are composed of the original frozen {_SWAG} trunk weights and a linear classifier "
                "learnt on top of them trained on ImageNet-1K data.")
_SWAG_META = {"recipe": "https://github.com/facebookresearch/SWAG",
              "license": "https://github.com/facebookresearch/SWAG/blob/main/LICENSE"}


def _w(file: str, num_params: int, acc1: float, acc5: float, ops: float, file_size: float, docs: str = _DEIT,
       recipe: str | None = None, **preset) -> Any:
    """A ViT checkpoint; `recipe=None` names the torchvision reference recipe of the model in `file`."""
    recipe = recipe or f"https://github.com/pytorch/vision/tree/main/references/classification#{file[:8]}"
    return _imagenet_weights(f"https://download.pytorch.org/models/{file}.pth", recipe, num_params, acc1, acc5, ops,
                             file_size, docs, min_size=(224, 224), **preset)


def _swag(file: str, size: int, num_params: int, acc1: float, acc5: float, ops: float, file_size: float,
          linear: bool) -> Any:
    """A SWAG checkpoint: end-to-end fine-tuned at `size`, or a linear classifier on the frozen trunk at 224."""
    recipe = "https://github.com/pytorch/vision/pull/5793" if linear else _SWAG_META["recipe"]
    weights = _w(file, num_params, acc1, acc5, ops, file_size, _SWAG_LINEAR if linear else _SWAG_E2E, recipe,
                 crop_size=size, resize_size=size, interpolation="bicubic")
    weights.meta.update({**_SWAG_META, "recipe": recipe, "min_size": (size, size)})
    return weights


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vit_b_16-c867db91", 86567656, 81.072, 95.318, 17.564, 330.285)
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_b_16_swag-9ac1b537", 384, 86859496, 85.304, 97.650, 55.484, 331.398, False)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_b_16_lc_swag-4e70ced5", 224, 86567656, 81.886, 96.180, 17.564, 330.285,
                                      True)
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vit_b_32-d86f8d99", 88224232, 75.912, 92.466, 4.409, 336.604)
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vit_l_16-852ce7e3", 304326632, 79.662, 94.638, 61.555, 1161.023, resize_size=242,
                       docs=f"These weights were trained from scratch by using a modified version of TorchVision's "
                            f"{_NEW_RECIPE}.")
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_l_16_swag-4f3808c9", 512, 305174504, 88.064, 98.512, 361.986, 1164.258,
                                   False)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_l_16_lc_swag-4d563306", 224, 304326632, 85.146, 97.422, 61.555, 1161.023,
                                      True)
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vit_l_32-c7638314", 306535400, 76.972, 93.07, 15.378, 1169.449)
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_h_14_swag-80465313", 518, 633470440, 88.552, 98.694, 1016.717, 2416.643,
                                   False)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_h_14_lc_swag-c1eb923e", 224, 632045800, 85.708, 97.730, 167.295, 2411.209,
                                      True)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


def _builder(name: str, weights_enum: type[WeightsEnum], *config: int, legacy_default: Any = "IMAGENET1K_V1"):
    """config: patch_size, num_layers, num_heads, hidden_dim, mlp_dim."""
    return _model_builder(__name__, name, weights_enum, partial(_vision_transformer, *config),
                          legacy_default=legacy_default)


vit_b_16 = _builder("vit_b_16", ViT_B_16_Weights, 16, 12, 12, 768, 3072)
vit_b_32 = _builder("vit_b_32", ViT_B_32_Weights, 32, 12, 12, 768, 3072)
vit_l_16 = _builder("vit_l_16", ViT_L_16_Weights, 16, 24, 16, 1024, 4096)
vit_l_32 = _builder("vit_l_32", ViT_L_32_Weights, 32, 24, 16, 1024, 4096)
vit_h_14 = _builder("vit_h_14", ViT_H_14_Weights, 14, 32, 16, 1280, 5120, legacy_default=None)


def interpolate_embeddings(image_size: int, patch_size: int, model_state: OrderedDict[str, torch.Tensor],
                           interpolation_mode: str = "bicubic", reset_heads: bool = False):
    """A ViT state dict's position embedding resized (bicubic by default) to a new `image_size`, for fine-tuning
    at another resolution; `reset_heads` drops the classification head's weights."""
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length != seq_length:
        seq_length -= 1  # the class token's embedding is kept as is
        pos_embedding_token, pos_embedding_img = pos_embedding[:, :1, :], pos_embedding[:, 1:, :]
        pos_embedding_img = pos_embedding_img.permute(0, 2, 1)  # (1, hidden_dim, seq_length)
        seq_length_1d = int(math.sqrt(seq_length))
        if seq_length_1d * seq_length_1d != seq_length:
            raise ValueError(f"seq_length is not a perfect square! Instead got seq_length_1d * seq_length_1d = "
                             f"{seq_length_1d * seq_length_1d} and seq_length = {seq_length}")
        pos_embedding_img = pos_embedding_img.reshape(1, hidden_dim, seq_length_1d, seq_length_1d)
        new_seq_length_1d = image_size // patch_size
        new_pos_embedding_img = nn.functional.interpolate(pos_embedding_img, size=new_seq_length_1d,
                                                          mode=interpolation_mode, align_corners=True)
        new_pos_embedding_img = new_pos_embedding_img.reshape(1, hidden_dim, new_seq_length - 1).permute(0, 2, 1)
        new_pos_embedding = torch.cat([pos_embedding_token, new_pos_embedding_img], dim=1)
        model_state["encoder.pos_embedding"] = new_pos_embedding
        if reset_heads:
            model_state = OrderedDict((k, v) for k, v in model_state.items() if not k.startswith("heads"))
    return model_state
