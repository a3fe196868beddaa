"""torchvision.transforms.transforms: the transform classes, on PIL images and (..., C, H, W) tensors.

Random parameters come from facade's global generator with the calls torchvision makes
(`torch.rand(1) < p`, `torch.randint(...)`, `torch.empty(1).uniform_(a, b)`, `torch.randperm(4)`), so
`torch.manual_seed` makes them reproducible; RandomOrder and RandomChoice use Python's `random`, as torchvision.
"""

from __future__ import annotations

import math
import numbers
import random
import warnings
from collections.abc import Sequence

import facade as torch
from facade import Tensor
from facade.nn import Module

from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int

__all__ = ["Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize", "Resize",
           "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "FiveCrop", "TenCrop",
           "LinearTransformation", "ColorJitter", "RandomRotation", "RandomAffine", "Grayscale", "RandomGrayscale",
           "RandomPerspective", "RandomErasing", "GaussianBlur", "InterpolationMode", "RandomInvert",
           "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize",
           "ElasticTransform"]

_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _mode(interpolation):
    return _interpolation_modes_from_int(interpolation) if isinstance(interpolation, int) else interpolation


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _tensor_fill(img, fill):
    """A fill as one float per channel for tensors (PIL images take it as given)."""
    if not isinstance(img, Tensor):
        return fill
    if isinstance(fill, (int, float)):
        return [float(fill)] * F.get_dimensions(img)[0]
    return [float(f) for f in fill]


def _uniform(low, high) -> float:
    return float(torch.empty(1).uniform_(low, high).item())


def _randint(low, high) -> int:
    return int(torch.randint(low, high, size=(1,)).item())


def _listing(name, items, head=()):
    return name + "(" + "".join(f"\n    {t}" for t in (*head, *items)) + "\n)"


class Compose:
    """Apply transforms one after the other."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        return _listing(type(self).__name__, self.transforms)


class _Plain:
    """A transform without parameters: __call__ is fn."""

    _fn = None

    def __call__(self, pic):
        return type(self)._fn(pic)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToTensor(_Plain):
    """PIL image or (H, W, C) ndarray -> float (C, H, W) tensor in [0, 1] (uint8 data is divided by 255)."""

    _fn = F.to_tensor


class PILToTensor(_Plain):
    """PIL image -> (C, H, W) tensor of the same dtype, unscaled."""

    _fn = F.pil_to_tensor


class ConvertImageDtype(Module):
    def __init__(self, dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class ToPILImage:
    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({'' if self.mode is None else f'mode={self.mode}'})"


class Normalize(Module):
    """(x - mean) / std per channel of a float tensor image."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mean={self.mean}, std={self.std})"


class Resize(Module):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = _mode(interpolation)

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size})"


class Pad(Module):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class Lambda:
    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomTransforms:
    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args, **kwargs):
        raise NotImplementedError()

    def __repr__(self) -> str:
        return _listing(type(self).__name__, self.transforms)


