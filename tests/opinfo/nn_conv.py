"""OpInfo entries for torch.nn.functional's linear maps, convolutions, padding, fold/unfold and shuffles.

Bad arguments are samples too: where torch raises, the generic test checks facade raises the same type."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64 = np.float32, np.float64


def S(*args, **kwargs):
    return Sample(args, kwargs)


def _linear(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [
        S(a(2, 3), a(4, 3), a(4)), S(a(2, 3), a(4, 3)), S(a(3), a(4, 3), a(4)), S(a(3), a(4, 3)),
        S(a(2, 5, 3), a(4, 3), a(4)), S(a(2, 5, 3), a(4, 3)), S(a(2, 3, d=F64), a(4, 3, d=F64), a(4, d=F64)),
        S(a(0, 3), a(4, 3), a(4)), S(a(2, 0), a(4, 0), a(4)), S(a(3), a(3)), S(a(2, 3), a(3)), S(a(3), a(3), a()),
        S(a(2, 3), a(4, 3), bias=a(2, 4)), S(input=a(2, 3), weight=a(4, 3), bias=None),
        S(Arg(a(4, 3), transpose=True), a(5, 3), a(5)),
        S(arr(rng, (2, 3), np.int64), arr(rng, (4, 3), np.int64)),
        # torch refuses:
        S(a(2, 3), a(5, 4)), S(a(2, 3), a(5, 3), a(4)), S(a(), a(5, 4)), S(a(2, 3), a(5, 3, 1)),
        S(a(2, 3), a(3), a(2)), S(a(2, 3), a(4, 3, d=F64)), S(a(2, 3), a(4, 3), a(4, d=F64)), S(a(3), a(4)),
    ]


def _bilinear(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [
        S(a(2, 3), a(2, 4), a(5, 3, 4), a(5)), S(a(2, 3), a(2, 4), a(5, 3, 4)), S(a(3), a(4), a(5, 3, 4)),
        S(a(2, 6, 3), a(2, 6, 4), a(5, 3, 4), a(5)), S(a(2, 3, d=F64), a(2, 4, d=F64), a(5, 3, 4, d=F64)),
        S(a(0, 3), a(0, 4), a(5, 3, 4), a(5)),
        S(a(2, 3), a(2, 4), a(5, 3, 3)), S(a(2, 3), a(3, 4), a(5, 3, 4)), S(a(2, 3), a(2, 4), a(5, 3, 4), a(4)),
        S(a(2, 3), a(2, 4), a(5, 3, 4, d=F64)), S(a(2, 3), a(4), a(5, 3, 4)),
    ]


def _conv(n, transposed=False):
    def gen(rng):
        a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
        sp = lambda k: (k,) * n  # noqa: E731

        def w(cin, cout, k, groups=1, d=F32):
            return a(cin, cout // groups, *sp(k), d=d) if transposed else a(cout, cin // groups, *sp(k), d=d)

        size = 6 if n < 3 else 4
        out = [
            S(a(2, 3, *sp(size)), w(3, 4, 3), a(4)),
            S(a(3, *sp(size)), w(3, 4, 3)),  # unbatched
            S(a(1, 4, *sp(size)), w(4, 6, 2, groups=2), a(6), stride=2, groups=2),
            S(a(1, 3, *sp(size)), w(3, 2, 2), stride=2, padding=1, dilation=2),
            S(a(1, 3, *sp(size), d=F64), w(3, 2, 3, d=F64), a(2, d=F64), padding=1),
            S(a(0, 3, *sp(size)), w(3, 2, 3)),  # empty batch
            S(input=a(1, 2, *sp(size)), weight=w(2, 3, 3), bias=None, stride=(1,) * n, padding=(1,) * n),
            # torch refuses:
            S(a(2, 3), w(3, 4, 3)), S(a(1, 2, *sp(size)), w(3, 4, 3)), S(a(1, 3, *sp(size)), w(3, 4, 3), a(3)),
            S(a(1, 3, *sp(size)), w(3, 4, 3), stride=0), S(a(1, 3, *sp(size)), w(3, 4, 3), groups=0),
            S(a(1, 3, *sp(size)), w(3, 4, 3, d=F64)), S(a(1, 3, *sp(size)), w(3, 4, 3), a(4, d=F64)),
            S(a(1, 3, *sp(size)), w(3, 4, 3), padding=-1), S(a(1, 3, *sp(size)), w(3, 4, 3), stride=(1,) * (n + 1)),
        ]
        if transposed:
            out += [
                S(a(1, 3, *sp(4)), w(3, 2, 3), stride=2, output_padding=1),
                S(a(1, 4, *sp(3)), w(4, 6, 3, groups=2), a(6), stride=(2,) * n, padding=1, output_padding=1, groups=2,
                  dilation=2),
                S(a(1, 3, *sp(3)), w(3, 2, 1), padding=1),  # output too small
                S(a(1, 3, *sp(3)), w(3, 2, 3), output_padding=1),  # output_padding >= stride and dilation
                S(a(1, 3, *sp(3)), w(3, 2, 3), padding="same"),
            ]
        else:
            out += [
                S(a(1, 3, *sp(size)), w(3, 4, 3), a(4), padding="same"),
                S(a(1, 3, *sp(size)), w(3, 4, 2), padding="same", dilation=1),  # odd extra element on the right
                S(a(1, 3, *sp(size)), w(3, 4, 2), a(4), padding="valid", dilation=2),
                S(a(1, 0, *sp(size)), w(0, 2, 3)),  # no input channels
                S(arr(rng, (1, 3, *sp(size)), np.int64), arr(rng, (4, 3, *sp(3)), np.int64)),
                S(a(1, 3, *sp(size)), w(3, 4, 3), stride=2, padding="same"), S(a(1, 3, *sp(size)), w(3, 4, 3),
                                                                               padding="foo"),
                S(a(1, 3, *sp(2)), w(3, 4, 3)),  # kernel larger than the input
                S(a(1, 3, *sp(size)), w(3, 4, 3), groups=2), S(a(1, 4, *sp(size)), a(3, 2, *sp(3)), groups=2),
            ]
        return out
    return gen


def _pad(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    out = [
        S(a(2, 3), (1, 2)), S(a(2, 3), (1, 1, 2, 0)), S(a(2, 3, 4), (1, 0, 0, 1, 2, 2), value=1.5),
        S(a(2, 3), (-1, 2)), S(a(2, 3), (0, 0, -1, -1), "constant", 2.0), S(a(3), ()), S(a(), ()),
        S(arr(rng, (2, 3), np.int64), (1, 1), value=2.7), S(arr(rng, (2, 3), np.bool_), (1, 1), value=1),
        S(a(2, 3, d=F64), pad=[1, 1], mode="constant"), S(a(0, 3), (1, 1)),
        S(a(2, 3), (1, 2, 3)), S(a(2, 3), (1, 1, 1, 1, 1, 1)), S(a(2, 3), (-4, 1)), S(a(2, 3), (1, 1), mode="foo"),
        S(a(2, 3), (1.5, 1)),
    ]
    for mode in ("reflect", "replicate", "circular"):
        out += [
            S(a(1, 2, 4), (2, 1), mode=mode), S(a(2, 3, 4), (1, 2, 2, 1), mode),
            S(a(1, 1, 3, 3, 4), (2, 1, 1, 1, 0, 2), mode), S(a(1, 2, 4, d=F64), (-1, 2), mode),
            S(a(1, 2, 3, 4), (-1, 1, 0, -2), mode), S(a(0, 2, 4), (1, 1), mode),
            S(arr(rng, (1, 2, 4), np.int64), (1, 1), mode),
            S(a(3), (1, 1), mode), S(a(2, 3), (1, 1, 1, 1), mode), S(a(1, 2, 3), (1, 1), mode, 1.0),
            S(a(1, 2, 3), (1, 1), mode, 0.0), S(a(1, 2, 3), (4, 0), mode), S(a(1, 2, 3), (3, 0), mode),
            S(a(1, 2, 3), (-2, -2), mode), S(a(1, 2, 3), (-2, -1), mode), S(a(1, 0, 3), (1, 1), mode),
            S(arr(rng, (1, 2, 3), np.bool_), (1, 1), mode),
        ]
    return out


def _constant_pad_nd(rng):
    return [S(arr(rng, (2, 3)), (1, 2)), S(arr(rng, (2, 3)), (1, -1, 2, 0), 3.0), S(arr(rng, (2, 3)), (1, 2, 3))]


def _unfold(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [
        S(a(1, 2, 4, 5), 2), S(a(2, 3, 5, 5), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), S(a(2, 4, 5), 3),
        S(a(0, 2, 4, 4), 2), S(a(1, 2, 4, 4, d=F64), kernel_size=2, stride=2), S(a(1, 2, 3, 4), 3, padding=(0, 1)),
        S(a(2, 3), 2), S(a(1, 2, 3, 4), 5), S(a(1, 2, 3, 4), 2, stride=0), S(a(1, 2, 3, 4), 2, padding=-1),
        S(a(1, 2, 3, 4), 2, dilation=0), S(a(1, 2, 3, 4), (2, 2, 2)), S(arr(rng, (1, 2, 3, 4), np.int64), 2),
        S(a(1, 0, 3, 4), 2),
    ]


def _fold(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [
        S(a(1, 12, 4), (3, 3), 2), S(a(12, 4), (3, 3), 2), S(a(2, 6, 12), (5, 6), (2, 3), dilation=(1, 2), padding=1,
                                                              stride=(2, 1)),
        S(a(0, 12, 4), (3, 3), 2), S(a(1, 8, 4, d=F64), output_size=(4, 4), kernel_size=2, stride=2),
        S(a(1, 4, 9), 4, 2, padding=1, stride=2),
        S(a(12), (3, 3), 2), S(a(1, 11, 4), (3, 3), 2), S(a(1, 12, 5), (3, 3), 2), S(a(1, 12, 4), (3, 3), 2, stride=0),
        S(a(1, 12, 4), (3, 3, 3), 2), S(arr(rng, (1, 12, 4), np.int64), (3, 3), 2), S(a(1, 4, 0), (3, 3), 2),
    ]


def _pixel_shuffle(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [S(a(1, 8, 2, 3), 2), S(a(4, 2, 2), 2), S(a(3, 2, 9, 2, 2), 3), S(a(1, 2, 2, 2), 1),
            S(arr(rng, (4, 3, 3), np.int64), 2), S(a(2, 4, 1, 1, d=F64), upscale_factor=2),
            S(a(1, 5, 2, 2), 2), S(a(2, 2), 2), S(a(4, 2, 2), 0)]


def _pixel_unshuffle(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [S(a(1, 2, 4, 6), 2), S(a(1, 6, 3), 3), S(a(3, 2, 1, 4, 4), 2),
            S(arr(rng, (2, 4, 4), np.bool_), 2), S(a(1, 1, 2, 2, d=F64), downscale_factor=2),
            S(a(1, 1, 3, 4), 2), S(a(1, 1, 4, 3), 2), S(a(1, 4), 2), S(a(1, 4, 4), 0)]


def _channel_shuffle(rng):
    a = lambda *s, d=F32: arr(rng, s, d)  # noqa: E731
    return [S(a(1, 6, 2, 2), 2), S(a(2, 6, 3), 3), S(a(2, 4, 3, 1, 2), 2), S(a(0, 4, 3), 2),
            S(arr(rng, (2, 4, 3), np.int64), 2), S(a(1, 4, 2, d=F64), groups=4),
            S(a(1, 5, 2, 2), 2), S(a(1, 4, 2, 2), 0), S(a(1, 4), 2)]


register(
    OpInfo("nn.functional.linear", _linear, rtol=1e-5, atol=1e-5),
    OpInfo("nn.functional.bilinear", _bilinear, rtol=1e-5, atol=1e-5),
    OpInfo("bilinear", lambda rng: _bilinear(rng)[:2], rtol=1e-5, atol=1e-5),
    *[OpInfo(f"nn.functional.conv{n}d", _conv(n), rtol=1e-4, atol=1e-4) for n in (1, 2, 3)],
    *[OpInfo(f"nn.functional.conv_transpose{n}d", _conv(n, True), rtol=1e-4, atol=1e-4) for n in (1, 2, 3)],
    OpInfo("conv2d", lambda rng: _conv(2)(rng)[:3], rtol=1e-4, atol=1e-4),
    OpInfo("conv_transpose1d", lambda rng: _conv(1, True)(rng)[:3], rtol=1e-4, atol=1e-4),
    OpInfo("nn.functional.pad", _pad),
    OpInfo("constant_pad_nd", _constant_pad_nd),
    OpInfo("nn.functional.unfold", _unfold),
    OpInfo("nn.functional.fold", _fold, atol=1e-5),
    OpInfo("nn.functional.pixel_shuffle", _pixel_shuffle),
    # torch's backward of an empty batch fails (PixelShuffleBackward0 returned an invalid gradient): values only
    OpInfo("pixel_shuffle", lambda rng: _pixel_shuffle(rng)[:2] + [S(arr(rng, (0, 4, 3, 3)), 2)], grad=False),
    OpInfo("nn.functional.pixel_unshuffle", _pixel_unshuffle),
    OpInfo("nn.functional.channel_shuffle", _channel_shuffle),
    OpInfo("channel_shuffle", lambda rng: _channel_shuffle(rng)[:2]),
)
