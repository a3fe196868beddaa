"""torchvision.datasets.folder: DatasetFolder (root/<class>/**/<file>) and ImageFolder (images so arranged)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Union

from PIL import Image

from .vision import VisionDataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader", "pil_loader", "find_classes",
           "make_dataset", "has_file_allowed_extension", "is_image_file"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions: Union[str, tuple[str, ...]]) -> bool:
    """Whether `filename` ends (case-insensitively) with one of `extensions`."""
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def is_image_file(filename: str) -> bool:
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory) -> tuple[list[str], dict[str, int]]:
    """The sorted sub-folder names of `directory` and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx: dict[str, int] | None = None,
                 extensions: Union[str, tuple[str, ...]] | None = None,
                 is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> list[tuple[str, int]]:
    """(path, class index) of every valid file under directory/<class>/, classes and files in sorted order."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:
        def is_valid_file(path: str) -> bool:
            return has_file_allowed_extension(path, extensions)

    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_to_idx[target_class]))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            msg += f"Supported extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}"
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """Samples arranged as root/<class>/**/<file>: items are (loader(path), class index). Attributes:
    classes (sorted folder names), class_to_idx, samples [(path, class index)], targets."""

    def __init__(self, root, loader: Callable[[str], Any], extensions: tuple[str, ...] | None = None,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 is_valid_file: Callable[[str], bool] | None = None, allow_empty: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx=class_to_idx, extensions=extensions,
                                    is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx: dict[str, int], extensions: tuple[str, ...] | None = None,
                     is_valid_file: Callable[[str], bool] | None = None,
                     allow_empty: bool = False) -> list[tuple[str, int]]:
        if class_to_idx is None:  # the module function would fall back to its own find_classes
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions, is_valid_file=is_valid_file,
                            allow_empty=allow_empty)

    def find_classes(self, directory) -> tuple[list[str], dict[str, int]]:
        return find_classes(directory)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        path, target = self.samples[index]
        sample = self.loader(path)
        sample, target = self._transformed(sample, target)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


def pil_loader(path) -> Image.Image:
    with open(path, "rb") as f:  # an open file, not the path: PIL then closes it (no ResourceWarning)
        return Image.open(f).convert("RGB")


def accimage_loader(path) -> Any:
    raise NotImplementedError("torchvision.datasets.folder.accimage_loader: accimage is not supported by facade")


def default_loader(path) -> Any:
    """The image at `path` as an RGB PIL image (facade's only image backend is PIL)."""
    return pil_loader(path)


class ImageFolder(DatasetFolder):
    """Images (IMG_EXTENSIONS) arranged as root/<class>/**/<image>; items are (RGB PIL image, class index).
    `imgs` is `samples`."""

    def __init__(self, root, transform: Callable | None = None, target_transform: Callable | None = None,
                 loader: Callable[[str], Any] = default_loader, is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
