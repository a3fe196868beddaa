"""torchvision.datasets.fakedata: FakeData, random images that are the same for the same index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """`size` random PIL images of `image_size` (C, H, W) with random targets in [0, num_classes).

    Item i is drawn as torchvision draws it, from facade's global generator seeded with
    i + random_offset (whose state is saved and restored around the draw): `randn(*image_size)` through
    ToPILImage, and `randint(0, num_classes, (1,))[0]`.
    """

    def __init__(self, size: int = 1000, image_size: tuple[int, int, int] = (3, 224, 224), num_classes: int = 10,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 random_offset: int = 0) -> None:
        super().__init__(transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        import facade

        from ..transforms import ToPILImage

        if index >= len(self):
            raise IndexError(f"{type(self).__name__} index out of range")
        rng_state = facade.get_rng_state()
        try:
            facade.manual_seed(index + self.random_offset)
            img = facade.randn(*self.image_size)
            target = facade.randint(0, self.num_classes, size=(1,), dtype=facade.long)[0]
        finally:
            facade.set_rng_state(rng_state)

        img = ToPILImage()(img)
        img, target = self._transformed(img, target)
        return img, target.item()

    def __len__(self) -> int:
        return self.size
