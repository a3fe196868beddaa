"""torchvision.transforms._functional_tensor: the tensor side of the functional ops, on facade ops.

Images are (..., C, H, W) tensors, uint8 or float; integer images are computed in float32 and rounded back.
"""

from __future__ import annotations

import warnings

import numpy as np

import facade as torch
from facade.nn.functional import conv2d, grid_sample, interpolate
from facade.nn.functional import pad as torch_pad

_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
_MAX_VALUE = {torch.uint8: 255, torch.int8: 127, torch.int16: 32767, torch.uint16: 65535, torch.int32: 2147483647,
              torch.int64: 9223372036854775807}


def _max_value(dtype) -> int:
    return _MAX_VALUE.get(dtype, 1)  # floats (and anything else) are images in [0, 1]


def _is_tensor_a_torch_image(x) -> bool:
    return x.ndim >= 2


def _assert_image_tensor(img) -> None:
    if not _is_tensor_a_torch_image(img):
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img) -> list[int]:
    _assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    return [channels, img.shape[-2], img.shape[-1]]


def get_image_size(img) -> list[int]:
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img) -> int:
    return get_dimensions(img)[0]


def _assert_channels(img, permitted) -> None:
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found {c}")


def _assert_min_ndim3(img) -> None:
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")


def _float_dtype(img):
    return img.dtype if img.is_floating_point() else torch.float32


def convert_image_dtype(image, dtype=torch.float):
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        # max + 1 - eps spreads [0, 1] evenly over the integers (only 1.0 maps to max)
        return image.mul(float(_max_value(dtype)) + 1.0 - 1e-3).to(dtype)
    input_max = float(_max_value(image.dtype))
    if dtype.is_floating_point:
        return image.to(dtype) / input_max
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return torch.div(image, factor, rounding_mode="floor").to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype) * factor


def vflip(img):
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img):
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img, top: int, left: int, height: int, width: int):
    _assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:  # outside the image: zeros
        padding_ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                        max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def rgb_to_grayscale(img, num_output_channels: int = 1):
    _assert_min_ndim3(img)
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    else:
        gray = img.clone()
    return gray.expand(img.shape) if num_output_channels == 3 else gray


def _blend(img1, img2, ratio: float):
    ratio = float(ratio)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, _max_value(img1.dtype)).to(img1.dtype)


def _check_factor(name, value):
    if value < 0:
        raise ValueError(f"{name} ({value}) is not non-negative.")


