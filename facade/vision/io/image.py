"""torchvision.io.image for facade: read, decode and encode PNG, JPEG, GIF and WEBP images with Pillow.

Decoded images are uint8 tensors (C, H, W) (16-bit grey PNGs: uint16), with torchvision's channel
rules: UNCHANGED keeps the file's channels (grey 1, grey+alpha 2, RGB 3, RGBA 4; a palette PNG its
indices), the other modes convert. A colour JPEG read as GRAY is libjpeg's luma (Y) plane, as in
torchvision; a colour PNG read as GRAY is Pillow's ITU-R 601-2 luma, which can differ by one from
libpng's. Encoded bytes come from Pillow's encoders, so they decode to the same pixels as
torchvision's files but need not be byte-identical to them.
"""

from __future__ import annotations

import io
import os
from enum import Enum

import numpy as np
from PIL import Image, ImageOps

from ..._unsupported import unsupported

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "decode_avif", "decode_heic",
           "decode_webp", "decode_gif", "encode_jpeg", "encode_png", "read_file", "read_image", "write_file",
           "write_jpeg", "write_png"]

_OWNER = "facade's torchvision.io decodes PNG, JPEG, GIF and WEBP with Pillow"
decode_avif = unsupported("torchvision.io.decode_avif", _OWNER)
decode_heic = unsupported("torchvision.io.decode_heic", _OWNER)
decode_avif.__module__ = decode_heic.__module__ = __name__


class ImageReadMode(Enum):
    """How to convert while decoding (strings such as "RGB" are accepted too)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


_PIL_MODES = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA", ImageReadMode.RGB: "RGB",
              ImageReadMode.RGB_ALPHA: "RGBA"}


def _read_mode(mode) -> ImageReadMode:
    return ImageReadMode[mode.upper()] if isinstance(mode, str) else mode


def _encoded_bytes(data) -> bytes:
    """The bytes of a 1-D uint8 CPU tensor of encoded data (torchvision's checks and messages)."""
    import facade

    if not isinstance(data, facade.Tensor):
        raise TypeError(f"Expected a torch.Tensor of encoded image bytes, got {type(data)}")
    if data.device.type != "cpu":
        raise RuntimeError("Expected a CPU tensor")
    if data.dtype != facade.uint8:
        raise RuntimeError("Expected a torch.uint8 tensor")
    if data.dim() != 1 or data.numel() == 0:
        raise RuntimeError("Expected a non empty 1-dimensional tensor")
    return data.numpy().tobytes()


def _open(data, fmt: str, apply_exif_orientation: bool = False) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(data), formats=[fmt])
        img.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise RuntimeError(f"decode_{fmt.lower()}: the {fmt} data could not be decoded ({e})") from e
    return ImageOps.exif_transpose(img) if apply_exif_orientation else img


def _chw(array: np.ndarray):
    import facade

    array = array[:, :, None] if array.ndim == 2 else array
    return facade.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1)))


def read_file(path):
    """The bytes of the file at `path` as a uint8 tensor (N,)."""
    import facade

    path = os.fspath(path)
    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise RuntimeError(f"[Errno {e.errno}] {e.strerror}: '{path}'") from None
    if size == 0:
        raise RuntimeError("Expected a non empty file")
    return facade.from_numpy(np.fromfile(path, dtype=np.uint8))


def write_file(filename, data) -> None:
    """Write a uint8 tensor (N,) of bytes to `filename`."""
    import facade

    if data.device.type != "cpu":
        raise RuntimeError("Input tensor should be on CPU")
    if data.dtype != facade.uint8:
        raise RuntimeError("Input tensor dtype should be uint8")
    if data.dim() != 1:
        raise RuntimeError("Input data should be a 1-dimensional tensor")
    with open(os.fspath(filename), "wb") as f:
        f.write(data.numpy().tobytes())


def _png_array(img: Image.Image, mode: ImageReadMode) -> np.ndarray:
    if img.mode.startswith("I"):  # 16-bit grey: uint16, grey replicated or an opaque alpha added in numpy
        grey = np.asarray(img).astype(np.uint16)
        opaque = np.full_like(grey, 65535)
        channels = {ImageReadMode.GRAY_ALPHA: (grey, opaque), ImageReadMode.RGB: (grey,) * 3,
                    ImageReadMode.RGB_ALPHA: (grey, grey, grey, opaque)}.get(mode, (grey,))
        return np.stack(channels, axis=-1)
    if img.mode == "1":
        img = img.convert("L")
    if mode is ImageReadMode.UNCHANGED:
        return np.asarray(img)
    return np.asarray(img.convert(_PIL_MODES[mode]))


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False):
    """A PNG image from its bytes (a uint8 tensor (N,)) as a tensor (C, H, W)."""
    mode = _read_mode(mode)
    data = _encoded_bytes(input)
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise RuntimeError("Content is not png!")
    return _chw(_png_array(_open(data, "PNG", apply_exif_orientation), mode))


