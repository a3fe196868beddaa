"""torchvision.transforms._functional_pil: the PIL-image side of the functional ops (PIL and numpy, no JAX)."""

from __future__ import annotations

import numbers

import numpy as np
from PIL import Image, ImageEnhance, ImageOps


def _is_pil_image(img) -> bool:
    return isinstance(img, Image.Image)


def _check(img):
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def _fromarray(obj: np.ndarray, mode: str) -> Image.Image:
    """Image.fromarray(obj, mode) as Pillow < 11.3 did it: read the buffer *as* `mode` (what torchvision relies on)."""
    obj = np.ascontiguousarray(obj)
    size = (obj.shape[1], obj.shape[0])
    return Image.frombuffer(mode, size, obj.tobytes(), "raw", mode, 0, 1)


def get_dimensions(img) -> list[int]:
    if _is_pil_image(img):
        return [len(img.getbands()), img.size[1], img.size[0]]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img) -> list[int]:
    if _is_pil_image(img):
        return list(img.size)
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_num_channels(img) -> int:
    if _is_pil_image(img):
        return len(img.getbands())
    raise TypeError(f"Unexpected type {type(img)}")


def hflip(img):
    _check(img)
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(Image.FLIP_TOP_BOTTOM)


def _enhance(enhancer):
    def adjust(img, factor):
        _check(img)
        return enhancer(img).enhance(factor)

    return adjust


adjust_brightness = _enhance(ImageEnhance.Brightness)
adjust_contrast = _enhance(ImageEnhance.Contrast)
adjust_saturation = _enhance(ImageEnhance.Color)
adjust_sharpness = _enhance(ImageEnhance.Sharpness)


def adjust_hue(img, hue_factor: float):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check(img)
    if img.mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.int32(hue_factor * 255).astype(np.uint8)  # wraps around, as hue should
    return Image.merge("HSV", (_fromarray(np_h, "L"), s, v)).convert(img.mode)


def adjust_gamma(img, gamma: float, gain: float = 1.0):
    _check(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    lut = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
    return img.convert("RGB").point(lut).convert(img.mode)


def _parse_fill(fill, img, name: str = "fillcolor") -> dict:
    """A fill value as PIL wants it: one number per band (ints unless the image is float)."""
    num_channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and num_channels > 1:
        fill = (fill,) * num_channels
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * num_channels
        elif len(fill) != num_channels:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the image "
                             f"({len(fill)} != {num_channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    _check(img)
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (list, tuple)):
        if len(padding) not in (1, 2, 4):
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
        padding = padding[0] if len(padding) == 1 else tuple(padding)
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")

    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = ImageOps.expand(img, border=padding, **_parse_fill(fill, img, name="fill"))
    else:
        if isinstance(padding, tuple) and len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        ltrb = np.array([padding] * 4 if isinstance(padding, numbers.Number) else padding)
        if (ltrb < 0).any():  # negative padding crops
            cl, ct, cr, cb = -np.minimum(ltrb, 0)
            img = img.crop((cl, ct, img.width - cr, img.height - cb))
        left, top, right, bottom = np.maximum(ltrb, 0)
        arr = np.asarray(img)
        widths = ((top, bottom), (left, right)) + ((0, 0),) * (arr.ndim - 2)
        out = Image.fromarray(np.pad(arr, widths, mode=padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top: int, left: int, height: int, width: int):
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation: int = Image.BILINEAR):
    _check(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")
    return img.resize(tuple(size[::-1]), interpolation)


def affine(img, matrix, interpolation: int = Image.NEAREST, fill=None):
    _check(img)
    return img.transform(img.size, Image.AFFINE, matrix, interpolation, **_parse_fill(fill, img))


def rotate(img, angle: float, interpolation: int = Image.NEAREST, expand: bool = False, center=None, fill=None):
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def perspective(img, perspective_coeffs, interpolation: int = Image.BICUBIC, fill=None):
    _check(img)
    return img.transform(img.size, Image.PERSPECTIVE, perspective_coeffs, interpolation, **_parse_fill(fill, img))


def to_grayscale(img, num_output_channels: int):
    _check(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    img = img.convert("L")
    if num_output_channels == 3:
        gray = np.array(img, dtype=np.uint8)
        img = _fromarray(np.dstack([gray, gray, gray]), "RGB")
    return img


def _imageops(op):
    def apply(img, *args):
        _check(img)
        return op(img, *args)

    apply.__name__ = op.__name__
    return apply


invert, posterize, solarize, autocontrast, equalize = map(
    _imageops, (ImageOps.invert, ImageOps.posterize, ImageOps.solarize, ImageOps.autocontrast, ImageOps.equalize))
