"""torchvision.transforms.functional: image ops on PIL images (through PIL/numpy) and tensors (through facade ops).

Each op checks its arguments as torchvision does, then hands a PIL image to `_functional_pil` and a tensor
(`(..., C, H, W)`, uint8 or float) to `_functional_tensor`.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from enum import Enum

import numpy as np
from PIL import Image

import facade as torch

from . import _functional_pil as F_pil
from . import _functional_tensor as F_t


class InterpolationMode(Enum):
    """Interpolation modes: ``nearest``, ``nearest-exact``, ``bilinear``, ``bicubic``, ``box``, ``hamming``,
    ``lanczos`` (the last three for PIL images only)."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling constants, both ways
pil_modes_mapping = {InterpolationMode.NEAREST: 0, InterpolationMode.BILINEAR: 2, InterpolationMode.BICUBIC: 3,
                     InterpolationMode.NEAREST_EXACT: 0, InterpolationMode.BOX: 4, InterpolationMode.HAMMING: 5,
                     InterpolationMode.LANCZOS: 1}
_INT_TO_MODE = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
                4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}


def _interpolation_modes_from_int(i: int) -> InterpolationMode:
    return _INT_TO_MODE[i]


def _interpolation(interpolation) -> InterpolationMode:
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
                        "constant")
    return interpolation


_is_pil_image = F_pil._is_pil_image


def _on(img, tensor_fn, pil_fn, *args, **kwargs):
    """tensor_fn for a tensor, pil_fn for anything else (which then checks it is a PIL image)."""
    return (tensor_fn if isinstance(img, torch.Tensor) else pil_fn)(img, *args, **kwargs)


def get_dimensions(img) -> list[int]:
    """[channels, height, width] of a PIL image or tensor."""
    return _on(img, F_t.get_dimensions, F_pil.get_dimensions)


def get_image_size(img) -> list[int]:
    """[width, height] of a PIL image or tensor."""
    return _on(img, F_t.get_image_size, F_pil.get_image_size)


def get_image_num_channels(img) -> int:
    return _on(img, F_t.get_image_num_channels, F_pil.get_image_num_channels)


def _is_numpy(img) -> bool:
    return isinstance(img, np.ndarray)


def _is_numpy_image(img) -> bool:
    return img.ndim in {2, 3}


_PIL_NP_DTYPE = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16, "F": np.float32}


def _numpy_dtype(dtype):
    return np.dtype(str(dtype).removeprefix("torch."))


def to_tensor(pic):
    """PIL image or (H, W[, C]) ndarray -> (C, H, W) tensor; uint8 data becomes float in [0, 1] (default dtype).

    The scaling is done with numpy (exactly torch's `img.to(float).div(255)`), so this also runs in DataLoader
    workers without touching JAX.
    """
    if not (_is_pil_image(pic) or _is_numpy(pic)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if _is_numpy(pic) and not _is_numpy_image(pic):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if _is_numpy(pic):
        arr = (pic[:, :, None] if pic.ndim == 2 else pic).transpose(2, 0, 1)
    else:
        arr = np.array(pic, _PIL_NP_DTYPE.get(pic.mode, np.uint8), copy=True)
        if pic.mode == "1":
            arr = 255 * arr
        arr = arr.reshape(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic)).transpose(2, 0, 1)
    arr = np.ascontiguousarray(arr)
    if arr.dtype == np.uint8:
        default = _numpy_dtype(torch.get_default_dtype())
        arr = arr.astype(default) / default.type(255)
    return torch.from_numpy(arr)


def pil_to_tensor(pic):
    """PIL image -> (C, H, W) tensor of the image's own dtype (no scaling)."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, copy=True).reshape(pic.size[1], pic.size[0], F_pil.get_image_num_channels(pic))
    return torch.as_tensor(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def convert_image_dtype(image, dtype=torch.float):
    """A tensor image in another dtype, rescaled (ints span [0, max], floats [0, 1])."""
    if not isinstance(image, torch.Tensor):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


_MODES_BY_CHANNELS = {2: ["LA"], 4: ["RGBA", "CMYK", "RGBX"], 3: ["RGB", "YCbCr", "HSV"]}
_DEFAULT_MODE = {2: "LA", 4: "RGBA", 3: "RGB"}
_ONE_CHANNEL_MODE = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B",
                     np.dtype(np.int32): "I", np.dtype(np.float32): "F"}
_DIM_WORD = {2: "2D", 4: "4D", 3: "3D"}


def to_pil_image(pic, mode=None):
    """(C, H, W) tensor or (H, W[, C]) ndarray -> PIL image; float data is taken as [0, 1] and scaled to uint8."""
    if isinstance(pic, torch.Tensor):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.numpy(force=True)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = np.expand_dims(pic, 2)
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    channels = pic.shape[-1]
    if channels > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {channels} channels.")
    npimg = pic
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    if channels == 1:
        npimg = npimg[:, :, 0]
        expected_mode = _ONE_CHANNEL_MODE.get(npimg.dtype)
        if mode is not None and mode != expected_mode:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. Should be {expected_mode}")
        mode = expected_mode
    else:
        permitted = _MODES_BY_CHANNELS[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {_DIM_WORD[channels]} inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = _DEFAULT_MODE[channels]
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return F_pil._fromarray(npimg, mode)


def normalize(tensor, mean, std, inplace: bool = False):
    """(tensor - mean) / std per channel of a float (..., C, H, W) tensor."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


