"""ResNet, ResNeXt and Wide ResNet (torchvision.models.resnet), with torchvision's module names and weights."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import facade as torch

from ... import nn
from ._api import WeightsEnum
from ._utils import _NEW_RECIPE, _classifier, _imagenet_weights, _model_builder, _ovewrite_named_param

__all__ = [
    "ResNet", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights", "ResNet101_Weights", "ResNet152_Weights",
    "ResNeXt50_32X4D_Weights", "ResNeXt101_32X8D_Weights", "ResNeXt101_64X4D_Weights", "Wide_ResNet50_2_Weights",
    "Wide_ResNet101_2_Weights", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
    "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2",
]


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Conv2d:
    """3x3 convolution with padding"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False,
                     dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """1x1 convolution"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class _Residual(nn.Module):
    """The forward of both blocks: relu(branch(x) + shortcut(x)); the branch is conv/bn pairs with relus between."""

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = x
        for i in range(1, self._depth + 1):
            out = getattr(self, f"bn{i}")(getattr(self, f"conv{i}")(out))
            if i < self._depth:
                out = self.relu(out)
        out += identity
        return self.relu(out)


class BasicBlock(_Residual):
    expansion: int = 1
    _depth = 2

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride


class Bottleneck(_Residual):
    """ResNet V1.5: the stride is on the 3x3 convolution (conv2), not on the first 1x1 as in the paper."""

    expansion: int = 4
    _depth = 3

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride


class ResNet(nn.Module):
    def __init__(self, block: type[BasicBlock | Bottleneck], layers: list[int], num_classes: int = 1000,
                 zero_init_residual: bool = False, groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: list[bool] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None "
                             f"or a 3-element tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        for i, planes in enumerate((128, 256, 512)):
            setattr(self, f"layer{i + 2}", self._make_layer(block, planes, layers[i + 1], stride=2,
                                                              dilate=replace_stride_with_dilation[i]))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        # Zero-init the last BN of each residual branch, so that each block starts as an identity
        # (https://arxiv.org/abs/1706.02677).
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, _Residual):
                    last_bn = getattr(m, f"bn{m._depth}")
                    if last_bn.weight is not None:
                        nn.init.constant_(last_bn.weight, 0)

    def _make_layer(self, block: type[BasicBlock | Bottleneck], planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                         dilation=self.dilation, norm_layer=norm_layer) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(block: type[BasicBlock | Bottleneck], layers: list[int], fixed: dict[str, Any],
            weights: WeightsEnum | None, progress: bool, **kwargs: Any) -> ResNet:
    for param, value in fixed.items():  # the variant's groups / width_per_group
        _ovewrite_named_param(kwargs, param, value)
    return _classifier(ResNet, weights, progress, block, layers, **kwargs)


_PAPER = "These weights reproduce closely the results of the paper using a simple training recipe."
_IMPROVED = f"These weights improve upon the results of the original paper by using TorchVision's {_NEW_RECIPE}."
_REFERENCES = "https://github.com/pytorch/vision/tree/main/references/classification"
_NEW = "https://github.com/pytorch/vision/issues/3995"


def _w(file: str, recipe: str, *numbers, docs: str = _PAPER, **preset) -> Any:
    return _imagenet_weights(f"https://download.pytorch.org/models/{file}.pth", recipe, *numbers, docs, **preset)


def _v2(file: str, recipe: str, *numbers, docs: str = _IMPROVED) -> Any:
    return _w(file, recipe, *numbers, docs=docs, resize_size=232)


# Rows: checkpoint file, recipe, num_params, acc@1, acc@5, GFLOPs, file size (MB).
class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet18-f37072fd", f"{_REFERENCES}#resnet", 11689512, 69.758, 89.078, 1.814, 44.661)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet34-b627a593", f"{_REFERENCES}#resnet", 21797672, 73.314, 91.420, 3.664, 83.275)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet50-0676ba61", f"{_REFERENCES}#resnet", 25557032, 76.130, 92.862, 4.089, 97.781)
    IMAGENET1K_V2 = _v2("resnet50-11ad3fa6", f"{_NEW}#issuecomment-1013906621", 25557032, 80.858, 95.434, 4.089,
                        97.79)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet101-63fe2227", f"{_REFERENCES}#resnet", 44549160, 77.374, 93.546, 7.801, 170.511)
    IMAGENET1K_V2 = _v2("resnet101-cd907fc2", f"{_NEW}#new-recipe", 44549160, 81.886, 95.780, 7.801, 170.53)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet152-394f9c45", f"{_REFERENCES}#resnet", 60192808, 78.312, 94.046, 11.514, 230.434)
    IMAGENET1K_V2 = _v2("resnet152-f82ba261", f"{_NEW}#new-recipe", 60192808, 82.284, 96.002, 11.514, 230.474)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext50_32x4d-7cdf4587", f"{_REFERENCES}#resnext", 25028904, 77.618, 93.698, 4.23, 95.789)
    IMAGENET1K_V2 = _v2("resnext50_32x4d-1a0047aa", f"{_NEW}#new-recipe", 25028904, 81.198, 95.340, 4.23, 95.833)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext101_32x8d-8ba56ff5", f"{_REFERENCES}#resnext", 88791336, 79.312, 94.526, 16.414,
                       339.586)
    IMAGENET1K_V2 = _v2("resnext101_32x8d-110c445d", f"{_NEW}#new-recipe-with-fixres", 88791336, 82.834, 96.228,
                        16.414, 339.673)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v2("resnext101_64x4d-173b62eb", "https://github.com/pytorch/vision/pull/5935", 83455272, 83.246,
                        96.454, 15.46, 319.318,
                        docs=f"These weights were trained from scratch by using TorchVision's {_NEW_RECIPE}.")
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("wide_resnet50_2-95faca4d", "https://github.com/pytorch/vision/pull/912#issue-445437439",
                       68883240, 78.468, 94.086, 11.398, 131.82)
    IMAGENET1K_V2 = _v2("wide_resnet50_2-9ba9bcbe", f"{_NEW}#new-recipe-with-fixres", 68883240, 81.602, 95.758,
                        11.398, 263.124)
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("wide_resnet101_2-32ee1156", "https://github.com/pytorch/vision/pull/912#issue-445437439",
                       126886696, 78.848, 94.284, 22.753, 242.896)
    IMAGENET1K_V2 = _v2("wide_resnet101_2-d733dc28", f"{_NEW}#new-recipe", 126886696, 82.510, 96.020, 22.753,
                        484.747)
    DEFAULT = IMAGENET1K_V2


def _builder(name: str, weights_enum: type[WeightsEnum], block, layers: list[int], **fixed: Any):
    return _model_builder(__name__, name, weights_enum, partial(_resnet, block, layers, fixed))


resnet18 = _builder("resnet18", ResNet18_Weights, BasicBlock, [2, 2, 2, 2])
resnet34 = _builder("resnet34", ResNet34_Weights, BasicBlock, [3, 4, 6, 3])
resnet50 = _builder("resnet50", ResNet50_Weights, Bottleneck, [3, 4, 6, 3])
resnet101 = _builder("resnet101", ResNet101_Weights, Bottleneck, [3, 4, 23, 3])
resnet152 = _builder("resnet152", ResNet152_Weights, Bottleneck, [3, 8, 36, 3])
resnext50_32x4d = _builder("resnext50_32x4d", ResNeXt50_32X4D_Weights, Bottleneck, [3, 4, 6, 3], groups=32,
                           width_per_group=4)
resnext101_32x8d = _builder("resnext101_32x8d", ResNeXt101_32X8D_Weights, Bottleneck, [3, 4, 23, 3], groups=32,
                            width_per_group=8)
resnext101_64x4d = _builder("resnext101_64x4d", ResNeXt101_64X4D_Weights, Bottleneck, [3, 4, 23, 3], groups=64,
                            width_per_group=4)
wide_resnet50_2 = _builder("wide_resnet50_2", Wide_ResNet50_2_Weights, Bottleneck, [3, 4, 6, 3],
                           width_per_group=128)
wide_resnet101_2 = _builder("wide_resnet101_2", Wide_ResNet101_2_Weights, Bottleneck, [3, 4, 23, 3],
                            width_per_group=128)
