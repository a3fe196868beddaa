"""torchvision.models: the classification models ordinary scripts use, with torchvision's module names (so
torchvision state dicts load) and its weights API (`weights="DEFAULT"`, enums with `transforms()`, get_model).

Provided: alexnet, resnet18/34/50/101/152, resnext50_32x4d, resnext101_32x8d/64x4d, wide_resnet50_2/101_2,
vgg11/13/16/19 (and _bn), mobilenet_v2, vit_b_16/b_32/l_16/l_32/h_14. The other families (convnext, densenet,
efficientnet, googlenet, inception, mnasnet, mobilenet_v3, regnet, shufflenet, squeezenet, swin, maxvit) and the
detection / segmentation / video / optical_flow / quantization subpackages are not.
"""

from ._api import Weights, WeightsEnum, get_model, get_model_builder, get_model_weights, get_weight, list_models  # noqa: F401
from .alexnet import *  # noqa: F403
from .mobilenetv2 import *  # noqa: F403
from .resnet import *  # noqa: F403
from .vgg import *  # noqa: F403
from .vision_transformer import *  # noqa: F403


def __getattr__(name):
    raise AttributeError(f"module 'torchvision.models' has no attribute '{name}': facade's torchvision.models "
                         f"provides only {', '.join(list_models())} (and their classes and weights enums)")
