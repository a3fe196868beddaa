"""torchvision.transforms.v2.functional: v1's functional ops (same results on plain tensors and PIL images)
plus v2's conversions `to_image` and `to_dtype`."""

from __future__ import annotations

import numpy as np
from PIL import Image

import facade as torch

from .._functional_tensor import _max_value
from ..functional import *  # noqa: F401,F403
from ..functional import InterpolationMode, pil_to_tensor  # noqa: F401

_VALUE_BITS = {torch.uint8: 8, torch.int8: 7, torch.int16: 15, torch.uint16: 16, torch.int32: 31, torch.int64: 63}


def to_image(inpt):
    """A (C, H, W) tensor from a tensor, an (H, W[, C]) ndarray or a PIL image, values unscaled.

    torchvision wraps the result in `tv_tensors.Image`; facade has no tv_tensors, so this is a plain tensor.
    """
    if isinstance(inpt, np.ndarray):
        return torch.from_numpy(np.atleast_3d(inpt)).permute((2, 0, 1)).contiguous()
    if isinstance(inpt, Image.Image):
        return pil_to_tensor(inpt)
    if isinstance(inpt, torch.Tensor):
        return inpt
    raise TypeError(f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} instead.")


def to_dtype(inpt, dtype=torch.float, scale: bool = False):
    """inpt in dtype; with scale=True, rescaled between integer [0, max] and float [0, 1] ranges."""
    if inpt.dtype == dtype:
        return inpt
    if not scale:
        return inpt.to(dtype)
    if inpt.is_floating_point():
        if dtype.is_floating_point:
            return inpt.to(dtype)
        if (inpt.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                inpt.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The conversion from {inpt.dtype} to {dtype} cannot be performed safely.")
        return inpt.mul(float(_max_value(dtype)) + 1.0 - 1e-3).to(dtype)
    if dtype.is_floating_point:
        return inpt.to(dtype).mul_(1.0 / _max_value(inpt.dtype))  # v2 multiplies by 1/max where v1 divides
    shift = _VALUE_BITS[inpt.dtype] - _VALUE_BITS[dtype]
    if shift > 0:
        return torch.div(inpt, 2 ** shift, rounding_mode="floor").to(dtype)
    return inpt.to(dtype) * 2 ** -shift


to_dtype_image = to_dtype


def convert_image_dtype(image, dtype=torch.float32):
    """[DEPRECATED in torchvision] to_dtype(image, dtype, scale=True)."""
    return to_dtype(image, dtype=dtype, scale=True)


# v2's per-kind kernels, for images: the same ops under their `*_image` names
_IMAGE_OPS = ("adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
              "adjust_sharpness", "affine", "autocontrast", "center_crop", "crop", "elastic_transform", "erase",
              "five_crop", "gaussian_blur", "invert", "normalize", "pad", "perspective", "posterize", "resize",
              "resized_crop", "rgb_to_grayscale", "rotate", "solarize", "ten_crop", "get_dimensions")
globals().update({f"{name}_image": globals()[name] for name in _IMAGE_OPS})
horizontal_flip = horizontal_flip_image = hflip  # noqa: F405
vertical_flip = vertical_flip_image = vflip  # noqa: F405
get_num_channels = get_num_channels_image = get_image_num_channels  # noqa: F405


def get_size(inpt) -> list[int]:
    """[height, width] (v2's order; v1's get_image_size gives [width, height])."""
    return get_dimensions(inpt)[1:]  # noqa: F405


get_size_image = get_size
