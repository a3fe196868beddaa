"""torchvision.transforms (and v2) of facade against real torchvision 0.28: conversions, the functional ops on PIL
images and tensors (uint8, float, batched), the transform classes, random-parameter semantics on facade's
generator, reprs, and torchvision's errors for bad input."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from PIL import Image

import facade
from facade.vision import transforms as FT
from facade.vision.transforms import functional as FF
from facade.vision.transforms import v2 as Fv2
from tests._torchvision import tv

TT, TF, Tv2 = tv.transforms, tv.transforms.functional, tv.transforms.v2
LIBS = {"tv": (torch, TT, TF), "facade": (facade, FT, FF)}

_rng = np.random.default_rng(0)
RGB = _rng.integers(0, 256, (11, 13, 3), dtype=np.uint8)  # (H, W, C)
F32 = (RGB.transpose(2, 0, 1) / np.float32(255)).astype(np.float32)  # in numpy, so both libraries start equal


def images(lib):
    """The same images for torch and facade: PIL RGB and L, uint8 and float (C, H, W), a float batch."""
    t = torch if lib is torch else facade
    return {"pil": Image.fromarray(RGB), "pilL": Image.fromarray(RGB[..., 0]),
            "u8": t.from_numpy(np.ascontiguousarray(RGB.transpose(2, 0, 1))), "f32": t.from_numpy(F32.copy()),
            "batch": t.from_numpy(np.stack([F32, F32[:, ::-1]]).copy())}


def plain(x):
    """A result as comparable plain data: (kind, dtype or mode, array)."""
    if isinstance(x, Image.Image):
        return ("PIL", x.mode, np.asarray(x))
    if isinstance(x, (tuple, list)):
        return [plain(y) for y in x]
    return ("tensor", str(x.dtype), np.asarray(x.numpy()))


def assert_same(got, expected, atol=2e-6, u8_atol=0):
    if isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, atol, u8_atol)
        return
    assert got[:2] == expected[:2]
    assert got[2].shape == expected[2].shape
    if np.issubdtype(expected[2].dtype, np.floating):
        np.testing.assert_allclose(got[2], expected[2], rtol=0, atol=atol)
    else:
        np.testing.assert_allclose(got[2].astype(np.int64), expected[2].astype(np.int64), rtol=0, atol=u8_atol)


def both(fn, **tol):
    """fn(torch, transforms, functional) for real torchvision and for facade, checked equal; facade's result."""
    expected = plain(fn(*LIBS["tv"]))
    got = plain(fn(*LIBS["facade"]))
    assert_same(got, expected, **tol)
    return got


def same_error(fn):
    """fn raises the same exception type and message under torchvision and facade."""
    with pytest.raises(Exception) as expected:
        fn(*LIBS["tv"])
    with pytest.raises(expected.type) as got:
        fn(*LIBS["facade"])
    # facade's Tensor class is torch.Tensor under the runner; its module path differs
    assert str(got.value).replace("facade._tensor.Tensor", "torch.Tensor") == str(expected.value)


# ---------------------------------------------------------------------------- conversions

PIL_MODES = ["RGB", "L", "1", "I", "F", "RGBA", "LA", "I;16"]


@pytest.mark.parametrize("mode", PIL_MODES)
def test_to_tensor_and_pil_to_tensor(mode):
    pic = Image.fromarray(RGB).convert(mode) if mode != "I;16" else Image.fromarray(RGB[..., 0].astype(np.uint16))
    both(lambda t, T, F: F.to_tensor(pic), atol=0)
    both(lambda t, T, F: T.PILToTensor()(pic), atol=0)


@pytest.mark.parametrize("arr", [RGB, RGB[..., 0], RGB.astype(np.float32), RGB[..., :2].astype(np.int32)],
                         ids=["u8", "u8_2d", "f32", "i32"])
def test_to_tensor_ndarray(arr):
    both(lambda t, T, F: T.ToTensor()(arr), atol=0)


