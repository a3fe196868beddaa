"""torchvision.datasets.cifar: CIFAR10 and CIFAR100 from their python pickles.

Files: root/cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta} and
root/cifar-100-python/{train, test, meta}, checked against their md5 sums as torchvision does, or the
downloaded archive (cifar-10-python.tar.gz / cifar-100-python.tar.gz) in root, extracted by download=True.
"""

from __future__ import annotations

import os
import pickle
import urllib.error
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image

from .utils import _missing_files_message, check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    """CIFAR-10: 32x32 RGB images of 10 classes; items are (PIL RGB image, int class). `data` is a uint8
    numpy array (N, 32, 32, 3), `targets` a list of ints."""

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ["data_batch_1", "c99cafc152244af753f735de768cd75f"],
        ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
        ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
        ["data_batch_4", "634d18415352ddfa80567beed471001a"],
        ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"],
    ]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        data, self.targets = [], []
        for name, _ in self.train_list if self.train else self.test_list:
            entry = self._unpickle(name)
            data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))  # HWC
        self._load_meta()

    def _unpickle(self, name: str) -> dict:
        with open(os.path.join(self.root, self.base_folder, name), "rb") as f:
            return pickle.load(f, encoding="latin1")

    def _load_meta(self) -> None:
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path, self.meta["md5"]):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use download=True to download it")
        self.classes = self._unpickle(self.meta["filename"])[self.meta["key"]]
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img, target = Image.fromarray(self.data[index]), self.targets[index]
        img, target = self._transformed(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    def _check_integrity(self) -> bool:
        return all(check_integrity(os.path.join(self.root, self.base_folder, name), md5)
                   for name, md5 in self.train_list + self.test_list)

    def download(self) -> None:
        """Download and extract the archive unless the batches are there. Without a network this raises
        a RuntimeError that names the archive, or the extracted files, to place under root instead."""
        if self._check_integrity():
            return
        try:
            download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)
        except (urllib.error.URLError, OSError) as e:
            names = [name for name, _ in self.train_list + self.test_list] + [self.meta["filename"]]
            hint = _missing_files_message(type(self).__name__, os.path.join(self.root, self.base_folder), names,
                                         f" (or the archive '{self.filename}' in '{self.root}')")
            raise RuntimeError(f"Error downloading {self.url}: {e}\n{hint}") from e

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: as CIFAR10, with 100 fine classes (`targets` are the fine labels)."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