def _jpeg(data: bytes, mode: ImageReadMode, apply_exif_orientation: bool):
    if mode not in (ImageReadMode.UNCHANGED, ImageReadMode.GRAY, ImageReadMode.RGB):
        raise RuntimeError("The provided mode is not supported for JPEG files")
    img = Image.open(io.BytesIO(data), formats=["JPEG"])
    if mode is ImageReadMode.GRAY and img.mode != "L":
        img.draft("L", img.size)  # libjpeg's grayscale output: the Y plane, as torchvision's decoder
    try:
        img.load()
    except (OSError, SyntaxError, ValueError) as e:
        raise RuntimeError(f"decode_jpeg: the JPEG data could not be decoded ({e})") from e
    if apply_exif_orientation:
        img = ImageOps.exif_transpose(img)
    if img.mode not in ("L", "RGB") or (mode is ImageReadMode.RGB and img.mode != "RGB"):
        img = img.convert("L" if mode is ImageReadMode.GRAY else "RGB")
    return _chw(np.asarray(img))


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation: bool = False):
    """A JPEG image (or a list of them) from its bytes as a uint8 tensor (C, H, W) on `device`."""
    mode = _read_mode(mode)
    if isinstance(input, list):
        if len(input) == 0:
            raise ValueError("Input list must contain at least one element")
        return [decode_jpeg(t, mode, device, apply_exif_orientation) for t in input]
    return _jpeg(_encoded_bytes(input), mode, apply_exif_orientation).to(device)


def decode_gif(input):
    """A GIF as a uint8 RGB tensor (C, H, W), or (N, C, H, W) for N > 1 frames."""
    img = _open(_encoded_bytes(input), "GIF")
    frames = []
    for i in range(getattr(img, "n_frames", 1)):
        img.seek(i)
        frames.append(np.asarray(img.convert("RGB")).transpose(2, 0, 1))
    import facade

    return facade.from_numpy(np.ascontiguousarray(frames[0] if len(frames) == 1 else np.stack(frames)))


def decode_webp(input, mode=ImageReadMode.UNCHANGED):
    """A WEBP image as a uint8 tensor (C, H, W): RGB, or RGBA where the file has alpha."""
    mode = _read_mode(mode)
    if mode not in (ImageReadMode.UNCHANGED, ImageReadMode.RGB, ImageReadMode.RGB_ALPHA):
        raise RuntimeError("Unsupported mode for WebP files")
    img = _open(_encoded_bytes(input), "WEBP")
    target = _PIL_MODES.get(mode, "RGBA" if "A" in img.mode else "RGB")
    return _chw(np.asarray(img.convert(target)))


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False):
    """An image from its bytes (a uint8 tensor) or from a path; the format comes from its signature."""
    import facade

    if not isinstance(input, facade.Tensor):
        input = read_file(str(input))
    mode = _read_mode(mode)
    head = _encoded_bytes(input)[:16]
    if head[:3] == b"\xff\xd8\xff":
        return decode_jpeg(input, mode, apply_exif_orientation=apply_exif_orientation)
    if head[:4] == b"\x89PNG":
        return decode_png(input, mode, apply_exif_orientation)
    if head[:6] in (b"GIF89a", b"GIF87a"):
        return decode_gif(input)
    if head[:4] == b"RIFF" and head[8:15] == b"WEBPVP8":
        return decode_webp(input, mode)
    raise RuntimeError("Unsupported image file. Only jpeg, png, webp and gif are currently supported.")


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False):
    """decode_image of the file at `path`."""
    return decode_image(read_file(path), mode, apply_exif_orientation=apply_exif_orientation)


def _pil_of(input) -> Image.Image:
    import facade

    if input.dtype != facade.uint8:
        raise RuntimeError("Input tensor dtype should be uint8")
    if input.dim() != 3:
        raise RuntimeError("Input data should be a 3-dimensional tensor")
    if input.shape[0] not in (1, 3):
        raise RuntimeError(f"The number of channels should be 1 or 3, got: {input.shape[0]}")
    array = input.detach().cpu().numpy().transpose(1, 2, 0)
    return Image.fromarray(np.ascontiguousarray(array[:, :, 0] if input.shape[0] == 1 else array))


def _encoded(img: Image.Image, fmt: str, **options):
    import facade

    buf = io.BytesIO()
    img.save(buf, format=fmt, **options)
    return facade.frombuffer(bytearray(buf.getvalue()), dtype=facade.uint8)


def encode_png(input, compression_level: int = 6):
    """The PNG bytes (a uint8 tensor (N,)) of a uint8 image (C, H, W), C 1 or 3."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError("Compression level should be between 0 and 9")
    return _encoded(_pil_of(input), "PNG", compress_level=compression_level)


def write_png(input, filename, compression_level: int = 6) -> None:
    write_file(filename, encode_png(input, compression_level))


def encode_jpeg(input, quality: int = 75):
    """The JPEG bytes of a uint8 image (C, H, W), C 1 or 3 (or of each image in a list)."""
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, list):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is passed")
        return [encode_jpeg(image, quality) for image in input]
    return _encoded(_pil_of(input), "JPEG", quality=quality)


def write_jpeg(input, filename, quality: int = 75) -> None:
    write_file(filename, encode_jpeg(input, quality))