def test_to_tensor_default_dtype():
    old = facade.get_default_dtype()
    try:
        facade.set_default_dtype(facade.float64)
        torch.set_default_dtype(torch.float64)
        both(lambda t, T, F: F.to_tensor(Image.fromarray(RGB)), atol=0)
    finally:
        facade.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("case", ["f32", "u8", "gray_u8", "gray_f32_F", "rgba", "la", "2d_i16", "i32", "hsv"])
def test_to_pil_image(case):
    def make(t, T, F):
        x = images(t)
        return {"f32": lambda: T.ToPILImage()(x["f32"]), "u8": lambda: F.to_pil_image(x["u8"]),
                "gray_u8": lambda: F.to_pil_image(x["u8"][:1]),
                "gray_f32_F": lambda: F.to_pil_image(x["f32"][:1], mode="F"),
                "rgba": lambda: F.to_pil_image(t.cat([x["u8"], x["u8"][:1]])),
                "la": lambda: F.to_pil_image(x["u8"][:2]),
                "2d_i16": lambda: F.to_pil_image(RGB[..., 0].astype(np.int16)),
                "i32": lambda: F.to_pil_image(x["u8"][:1].to(t.int32)),
                "hsv": lambda: F.to_pil_image(x["u8"], mode="HSV")}[case]()

    both(make, atol=0)


DTYPES = ["uint8", "int16", "int32", "float32", "float64"]


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_convert_image_dtype(src, dst):
    def convert(t, T, F):
        x = images(t)["u8"]
        x = F.convert_image_dtype(x, getattr(t, src)) if src != "uint8" else x
        return T.ConvertImageDtype(getattr(t, dst))(x)

    if (src, dst) == ("float32", "int32"):  # unsafe: float32 cannot hold every int32
        same_error(convert)
        return
    both(convert, atol=1e-7)  # int -> float divides on XLA, within an ulp of torch


def test_normalize():
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    both(lambda t, T, F: T.Normalize(mean, std)(images(t)["f32"]))
    both(lambda t, T, F: F.normalize(images(t)["batch"], mean, std))
    both(lambda t, T, F: F.normalize(images(t)["f32"].double(), [0.5], [0.25]))
    x = images(facade)["f32"]
    y = FF.normalize(x, mean, std, inplace=True)
    assert y is x


# ---------------------------------------------------------------------------- functional ops


def _fill3(x):
    return [1.0, 2.0, 3.0] if isinstance(x, (torch.Tensor, facade.Tensor)) and x.shape[-3] == 3 else None


