"""torchvision.transforms for facade: the v1 transform classes and `functional`, on PIL images and tensors."""

from . import autoaugment, functional, transforms  # noqa: F401
from .autoaugment import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

__all__ = [*transforms.__all__, *autoaugment.__all__]
