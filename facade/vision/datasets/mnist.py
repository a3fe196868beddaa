"""torchvision.datasets.mnist: MNIST, FashionMNIST and KMNIST from their idx files.

Files are read from root/<ClassName>/raw/ (train-images-idx3-ubyte, train-labels-idx1-ubyte,
t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte), each either plain or gzipped (name + '.gz', as
downloaded), or from torchvision's legacy root/<ClassName>/processed/{training,test}.pt.
"""

from __future__ import annotations

import gzip
import os
import urllib.error
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..utils import _Image_fromarray
from .utils import _missing_files_message, check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "read_sn3_pascalvincent_tensor", "read_image_file",
           "read_label_file"]

# idx type code -> big-endian numpy dtype (torchvision's SN3_PASCALVINCENT_TYPEMAP)
_IDX_DTYPES = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def read_sn3_pascalvincent_tensor(path: str, strict: bool = True):
    """An idx ("SN3 Pascal Vincent") file, plain or gzipped, as a tensor of its dtype and shape."""
    import facade

    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    nd, ty = magic % 256, magic // 256
    assert 1 <= nd <= 3
    assert 8 <= ty <= 14
    shape = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(nd)]
    dtype = np.dtype(_IDX_DTYPES[ty])
    parsed = np.frombuffer(data, dtype, offset=4 * (nd + 1)).astype(dtype.newbyteorder("="))
    assert parsed.shape[0] == np.prod(shape) or not strict
    return facade.from_numpy(parsed).view(*shape)


def _read_uint8(path: str, ndim: int):
    import facade

    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != facade.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != ndim:
        raise ValueError(f"x should have {ndim} dimension instead of {x.ndimension()}")
    return x


def read_label_file(path: str):
    return _read_uint8(path, 1).long()


def read_image_file(path: str):
    return _read_uint8(path, 3)


class MNIST(VisionDataset):
    """MNIST: 28x28 grey digits; items are (PIL image of mode 'L', int class). `data` is a uint8 tensor
    (N, 28, 28), `targets` an int64 tensor (N,)."""

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if self._check_legacy_exist():
            self.data, self.targets = self._load_legacy_data()
            return
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        self.data, self.targets = self._load_data()

    # the old attribute names, as torchvision keeps them
    train_labels = property(lambda self: self._renamed("train_labels", "targets"))
    test_labels = property(lambda self: self._renamed("test_labels", "targets"))
    train_data = property(lambda self: self._renamed("train_data", "data"))
    test_data = property(lambda self: self._renamed("test_data", "data"))

    def _renamed(self, old, new):
        warnings.warn(f"{old} has been renamed {new}", stacklevel=3)
        return getattr(self, new)

    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def processed_folder(self) -> str:
        return os.path.join(self.root, type(self).__name__, "processed")

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.classes)}

    def _raw_file(self, name: str) -> str | None:
        """raw_folder/name, or its gzipped form; None when neither is there."""
        path = os.path.join(self.raw_folder, name)
        return next((p for p in (path, path + ".gz") if check_integrity(p)), None)

    def _raw_names(self) -> list[str]:
        return [os.path.splitext(os.path.basename(url))[0] for url, _ in self.resources]

    def _check_exists(self) -> bool:
        return all(self._raw_file(name) is not None for name in self._raw_names())

    def _check_legacy_exist(self) -> bool:
        return os.path.exists(self.processed_folder) and all(
            check_integrity(os.path.join(self.processed_folder, f)) for f in (self.training_file, self.test_file))

    def _load_legacy_data(self):
        import facade

        path = os.path.join(self.processed_folder, self.training_file if self.train else self.test_file)
        return facade.load(path, weights_only=True)

    def _load_data(self):
        split = "train" if self.train else "t10k"
        return (read_image_file(self._raw_file(f"{split}-images-idx3-ubyte")),
                read_label_file(self._raw_file(f"{split}-labels-idx1-ubyte")))

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img, target = self.data[index], int(self.targets[index])
        img = _Image_fromarray(img.numpy(), mode="L")
        img, target = self._transformed(img, target)
        return img, target

    def __len__(self) -> int:
        return len(self.data)

    def download(self) -> None:
        """Download the idx files that are not in raw_folder yet. Without a network this raises a
        RuntimeError that names the files to place in raw_folder instead."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(f"{mirror}{filename}", download_root=self.raw_folder,
                                                 filename=filename, md5=md5)
                except (RuntimeError, urllib.error.URLError, OSError) as e:
                    errors.append(e)
                    continue
                break
            else:
                tried = "".join(f"Tried {m}, got:\n{e}\n" for m, e in zip(self.mirrors, errors))
                hint = _missing_files_message(type(self).__name__, self.raw_folder, self._raw_names(),
                                             " (each plain or gzipped, as name + '.gz')")
                raise RuntimeError(f"Error downloading {filename}:\n{tried}{hint}")

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Fashion-MNIST: 28x28 grey pictures of clothes, in MNIST's format under root/FashionMNIST/raw/."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: 28x28 grey Japanese characters, in MNIST's format under root/KMNIST/raw/."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