OPS = {
    "resize": lambda F: lambda x: F.resize(x, [7, 5]),
    "resize_short_edge": lambda F: lambda x: F.resize(x, 17),
    "resize_max_size": lambda F: lambda x: F.resize(x, 6, max_size=8),
    "resize_nearest": lambda F: lambda x: F.resize(x, [7, 9], interpolation=F.InterpolationMode.NEAREST),
    "resize_bicubic_int": lambda F: lambda x: F.resize(x, [7, 9], interpolation=3),
    "resize_no_antialias": lambda F: lambda x: F.resize(x, [5, 6], antialias=False) if not isinstance(
        x, Image.Image) else F.resize(x, [5, 6]),
    "center_crop": lambda F: lambda x: F.center_crop(x, [5, 8]),
    "center_crop_padded": lambda F: lambda x: F.center_crop(x, 14),
    "crop_outside": lambda F: lambda x: F.crop(x, -2, 3, 6, 14),
    "pad_constant": lambda F: lambda x: F.pad(x, [1, 2, 3, 4], fill=7),
    "pad_edge": lambda F: lambda x: F.pad(x, 2, padding_mode="edge"),
    "pad_reflect": lambda F: lambda x: F.pad(x, [2, 1], padding_mode="reflect"),
    "pad_symmetric": lambda F: lambda x: F.pad(x, [2, 1, -1, 3], padding_mode="symmetric"),
    "hflip": lambda F: F.hflip,
    "vflip": lambda F: F.vflip,
    "rotate": lambda F: lambda x: F.rotate(x, 37.0),
    "rotate_expand_bilinear_fill": lambda F: lambda x: F.rotate(x, 45, interpolation=2, expand=True, fill=_fill3(x)),
    "rotate_center": lambda F: lambda x: F.rotate(x, -20.0, center=[2, 3]),
    "affine": lambda F: lambda x: F.affine(x, 15.0, [1, -2], 1.2, [5.0, 3.0]),
    "perspective": lambda F: lambda x: F.perspective(x, [[0, 0], [12, 0], [12, 10], [0, 10]],
                                                     [[1, 2], [11, 0], [10, 9], [2, 10]]),
    "resized_crop": lambda F: lambda x: F.resized_crop(x, 1, 2, 8, 9, [6, 6]),
    "brightness": lambda F: lambda x: F.adjust_brightness(x, 1.3),
    "contrast": lambda F: lambda x: F.adjust_contrast(x, 0.6),
    "saturation": lambda F: lambda x: F.adjust_saturation(x, 1.7),
    "hue": lambda F: lambda x: F.adjust_hue(x, 0.2),
    "gamma": lambda F: lambda x: F.adjust_gamma(x, 0.7),
    "sharpness": lambda F: lambda x: F.adjust_sharpness(x, 1.8),
    "grayscale": lambda F: lambda x: F.rgb_to_grayscale(x),
    "grayscale3": lambda F: lambda x: F.rgb_to_grayscale(x, 3),
    "gaussian_blur": lambda F: lambda x: F.gaussian_blur(x, [3, 5], [0.8, 1.3]),
    "invert": lambda F: F.invert,
    "autocontrast": lambda F: F.autocontrast,
    "five_crop": lambda F: lambda x: F.five_crop(x, 4),
    "ten_crop": lambda F: lambda x: F.ten_crop(x, [4, 5], vertical_flip=True),
    "erase": lambda F: lambda x: F.erase(x, 1, 2, 3, 4, 0) if not isinstance(x, Image.Image) else x,
    "dimensions": lambda F: lambda x: (F.get_dimensions(x), F.get_image_size(x), F.get_image_num_channels(x)),
}
_FAST = {"pil", "u8", "f32"}  # the batched / grayscale inputs for the ops that treat them differently
_ALL_KINDS = {"resize", "rotate_expand_bilinear_fill", "hue", "grayscale", "pad_symmetric", "gaussian_blur",
              "contrast", "perspective"}


@pytest.mark.parametrize("op", sorted(OPS))
def test_functional_op(op):
    kinds = ["pil", "pilL", "u8", "f32", "batch"] if op in _ALL_KINDS else sorted(_FAST)
    for kind in kinds:
        def run(t, T, F, kind=kind):
            return OPS[op](F)(images(t)[kind])

        if op == "dimensions":
            x, y = (OPS[op](F)(images(t)[kind]) for t, _, F in LIBS.values())
            assert x == y
            continue
        # uint8 tensor resizes round a float result: a value within an ulp of .5 may round the other way
        both(run, atol=2e-6, u8_atol=1 if op.startswith(("resize", "resized")) and kind == "u8" else 0)


def test_uint8_ops_exact_except_rounding_ties():
    x, y = (F.resize(images(t)["u8"], 17) for t, _, F in LIBS.values())
    assert (x.numpy() != np.asarray(y.numpy())).sum() <= 2


# ---------------------------------------------------------------------------- transform classes