def adjust_brightness(img, brightness_factor: float):
    _check_factor("brightness_factor", brightness_factor)
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, torch.zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    _check_factor("contrast_factor", contrast_factor)
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    gray = rgb_to_grayscale(img) if get_dimensions(img)[0] == 3 else img
    mean = torch.mean(gray.to(_float_dtype(img)), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    _check_factor("saturation_factor", saturation_factor)
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:  # as PIL: a gray image has no saturation
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def adjust_sharpness(img, sharpness_factor: float):
    _check_factor("sharpness_factor", sharpness_factor)
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if img.size(-1) <= 2 or img.size(-2) <= 2:
        return img
    return _blend(img, _blurred_degenerate_image(img), sharpness_factor)


def _rgb2hsv(img):
    """HSV of a float RGB image, as Pillow's Convert.c (hue and saturation 0 where max == min, never NaN)."""
    r, g, b = img.unbind(dim=-3)
    maxc, minc = torch.amax(img, dim=-3), torch.amin(img, dim=-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = torch.ones_like(maxc)
    s = cr / torch.where(eqc, ones, maxc)
    cr_divisor = torch.where(eqc, ones, cr)
    rc, gc, bc = ((maxc - c) / cr_divisor for c in (r, g, b))
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = torch.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return torch.stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(dim=-3)
    i = torch.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.to(dtype=torch.int32) % 6
    p = torch.clamp(v * (1.0 - s), 0.0, 1.0)
    q = torch.clamp(v * (1.0 - s * f), 0.0, 1.0)
    t = torch.clamp(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    mask = i.unsqueeze(dim=-3) == torch.arange(6, device=i.device).view(-1, 1, 1)
    a1 = torch.stack((v, q, p, p, t, v), dim=-3)
    a2 = torch.stack((t, v, v, q, p, p), dim=-3)
    a3 = torch.stack((p, p, t, v, v, q), dim=-3)
    return torch.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), torch.stack((a1, a2, a3), dim=-4))


def adjust_hue(img, hue_factor: float):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor image")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    h, s, v = _rgb2hsv(convert_image_dtype(img, torch.float32)).unbind(dim=-3)
    rgb = _hsv2rgb(torch.stack(((h + hue_factor) % 1.0, s, v), dim=-3))
    return convert_image_dtype(rgb, img.dtype)


def adjust_gamma(img, gamma: float, gain: float = 1):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be a Tensor.")
    _assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    result = img if img.is_floating_point() else convert_image_dtype(img, torch.float32)
    return convert_image_dtype((gain * result.pow(gamma)).clamp(0, 1), img.dtype)


def _parse_pad_padding(padding) -> list[int]:
    """[left, right, top, bottom] from torchvision's int / [all] / [lr, tb] / [l, t, r, b]."""
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


def _pad_symmetric(img, padding):
    if min(padding) < 0:  # negative padding crops
        cl, cr, ct, cb = (-min(x, 0) for x in padding)
        img = img[..., ct:img.shape[-2] - cb, cl:img.shape[-1] - cr]
        padding = [max(x, 0) for x in padding]
    if img.ndim not in (3, 4):
        raise RuntimeError("Symmetric padding of N-D tensors are not supported yet")

    def indices(n, before, after):
        return torch.tensor([*range(before - 1, -1, -1), *range(n), *range(-1, -after - 1, -1)], device=img.device)

    ys, xs = indices(img.shape[-2], padding[2], padding[3]), indices(img.shape[-1], padding[0], padding[1])
    return img[..., ys[:, None], xs[None, :]]


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    _assert_image_tensor(img)
    fill = 0 if fill is None else fill
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    p = _parse_pad_padding(padding)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, p)
    mode = "replicate" if padding_mode == "edge" else padding_mode
    squeeze = img.ndim < 4
    out = img.unsqueeze(0) if squeeze else img
    cast = mode != "constant" and img.dtype not in (torch.float32, torch.float64)
    if cast:  # torch pads only floats in reflect/replicate mode
        out = out.to(torch.float32)
    out = torch_pad(out, p, mode=mode) if mode != "constant" else torch_pad(out, p, mode=mode, value=float(fill))
    out = out.squeeze(0) if squeeze else out
    return out.to(img.dtype) if cast else out


def _cast_squeeze_in(img, req_dtypes):
    squeeze = img.ndim < 4
    if squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    cast = out_dtype not in req_dtypes
    if cast:
        img = img.to(req_dtypes[0])
    return img, cast, squeeze, out_dtype


def _cast_squeeze_out(img, need_cast: bool, need_squeeze: bool, out_dtype):
    if need_squeeze:
        img = img.squeeze(dim=0)
    if need_cast:
        if out_dtype in _INT_DTYPES:
            img = torch.round(img)  # round before casting back to integers
        img = img.to(out_dtype)
    return img


def _flat_batch(fn):
    """fn on (N, C, H, W) applied to (..., C, H, W): leading dims beyond one are flattened and restored."""
    def apply(img, *args, **kwargs):
        if img.ndim <= 4:
            return fn(img, *args, **kwargs)
        lead = img.shape[:-3]
        out = fn(img.reshape(-1, *img.shape[-3:]), *args, **kwargs)
        return out.reshape(*lead, *out.shape[-3:])

    apply.__name__, apply.__doc__ = fn.__name__, fn.__doc__
    return apply


@_flat_batch
def resize(img, size, interpolation: str = "bilinear", antialias=True):
    _assert_image_tensor(img)
    # antialias only means something for bilinear and bicubic; elsewhere it is quietly off
    antialias = bool(antialias) and interpolation in ("bilinear", "bicubic")
    img, cast, squeeze, out_dtype = _cast_squeeze_in(img, [torch.float32, torch.float64])
    align_corners = False if interpolation in ("bilinear", "bicubic") else None
    img = interpolate(img, size=list(size), mode=interpolation, align_corners=align_corners, antialias=antialias)
    if interpolation == "bicubic" and out_dtype == torch.uint8:
        img = img.clamp(min=0, max=255)
    return _cast_squeeze_out(img, cast, squeeze, out_dtype)


def _assert_grid_transform_inputs(img, matrix, interpolation, fill, supported, coeffs=None) -> None:
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor")
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if coeffs is not None and len(coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        warnings.warn("Argument fill should be either int, float, tuple or list", stacklevel=2)
    num_channels = get_dimensions(img)[0]
    if isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != num_channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number of channels of the "
                         f"image ({len(fill)} != {num_channels})")
    if interpolation not in supported:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


