"""Convolution, padding, fold, shuffle and flatten modules against torch (outputs, gradients, repr, default
init), their signatures, the lazy variants, and torch's error messages. The functions are covered by
tests/opinfo/nn_conv.py."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import facade

from ._nn import check_init, check_module, copy_weights

FILES = {
    "conv": ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
             "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"],
    "padding": [f"{k}Pad{n}d" for k in ("Zero", "Constant", "Reflection", "Replication", "Circular")
                for n in (1, 2, 3)],
    "fold": ["Fold", "Unfold"], "pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "channelshuffle": ["ChannelShuffle"], "flatten": ["Flatten", "Unflatten"],
}


def _params(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("file,name", [(f, n) for f, names in FILES.items() for n in names])
def test_signature_and_constants(file, name):
    t, f = getattr(torch.nn, name), getattr(facade.nn, name)
    assert _params(f) == _params(t)
    assert getattr(f, "__constants__", None) == getattr(t, "__constants__", None)
    assert f.__module__ == f"facade.nn.modules.{file}" and f.__name__ == name
    assert [c.__name__ for c in f.__mro__ if not c.__name__.startswith("_")] == \
        [c.__name__ for c in t.__mro__ if not c.__name__.startswith("_")]


def _x(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


CONV = [
    ("Conv1d", (3, 4, 3), {}, _x(2, 3, 7)), ("Conv1d", (4, 6, 2), {"stride": 2, "groups": 2, "bias": False},
                                              _x(4, 9)),
    ("Conv2d", (3, 4, 3), {}, _x(2, 3, 6, 5)), ("Conv2d", (3, 4, (3, 2)), {"padding": "same", "dilation": 2},
                                                 _x(1, 3, 6, 6)),
    ("Conv2d", (2, 4, 3), {"padding": 1, "padding_mode": "reflect"}, _x(1, 2, 5, 5)),
    ("Conv2d", (2, 4, 3), {"padding": (1, 2), "padding_mode": "replicate", "stride": (2, 1)}, _x(2, 5, 5)),
    ("Conv2d", (2, 4, 3), {"padding": "same", "padding_mode": "circular"}, _x(1, 2, 5, 4)),
    ("Conv3d", (2, 3, 2), {"padding": 1, "padding_mode": "zeros"}, _x(1, 2, 3, 4, 4)),
    ("ConvTranspose1d", (3, 4, 3), {"stride": 2, "output_padding": 1}, _x(2, 3, 5)),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "groups": 2, "dilation": 2}, _x(1, 4, 4, 3)),
    ("ConvTranspose2d", (3, 2, (2, 3)), {"bias": False}, _x(3, 4, 4)),
    ("ConvTranspose3d", (2, 3, 2), {"stride": (1, 2, 2)}, _x(1, 2, 3, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,x", CONV, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CONV])
def test_conv_module(name, args, kwargs, x):
    check_module("nn." + name, args, kwargs, (x,), steps=2 if name == "Conv2d" and not kwargs else 1, rtol=1e-4,
                 atol=1e-5)


@pytest.mark.parametrize("output_size", [(9, 10), [1, 2, 10, 9], facade.Size([10, 10])])
def test_conv_transpose_output_size(output_size):
    size = list(output_size)
    check_module("nn.ConvTranspose2d", (3, 2, 3), {"stride": 2}, (_x(1, 3, 4, 4),), rtol=1e-4, atol=1e-5,
                 call=lambda m, x: m(x, output_size=size))
    with pytest.raises(ValueError, match=r"requested an output size of \[11, 9\], but valid sizes range from "
                                         r"\[9, 9\] to \[10, 10\]"):
        facade.nn.ConvTranspose2d(3, 2, 3, stride=2)(facade.ones(1, 3, 4, 4), output_size=(11, 9))


@pytest.mark.parametrize("name,args", [("Conv1d", (4, 64, 3)), ("Conv2d", (6, 64, 3, 1, 0, 1, 2)),
                                       ("Conv3d", (2, 64, 2)), ("ConvTranspose2d", (6, 64, 3))])
def test_init(name, args):
    check_init("nn." + name, args, draws=40)


@pytest.mark.parametrize("name,args,x", [("LazyConv1d", (4, 3), _x(2, 3, 6)), ("LazyConv2d", (4, 3, 1, 1), _x(3, 5, 5)),
                                         ("LazyConv3d", (2, 2), _x(1, 2, 3, 3, 3)),
                                         ("LazyConvTranspose1d", (4, 3), _x(2, 3, 6)),
                                         ("LazyConvTranspose2d", (4, 3, 2), _x(3, 4, 5)),
                                         ("LazyConvTranspose3d", (2, 2), _x(1, 2, 3, 3, 3))])
def test_lazy_conv(name, args, x):
    t, f = getattr(torch.nn, name)(*args), getattr(facade.nn, name)(*args)
    assert repr(f) == repr(t) and f.has_uninitialized_params()
    t(torch.tensor(x))
    out = f(facade.tensor(x))
    assert type(f).__name__ == type(t).__name__ == name[4:] and repr(f) == repr(t)
    assert {k: tuple(v.shape) for k, v in f.state_dict().items()} == {k: tuple(v.shape) for k, v in
                                                                       t.state_dict().items()}
    assert tuple(out.shape) == tuple(t(torch.tensor(x)).shape)
    copy_weights(t, f)
    np.testing.assert_allclose(f(facade.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), atol=1e-5)


SIMPLE = [
    ("ZeroPad1d", (2,), _x(2, 3)), ("ZeroPad2d", ((1, 0, 2, 1),), _x(1, 2, 3, 3)), ("ZeroPad3d", (1,), _x(2, 2, 2, 2)),
    ("ConstantPad1d", ((1, 2), 3.5), _x(2, 3)), ("ConstantPad2d", (1, -1.0), _x(2, 3, 3)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 0), 2.0), _x(1, 1, 2, 2, 2)), ("ReflectionPad1d", (2,), _x(2, 4)),
    ("ReflectionPad2d", ((1, 2, 0, 1),), _x(1, 2, 3, 4)), ("ReflectionPad3d", (1,), _x(1, 2, 2, 3, 3)),
    ("ReplicationPad1d", ((3, 1),), _x(1, 2, 3)), ("ReplicationPad2d", (2,), _x(2, 3, 3)),
    ("ReplicationPad3d", ((1, 0, 2, 0, 0, 1),), _x(2, 2, 2, 2)), ("CircularPad1d", (2,), _x(2, 4)),
    ("CircularPad2d", ((1, 0, 2, 1),), _x(1, 2, 3, 3)), ("CircularPad3d", (1,), _x(1, 1, 2, 3, 3)),
    ("Fold", ((4, 5), 2), _x(2, 12, 12)), ("Fold", (3, (2, 2), 1, 1, 2), _x(8, 4)),
    ("Unfold", (2,), _x(2, 3, 4, 5)), ("Unfold", ((2, 3), 1, (1, 0), 2), _x(3, 4, 5)),
    ("PixelShuffle", (2,), _x(1, 8, 2, 3)), ("PixelUnshuffle", (2,), _x(1, 2, 4, 6)),
    ("ChannelShuffle", (3,), _x(2, 6, 2, 2)), ("Flatten", (), _x(2, 3, 4)), ("Flatten", (0, 1), _x(2, 3, 4)),
    ("Unflatten", (1, (2, -1)), _x(3, 6)), ("Unflatten", (-1, [2, 2]), _x(3, 4)),
]


@pytest.mark.parametrize("name,args,x", SIMPLE, ids=[f"{c[0]}{c[1]}" for c in SIMPLE])
def test_simple_module(name, args, x):
    check_module("nn." + name, args, {}, (x,))


def _raises(exc, match, fn, *args, **kwargs):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_conv_errors():
    F, ones = facade.nn.functional, facade.ones
    _raises(RuntimeError, r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: "
            r"\[2, 3\]", F.conv2d, ones(2, 3), ones(4, 3, 3, 3))
    _raises(RuntimeError, r"Given groups=1, weight of size \[4, 3, 3, 3\], expected input\[1, 2, 5, 5\] to have 3 "
            "channels, but got 2 channels instead", F.conv2d, ones(1, 2, 5, 5), ones(4, 3, 3, 3))
    _raises(RuntimeError, "padding='same' is not supported for strided convolutions", F.conv2d, ones(1, 3, 5, 5),
            ones(4, 3, 3, 3), stride=2, padding="same")
    _raises(RuntimeError, "Invalid padding string: 'foo'", F.conv1d, ones(1, 3, 5), ones(4, 3, 3), padding="foo")
    _raises(RuntimeError, r"Given transposed=1, weight of size \[3, 4, 3, 3\], expected input\[1, 2, 5, 5\] to have "
            "3 channels, but got 2 channels instead", F.conv_transpose2d, ones(1, 2, 5, 5), ones(3, 4, 3, 3))
    _raises(RuntimeError, r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\). Kernel size "
            "can't be greater than actual input size", F.conv2d, ones(1, 3, 2, 2), ones(4, 3, 3, 3))
    _raises(RuntimeError, "output padding must be smaller than either stride or dilation, but got "
            "output_padding_height: 2 output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 "
            "dilation_width: 1", F.conv_transpose2d, ones(1, 3, 5, 5), ones(3, 4, 3, 3), stride=2, output_padding=2)
    _raises(RuntimeError, "expected scalar type Float but found Double", F.conv2d, ones(1, 3, 5, 5),
            ones(4, 3, 3, 3, dtype=facade.float64))
    _raises(RuntimeError, r"Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
            r"size \[\[3, 2, 3, 3\]\] instead", F.conv2d, ones(1, 4, 5, 5), ones(3, 2, 3, 3), groups=2)
    _raises(TypeError, "conv_transpose2d\\(\\): argument 'padding' must be tuple of ints, not str",
            F.conv_transpose2d, ones(1, 3, 5, 5), ones(3, 4, 3, 3), padding="same")
    _raises(RuntimeError, r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d, but got input of size: "
            r"\[1, 3, 5, 5, 5, 5\]", facade.nn.Conv3d(3, 4, 3), ones(1, 3, 5, 5, 5, 5))
    nn = facade.nn
    _raises(ValueError, "groups must be a positive integer", nn.Conv2d, 3, 4, 3, groups=0)
    _raises(ValueError, "in_channels must be divisible by groups", nn.Conv2d, 3, 4, 3, groups=2)
    _raises(ValueError, "out_channels must be divisible by groups", nn.Conv2d, 4, 3, 3, groups=2)
    _raises(ValueError, "Invalid padding string 'full', should be one of", nn.Conv2d, 3, 4, 3, padding="full")
    _raises(ValueError, "padding='same' is not supported for strided convolutions", nn.Conv1d, 3, 4, 3, 2, "same")
    _raises(ValueError, "padding_mode must be one of .*, but got padding_mode='edge'", nn.Conv2d, 3, 4, 3,
            padding_mode="edge")
    _raises(ValueError, 'Only "zeros" padding mode is supported for ConvTranspose2d', nn.ConvTranspose2d, 3, 4, 3,
            padding_mode="reflect")


def test_pad_errors():
    F, ones = facade.nn.functional, facade.ones
    _raises(RuntimeError, "Padding length must be divisible by 2", F.pad, ones(2, 3), (1, 2, 3))
    _raises(RuntimeError, "Padding length should be less than or equal to two times the input dimension but got "
            "padding length 6 and input of dimension 2", F.pad, ones(2, 3), (1,) * 6)
    _raises(NotImplementedError, "Unrecognised padding mode foo", F.pad, ones(2, 3), (1, 1), mode="foo")
    _raises(RuntimeError, 'Padding mode "reflect" doesn\'t take in value argument', F.pad, ones(2, 3), (1, 1),
            mode="reflect", value=1.0)
    _raises(NotImplementedError, "Padding size 2 is not supported for 4D input tensor", F.pad, ones(1, 3, 5, 5),
            (1, 1), mode="reflect")
    _raises(RuntimeError, r"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
            r"padding \(3, 1\) at dimension 1 of input \[2, 3\]", F.pad, ones(2, 3), (3, 1), mode="reflect")
    _raises(RuntimeError, r"Argument #6: Padding size should be less than the corresponding input dimension, but got: "
            r"padding \(2, 1\) at dimension 1 of input \[1, 2, 3\]", F.pad, ones(1, 2, 3), (1, 1, 2, 1),
            mode="reflect")
    _raises(RuntimeError, r"input \(W: 3\) is too small. Calculated output W: 0", F.pad, ones(1, 1, 3), (-2, -1),
            mode="replicate")
    _raises(RuntimeError, "Padding value causes wrapping around more than once.", F.pad, ones(2, 2, 3), (4, 1),
            mode="circular")
    _raises(RuntimeError, "Expected 2D or 3D \\(batch mode\\) tensor with possibly 0 batch size and other non-zero "
            "dimensions for input, but got: \\[2, 2, 0\\]", F.pad, ones(2, 2, 0), (1, 1), mode="replicate")
    _raises(TypeError, "pad\\(\\): argument 'pad' \\(position 2\\) must be tuple of ints, but found element of type "
            "float at pos 0", F.pad, ones(2, 3), (1.5, 1))
    _raises(ValueError, r"expected 2D or 3D input \(got 4D input\)", facade.nn.CircularPad1d(1), ones(1, 1, 2, 3))


def test_fold_shuffle_flatten_errors():
    F, ones, nn = facade.nn.functional, facade.ones, facade.nn
    _raises(RuntimeError, r"Given input with spatial size \(3, 4\), kernel_size=\(5, 5\), dilation=\(1, 1\), "
            r"padding=\(0, 0\), calculated shape of the array of sliding blocks as \(-1, 0\), but its components must "
            "be at least one.", F.unfold, ones(1, 2, 3, 4), 5)
    _raises(RuntimeError, "stride should be greater than zero, but got stride_height: 0 stride_width: 0", F.fold,
            ones(1, 12, 4), (3, 3), 2, stride=0)
    _raises(RuntimeError, r"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
            r"got input.size\(1\)=11 and kernel_size=\(2, 2\).", F.fold, ones(1, 11, 4), (3, 3), 2)
    _raises(RuntimeError, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            r"upscale_factor, but input.size\(-3\)=5 is not divisible by 4", nn.PixelShuffle(2), ones(1, 5, 2, 2))
    _raises(RuntimeError, r"pixel_unshuffle expects height to be divisible by downscale_factor, but "
            r"input.size\(-2\)=3 is not divisible by 2", F.pixel_unshuffle, ones(1, 1, 3, 4), 2)
    _raises(RuntimeError, "Number of channels must be divisible by groups. Got 5 channels and 2 groups.",
            nn.ChannelShuffle(2), ones(1, 5, 2, 2))
    _raises(RuntimeError, r"channel_shuffle expects input with > 2 dims, but got input with sizes \[1, 4\]",
            facade.channel_shuffle, ones(1, 4), 2)
    _raises(TypeError, "unflattened_size must be a tuple of ints, but found type int", nn.Unflatten, 1, 3)
    _raises(TypeError, "unflattened_size must be tuple of ints, but found element of type float at pos 0",
            nn.Unflatten, 1, (3.0, 1))
    _raises(IndexError, r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)", nn.Flatten(),
            ones(3))


def test_grad_fn_names():
    F = facade.nn.functional
    x = facade.ones(1, 3, 5, 5, requires_grad=True)
    names = {
        "ConvolutionBackward0": F.conv2d(x, facade.ones(4, 3, 3, 3)),
        "SqueezeBackward1": F.conv2d(x[0], facade.ones(4, 3, 3, 3)),
        "ConstantPadNdBackward0": F.pad(x, (1, 1)), "ReflectionPad2DBackward0": F.pad(x, (1, 1, 1, 1), "reflect"),
        "ReplicationPad1DBackward0": F.pad(x[0], (1, 1), "replicate"), "Im2ColBackward0": F.unfold(x, 2),
        "PixelShuffleBackward0": F.pixel_shuffle(x, 1), "ChannelShuffleBackward0": F.channel_shuffle(x, 3),
    }
    for name, out in names.items():
        assert type(out.grad_fn).__name__ == name