def test_pipeline_classes():
    def pipeline(t, T, F):
        return T.Compose([T.Resize(9), T.CenterCrop(8), T.Pad([1, 2], fill=3, padding_mode="constant"),
                          T.Grayscale(3), T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3),
                          T.Lambda(lambda x: x * 2)])(Image.fromarray(RGB))

    both(pipeline, atol=1e-5)
    both(lambda t, T, F: T.Compose([T.PILToTensor(), T.ConvertImageDtype(t.float32), T.ToPILImage()])(
        Image.fromarray(RGB)), atol=0)
    both(lambda t, T, F: T.GaussianBlur(3, sigma=0.7)(images(t)["u8"]))
    both(lambda t, T, F: T.Resize([6, 4], interpolation=T.InterpolationMode.NEAREST_EXACT)(images(t)["u8"]))


def test_v2_matches_v1_and_torchvision():
    def v2_pipeline(v2, t):
        return v2.Compose([v2.ToImage(), v2.ToDtype(t.float32, scale=True), v2.Resize(8), v2.CenterCrop(7),
                           v2.Normalize([0.5] * 3, [0.2] * 3)])

    expected = v2_pipeline(Tv2, torch)(Image.fromarray(RGB))
    got = v2_pipeline(Fv2, facade)(Image.fromarray(RGB))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-5, rtol=0)
    # v2 resizes uint8 tensors natively on torch's CPU (fixed point); facade resizes in float32 and rounds (as v1)
    x, y = (v2.Resize(8)(images(t)["u8"]) for v2, t in ((Tv2, torch), (Fv2, facade)))
    np.testing.assert_allclose(np.asarray(y.numpy()).astype(int), x.numpy().astype(int), atol=1, rtol=0)
    for dtype in ("float32", "int16", "uint8"):
        x, y = (v2.ToDtype(getattr(t, dtype), scale=True)(images(t)["u8"]) for v2, t in ((Tv2, torch), (Fv2, facade)))
        assert str(x.dtype) == str(y.dtype)
        np.testing.assert_array_equal(x.numpy(), np.asarray(y.numpy()))  # v2 multiplies by 1/255: exact here
    assert Fv2.ToImage()(RGB[..., 0]).shape == (1, 11, 13)
    # a v2 sample: the image is transformed, the label passes through
    img, label = Fv2.RandomHorizontalFlip(p=1.0)(Image.fromarray(RGB), 3)
    assert label == 3 and np.array_equal(np.asarray(img), RGB[:, ::-1])
    sample = Fv2.Compose([Fv2.PILToTensor(), Fv2.ToDtype(facade.float32)])({"image": Image.fromarray(RGB), "y": 1})
    assert sample["y"] == 1 and sample["image"].dtype == facade.float32
    assert Fv2.functional.to_dtype(images(facade)["u8"], facade.float32).max().item() == 255.0


def test_reprs():
    for make in (lambda T, t: T.Compose([T.Resize(8), T.CenterCrop(4), T.ToTensor(), T.Normalize([0.5], [0.5])]),
                 lambda T, t: T.RandomApply([T.RandomHorizontalFlip(), T.RandomVerticalFlip(0.3)], p=0.4),
                 lambda T, t: T.RandomResizedCrop(5, scale=(0.5, 1.0)),
                 lambda T, t: T.RandomRotation(10, expand=True), lambda T, t: T.ColorJitter(0.2, 0.3, 0.1, 0.05),
                 lambda T, t: T.RandomCrop(4, padding=2), lambda T, t: T.Pad(3), lambda T, t: T.Grayscale(),
                 lambda T, t: T.GaussianBlur(5), lambda T, t: T.RandomPosterize(3, p=0.2),
                 lambda T, t: T.RandomAffine(5, translate=(0.1, 0.2), fill=1), lambda T, t: T.ToPILImage("RGB"),
                 lambda T, t: T.RandomChoice([T.Grayscale(), T.RandomGrayscale()], p=[0.3, 0.7]),
                 lambda T, t: T.RandomErasing(), lambda T, t: T.Resize((3, 4), interpolation=0)):
        assert repr(make(FT, facade)) == repr(make(TT, torch))