def _compute_resized_output_size(image_size, size, max_size=None, allow_size_none: bool = False) -> list[int]:
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if size is None:
        if not allow_size_none:
            raise ValueError("This should never happen!!")
        if not isinstance(max_size, int):
            raise ValueError(f"max_size must be an integer when size is None, but got {max_size} instead.")
        new_short, new_long = int(max_size * short / long), max_size
    elif len(size) == 1:  # the smaller edge becomes size, keeping the aspect ratio
        requested = size if isinstance(size, int) else size[0]
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested "
                                 f"size for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
    else:
        return [size[0], size[1]]
    new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to (h, w), or the smaller edge to `size` keeping the aspect ratio (longer edge at most max_size)."""
    interpolation = _interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in (1, 2):
            raise ValueError(
                f"Size must be an int or a 1 or 2 element tuple/list, not a {len(size)} element tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of the smaller edge, "
                             "i.e. size should be an int or a sequence of length 1 in torchscript mode.")
    _, image_height, image_width = get_dimensions(img)
    output_size = _compute_resized_output_size((image_height, image_width), [size] if isinstance(size, int) else size,
                                               max_size)
    if [image_height, image_width] == output_size:
        return img
    if not isinstance(img, torch.Tensor):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.",
                          stacklevel=2)
        return F_pil.resize(img, size=output_size, interpolation=pil_modes_mapping[interpolation])
    return F_t.resize(img, size=output_size, interpolation=interpolation.value, antialias=antialias)


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pad by int / [all] / [left-right, top-bottom] / [left, top, right, bottom]; constant/edge/reflect/symmetric."""
    return _on(img, F_t.pad, F_pil.pad, padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img, top: int, left: int, height: int, width: int):
    """The (height, width) box at (top, left); parts outside the image are zeros."""
    return _on(img, F_t.crop, F_pil.crop, top, left, height, width)


