"""torchvision.transforms.autoaugment: the policy enum; the learned-policy transforms are not provided by facade."""

from __future__ import annotations

from enum import Enum

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


class AutoAugmentPolicy(Enum):
    """The datasets AutoAugment has policies for."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _missing(name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torchvision.transforms.{name} is not supported by facade's torchvision; "
                                  "compose the individual transforms (ColorJitter, RandomAffine, ...) instead")

    return type(name, (), {"__init__": __init__, "__module__": __name__,
                           "__doc__": f"torchvision.transforms.{name}: not supported (raises NotImplementedError)."})


AutoAugment, RandAugment, TrivialAugmentWide, AugMix = map(_missing, __all__[1:])
