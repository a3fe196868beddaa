"""AlexNet (torchvision.models.alexnet, the "one weird trick" variant), with torchvision's module names and weights."""

from __future__ import annotations

from functools import partial

import facade as torch

from ... import nn
from ._api import WeightsEnum
from ._utils import _classifier, _imagenet_weights, _model_builder

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        conv = partial(nn.Conv2d, kernel_size=3, padding=1)
        pool = partial(nn.MaxPool2d, kernel_size=3, stride=2)
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True), pool(),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True), pool(),
            conv(192, 384), nn.ReLU(inplace=True),
            conv(384, 256), nn.ReLU(inplace=True),
            conv(256, 256), nn.ReLU(inplace=True), pool(),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


class AlexNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet_weights(
        "https://download.pytorch.org/models/alexnet-owt-7be5be79.pth",
        "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
        61100840, 56.522, 79.066, 0.714, 233.087,
        "These weights reproduce closely the results of the paper using a simplified training recipe.",
        min_size=(63, 63))
    DEFAULT = IMAGENET1K_V1


alexnet = _model_builder(__name__, "alexnet", AlexNet_Weights, partial(_classifier, AlexNet))