@_flat_batch
def _apply_grid_transform(img, grid, mode: str, fill):
    img, cast, squeeze, out_dtype = _cast_squeeze_in(img, [grid.dtype])
    if img.shape[0] > 1:
        grid = grid.expand(img.shape[0], *grid.shape[1:])
    if fill is not None:  # a channel of ones marks what came from inside the image
        img = torch.cat((img, torch.ones_like(img[:, :1])), dim=1)
    img = grid_sample(img, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask, img = img[:, -1:].expand_as(img[:, :-1]), img[:, :-1]
        fill_list = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = torch.tensor(fill_list, dtype=img.dtype, device=img.device).view(1, -1, 1, 1).expand_as(img)
        if mode == "nearest":
            img = torch.where(mask < 0.5, fill_img, img)
        else:
            img = img * mask + (1.0 - mask) * fill_img
    return _cast_squeeze_out(img, cast, squeeze, out_dtype)


def _base_grid(ow: int, oh: int, x0: float, y0: float, dtype, device):
    """(1, oh, ow, 3) pixel-centre coordinates starting at (x0, y0), with a column of ones."""
    xs = torch.linspace(x0, x0 + ow - 1, steps=ow, dtype=dtype, device=device)
    ys = torch.linspace(y0, y0 + oh - 1, steps=oh, dtype=dtype, device=device)
    return torch.stack((xs.expand(oh, ow), ys[:, None].expand(oh, ow), torch.ones(oh, ow, dtype=dtype,
                                                                                  device=device)), dim=-1)[None]


def _gen_affine_grid(theta, w: int, h: int, ow: int, oh: int):
    # as torch's affine_grid, but normalised after theta and by the input size (for rotate's expand=True)
    base = _base_grid(ow, oh, -ow * 0.5 + 0.5, -oh * 0.5 + 0.5, theta.dtype, theta.device)
    rescaled = theta.transpose(1, 2) / torch.tensor([0.5 * w, 0.5 * h], dtype=theta.dtype, device=theta.device)
    return base.view(1, oh * ow, 3).bmm(rescaled).view(1, oh, ow, 2)


def affine(img, matrix, interpolation: str = "nearest", fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    theta = torch.tensor(matrix, dtype=_float_dtype(img), device=img.device).reshape(1, 2, 3)
    w, h = img.shape[-1], img.shape[-2]
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=w, oh=h), interpolation, fill=fill)


def _compute_affine_output_size(matrix, w: int, h: int) -> tuple[int, int]:
    """(w, h) of the box that holds the transformed image, as PIL's rotate(expand=True)."""
    corners = [(-0.5 * w, -0.5 * h), (-0.5 * w, 0.5 * h), (0.5 * w, 0.5 * h), (0.5 * w, -0.5 * h)]
    m = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    pts = np.asarray([[x, y, 1.0] for x, y in corners], dtype=np.float32) @ m.T
    lo, hi = pts.min(0) + np.float32([w * 0.5, h * 0.5]), pts.max(0) + np.float32([w * 0.5, h * 0.5])
    tol = np.float32(1e-4)  # drop float noise so that ceil(Xe-15) is not 1
    size = np.ceil(np.trunc(hi / tol) * tol) - np.floor(np.trunc(lo / tol) * tol)
    return int(size[0]), int(size[1])


def rotate(img, matrix, interpolation: str = "nearest", expand: bool = False, fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    theta = torch.tensor(matrix, dtype=_float_dtype(img), device=img.device).reshape(1, 2, 3)
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=ow, oh=oh), interpolation, fill=fill)


def _perspective_grid(coeffs, ow: int, oh: int, dtype, device):
    # x_out = (c0 x + c1 y + c2) / (c6 x + c7 y + 1), y_out = (c3 x + c4 y + c5) / (c6 x + c7 y + 1), as PIL
    theta1 = torch.tensor([[coeffs[0:3], coeffs[3:6]]], dtype=dtype, device=device)
    theta2 = torch.tensor([[[coeffs[6], coeffs[7], 1.0]] * 2], dtype=dtype, device=device)
    base = _base_grid(ow, oh, 0.5, 0.5, dtype, device).view(1, oh * ow, 3)
    rescaled1 = theta1.transpose(1, 2) / torch.tensor([0.5 * ow, 0.5 * oh], dtype=dtype, device=device)
    grid = base.bmm(rescaled1) / base.bmm(theta2.transpose(1, 2)) - 1.0
    return grid.view(1, oh, ow, 2)


