"""The evaluation presets that pretrained weights' `transforms()` returns (torchvision.transforms._presets).

Only ImageClassification is provided (the classification models' preset). It runs on PIL images and on
`(C, H, W)` / `(B, C, H, W)` tensors through torchvision.transforms.functional, imported on first use so that
`import torchvision.models` does not load the image stack.
"""

from __future__ import annotations

from ... import nn

__all__ = ["ImageClassification"]


def _functional():
    from . import functional

    return functional


class ImageClassification(nn.Module):
    """resize to `resize_size` (shorter side), center crop `crop_size`, scale to [0, 1] float, normalize."""

    def __init__(self, *, crop_size: int, resize_size: int = 256, mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                 std: tuple[float, ...] = (0.229, 0.224, 0.225), interpolation="bilinear",
                 antialias: bool | None = True) -> None:
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        # An InterpolationMode or its value ("bilinear"), so weight tables need not import the transforms.
        self.interpolation = _functional().InterpolationMode(interpolation)
        self.antialias = antialias

    def forward(self, img):
        import facade as torch

        F = _functional()
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, torch.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, torch.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        fields = (f"crop_size={self.crop_size}", f"resize_size={self.resize_size}", f"mean={self.mean}",
                  f"std={self.std}", f"interpolation={self.interpolation}")
        return self.__class__.__name__ + "(" + "".join(f"\n    {f}" for f in fields) + "\n)"

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image ``torch.Tensor`` "
                f"objects. The images are resized to ``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``, followed by a central crop of "
                f"``crop_size={self.crop_size}``. "
                "Finally the values are first rescaled to ``[0.0, 1.0]`` and then normalized using "
                f"``mean={self.mean}`` and ``std={self.std}``.")
