"""torchvision.datasets, .utils (make_grid, save_image) and .io (images) against real torchvision 0.28.

Datasets read small files that the tests write in the real on-disk formats (MNIST idx files, plain and
gzipped, and torchvision's processed .pt files; CIFAR python pickles and their tar.gz; ImageFolder trees of
PNG and JPEG files); the same root read by torchvision and by facade gives equal samples, targets,
classes and lengths. torchvision.io's decoders are C++ (libpng/libjpeg) and cannot load here (see
tests/_torchvision.py), so decoded images are compared with Pillow's decoding of the same bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import tarfile
import urllib.error
import urllib.request

import numpy as np
import pytest
import torch
from PIL import Image

import facade
import facade.vision as fv
from tests._torchvision import tv

RNG = np.random.default_rng(0)


def _pixels(img):
    return img.mode, img.size, np.asarray(img).tolist()


def _same_items(a, b):
    """Two datasets give equal items: PIL images pixel for pixel, tensors value for value, targets and types."""
    assert len(a) == len(b)
    for i in range(len(a)):
        (x, y), (u, v) = a[i], b[i]
        if isinstance(x, Image.Image):
            assert isinstance(u, Image.Image) and _pixels(x) == _pixels(u)
        else:
            np.testing.assert_array_equal(x.numpy(), u.numpy())
            assert str(x.dtype) == str(u.dtype)
        assert y == v and type(y) is type(v)


@pytest.fixture
def offline(monkeypatch):
    """No network: every urlopen (torchvision's and facade's) fails as it does without one."""
    def urlopen(*args, **kwargs):
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)


# ---------------------------------------------------------------------------- MNIST

def _write_idx(path, array, gz=False):
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def _mnist_root(root, name="MNIST", gz=False, n=(6, 4)):
    raw = root / name / "raw"
    raw.mkdir(parents=True)
    for prefix, count in zip(("train", "t10k"), n):
        suffix = ".gz" if gz else ""
        _write_idx(raw / f"{prefix}-images-idx3-ubyte{suffix}", RNG.integers(0, 256, (count, 28, 28)), gz)
        _write_idx(raw / f"{prefix}-labels-idx1-ubyte{suffix}", RNG.integers(0, 10, count), gz)
    return raw


@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
def test_mnist_family(tmp_path, name):
    _mnist_root(tmp_path, name)
    for train in (True, False):
        ours, theirs = getattr(fv.datasets, name)(tmp_path, train=train), getattr(tv.datasets, name)(tmp_path, train)
        _same_items(theirs, ours)
        assert ours.classes == theirs.classes and ours.class_to_idx == theirs.class_to_idx
        np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
        np.testing.assert_array_equal(ours.targets.numpy(), theirs.targets.numpy())
        assert (ours.data.dtype, ours.targets.dtype) == (facade.uint8, facade.int64)
        assert repr(ours) == repr(theirs)
        assert ours.raw_folder == theirs.raw_folder and ours.processed_folder == theirs.processed_folder


def test_mnist_gzipped_and_transforms(tmp_path):
    """The .gz files as downloaded read like the plain ones; transform and target_transform are applied."""
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    raw = _mnist_root(plain)
    (packed / "MNIST" / "raw").mkdir(parents=True)
    for f in raw.iterdir():
        with gzip.open(packed / "MNIST" / "raw" / (f.name + ".gz"), "wb") as g:
            g.write(f.read_bytes())
    ours = fv.datasets.MNIST(str(packed), transform=fv.transforms.ToTensor(), target_transform=str)
    theirs = tv.datasets.MNIST(str(plain), transform=tv.transforms.ToTensor(), target_transform=str)
    _same_items(theirs, ours)
    assert "Transform: ToTensor()" in repr(ours) and "Target transform: <class 'str'>" in repr(ours)


def test_mnist_processed_layout(tmp_path):
    """torchvision's legacy root/MNIST/processed/{training,test}.pt, written by real torch."""
    processed = tmp_path / "MNIST" / "processed"
    processed.mkdir(parents=True)
    for file, n in (("training.pt", 5), ("test.pt", 3)):
        pair = (torch.from_numpy(RNG.integers(0, 256, (n, 28, 28)).astype(np.uint8)), torch.arange(n) % 10)
        torch.save(pair, processed / file)
    for train in (True, False):
        _same_items(tv.datasets.MNIST(tmp_path, train=train), fv.datasets.MNIST(tmp_path, train=train))


