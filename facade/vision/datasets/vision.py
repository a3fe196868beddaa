"""torchvision.datasets.vision: the base class of the datasets, and the (transform, target_transform) pair."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ...utils.data import Dataset

__all__ = ["VisionDataset", "StandardTransform"]


def _indented(transform: Callable, head: str) -> list[str]:
    lines = repr(transform).splitlines()
    return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]


class VisionDataset(Dataset):
    """torchvision's base dataset: `root`, and either `transforms` (image and target together) or
    `transform` / `target_transform` (each alone). Subclasses define `__getitem__` and `__len__`."""

    _repr_indent = 4

    def __init__(self, root: Any = None, transforms: Callable | None = None,
                 transform: Callable | None = None, target_transform: Callable | None = None) -> None:
        self.root = os.path.expanduser(root) if isinstance(root, str) else root
        separate = transform is not None or target_transform is not None
        if transforms is not None and separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform = transform
        self.target_transform = target_transform
        self.transforms = StandardTransform(transform, target_transform) if separate else transforms

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def _transformed(self, input: Any, target: Any) -> tuple[Any, Any]:
        """(transform(input), target_transform(target)), each as set now: scripts reassign `dataset.transform`."""
        return StandardTransform(self.transform, self.target_transform)(input, target)

    def __len__(self) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]
        return "\n".join(["Dataset " + type(self).__name__] + [" " * self._repr_indent + line for line in body])

    def _format_transform_repr(self, transform: Callable, head: str) -> list[str]:
        return _indented(transform, head)

    def extra_repr(self) -> str:
        return ""


class StandardTransform:
    """Applies `transform` to the input and `target_transform` to the target (either may be None)."""

    def __init__(self, transform: Callable | None = None, target_transform: Callable | None = None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input: Any, target: Any) -> tuple[Any, Any]:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def _format_transform_repr(self, transform: Callable, head: str) -> list[str]:
        return _indented(transform, head)

    def __repr__(self) -> str:
        body = [type(self).__name__]
        if self.transform is not None:
            body += _indented(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += _indented(self.target_transform, "Target transform: ")
        return "\n".join(body)