# ---------------------------------------------------------------------------- random parameters


def _draws(transform, img, seed=0, n=4):
    facade.manual_seed(seed)
    return [plain(transform(img)) for _ in range(n)]


def test_random_flip_and_apply_probabilities():
    img = images(facade)["u8"]
    for T in (FT, Fv2):
        assert np.array_equal(T.RandomHorizontalFlip(p=1.0)(img).numpy(), FF.hflip(img).numpy())
        assert T.RandomVerticalFlip(p=0.0)(img) is img
    assert FT.RandomApply([FT.Lambda(lambda x: x + 1)], p=0.0)(img) is img
    assert np.array_equal(FT.RandomApply([FT.Lambda(lambda x: x + 1)], p=1.0)(img).numpy(), (img + 1).numpy())
    assert FT.RandomGrayscale(p=1.0)(Image.fromarray(RGB)).mode == "RGB"
    facade.manual_seed(1)
    flips = [not np.array_equal(FT.RandomHorizontalFlip()(img).numpy(), img.numpy()) for _ in range(40)]
    assert 5 < sum(flips) < 35


def test_random_transforms_follow_the_seed_and_their_params():
    img = images(facade)["u8"]
    pil = Image.fromarray(RGB)
    for t in (FT.RandomCrop(6, padding=1), FT.RandomResizedCrop(5), FT.RandomRotation(30),
              FT.ColorJitter(0.4, 0.4, 0.4, 0.1), FT.GaussianBlur(3), FT.RandomAffine(10, (0.1, 0.1), (0.9, 1.1), 5),
              FT.RandomPerspective(p=1.0), FT.RandomErasing(p=1.0, value="random")):
        x = img.float() / 255 if isinstance(t, FT.RandomErasing) else img
        first, again = _draws(t, x), _draws(t, x)
        assert_same(again, first)
        assert any(a[2].shape != first[0][2].shape or not np.array_equal(a[2], first[0][2]) for a in first[1:])
        if not isinstance(t, FT.RandomErasing):
            _draws(t, pil)  # PIL images take the same path

    facade.manual_seed(3)
    i, j, h, w = FT.RandomCrop.get_params(img, (6, 7))
    assert 0 <= i <= 5 and 0 <= j <= 6 and (h, w) == (6, 7)
    facade.manual_seed(3)
    assert np.array_equal(FT.RandomCrop((6, 7))(img).numpy(), FF.crop(img, i, j, h, w).numpy())

    facade.manual_seed(4)
    for _ in range(20):
        i, j, h, w = FT.RandomResizedCrop.get_params(img, [0.3, 1.0], [0.75, 4 / 3])
        assert 0 <= i and i + h <= 11 and 0 <= j and j + w <= 13
    facade.manual_seed(5)
    angle = FT.RandomRotation.get_params([-30.0, 30.0])
    facade.manual_seed(5)
    assert -30 <= angle <= 30
    assert np.array_equal(FT.RandomRotation(30)(img).numpy(), FF.rotate(img, angle).numpy())

    facade.manual_seed(6)
    order, *factors = FT.ColorJitter.get_params((0.5, 1.5), (0.6, 1.4), None, (-0.1, 0.1))
    assert sorted(order.tolist()) == [0, 1, 2, 3] and factors[2] is None
    assert 0.5 <= factors[0] <= 1.5 and 0.6 <= factors[1] <= 1.4 and -0.1 <= factors[3] <= 0.1
    facade.manual_seed(6)
    out = FT.ColorJitter((0.5, 1.5), (0.6, 1.4), 0, (-0.1, 0.1))(img)
    expected = img
    adjust = [FF.adjust_brightness, FF.adjust_contrast, FF.adjust_saturation, FF.adjust_hue]
    for k in order.tolist():
        expected = adjust[k](expected, factors[k]) if factors[k] is not None else expected
    assert np.array_equal(out.numpy(), expected.numpy())