def test_mnist_missing_and_offline_download(tmp_path, offline):
    with pytest.raises(RuntimeError) as theirs:
        tv.datasets.MNIST(tmp_path)
    with pytest.raises(RuntimeError) as ours:
        fv.datasets.MNIST(tmp_path)
    assert str(ours.value) == str(theirs.value) == "Dataset not found. You can use download=True to download it"

    with pytest.raises(RuntimeError) as theirs:
        tv.datasets.MNIST(tmp_path / "a", download=True)
    with pytest.raises(RuntimeError) as ours:
        fv.datasets.KMNIST(tmp_path / "b", download=True)
    # torchvision's report of what it tried, then where to put which files instead
    first = str(theirs.value).splitlines()[0]
    assert first == "Error downloading train-images-idx3-ubyte.gz:" == str(ours.value).splitlines()[0]
    assert "Tried http://codh.rois.ac.jp/kmnist/dataset/kmnist/, got:\n<urlopen error" in str(ours.value)
    hint = str(ours.value).splitlines()[-1]
    assert f"'{tmp_path / 'b' / 'KMNIST' / 'raw'}'" in hint and "download=False" in hint
    for file in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        assert file in hint


# ---------------------------------------------------------------------------- CIFAR

def _pickle(path, obj):
    with open(path, "wb") as f:
        pickle.dump(obj, f)


