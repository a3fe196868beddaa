"""torchvision.utils for facade: make_grid, save_image, draw_bounding_boxes (axis-aligned boxes); the other
draw_* functions and flow_to_image are not provided."""

from __future__ import annotations

import math
import pathlib
from typing import BinaryIO, Union

import numpy as np
from PIL import Image, ImageColor, ImageDraw, ImageFont

from .._unsupported import unsupported

__all__ = ["make_grid", "save_image", "draw_bounding_boxes", "draw_segmentation_masks", "draw_keypoints",
           "flow_to_image"]

_OWNER = "facade's torchvision.utils provides make_grid, save_image and draw_bounding_boxes"
draw_segmentation_masks = unsupported("torchvision.utils.draw_segmentation_masks", _OWNER)
draw_keypoints = unsupported("torchvision.utils.draw_keypoints", _OWNER)
flow_to_image = unsupported("torchvision.utils.flow_to_image", _OWNER)
for _fn in (draw_segmentation_masks, draw_keypoints, flow_to_image):
    _fn.__module__ = __name__  # (_unsupported names modules after torch, not torchvision)


def _Image_fromarray(obj: np.ndarray, mode: str) -> Image.Image:
    """`Image.fromarray(obj, mode)` as Pillow < 11.3 did it: the bytes of `obj` read in `mode` (newer
    Pillows infer the mode from the array instead; torchvision relies on the old reading)."""
    shape = obj.shape
    size = (1 if len(shape) == 1 else shape[1], shape[0])
    return Image.frombuffer(mode, size, np.ascontiguousarray(obj).tobytes(), "raw", mode, 0, 1)


def _normalize_(img, low: float, high: float) -> None:
    img.clamp_(min=low, max=high)
    img.sub_(low).div_(max(high - low, 1e-5))


def _normalize_range_(t, value_range) -> None:
    low, high = value_range if value_range is not None else (float(t.min()), float(t.max()))
    _normalize_(t, low, high)


def make_grid(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False,
              value_range: tuple[int, int] | None = None, scale_each: bool = False, pad_value: float = 0.0):
    """A grid of images: `tensor` (B, C, H, W), a list of (C, H, W) tensors, or one image (C, H, W) / (H, W).

    Rows of `nrow` images, each framed by `padding` pixels of `pad_value`; one-channel images become
    three-channel. `normalize` maps [min, max] (of `value_range`, or of the data; per image with
    `scale_each`) to [0, 1]. Returns (C, ceil(B / nrow) * (H + padding) + padding, min(nrow, B) *
    (W + padding) + padding), or the single image itself when B is 1.
    """
    import facade

    with facade.no_grad():
        if not facade.is_tensor(tensor):
            if not isinstance(tensor, list):
                raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
            for t in tensor:
                if not facade.is_tensor(t):
                    raise TypeError(f"tensor or list of tensors expected, got a list containing {type(t)}")
            tensor = facade.stack(tensor, dim=0)
        if tensor.dim() == 2:  # one image H x W
            tensor = tensor.unsqueeze(0)
        if tensor.dim() == 3:  # one image C x H x W
            if tensor.size(0) == 1:
                tensor = facade.cat((tensor, tensor, tensor), 0)
            tensor = tensor.unsqueeze(0)
        if tensor.dim() == 4 and tensor.size(1) == 1:
            tensor = facade.cat((tensor, tensor, tensor), 1)

        if normalize is True:
            tensor = tensor.clone()  # normalized in place, as torchvision does (same dtype rules and errors)
            if value_range is not None and not isinstance(value_range, tuple):
                raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
            for t in (tensor if scale_each is True else [tensor]):
                _normalize_range_(t, value_range)

        if tensor.size(0) == 1:
            return tensor.squeeze(0)

        # cells of (H + padding, W + padding), the image at the bottom right of each, then a last frame
        nmaps, channels, h, w = tensor.shape
        xmaps = min(nrow, nmaps)
        ymaps = int(math.ceil(float(nmaps) / xmaps))
        height, width = h + padding, w + padding
        cells = tensor.new_full((ymaps * xmaps, channels, height, width), pad_value)
        cells[:nmaps, :, padding:, padding:] = tensor
        rows = cells.view(ymaps, xmaps, channels, height, width).permute(2, 0, 3, 1, 4)
        grid = tensor.new_full((channels, height * ymaps + padding, width * xmaps + padding), pad_value)
        grid[:, :height * ymaps, :width * xmaps] = rows.reshape(channels, height * ymaps, width * xmaps)
        return grid