def center_crop(img, output_size):
    """The centre box of output_size (int or [h, w]), zero-padded first where the image is smaller."""
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        dw, dh = max(crop_width - image_width, 0), max(crop_height - image_height, 0)
        img = pad(img, [dw // 2, dh // 2, (dw + 1) // 2, (dh + 1) // 2], fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(img, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
    """crop, then resize to size."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img):
    return _on(img, F_t.hflip, F_pil.hflip)


def vflip(img):
    return _on(img, F_t.vflip, F_pil.vflip)


def _get_perspective_coeffs(startpoints, endpoints) -> list[float]:
    """The 8 coefficients of the perspective map that sends endpoints to startpoints (PIL's inverse convention)."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} startpoints and "
                         f"{len(endpoints)} endpoints.")
    a = np.zeros((8, 8), dtype=np.float64)
    for i, ((x, y), (u, v)) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
    b = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return np.linalg.lstsq(a, b, rcond=None)[0].astype(np.float32).tolist()


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _interpolation(interpolation)
    if not isinstance(img, torch.Tensor):
        return F_pil.perspective(img, coeffs, interpolation=pil_modes_mapping[interpolation], fill=fill)
    return F_t.perspective(img, coeffs, interpolation=interpolation.value, fill=fill)


def _crop_size(size):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return size


def five_crop(img, size):
    """The four corner crops and the centre crop: (tl, tr, bl, br, center)."""
    size = _crop_size(size)
    crop_height, crop_width = size
    _, image_height, image_width = get_dimensions(img)
    if crop_width > image_width or crop_height > image_height:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(image_height, image_width)}")
    corners = [(0, 0), (0, image_width - crop_width), (image_height - crop_height, 0),
               (image_height - crop_height, image_width - crop_width)]
    return (*(crop(img, t, left, crop_height, crop_width) for t, left in corners),
            center_crop(img, [crop_height, crop_width]))


def ten_crop(img, size, vertical_flip: bool = False):
    """five_crop of the image and of its horizontal (or vertical) flip."""
    size = _crop_size(size)
    return five_crop(img, size) + five_crop(vflip(img) if vertical_flip else hflip(img), size)


def adjust_brightness(img, brightness_factor: float):
    return _on(img, F_t.adjust_brightness, F_pil.adjust_brightness, brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    return _on(img, F_t.adjust_contrast, F_pil.adjust_contrast, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    return _on(img, F_t.adjust_saturation, F_pil.adjust_saturation, saturation_factor)


def adjust_hue(img, hue_factor: float):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    return _on(img, F_t.adjust_hue, F_pil.adjust_hue, hue_factor)


def adjust_gamma(img, gamma: float, gain: float = 1):
    return _on(img, F_t.adjust_gamma, F_pil.adjust_gamma, gamma, gain)


def adjust_sharpness(img, sharpness_factor: float):
    return _on(img, F_t.adjust_sharpness, F_pil.adjust_sharpness, sharpness_factor)


def _get_inverse_affine_matrix(center, angle: float, translate, scale: float, shear, inverted: bool = True):
    """The 2x3 matrix (row-major list) of T * C * R(angle) * S(scale) * Shear * C^-1, or its inverse (for PIL)."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    (cx, cy), (tx, ty) = center, translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:  # det([[a, b], [c, d]]) == 1
        m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    else:
        m = [x * scale for x in (a, b, 0.0, c, d, 0.0)]
        m[2] += m[0] * (-cx) + m[1] * (-cy) + cx + tx
        m[5] += m[3] * (-cx) + m[4] * (-cy) + cy + ty
    return m


def rotate(img, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False, center=None, fill=None):
    """Rotate counter-clockwise by angle degrees about center (default the image centre)."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, torch.Tensor):
        return F_pil.rotate(img, angle=angle, interpolation=pil_modes_mapping[interpolation], expand=expand,
                            center=center, fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:  # pixel coordinates with (0, 0) at the image centre
        _, height, width = get_dimensions(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    # rotate's angle runs the other way round from affine's
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.rotate(img, matrix=matrix, interpolation=interpolation.value, expand=expand, fill=fill)


def affine(img, angle: float, translate, scale: float, shear, interpolation=InterpolationMode.NEAREST, fill=None,
           center=None):
    """Rotation by angle, translation, scale and shear about center, keeping the image centre invariant."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if isinstance(angle, int):
        angle = float(angle)
    if isinstance(translate, tuple):
        translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    if isinstance(shear, tuple):
        shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if not isinstance(img, torch.Tensor):
        # PIL's centre is the middle of the image (so a 90-degree rotation matches torch.rot90)
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return F_pil.affine(img, matrix=matrix, interpolation=pil_modes_mapping[interpolation], fill=fill)
    center_f = [0.0, 0.0] if center is None else [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    translate_f = [1.0 * t for t in translate]
    matrix = _get_inverse_affine_matrix(center_f, angle, translate_f, scale, shear)
    return F_t.affine(img, matrix=matrix, interpolation=interpolation.value, fill=fill)


def to_grayscale(img, num_output_channels: int = 1):
    """A PIL image in grayscale (mode L, or RGB with three equal bands)."""
    if isinstance(img, Image.Image):
        return F_pil.to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img, num_output_channels: int = 1):
    """Grayscale as 0.2989 R + 0.587 G + 0.114 B (ITU-R 601-2 luma), 1 or 3 channels."""
    return _on(img, F_t.rgb_to_grayscale, F_pil.to_grayscale, num_output_channels)


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """The (h, w) box at (i, j) of a tensor image set to v."""
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace=inplace)


def _pair(value, name, kind):
    """[v, v] for a scalar, [a, a] for [a], [a, b] as given; else ValueError as torchvision's gaussian_blur."""
    if isinstance(value, (int, float)):
        return [value, value]
    if len(value) == 1:
        return [value[0], value[0]]
    if len(value) != 2:
        raise ValueError(f"If {name} is a sequence{kind}, its length should be 2. Got {len(value)}")
    return list(value)


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel of odd kernel_size and sigma (default 0.3 * ((k - 1) * 0.5 - 1) + 0.8)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    if any(k % 2 == 0 or k < 0 for k in kernel_size):
        raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    sigma = [float(s) for s in _pair(sigma, "sigma", "")]
    if any(s <= 0.0 for s in sigma):
        raise ValueError(f"sigma should have positive values. Got {sigma}")
    if isinstance(img, torch.Tensor):
        return F_t.gaussian_blur(img, kernel_size, sigma)
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    return to_pil_image(F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma), mode=img.mode)


def invert(img):
    return _on(img, F_t.invert, F_pil.invert)


def posterize(img, bits: int):
    if not (0 <= bits <= 8):
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return _on(img, F_t.posterize, F_pil.posterize, bits)


def solarize(img, threshold: float):
    return _on(img, F_t.solarize, F_pil.solarize, threshold)


def autocontrast(img):
    return _on(img, F_t.autocontrast, F_pil.autocontrast)


def equalize(img):
    if isinstance(img, torch.Tensor):
        raise NotImplementedError("torchvision.transforms.functional.equalize on tensors is not supported by facade; "
                                  "use it on a PIL image (or convert with to_pil_image)")
    return F_pil.equalize(img)


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Move each pixel by displacement ((1, H, W, 2), in grid_sample's [-1, 1] units)."""
    interpolation = _interpolation(interpolation)
    if not isinstance(displacement, torch.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    t_img = img
    if not isinstance(img, torch.Tensor):
        if not _is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        t_img = pil_to_tensor(img)
    shape = (1, *t_img.shape[-2:], 2)
    if tuple(displacement.shape) != shape:
        raise ValueError(f"Argument displacement shape should be {shape}, but given {displacement.shape}")
    output = F_t.elastic_transform(t_img, displacement, interpolation=interpolation.value, fill=fill)
    return output if isinstance(img, torch.Tensor) else to_pil_image(output, mode=img.mode)