def test_random_choice_and_order_use_python_random():
    ts = [FT.Lambda(lambda x: x + [1]), FT.Lambda(lambda x: x + [2]), FT.Lambda(lambda x: x + [3])]
    random.seed(0)
    chosen = [FT.RandomChoice(ts)([]) for _ in range(10)]
    random.seed(0)
    assert chosen == [random.choices(ts)[0]([]) for _ in range(10)]
    random.seed(0)
    ordered = FT.RandomOrder(ts)([])
    random.seed(0)
    order = list(range(3))
    random.shuffle(order)
    assert ordered == [k + 1 for k in order]


# ---------------------------------------------------------------------------- errors

ERRORS = {
    "normalize_std_zero": lambda t, T, F: T.Normalize([0.5, 0.5, 0.5], [0.5, 0.0, 0.5])(images(t)["f32"]),
    "normalize_int": lambda t, T, F: F.normalize(images(t)["u8"], [0.5], [0.5]),
    "normalize_ndim": lambda t, T, F: F.normalize(images(t)["f32"][0], [0.5], [0.5]),
    "normalize_pil": lambda t, T, F: F.normalize(Image.fromarray(RGB), [0.5], [0.5]),
    "random_crop_too_big": lambda t, T, F: T.RandomCrop(20)(images(t)["u8"]),
    "random_crop_too_big_pil": lambda t, T, F: T.RandomCrop((5, 30))(Image.fromarray(RGB)),
    "to_tensor_type": lambda t, T, F: T.ToTensor()(images(t)["u8"]),
    "to_tensor_ndim": lambda t, T, F: F.to_tensor(np.zeros((2, 2, 2, 2), np.uint8)),
    "pil_to_tensor_type": lambda t, T, F: F.pil_to_tensor(RGB),
    "to_pil_channels": lambda t, T, F: F.to_pil_image(np.zeros((4, 4, 5), np.uint8)),
    "to_pil_ndim": lambda t, T, F: F.to_pil_image(np.zeros((2, 2, 2, 2), np.uint8)),
    "to_pil_mode": lambda t, T, F: F.to_pil_image(images(t)["u8"], mode="RGBA"),
    "to_pil_type": lambda t, T, F: F.to_pil_image([1, 2]),
    "to_pil_dtype": lambda t, T, F: F.to_pil_image(np.zeros((2, 2, 3), np.int64)),
    "convert_unsafe": lambda t, T, F: F.convert_image_dtype(images(t)["f32"], t.int64),
    "resize_size_len": lambda t, T, F: F.resize(images(t)["u8"], [1, 2, 3]),
    "resize_max_size": lambda t, T, F: F.resize(images(t)["u8"], 8, max_size=8),
    "resize_max_size_pair": lambda t, T, F: F.resize(images(t)["u8"], [8, 9], max_size=10),
    "resize_interpolation": lambda t, T, F: F.resize(images(t)["u8"], 5, interpolation="bilinear"),
    "rotate_tensor_bicubic": lambda t, T, F: F.rotate(images(t)["u8"], 5.0, interpolation=T.InterpolationMode.BICUBIC),
    "Resize_type": lambda t, T, F: T.Resize(2.5),
    "Resize_len": lambda t, T, F: T.Resize([1, 2, 3]),
    "CenterCrop_len": lambda t, T, F: T.CenterCrop([1, 2, 3]),
    "pad_mode": lambda t, T, F: F.pad(images(t)["u8"], 2, padding_mode="wrap"),
    "pad_len": lambda t, T, F: F.pad(Image.fromarray(RGB), [1, 2, 3]),
    "Pad_fill": lambda t, T, F: T.Pad(2, fill="red"),
    "brightness_negative": lambda t, T, F: F.adjust_brightness(images(t)["u8"], -1.0),
    "hue_range": lambda t, T, F: F.adjust_hue(Image.fromarray(RGB), 0.7),
    "gray_channels": lambda t, T, F: F.rgb_to_grayscale(images(t)["u8"][:2]),
    "gray_output": lambda t, T, F: F.rgb_to_grayscale(images(t)["u8"], 2),
    "gray_ndim": lambda t, T, F: F.rgb_to_grayscale(images(t)["u8"][0]),
    "not_an_image": lambda t, T, F: F.hflip(images(t)["u8"][0, 0]),
    "hflip_type": lambda t, T, F: F.hflip(RGB),
    "blur_even": lambda t, T, F: F.gaussian_blur(images(t)["u8"], 4),
    "blur_sigma": lambda t, T, F: F.gaussian_blur(images(t)["u8"], 3, -1.0),
    "GaussianBlur_even": lambda t, T, F: T.GaussianBlur(4),
    "GaussianBlur_sigma": lambda t, T, F: T.GaussianBlur(3, sigma=(2.0, 1.0)),
    "ColorJitter_negative": lambda t, T, F: T.ColorJitter(brightness=-0.5),
    "ColorJitter_hue": lambda t, T, F: T.ColorJitter(hue=0.8),
    "ColorJitter_type": lambda t, T, F: T.ColorJitter(contrast=[1, 2, 3]),
    "RandomRotation_negative": lambda t, T, F: T.RandomRotation(-5),
    "RandomRotation_center": lambda t, T, F: T.RandomRotation(5, center=[1]),
    "RandomRotation_fill": lambda t, T, F: T.RandomRotation(5, fill=object()),
    "rotate_angle": lambda t, T, F: F.rotate(images(t)["u8"], "30"),
    "rotate_fill_channels": lambda t, T, F: F.rotate(images(t)["u8"], 30.0, fill=[1.0, 2.0]),
    "RandomResizedCrop_scale": lambda t, T, F: T.RandomResizedCrop(4, scale=0.5),
    "Lambda_callable": lambda t, T, F: T.Lambda(3),
    "RandomChoice_p": lambda t, T, F: T.RandomChoice([T.Grayscale()], p=0.5),
    "RandomErasing_value": lambda t, T, F: T.RandomErasing(value="zero"),
    "five_crop_big": lambda t, T, F: F.five_crop(images(t)["u8"], 12),
    "ToDtype_type": lambda t, T, F: (Tv2 if t is torch else Fv2).ToDtype("float32"),
    "v2_to_dtype_unsafe": lambda t, T, F: (Tv2 if t is torch else Fv2).ToDtype(t.int32, scale=True)(
        images(t)["f32"]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    same_error(ERRORS[case])


def test_missing_names_raise():
    with pytest.raises(NotImplementedError, match="AutoAugment"):
        FT.AutoAugment()
    with pytest.raises(NotImplementedError, match="equalize on tensors"):
        FF.equalize(images(facade)["u8"])
    np.testing.assert_array_equal(np.asarray(FF.equalize(Image.fromarray(RGB))),
                                  np.asarray(TF.equalize(Image.fromarray(RGB))))


def test_v2_functional_kernel_names():
    Tv2F = Tv2.functional
    for name in ("get_size", "get_num_channels", "horizontal_flip", "resize_image", "normalize_image"):
        assert hasattr(Tv2F, name) and hasattr(Fv2.functional, name)
    x, y = images(torch)["f32"], images(facade)["f32"]
    assert Fv2.functional.get_size(y) == Tv2F.get_size(x)
    assert Fv2.functional.get_num_channels(y) == Tv2F.get_num_channels(x)
    np.testing.assert_array_equal(Fv2.functional.vertical_flip(y).numpy(), Tv2F.vertical_flip(x).numpy())
    np.testing.assert_allclose(Fv2.functional.resize_image(y, [5, 6]).numpy(), Tv2F.resize_image(x, [5, 6]).numpy(),
                               atol=2e-6, rtol=0)
