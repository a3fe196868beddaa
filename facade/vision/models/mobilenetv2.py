"""MobileNetV2 (torchvision.models.mobilenetv2), with torchvision's module names and weights."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import facade as torch

from ... import nn
from ._api import WeightsEnum
from ._utils import _NEW_RECIPE, Conv2dNormActivation, _classifier, _imagenet_weights, _make_divisible, _model_builder

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """1x1 expansion (unless expand_ratio is 1), 3x3 depthwise, linear 1x1 projection; a residual when shapes allow."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self.stride = stride
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = norm_layer or nn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        cna = partial(Conv2dNormActivation, norm_layer=norm_layer, activation_layer=nn.ReLU6)
        layers: list[nn.Module] = [cna(inp, hidden_dim, kernel_size=1)] if expand_ratio != 1 else []
        layers += [cna(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
                   nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0,
                 inverted_residual_setting: list[list[int]] | None = None, round_nearest: int = 8,
                 block: Callable[..., nn.Module] | None = None, norm_layer: Callable[..., nn.Module] | None = None,
                 dropout: float = 0.2) -> None:
        super().__init__()
        block = block or InvertedResidual
        norm_layer = norm_layer or nn.BatchNorm2d
        input_channel, last_channel = 32, 1280
        if inverted_residual_setting is None:
            inverted_residual_setting = [  # expansion t, channels c, repeats n, first stride s
                [1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                [6, 320, 1, 1],
            ]
        # only the first row is checked, as torchvision does
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise ValueError("inverted_residual_setting should be non-empty or a 4-element list, "
                             f"got {inverted_residual_setting}")
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        cna = partial(Conv2dNormActivation, norm_layer=norm_layer, activation_layer=nn.ReLU6)
        features: list[nn.Module] = [cna(3, input_channel, stride=2)]
        for t, c, n, s in inverted_residual_setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                      norm_layer=norm_layer))
                input_channel = output_channel
        features.append(cna(input_channel, self.last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))  # not squeeze: the batch may be 1
        return self.classifier(torch.flatten(x, 1))

    def forward(self, x):
        return self._forward_impl(x)


def _w(file: str, recipe: str, acc1: float, acc5: float, file_size: float, docs: str, **preset):
    return _imagenet_weights(f"https://download.pytorch.org/models/{file}.pth", recipe, 3504872, acc1, acc5, 0.301,
                             file_size, docs, **preset)


class MobileNet_V2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("mobilenet_v2-b0353104",
                       "https://github.com/pytorch/vision/tree/main/references/classification#mobilenetv2",
                       71.878, 90.286, 13.555,
                       "These weights reproduce closely the results of the paper using a simple training recipe.")
    IMAGENET1K_V2 = _w("mobilenet_v2-7ebf99e0", "https://github.com/pytorch/vision/issues/3995#new-recipe-with-reg-tuning",
                       72.154, 90.822, 13.598,
                       "These weights improve upon the results of the original paper by using a modified version of "
                       f"TorchVision's {_NEW_RECIPE}.", resize_size=232)
    DEFAULT = IMAGENET1K_V2


mobilenet_v2 = _model_builder(__name__, "mobilenet_v2", MobileNet_V2_Weights, partial(_classifier, MobileNetV2))
