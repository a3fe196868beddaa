"""torchvision.transforms.v2 for facade: v1's transforms, which v2 matches on plain tensors and PIL images, made
to accept v2's structured samples, plus v2's ToImage, ToDtype, ToPureTensor, Identity and Transform.

A v2 transform called with a sample (several arguments, or a tuple / list / dict) transforms its image (the PIL
image, else the first tensor) and passes everything else (labels, ...) through. facade has no `tv_tensors`:
ToImage returns a plain tensor, and samples with several images (e.g. an image and its mask) are refused.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

import facade as torch
from facade.nn import Module

from .. import transforms as _v1
from ..autoaugment import AutoAugmentPolicy  # noqa: F401
from ..functional import InterpolationMode  # noqa: F401
from . import functional
from . import functional as F


def _leaves(sample, path=()):
    if isinstance(sample, (tuple, list)):
        for i, x in enumerate(sample):
            yield from _leaves(x, (*path, i))
    elif isinstance(sample, dict):
        for k, x in sample.items():
            yield from _leaves(x, (*path, k))
    else:
        yield path, sample


def _replace(sample, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(sample, dict):
        return {**sample, head: _replace(sample[head], rest, value)}
    items = list(sample)
    items[head] = _replace(items[head], rest, value)
    if isinstance(sample, tuple):
        return type(sample)(*items) if hasattr(sample, "_fields") else type(sample)(items)  # namedtuples too
    return items


def _on_image(fn, inputs, kinds=(Image.Image,)):
    """fn applied to the one image of a v2 sample (inputs as given to __call__), the rest passed through."""
    sample = inputs if len(inputs) > 1 else inputs[0]
    leaves = list(_leaves(sample))
    images = [p for p, x in leaves if isinstance(x, kinds)]
    if not images:  # no PIL image: the first plain tensor is the image, as v2's heuristic
        images = [p for p, x in leaves if isinstance(x, torch.Tensor)][:1]
    if len(images) > 1:
        raise NotImplementedError(f"torchvision.transforms.v2 on a sample with {len(images)} images: facade's v2 "
                                  "transforms one image per sample (it has no tv_tensors); apply the transform to "
                                  "each image yourself")
    if not images:
        return sample
    path = images[0]
    return _replace(sample, path, fn(dict(leaves)[path]))


class Transform(Module):
    """Base of v2 transforms: subclasses define `transform(inpt, params)` and optionally `make_params(flat_inputs)`."""

    def make_params(self, flat_inputs):
        return {}

    def transform(self, inpt, params):
        raise NotImplementedError

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        params = self.make_params([x for _, x in _leaves(sample)])
        return _on_image(lambda x: self.transform(x, params), inputs)


def _v2(cls, kinds=(Image.Image,)):
    """cls (a v1 transform) taking v2 samples."""
    def __call__(self, *inputs):
        return _on_image(lambda x: cls.__call__(self, x), inputs, kinds)

    return type(cls.__name__, (cls,), {"__call__": __call__, "__module__": __name__, "__doc__": cls.__doc__})


_SAME = ("CenterCrop", "ColorJitter", "ElasticTransform", "FiveCrop", "GaussianBlur", "Grayscale",
         "LinearTransformation", "Normalize", "Pad", "PILToTensor", "RandomAdjustSharpness", "RandomAffine",
         "RandomAutocontrast", "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale",
         "RandomHorizontalFlip", "RandomInvert", "RandomPerspective", "RandomPosterize", "RandomResizedCrop",
         "RandomRotation", "RandomSolarize", "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage")
globals().update({name: _v2(getattr(_v1, name)) for name in _SAME})
ToTensor = _v2(_v1.ToTensor, kinds=(Image.Image, np.ndarray))  # deprecated in v2, still there
Lambda = _v1.Lambda  # v2's Lambda sees the whole sample here

# containers apply their members to the whole sample
Compose, RandomApply, RandomChoice, RandomOrder = _v1.Compose, _v1.RandomApply, _v1.RandomChoice, _v1.RandomOrder


class ToImage(Transform):
    """Tensor, ndarray or PIL image -> (C, H, W) tensor (values unscaled)."""

    def forward(self, *inputs):
        return _on_image(F.to_image, inputs, kinds=(Image.Image, np.ndarray))


class ToDtype(Transform):
    """The image in dtype, rescaled between integer and float ranges when scale=True."""

    def __init__(self, dtype, scale: bool = False) -> None:
        super().__init__()
        if isinstance(dtype, dict):
            raise NotImplementedError("torchvision.transforms.v2.ToDtype with a dict of dtypes per tv_tensor type: "
                                      "facade has no tv_tensors; pass one dtype")
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"dtype must be a dict or a torch.dtype, got {type(dtype)} instead")
        self.dtype, self.scale = dtype, scale

    def transform(self, inpt, params):
        return F.to_dtype(inpt, self.dtype, scale=self.scale) if isinstance(inpt, torch.Tensor) else inpt


class ConvertImageDtype(ToDtype):
    """[DEPRECATED in torchvision] ToDtype(dtype, scale=True)."""

    def __init__(self, dtype=torch.float32) -> None:
        super().__init__(dtype, scale=True)


class ToPureTensor(Transform):
    """Identity on plain tensors (facade has no tv_tensors to unwrap)."""

    def forward(self, *inputs):
        return inputs if len(inputs) > 1 else inputs[0]


class Identity(ToPureTensor):
    """The input, unchanged."""

__all__ = ["Transform", "ToImage", "ToDtype", "ConvertImageDtype", "ToPureTensor", "Identity", "Compose",
           "RandomApply", "RandomChoice", "RandomOrder", "ToTensor", "Lambda", "InterpolationMode", "AutoAugmentPolicy",
           "functional",
           *_SAME]
