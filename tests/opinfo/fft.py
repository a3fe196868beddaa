"""OpInfo entries for torch.fft, the window functions and stft/istft (functional/fft.py).

Samples cover every norm, n/s padding and trimming (s = -1 keeps a size), explicit and
default dims, int inputs (become float32 -> complex64), float64 -> complex128, complex
inputs with their gradients (built from two real leaves by `complex_call`, so torch's
conjugate gradient convention is tested), and the inputs torch refuses.
"""

import functools

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

F32, F64, I64, C64, C128 = np.float32, np.float64, np.int64, np.complex64, np.complex128
NORMS = (None, "backward", "forward", "ortho")
TOL = dict(rtol=1e-4, atol=1e-5)  # float32 transforms sum many terms: pocketfft and XLA round differently


def S(*args, **kwargs):
    return Sample(args, kwargs)


def complex_call(name):
    """fn(complex(re, im), ...): a complex input whose gradient reaches two real leaves."""
    def run(mod, re, im, *args, **kwargs):
        return getattr(mod.fft, name)(mod.complex(re, im), *args, **kwargs)
    return run


def one_d(real_only=False, c2r=False):
    """Samples of a 1-D transform (n, dim, norm)."""
    def gen(rng):
        r = functools.partial(arr, rng)
        out = [S(r((8,)), norm=n) for n in NORMS]
        out += [S(r((3, 5)), 4), S(r((3, 5)), 7, 0), S(r((2, 3, 4), F64), dim=1, norm="ortho"),
                S(r((6,), I64)), S(Arg(r((4, 3)), transpose=True)), S(r((5,)), n=3)]
        if c2r:
            out += [S(r((5,)), 1), S(r((1,))), S(r((4,), C64)), S(r((3, 4), C128), 6, 0)]
        if not real_only:
            out += [S(r((4,), C64)), S(r((2, 3), C128), dim=0)]
        else:
            out += [S(r((4,), C64))]  # refused: real input expected
        out += [S(r((4,)), 0), S(r((4,)), dim=2), S(r((4,)), norm="bad"), S(r(())), S(r((4,), np.float16))]
        return out
    return gen


def n_d(two=False, c2r=False):
    """Samples of an n-D transform (s, dim, norm)."""
    def gen(rng):
        r = functools.partial(arr, rng)
        out = [S(r((4, 6)), norm=n) for n in NORMS]
        out += [S(r((3, 4, 5)), (4, 6)), S(r((3, 4, 5), F64), (3, -1), (0, 2)), S(r((4, 5), I64), dim=(1, 0)),
                S(Arg(r((4, 3)), transpose=True)), S(r((2, 3, 4)), s=(2, 4), norm="forward")]
        if not two:
            out += [S(r((2, 3, 4))), S(r((2, 3, 4)), dim=1), S(r((3, 4)), (5,)), S(r(()), None, ())]
        if c2r:
            out += [S(r((3, 4), C64)), S(r((2, 3), C128), (4, 5))]
        out += [S(r((3, 4)), dim=(0, 0)), S(r((3, 4)), (2, 3, 4)), S(r((3, 4)), (2,), (0, 1)), S(r((3,))),
                S(r((3, 4)), (0, 2))]
        return out
    return gen


def complex_samples(rng):
    r = functools.partial(arr, rng)
    return [S(r((6,)), r((6,))), S(r((3, 4)), r((3, 4)), norm="ortho"), S(r((4, 5), F64), r((4, 5), F64))]


def shift_samples(rng):
    r = functools.partial(arr, rng)
    return [S(r((5,))), S(r((4, 5))), S(r((4, 5)), 1), S(r((3, 4, 5)), (0, 2)), S(r((6,), I64)), S(r(())),
            S(r((4, 5)), dim=3)]


def freq_samples(rng):
    return [S(5), S(6, 0.5), S(1), S(0), S(7, 2.0, dtype="float64"), S(4, dtype="int64")]


