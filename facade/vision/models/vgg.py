"""VGG 11/13/16/19, plain and with batch norm (torchvision.models.vgg), with torchvision's module names and weights."""

from __future__ import annotations

from functools import partial
from typing import Any

import facade as torch

from ... import nn
from ._api import WeightsEnum
from ._utils import _classifier, _imagenet_weights, _model_builder

__all__ = [
    "VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights", "VGG16_Weights",
    "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16",
    "vgg16_bn", "vgg19", "vgg19_bn",
]


class VGG(nn.Module):
    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


def make_layers(cfg: list[str | int], batch_norm: bool = False) -> nn.Sequential:
    """The feature stack: 3x3 conv (+ BatchNorm2d) + ReLU for each int (its channels), a 2x2 max pool for each "M"."""
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
        layers += [nn.BatchNorm2d(v), nn.ReLU(inplace=True)] if batch_norm else [nn.ReLU(inplace=True)]
        in_channels = v
    return nn.Sequential(*layers)


cfgs: dict[str, list[str | int]] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def _vgg(cfg: str, batch_norm: bool, weights: WeightsEnum | None, progress: bool, **kwargs: Any) -> VGG:
    if weights is not None:
        kwargs["init_weights"] = False
    return _classifier(VGG, weights, progress, make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)


_DOCS = "These weights were trained from scratch by using a simplified training recipe."
_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg"


def _w(file: str, *numbers, recipe: str = _RECIPE, docs: str = _DOCS, **preset) -> Any:
    return _imagenet_weights(f"https://download.pytorch.org/models/{file}.pth", recipe, *numbers, docs,
                             min_size=(32, 32), **preset)


# Rows: checkpoint file, num_params, acc@1, acc@5, GFLOPs, file size (MB).
class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11-8a719046", 132863336, 69.020, 88.628, 7.609, 506.84)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11_bn-6002323d", 132868840, 70.370, 89.810, 7.609, 506.881)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13-19584684", 133047848, 69.928, 89.246, 11.308, 507.545)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13_bn-abd245e5", 133053736, 71.586, 90.374, 11.308, 507.59)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16-397923af", 138357544, 71.592, 90.382, 15.47, 527.796)
    # Ported from https://github.com/amdegroot/ssd.pytorch/: only `features` is trained (no classifier, no categories).
    IMAGENET1K_FEATURES = _w(
        "vgg16_features-amdegroot-88682ab5", 138357544, float("nan"), float("nan"), 15.47, 527.802,
        recipe="https://github.com/amdegroot/ssd.pytorch#training-ssd", meta={"categories": None},
        mean=(0.48235, 0.45882, 0.40784), std=(1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0),
        docs="These weights can't be used for classification because they are missing values in the `classifier` "
             "module. Only the `features` module has valid values and can be used for feature extraction. The weights "
             "were trained using the original input standardization method as described in the paper.")
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16_bn-6c64b313", 138365992, 73.360, 91.516, 15.47, 527.866)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19-dcbb9e9d", 143667240, 72.376, 90.876, 19.632, 548.051)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19_bn-c79401a0", 143678248, 74.218, 91.842, 19.632, 548.143)
    DEFAULT = IMAGENET1K_V1


def _builder(name: str, weights_enum: type[WeightsEnum], cfg: str, batch_norm: bool):
    return _model_builder(__name__, name, weights_enum, partial(_vgg, cfg, batch_norm))


vgg11 = _builder("vgg11", VGG11_Weights, "A", False)
vgg11_bn = _builder("vgg11_bn", VGG11_BN_Weights, "A", True)
vgg13 = _builder("vgg13", VGG13_Weights, "B", False)
vgg13_bn = _builder("vgg13_bn", VGG13_BN_Weights, "B", True)
vgg16 = _builder("vgg16", VGG16_Weights, "D", False)
vgg16_bn = _builder("vgg16_bn", VGG16_BN_Weights, "D", True)
vgg19 = _builder("vgg19", VGG19_Weights, "E", False)
vgg19_bn = _builder("vgg19_bn", VGG19_BN_Weights, "E", True)