def perspective(img, perspective_coeffs, interpolation: str = "bilinear", fill=None):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor.")
    _assert_grid_transform_inputs(img, None, interpolation, fill, ["nearest", "bilinear"], coeffs=perspective_coeffs)
    grid = _perspective_grid(perspective_coeffs, img.shape[-1], img.shape[-2], _float_dtype(img), img.device)
    return _apply_grid_transform(img, grid, interpolation, fill=fill)


def _get_gaussian_kernel1d(kernel_size: int, sigma: float, dtype, device):
    half = (kernel_size - 1) * 0.5
    pdf = torch.exp(-0.5 * (torch.linspace(-half, half, steps=kernel_size, dtype=dtype, device=device) / sigma).pow(2))
    return pdf / pdf.sum()


def _get_gaussian_kernel2d(kernel_size, sigma, dtype, device):
    kx = _get_gaussian_kernel1d(kernel_size[0], sigma[0], dtype, device)
    ky = _get_gaussian_kernel1d(kernel_size[1], sigma[1], dtype, device)
    return torch.mm(ky[:, None], kx[None, :])


def _depthwise(img, kernel, padding=None):
    """conv2d of every channel with one 2-d kernel, through the float dtype of the kernel."""
    kernel = kernel.expand(img.shape[-3], 1, *kernel.shape)
    out, cast, squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    lead = out.shape[:-3]
    out = out.reshape(-1, *out.shape[-3:])
    if padding is not None:
        out = torch_pad(out, padding, mode="reflect")
    out = conv2d(out, kernel, groups=out.shape[-3])
    return _cast_squeeze_out(out.reshape(*lead, *out.shape[-3:]), cast, squeeze, out_dtype)


def gaussian_blur(img, kernel_size, sigma):
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    kernel = _get_gaussian_kernel2d(kernel_size, sigma, dtype=_float_dtype(img), device=img.device)
    kx, ky = kernel_size[0] // 2, kernel_size[1] // 2
    return _depthwise(img, kernel, padding=[kx, kx, ky, ky])


def _blurred_degenerate_image(img):
    kernel = torch.ones((3, 3), dtype=_float_dtype(img), device=img.device)
    kernel[1, 1] = 5.0
    result = img.clone()
    result[..., 1:-1, 1:-1] = _depthwise(img, kernel / kernel.sum())
    return result


def invert(img):
    _assert_image_tensor(img)
    _assert_min_ndim3(img)
    _assert_channels(img, [1, 3])
    return _max_value(img.dtype) - img


def posterize(img, bits: int):
    _assert_image_tensor(img)
    _assert_min_ndim3(img)
    if img.dtype != torch.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    _assert_channels(img, [1, 3])
    return img & -int(2 ** (8 - bits))  # clears the low 8 - bits bits


def solarize(img, threshold: float):
    _assert_image_tensor(img)
    _assert_min_ndim3(img)
    _assert_channels(img, [1, 3])
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return torch.where(img >= threshold, invert(img), img)


def autocontrast(img):
    _assert_image_tensor(img)
    _assert_min_ndim3(img)
    _assert_channels(img, [1, 3])
    bound, dtype = _max_value(img.dtype), _float_dtype(img)
    minimum = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    maximum = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    scale = bound / (maximum - minimum)
    flat = torch.isfinite(scale).logical_not()  # a constant channel stays as it is
    minimum, scale = torch.where(flat, 0.0, minimum), torch.where(flat, 1.0, scale)
    return ((img - minimum) * scale).clamp(0, bound).to(img.dtype)


def normalize(tensor, mean, std, inplace: bool = False):
    _assert_image_tensor(tensor)
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(
            f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tensor.size()}")
    if not inplace:
        tensor = tensor.clone()
    mean = torch.as_tensor(mean, dtype=tensor.dtype, device=tensor.device)
    std = torch.as_tensor(std, dtype=tensor.dtype, device=tensor.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    mean = mean.view(-1, 1, 1) if mean.ndim == 1 else mean
    std = std.view(-1, 1, 1) if std.ndim == 1 else std
    return tensor.sub_(mean).div_(std)


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def _create_identity_grid(size):
    ys, xs = (torch.linspace((-s + 1) / s, (s - 1) / s, s) for s in size)
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack([grid_x, grid_y], -1).unsqueeze(0)


def elastic_transform(img, displacement, interpolation: str = "bilinear", fill=None):
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    grid = _create_identity_grid(list(img.shape[-2:])).to(img.device) + displacement.to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)