class RandomApply(Module):
    """All the transforms with probability p, else none."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = transforms, p

    def forward(self, img):
        if self.p < torch.rand(1):
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        return _listing(type(self).__name__, self.transforms, head=(f"p={self.p}",))


class RandomOrder(RandomTransforms):
    def __call__(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        return random.choices(self.transforms, weights=self.p)[0](*args)

    def __repr__(self) -> str:
        return f"{super().__repr__()}(p={self.p})"


class RandomCrop(Module):
    @staticmethod
    def get_params(img, output_size):
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        return i, _randint(0, w - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, error_msg=_SIZE_MSG))
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        return F.crop(img, *self.get_params(img, self.size))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size}, padding={self.padding})"


class RandomResizedCrop(Module):
    """A crop of random area (scale of the image) and aspect ratio, resized to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        self.interpolation, self.antialias, self.scale, self.ratio = _mode(interpolation), antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio):
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = torch.log(torch.tensor(ratio))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                return i, _randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)  # fallback: the central crop of the nearest allowed ratio
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            w, h = int(round(height * max(ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class FiveCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size})"


class TenCrop(Module):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class LinearTransformation(Module):
    """Flatten, subtract mean_vector, multiply by transformation_matrix (e.g. ZCA whitening), reshape back."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        m, v = transformation_matrix, mean_vector
        if m.size(0) != m.size(1):
            raise ValueError(f"transformation_matrix should be square. Got {tuple(m.size())} rectangular matrix.")
        if v.size(0) != m.size(0):
            raise ValueError(f"mean_vector should have the same length {v.size(0)} as any one of the dimensions of "
                             f"the transformation_matrix [{tuple(m.size())}]")
        if m.device != v.device:
            raise ValueError(f"Input tensors should be on the same device. Got {m.device} and {v.device}")
        if m.dtype != v.dtype:
            raise ValueError(f"Input tensors should have the same dtype. Got {m.dtype} and {v.dtype}")
        self.transformation_matrix, self.mean_vector = m, v

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}")
        if tensor.device.type != self.mean_vector.device.type:
            raise ValueError("Input tensor should be on the same device as transformation matrix and mean vector. "
                             f"Got {tensor.device} vs {self.mean_vector.device}")
        flat = tensor.view(-1, n) - self.mean_vector
        return torch.mm(flat, self.transformation_matrix.to(flat.dtype)).view(shape)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(transformation_matrix={self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue factors, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0) -> None:
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _check_input(self, value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        return None if value[0] == value[1] == center else tuple(value)  # None: leave this property alone

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        fn_idx = torch.randperm(4)
        return (fn_idx, *(None if r is None else float(torch.empty(1).uniform_(r[0], r[1]))
                          for r in (brightness, contrast, saturation, hue)))

    def forward(self, img):
        fn_idx, *factors = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for fn_id in fn_idx.tolist():
            if factors[fn_id] is not None:
                img = adjust[fn_id](img, factors[fn_id])
        return img

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


class RandomRotation(Module):
    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.interpolation = _mode(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center, self.expand, self.fill = center, expand, _check_fill(fill)

    @staticmethod
    def get_params(degrees) -> float:
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        return F.rotate(img, self.get_params(self.degrees), self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        center = f", center={self.center}" if self.center is not None else ""
        fill = f", fill={self.fill}" if self.fill is not None else ""
        return (f"{type(self).__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, "
                f"expand={self.expand}{center}{fill})")


class RandomAffine(Module):
    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        super().__init__()
        self.interpolation = _mode(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear", req_sizes=(2, 4))
        self.fill = _check_fill(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        translations = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            translations = (tx, int(round(_uniform(-max_dy, max_dy))))
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        ret = self.get_params(self.degrees, self.translate, self.scale, self.shear, [width, height])
        return F.affine(img, *ret, interpolation=self.interpolation, fill=fill, center=self.center)

    def __repr__(self) -> str:
        parts = [f"degrees={self.degrees}"]
        parts += [f"{k}={getattr(self, k)}" for k in ("translate", "scale", "shear") if getattr(self, k) is not None]
        if self.interpolation != InterpolationMode.NEAREST:
            parts.append(f"interpolation={self.interpolation.value}")
        if self.fill != 0:
            parts.append(f"fill={self.fill}")
        if self.center is not None:
            parts.append(f"center={self.center}")
        return f"{type(self).__name__}({', '.join(parts)})"


class Grayscale(Module):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_output_channels={self.num_output_channels})"


class _RandomOp(Module):
    """fn(img, *args) with probability p (one `torch.rand(1)` draw per call). Subclasses name fn and args."""

    _fn = None
    _args = ()  # attribute names passed after img
    _sep = ","  # torchvision's reprs of these put no space before p

    def __init__(self, *args, p=0.5):
        super().__init__()
        for name, value in zip(self._args, args):
            setattr(self, name, value)
        self.p = p

    def _apply(self, img):
        return type(self)._fn(img, *(getattr(self, a) for a in self._args))

    def forward(self, img):
        return self._apply(img) if torch.rand(1).item() < self.p else img

    def __repr__(self) -> str:
        args = "".join(f"{a}={getattr(self, a)}{self._sep}" for a in self._args)
        return f"{type(self).__name__}({args}p={self.p})"


def _random_op(name, fn, *args, doc=None):
    def __init__(self, *values, p=0.5):
        if len(values) == len(args) + 1:  # p given positionally, as torchvision allows
            *values, p = values
        _RandomOp.__init__(self, *values, p=p)

    return type(name, (_RandomOp,), {"_fn": staticmethod(fn), "_args": args, "__init__": __init__,
                                     "__doc__": doc or f"{fn.__name__} with probability p.", "__module__": __name__})


RandomHorizontalFlip = _random_op("RandomHorizontalFlip", F.hflip)
RandomVerticalFlip = _random_op("RandomVerticalFlip", F.vflip)
RandomInvert = _random_op("RandomInvert", F.invert)
RandomPosterize = _random_op("RandomPosterize", F.posterize, "bits")
RandomSolarize = _random_op("RandomSolarize", F.solarize, "threshold")
RandomAdjustSharpness = _random_op("RandomAdjustSharpness", F.adjust_sharpness, "sharpness_factor")
RandomAutocontrast = _random_op("RandomAutocontrast", F.autocontrast)
RandomEqualize = _random_op("RandomEqualize", F.equalize)


class RandomGrayscale(_RandomOp):
    """Grayscale with probability p, keeping the number of channels."""

    def __init__(self, p=0.1):
        super().__init__(p=p)

    def _apply(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=F.get_dimensions(img)[0])


class RandomPerspective(Module):
    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.p, self.interpolation, self.distortion_scale = p, _mode(interpolation), distortion_scale
        self.fill = _check_fill(fill)

    def forward(self, img):
        fill = _tensor_fill(img, self.fill)
        _, height, width = F.get_dimensions(img)
        if torch.rand(1) < self.p:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    @staticmethod
    def get_params(width, height, distortion_scale):
        dw, dh = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        near_x, far_x = (lambda: _randint(0, dw + 1)), (lambda: _randint(width - dw - 1, width))
        near_y, far_y = (lambda: _randint(0, dh + 1)), (lambda: _randint(height - dh - 1, height))
        # corners tl, tr, br, bl; x before y, in torchvision's draw order
        endpoints = [[f(), g()] for f, g in ((near_x, near_y), (far_x, near_y), (far_x, far_y), (near_x, far_y))]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def __repr__(self) -> str:
        return f"{type(self).__name__}(p={self.p})"


class RandomErasing(Module):
    """With probability p, a random box of a tensor image set to value (or to normal noise for 'random')."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = torch.log(torch.tensor(ratio))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = torch.empty([img_c, h, w], dtype=torch.float32).normal_()
            else:
                v = torch.tensor(value)[:, None, None]
            i = _randint(0, img_h - h + 1)
            return i, _randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if torch.rand(1) < self.p:
            if isinstance(self.value, (int, float)):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            else:
                value = [float(v) for v in self.value]
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError("If value is a sequence, it should have either a single value or "
                                 f"{img.shape[-3]} (number of input channels)")
            x, y, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio, value=value)
            return F.erase(img, x, y, h, w, v, self.inplace)
        return img

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, "
                f"inplace={self.inplace})")


