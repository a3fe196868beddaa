"""torchvision.io for facade: images only (video is not provided)."""

from .image import (
                    ImageReadMode,
                    decode_avif,
                    decode_gif,
                    decode_heic,
                    decode_image,
                    decode_jpeg,
                    decode_png,
                    decode_webp,
                    encode_jpeg,
                    encode_png,
                    read_file,
                    read_image,
                    write_file,
                    write_jpeg,
                    write_png,
)

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "decode_avif", "decode_heic",
           "decode_webp", "decode_gif", "encode_jpeg", "encode_png", "read_file", "read_image", "write_file",
           "write_jpeg", "write_png"]