def _cifar_root(root, hundred):
    folder = root / ("cifar-100-python" if hundred else "cifar-10-batches-py")
    folder.mkdir(parents=True)
    names = ["train", "test"] if hundred else [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    key = "fine_labels" if hundred else "labels"
    for name in names:
        n = int(RNG.integers(1, 4))
        _pickle(folder / name, {"data": RNG.integers(0, 256, (n, 3072)).astype(np.uint8),
                                key: RNG.integers(0, 100 if hundred else 10, n).tolist()})
    meta = ({"fine_label_names": [f"c{i}" for i in range(100)]} if hundred
            else {"label_names": ["airplane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]})
    _pickle(folder / ("meta" if hundred else "batches.meta"), meta)
    return folder


def _unchecked(cls):
    """cls with no md5 sums: the files written here are not the real ones."""
    return type(cls.__name__, (cls,), {"train_list": [[f, None] for f, _ in cls.train_list],
                                       "test_list": [[f, None] for f, _ in cls.test_list],
                                       "meta": {**cls.meta, "md5": None}})


@pytest.mark.parametrize("name", ["CIFAR10", "CIFAR100"])
def test_cifar(tmp_path, name):
    _cifar_root(tmp_path, name == "CIFAR100")
    ours_cls, theirs_cls = getattr(fv.datasets, name), getattr(tv.datasets, name)
    for train in (True, False):
        ours, theirs = _unchecked(ours_cls)(tmp_path, train=train), _unchecked(theirs_cls)(tmp_path, train=train)
        _same_items(theirs, ours)
        assert isinstance(ours.data, np.ndarray) and ours.data.shape == theirs.data.shape
        np.testing.assert_array_equal(ours.data, theirs.data)
        assert ours.targets == theirs.targets and ours.classes == theirs.classes
        assert ours.class_to_idx == theirs.class_to_idx and repr(ours) == repr(theirs)
    # the real md5 sums refuse these files, as torchvision's do
    for cls in (ours_cls, theirs_cls):
        with pytest.raises(RuntimeError, match=r"^Dataset not found or corrupted\. You can use download=True"):
            cls(tmp_path)


def test_cifar_download_extracts_a_local_archive_and_fails_offline(tmp_path, offline):
    folder = _cifar_root(tmp_path / "src", False)
    archive = tmp_path / "root" / "cifar-10-python.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    md5 = fv.datasets.utils.calculate_md5(archive)
    assert md5 == tv.datasets.utils.calculate_md5(archive)
    ours_cls = type("CIFAR10", (_unchecked(fv.datasets.CIFAR10),), {"tgz_md5": md5})
    ours = ours_cls(tmp_path / "root", download=True)  # the archive is there: extracted, no network needed
    _same_items(_unchecked(tv.datasets.CIFAR10)(tmp_path / "src"), ours)

    with pytest.raises(urllib.error.URLError):
        tv.datasets.CIFAR100(tmp_path / "none", download=True)
    with pytest.raises(RuntimeError) as ours:
        fv.datasets.CIFAR100(tmp_path / "none", download=True)
    message = str(ours.value)
    assert message.startswith("Error downloading https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz: <urlopen")
    assert f"'{tmp_path / 'none' / 'cifar-100-python'}'" in message and "train, test, meta" in message
    assert f"the archive 'cifar-100-python.tar.gz' in '{tmp_path / 'none'}'" in message


# ---------------------------------------------------------------------------- ImageFolder, DatasetFolder

def _image_tree(root):
    """cat/ and dog/ with PNGs and JPEGs (one in a sub-folder, one with an upper-case suffix), a text file that
    is not an image, and an empty bird/."""
    for path, mode in (("cat/a.png", "RGB"), ("cat/sub/b.jpg", "RGB"), ("cat/c.png", "L"), ("dog/d.PNG", "RGBA"),
                       ("dog/e.jpeg", "L"), ("dog/f.png", "P")):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(RNG.integers(0, 256, (5, 7, 3)).astype(np.uint8)).convert(mode).save(root / path)
    (root / "dog" / "notes.txt").write_text("not an image")
    (root / "bird").mkdir()


def test_image_folder(tmp_path):
    _image_tree(tmp_path)
    with pytest.raises(FileNotFoundError) as theirs:
        tv.datasets.ImageFolder(tmp_path)
    with pytest.raises(FileNotFoundError) as ours:
        fv.datasets.ImageFolder(tmp_path)
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).startswith("Found no valid file for the classes bird. Supported extensions are: .jpg")

    ours, theirs = (lib.datasets.ImageFolder(tmp_path, allow_empty=True) for lib in (fv, tv))
    assert ours.classes == theirs.classes == ["bird", "cat", "dog"] and ours.class_to_idx == theirs.class_to_idx
    assert ours.samples == theirs.samples == ours.imgs and ours.targets == theirs.targets and len(ours) == 6
    _same_items(theirs, ours)
    assert all(ours[i][0].mode == "RGB" for i in range(len(ours)))

    with_transform = fv.datasets.ImageFolder(tmp_path, fv.transforms.ToTensor(), allow_empty=True)
    _same_items(tv.datasets.ImageFolder(tmp_path, tv.transforms.ToTensor(), allow_empty=True), with_transform)


def test_dataset_folder_and_errors(tmp_path):
    _image_tree(tmp_path)
    ours, theirs = (lib.datasets.DatasetFolder(tmp_path, os.path.getsize, (".txt", ".png"), allow_empty=True)
                    for lib in (fv, tv))
    assert [(os.path.relpath(p, tmp_path), t) for p, t in ours.samples] == [
        ("cat/a.png", 1), ("cat/c.png", 1), ("dog/d.PNG", 2), ("dog/f.png", 2), ("dog/notes.txt", 2)]
    assert ours.samples == theirs.samples and ours.targets == theirs.targets and ours.extensions == (".txt", ".png")
    assert [ours[i] for i in range(len(ours))] == [theirs[i] for i in range(len(theirs))]
    ours = fv.datasets.DatasetFolder(tmp_path, os.path.getsize, is_valid_file=lambda p: "sub" in p, allow_empty=True)
    theirs = tv.datasets.DatasetFolder(tmp_path, os.path.getsize, is_valid_file=lambda p: "sub" in p, allow_empty=True)
    assert ours.samples == theirs.samples and len(ours) == 1 and ours[0] == theirs[0]

    for args, kwargs, error in (((os.path.getsize,), {}, ValueError),  # neither extensions nor is_valid_file
                                ((os.path.getsize, (".png",)), {"is_valid_file": bool}, ValueError)):
        with pytest.raises(error) as theirs:
            tv.datasets.DatasetFolder(tmp_path, *args, **kwargs)
        with pytest.raises(error) as ours:
            fv.datasets.DatasetFolder(tmp_path, *args, **kwargs)
        assert str(ours.value) == str(theirs.value)
    (tmp_path / "flat").mkdir()
    for lib in (tv, fv):
        with pytest.raises(FileNotFoundError, match=r"^Couldn't find any class folder in .*flat\.$"):
            lib.datasets.ImageFolder(tmp_path / "flat")
    assert fv.datasets.folder.IMG_EXTENSIONS == tv.datasets.folder.IMG_EXTENSIONS
    assert fv.datasets.folder.find_classes(tmp_path) == tv.datasets.folder.find_classes(tmp_path)
    assert fv.datasets.folder.default_loader(tmp_path / "dog/f.png").mode == "RGB"


# ---------------------------------------------------------------------------- FakeData

def test_fakedata_follows_torchvisions_draws():
    data = fv.datasets.FakeData(size=5, image_size=(3, 6, 4), num_classes=7, random_offset=3)
    facade.manual_seed(11)
    expected_next = facade.rand(3)
    facade.manual_seed(11)
    items = [data[i] for i in range(len(data))]
    np.testing.assert_array_equal(facade.rand(3).numpy(), expected_next.numpy())  # the global state is restored
    for i, (img, target) in enumerate(items):
        facade.manual_seed(i + 3)
        image = facade.randn(3, 6, 4)
        label = facade.randint(0, 7, size=(1,), dtype=facade.long)[0]
        assert _pixels(img) == _pixels(fv.transforms.ToPILImage()(image)) == _pixels(data[i][0])
        assert target == label.item() == data[i][1] and type(target) is int and 0 <= target < 7
    assert img.mode == "RGB" and img.size == (4, 6) and len({t for _, t in items}) > 1
    assert _pixels(items[0][0]) != _pixels(items[1][0])
    grey = fv.datasets.FakeData(size=2, image_size=(1, 5, 5), transform=fv.transforms.ToTensor(),
                                target_transform=lambda t: t + 100)
    x, y = grey[1]
    assert x.shape == (1, 5, 5) and x.dtype == facade.float32 and y >= 100
    for lib in (tv, fv):
        with pytest.raises(IndexError, match=r"^FakeData index out of range$"):
            lib.datasets.FakeData(size=2)[2]
    assert repr(data) == repr(tv.datasets.FakeData(size=5)) == "Dataset FakeData\n    Number of datapoints: 5"


# ---------------------------------------------------------------------------- DataLoader workers

def test_mnist_and_fakedata_through_dataloader_workers(tmp_path):
    """Datasets run in DataLoader worker processes (host mode: numpy and PIL, no JAX)."""
    _mnist_root(tmp_path, n=(10, 2))
    normalize = ((0.1307,), (0.3081,))
    ours = fv.datasets.MNIST(tmp_path, transform=fv.transforms.Compose(
        [fv.transforms.ToTensor(), fv.transforms.Normalize(*normalize)]))
    theirs = tv.datasets.MNIST(tmp_path, transform=tv.transforms.Compose(
        [tv.transforms.ToTensor(), tv.transforms.Normalize(*normalize)]))
    batches = list(facade.utils.data.DataLoader(ours, batch_size=4, num_workers=2, timeout=120))
    expected = list(torch.utils.data.DataLoader(theirs, batch_size=4))
    assert len(batches) == len(expected) == 3
    for (x, y), (u, v) in zip(batches, expected):
        assert x.dtype == facade.float32 and y.dtype == facade.int64 and tuple(x.shape) == tuple(u.shape)
        np.testing.assert_allclose(x.numpy(), u.numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(y.numpy(), v.numpy())

    # FakeData in workers: each item depends on its index only (not on the worker or the batch it falls in)
    fake = fv.datasets.FakeData(size=6, image_size=(3, 4, 4), transform=fv.transforms.ToTensor())
    runs = [list(facade.utils.data.DataLoader(fake, batch_size=b, num_workers=w, timeout=120))
            for b, w in ((2, 2), (3, 1))]
    first, second = (facade.cat([x for x, _ in run]).numpy() for run in runs)
    np.testing.assert_array_equal(first, second)
    assert [t for _, y in runs[0] for t in y.tolist()] == [t for _, y in runs[1] for t in y.tolist()]


# ---------------------------------------------------------------------------- make_grid, save_image

def _both(array):
    return facade.from_numpy(array.copy()), torch.from_numpy(array.copy())


GRID_CASES = [
    ((5, 3, 6, 7), {"nrow": 2, "padding": 1, "pad_value": 0.5}),
    ((3, 1, 4, 5), {}),  # one channel -> three
    ((4, 3, 5, 5), {"normalize": True}),
    ((4, 3, 5, 5), {"normalize": True, "value_range": (-1, 1), "nrow": 3, "padding": 0}),
    ((4, 3, 5, 5), {"normalize": True, "scale_each": True}),
    ((3, 5, 6), {}),  # one image
    ((1, 5, 6), {"normalize": True}),
    ((5, 6), {}),
    ((1, 3, 4, 4), {}),
]


@pytest.mark.parametrize("shape,kwargs", GRID_CASES)
def test_make_grid_and_save_image(tmp_path, shape, kwargs):
    ours, theirs = _both((RNG.standard_normal(shape) * 2).astype(np.float32))
    grid, expected = fv.utils.make_grid(ours, **kwargs), tv.utils.make_grid(theirs, **kwargs)
    assert grid.dtype == facade.float32 and tuple(grid.shape) == tuple(expected.shape)
    # normalize divides by a Python float; XLA computes x / c as x * (1 / c): one ulp from torch at most
    np.testing.assert_array_max_ulp(grid.numpy(), expected.numpy(), maxulp=1 if kwargs.get("normalize") else 0)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())  # the input is left alone
    fv.utils.save_image(ours, tmp_path / "ours.png", **kwargs)
    tv.utils.save_image(theirs, tmp_path / "theirs.png", **kwargs)
    assert _pixels(Image.open(tmp_path / "ours.png")) == _pixels(Image.open(tmp_path / "theirs.png"))


def test_make_grid_lists_uint8_file_objects_and_errors():
    images = [RNG.integers(0, 256, (3, 4, 5)).astype(np.uint8) for _ in range(3)]
    grid = fv.utils.make_grid([facade.from_numpy(a) for a in images], nrow=2, pad_value=7)
    expected = tv.utils.make_grid([torch.from_numpy(a) for a in images], nrow=2, pad_value=7)
    assert grid.dtype == facade.uint8
    np.testing.assert_array_equal(grid.numpy(), expected.numpy())

    ours, theirs = _both(RNG.random((2, 3, 4, 4)).astype(np.float32))
    buffers = io.BytesIO(), io.BytesIO()
    fv.utils.save_image(ours, buffers[0], format="PNG", padding=3)
    tv.utils.save_image(theirs, buffers[1], format="PNG", padding=3)
    assert _pixels(Image.open(buffers[0])) == _pixels(Image.open(buffers[1]))

    for bad in ("image", [facade.zeros(3, 2, 2), np.zeros((3, 2, 2))]):
        theirs_bad = bad if isinstance(bad, str) else [torch.zeros(3, 2, 2), bad[1]]
        with pytest.raises(TypeError) as theirs:
            tv.utils.make_grid(theirs_bad)
        with pytest.raises(TypeError) as ours:
            fv.utils.make_grid(bad)
        assert str(ours.value) == str(theirs.value)
    for lib, x in ((tv, torch.zeros(2, 3, 2, 2)), (fv, facade.zeros(2, 3, 2, 2))):
        with pytest.raises(TypeError, match=r"^value_range has to be a tuple \(min, max\) if specified"):
            lib.utils.make_grid(x, normalize=True, value_range=[0, 1])
        with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type"):
            lib.utils.make_grid(x.to(torch.uint8 if lib is tv else facade.uint8), normalize=True)


def test_draw_bounding_boxes():
    image = RNG.integers(0, 256, (3, 20, 30)).astype(np.uint8)
    boxes = np.array([[1, 2, 10, 12], [5, 5, 25, 18.7]], np.float32)
    for array, kwargs in ((image, {}), (image[:1], {"labels": ["a", "b"], "fill": True, "width": 2}),
                          (image / np.float32(255), {"colors": ["red", (0, 9, 200)], "labels": ["x", "y"],
                                                     "fill_labels": True})):
        ours = fv.utils.draw_bounding_boxes(facade.from_numpy(array.copy()), facade.from_numpy(boxes), **kwargs)
        theirs = tv.utils.draw_bounding_boxes(torch.from_numpy(array.copy()), torch.from_numpy(boxes), **kwargs)
        assert str(ours.dtype) == str(theirs.dtype) and ours.shape == (3, 20, 30)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for bad_image, bad_boxes in ((image[None], boxes), (image[:2], boxes), (image, boxes[:, [2, 1, 0, 3]])):
        with pytest.raises(ValueError) as theirs:
            tv.utils.draw_bounding_boxes(torch.from_numpy(bad_image.copy()), torch.from_numpy(bad_boxes.copy()))
        with pytest.raises(ValueError) as ours:
            fv.utils.draw_bounding_boxes(facade.from_numpy(bad_image.copy()), facade.from_numpy(bad_boxes.copy()))
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotImplementedError, match="oriented boxes"):
        fv.utils.draw_bounding_boxes(facade.from_numpy(image), facade.zeros(1, 8))


# ---------------------------------------------------------------------------- io

def _encoded(array, fmt, mode=None, **options):
    buf = io.BytesIO()
    img = Image.fromarray(array)
    (img.convert(mode) if mode else img).save(buf, format=fmt, **options)
    return buf.getvalue()


def _pil_chw(data, mode=None):
    img = Image.open(io.BytesIO(data))
    img = img.convert(mode) if mode else img
    array = np.asarray(img)
    return (array[:, :, None] if array.ndim == 2 else array).transpose(2, 0, 1)


RGB = RNG.integers(0, 256, (9, 11, 3)).astype(np.uint8)
PNGS = {mode: _encoded(RGB, "PNG", mode) for mode in ("L", "LA", "RGB", "RGBA", "P")}
JPEGS = {mode: _encoded(RGB, "JPEG", mode, quality=90) for mode in ("L", "RGB")}
CHANNELS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "P": 1}  # UNCHANGED; a palette image gives its indices


def test_read_and_decode_png(tmp_path):
    for file_mode, data in PNGS.items():
        path = tmp_path / f"{file_mode}.png"
        path.write_bytes(data)
        image = fv.io.read_image(path)
        assert image.dtype == facade.uint8 and image.shape == (CHANNELS[file_mode], 9, 11)
        np.testing.assert_array_equal(image.numpy(), _pil_chw(data))
        encoded = fv.io.read_file(str(path))
        assert encoded.dtype == facade.uint8 and encoded.numpy().tobytes() == data
        np.testing.assert_array_equal(fv.io.decode_png(encoded).numpy(), image.numpy())
        for mode, pil_mode in (("GRAY", "L"), ("GRAY_ALPHA", "LA"), ("RGB", "RGB"), ("RGBA", "RGBA")):
            for spelled in (mode, fv.io.ImageReadMode[mode]):
                decoded = fv.io.decode_image(encoded, mode=spelled)
                np.testing.assert_array_equal(decoded.numpy(), _pil_chw(data, pil_mode), err_msg=f"{file_mode} {mode}")
    # a 16-bit grey PNG decodes to uint16, as torchvision's decoder does
    deep = (RNG.integers(0, 65536, (4, 5))).astype(np.uint16)
    image = fv.io.decode_image(facade.frombuffer(bytearray(_encoded(deep, "PNG")), dtype=facade.uint8))
    assert image.dtype == facade.uint16 and image.shape == (1, 4, 5)
    np.testing.assert_array_equal(image.numpy()[0], deep)
    # pil_to_tensor (torchvision's, in Python) of the file agrees with read_image
    with Image.open(tmp_path / "RGBA.png") as img:
        np.testing.assert_array_equal(tv.transforms.functional.pil_to_tensor(img).numpy(),
                                      fv.io.read_image(tmp_path / "RGBA.png").numpy())


def test_read_and_decode_jpeg(tmp_path):
    for file_mode, data in JPEGS.items():
        (tmp_path / "x.jpg").write_bytes(data)
        image = fv.io.read_image(str(tmp_path / "x.jpg"))
        assert image.dtype == facade.uint8 and image.shape == (CHANNELS[file_mode], 9, 11)
        np.testing.assert_array_equal(image.numpy(), _pil_chw(data))
        encoded = fv.io.read_file(tmp_path / "x.jpg")
        np.testing.assert_array_equal(fv.io.decode_jpeg(encoded, "RGB").numpy(), _pil_chw(data, "RGB"))
        # GRAY is libjpeg's own grey output, the luma plane of the YCbCr it decodes
        with Image.open(io.BytesIO(data)) as img:
            img.draft("YCbCr", img.size)
            luma = np.asarray(img)[None, :, :, 0] if img.mode == "YCbCr" else np.asarray(img)[None]
        np.testing.assert_array_equal(fv.io.decode_image(encoded, fv.io.ImageReadMode.GRAY).numpy(), luma)
        decoded_list = fv.io.decode_jpeg([encoded, encoded])
        assert len(decoded_list) == 2 and all(facade.equal(d, image) for d in decoded_list)
    with pytest.raises(RuntimeError, match="^The provided mode is not supported for JPEG files$"):
        fv.io.decode_jpeg(encoded, mode=fv.io.ImageReadMode.RGB_ALPHA)
    # torchvision's libjpeg decoder is C++ and does not load over this CPU torch: Pillow is the oracle above
    with pytest.raises(RuntimeError, match="Couldn't load the image extension"):
        tv.io.decode_jpeg(torch.from_numpy(np.frombuffer(data, np.uint8).copy()))


def test_gif_webp_and_encoders(tmp_path):
    gif = _encoded(RGB, "GIF")
    np.testing.assert_array_equal(fv.io.decode_image(facade.frombuffer(bytearray(gif), dtype=facade.uint8)).numpy(),
                                  _pil_chw(gif, "RGB"))
    webp = _encoded(RGB, "WEBP", lossless=True)
    decoded = fv.io.decode_image(facade.frombuffer(bytearray(webp), dtype=facade.uint8))
    np.testing.assert_array_equal(decoded.numpy(), RGB.transpose(2, 0, 1))

    image = facade.from_numpy(RGB.transpose(2, 0, 1).copy())
    png = fv.io.encode_png(image, compression_level=9)
    assert png.dtype == facade.uint8 and png.dim() == 1
    np.testing.assert_array_equal(_pil_chw(png.numpy().tobytes()), RGB.transpose(2, 0, 1))
    fv.io.write_png(image[:1], tmp_path / "grey.png")
    np.testing.assert_array_equal(fv.io.read_image(tmp_path / "grey.png").numpy(), RGB.transpose(2, 0, 1)[:1])
    smooth = np.broadcast_to(np.arange(0, 240, 10, dtype=np.uint8), (3, 16, 24)).copy()
    fv.io.write_jpeg(facade.from_numpy(smooth), tmp_path / "x.jpg", quality=95)
    round_trip = fv.io.read_image(tmp_path / "x.jpg").numpy().astype(int)
    assert round_trip.shape == smooth.shape and np.abs(round_trip - smooth).max() <= 8  # lossy: the same picture
    assert len(fv.io.encode_jpeg([image, image])) == 2


def test_io_errors(tmp_path):
    missing = tmp_path / "missing.png"
    with pytest.raises(RuntimeError, match=rf"^\[Errno 2\] No such file or directory: '{missing}'$"):
        fv.io.read_image(missing)
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(RuntimeError, match="^Expected a non empty file$"):
        fv.io.read_file(tmp_path / "empty.png")
    png = facade.frombuffer(bytearray(PNGS["RGB"]), dtype=facade.uint8)
    for bad, message in ((png.float(), "Expected a torch.uint8 tensor"),
                         (png[:0], "Expected a non empty 1-dimensional tensor"),
                         (png.view(1, -1), "Expected a non empty 1-dimensional tensor"),
                         (facade.zeros(20, dtype=facade.uint8),
                          "Unsupported image file. Only jpeg, png, webp and gif are currently supported.")):
        with pytest.raises(RuntimeError, match=f"^{message}$"):
            fv.io.decode_image(bad)
    with pytest.raises(RuntimeError, match="^Content is not png!$"):
        fv.io.decode_png(facade.frombuffer(bytearray(JPEGS["RGB"]), dtype=facade.uint8))
    with pytest.raises(RuntimeError, match=r"decode_png: the PNG data could not be decoded"):
        fv.io.decode_png(png[:40])
    image = facade.zeros(3, 4, 4, dtype=facade.uint8)
    with pytest.raises(ValueError, match="^Image quality should be a positive number between 1 and 100$"):
        fv.io.encode_jpeg(image, quality=0)
    with pytest.raises(RuntimeError, match="^Compression level should be between 0 and 9$"):
        fv.io.encode_png(image, compression_level=10)
    for bad, message in ((image.float(), "Input tensor dtype should be uint8"),
                         (image[0], "Input data should be a 3-dimensional tensor"),
                         (image[:2], "The number of channels should be 1 or 3, got: 2")):
        with pytest.raises(RuntimeError, match=f"^{message}$"):
            fv.io.encode_png(bad)
    with pytest.raises(KeyError):
        fv.io.decode_image(png, mode="CMYK")


def test_names_not_provided_raise():
    for make in (lambda: fv.datasets.SVHN("root"), lambda: fv.datasets.CelebA("root"),
                 lambda: fv.utils.draw_segmentation_masks(facade.zeros(3, 4, 4, dtype=facade.uint8), None),
                 lambda: fv.io.decode_avif(facade.zeros(4, dtype=facade.uint8))):
        with pytest.raises(NotImplementedError, match=r"^torchvision\.\w+\.\w+ is not supported by facade yet"):
            make()
    assert issubclass(fv.datasets.SVHN, fv.datasets.VisionDataset)
    assert set(tv.datasets.__all__) <= set(fv.datasets.__all__)
    assert set(tv.io.__all__) <= set(fv.io.__all__)
    assert set(tv.utils.__all__) - {"_Image_fromarray"} <= set(fv.utils.__all__)