class GaussianBlur(Module):
    """Gaussian blur with a sigma drawn uniformly from sigma=(min, max) per call."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        if any(ks <= 0 or ks % 2 == 0 for ks in self.kernel_size):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return torch.empty(1).uniform_(sigma_min, sigma_max).item()

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


def _float_pair(value, name):
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence):
        if len(value) != 2:
            raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
        for element in value:
            if not isinstance(element, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
        return value
    return [float(value), float(value)]


class ElasticTransform(Module):
    """Displace pixels by Gaussian-smoothed uniform noise of strength alpha and smoothness sigma."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha, self.sigma = _float_pair(alpha, "alpha"), _float_pair(sigma, "sigma")
        self.interpolation = _mode(interpolation)
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got {type(fill)}")
        self.fill = fill

    @staticmethod
    def get_params(alpha, sigma, size):
        parts = []
        for k in (0, 1):  # dx (scaled by the width), then dy (by the height)
            d = torch.rand([1, 1] + list(size)) * 2 - 1
            if sigma[k] > 0.0:
                ks = int(8 * sigma[k] + 1)
                ks += ks % 2 == 0
                d = F.gaussian_blur(d, [ks, ks], sigma)
            parts.append(d * alpha[k] / size[1 - k])
        return torch.concat(parts, 1).permute([0, 2, 3, 1])  # (1, H, W, 2)

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return (f"{type(self).__name__}(alpha={self.alpha}, sigma={self.sigma}, interpolation={self.interpolation}, "
                f"fill={self.fill})")