def freq_call(name):
    def run(mod, *args, dtype=None, **kwargs):
        return getattr(mod.fft, name)(*args, dtype=None if dtype is None else getattr(mod, dtype), **kwargs)
    return run


def window_samples(rng):
    return [S(5), S(8, False), S(1), S(0), S(6, True, dtype="float64"), S(3, dtype="int64"), S(-1)]


def window_call(name):
    def run(mod, *args, dtype=None, **kwargs):
        return getattr(mod, name)(*args, dtype=None if dtype is None else getattr(mod, dtype), **kwargs)
    return run


def stft_samples(rng):
    r = functools.partial(arr, rng)
    hann = np.hanning(8).astype(F32)
    return [
        S(r((32,)), 8, return_complex=True), S(r((2, 40)), 8, 2, window=hann, return_complex=True),
        S(r((30,), F64), 8, 3, 6, center=False, return_complex=True, normalized=True),
        S(r((32,)), 8, window=hann, onesided=False, return_complex=True),
        S(r((32,)), 8, pad_mode="constant", return_complex=False),
        S(r((32,)), 8), S(r((2, 2, 8)), 4, return_complex=True),
    ]


def istft_samples(rng):
    hann = np.hanning(9)[:8].astype(F32) + 0.1
    x = arr(rng, (2, 40))
    spec = np.fft.rfft(np.stack([x[:, i:i + 8] * hann for i in range(0, 33, 2)], 1), axis=-1)
    spec = np.swapaxes(spec, -1, -2).astype(C64)
    return [S(spec, 8, 2, window=hann), S(spec[0], 8, 2, window=hann, center=False),
            S(spec, 8, 2, window=hann, length=30), S(x, 8)]


register(
    *(OpInfo(f"fft.{n}", one_d(), **TOL) for n in ("fft", "ifft")),
    *(OpInfo(f"fft.{n}", one_d(real_only=True), **TOL) for n in ("rfft", "ihfft")),
    *(OpInfo(f"fft.{n}", one_d(c2r=True), **TOL) for n in ("irfft", "hfft")),
    *(OpInfo(f"fft.{n}", n_d(two=n.endswith("2")), **TOL) for n in ("fftn", "ifftn", "fft2", "ifft2")),
    *(OpInfo(f"fft.{n}", n_d(two=n.endswith("2")), **TOL) for n in ("rfftn", "rfft2", "ihfftn", "ihfft2")),
    *(OpInfo(f"fft.{n}", n_d(two=n.endswith("2"), c2r=True), **TOL) for n in ("irfftn", "irfft2", "hfftn", "hfft2")),
    *(OpInfo(f"fft.{n}[complex]", complex_samples, call=complex_call(n), **TOL)
      for n in ("fft", "ifft", "fftn", "irfft", "hfft", "irfftn", "hfft2")),
    OpInfo("fft.fftshift", shift_samples, **TOL), OpInfo("fft.ifftshift", shift_samples, **TOL),
    *(OpInfo(f"fft.{n}", freq_samples, call=freq_call(n), grad=False) for n in ("fftfreq", "rfftfreq")),
    *(OpInfo(f"{n}_window", window_samples, call=window_call(f"{n}_window"), grad=False)
      for n in ("hann", "hamming", "bartlett", "blackman", "kaiser")),
    OpInfo("hamming_window[alpha]", lambda rng: [S(5, True, 0.5, 0.4), S(6, False, 0.6), S(4, True, 0.5, 0.5,
           dtype="float64")], call=window_call("hamming_window"), grad=False),
    OpInfo("kaiser_window[beta]", lambda rng: [S(5, True, 3.0), S(6, False, 5.0), S(1, True, 2.0)],
           call=window_call("kaiser_window"), grad=False),
    OpInfo("stft", stft_samples, **TOL),
    OpInfo("Tensor.stft", stft_samples, **TOL),
    OpInfo("istft", istft_samples, **TOL),
)