def save_image(tensor, fp: Union[str, pathlib.Path, BinaryIO], format: str | None = None, **kwargs) -> None:
    """Save `tensor` (an image, or a batch laid out by make_grid with `kwargs`) as an image file; values in
    [0, 1] map to [0, 255], rounded to nearest. `format` is needed when `fp` is a file object."""
    import facade

    with facade.no_grad():
        grid = make_grid(tensor, **kwargs)
        ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", facade.uint8).numpy()
    Image.fromarray(ndarr).save(fp, format=format)


def _generate_color_palette(num_objects: int) -> list[tuple[int, int, int]]:
    palette = (2**25 - 1, 2**15 - 1, 2**21 - 1)
    return [tuple(i * p % 255 for p in palette) for i in range(num_objects)]


def _parse_colors(colors, *, num_objects: int) -> list[tuple[int, int, int]]:
    """One RGB triple per object from None (a fixed palette), one color, or a list of colors (names or triples)."""
    if colors is None:
        colors = _generate_color_palette(num_objects)
    elif isinstance(colors, list):
        if len(colors) < num_objects:
            raise ValueError(f"Number of colors must be equal or larger than the number of objects, but got "
                             f"{len(colors)} < {num_objects}.")
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(f"colors must be a tuple or a string, or a list thereof, but got {colors}.")
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got {colors}.")
    else:
        colors = [colors] * num_objects
    return [ImageColor.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]


def draw_bounding_boxes(image, boxes, labels=None, colors=None, fill: bool | None = False, width: int = 1,
                        font: str | None = None, font_size: int | None = None, label_colors=None,
                        label_background_colors=None, fill_labels: bool = False):
    """`image` (C, H, W), uint8 or float in [0, 1], C 1 or 3, with `boxes` (N, 4) = (xmin, ymin, xmax, ymax)
    drawn on it (with Pillow), optionally filled and labelled; returns a new image of `image`'s dtype.
    Oriented boxes (N, 8) are not supported."""
    import warnings

    import facade

    from .transforms import functional as F
    from .transforms.v2 import functional as F2

    if not isinstance(image, facade.Tensor):
        raise TypeError(f"Tensor expected, got {type(image)}")
    if not (image.dtype == facade.uint8 or image.is_floating_point()):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.size(0) not in {1, 3}:
        raise ValueError("Only grayscale and RGB images are supported")
    if boxes.shape[-1] != 4:
        raise NotImplementedError("torchvision.utils.draw_bounding_boxes: oriented boxes (N, 8) are not supported "
                                  "by facade; pass (N, 4) boxes (xmin, ymin, xmax, ymax)")
    if (boxes[:, 0] > boxes[:, 2]).any() or (boxes[:, 1] > boxes[:, 3]).any():
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use torchvision.ops.box_convert to "
                         "convert them")
    num_boxes = boxes.shape[0]
    if num_boxes == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn", stacklevel=2)
        return image
    if labels is None:
        labels = [None] * num_boxes
    elif len(labels) != num_boxes:
        raise ValueError(f"Number of boxes ({num_boxes}) and labels ({len(labels)}) mismatch. Please specify labels "
                         "for each box.")
    colors = _parse_colors(colors, num_objects=num_boxes)
    if label_colors or fill_labels:
        label_colors = _parse_colors(label_colors or "black", num_objects=num_boxes)
    else:
        label_colors = list(colors)
    if fill_labels and label_background_colors:
        label_background_colors = _parse_colors(label_background_colors, num_objects=num_boxes)
    else:
        label_background_colors = list(colors)
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.", stacklevel=2)
        txt_font = ImageFont.load_default()
    else:
        txt_font = ImageFont.truetype(font=font, size=font_size or 10)

    if image.size(0) == 1:
        image = facade.tile(image, (3, 1, 1))
    original_dtype = image.dtype
    if original_dtype.is_floating_point:
        image = F2.to_dtype(image, dtype=facade.uint8, scale=True)
    img_to_draw = F.to_pil_image(image)
    draw = ImageDraw.Draw(img_to_draw, "RGBA" if fill else None)
    for bbox, color, label, label_color, label_bg in zip(boxes.to(facade.int64).tolist(), colors, labels,
                                                         label_colors, label_background_colors):
        draw.rectangle(bbox, width=width, outline=color, fill=color + (100,) if fill else None)
        if label is not None:
            margin = width + 1
            if fill_labels:
                left, top, right, bottom = draw.textbbox((bbox[0] + margin, bbox[1] + margin), label, font=txt_font)
                draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=label_bg)
            draw.text((bbox[0] + margin, bbox[1] + margin), label, fill=label_color, font=txt_font)
    out = F.pil_to_tensor(img_to_draw)
    return F2.to_dtype(out, dtype=original_dtype, scale=True) if original_dtype.is_floating_point else out
