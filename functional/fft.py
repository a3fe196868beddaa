"""Discrete Fourier transforms with torch.fft's semantics, over `jnp.fft`.

Every transform takes torch's `n` (1-D) or `s` (n-D; -1 keeps a size) and `dim`, pads with
zeros or trims each transformed dim to its size, and scales by `norm`: "backward" (the
default, None) scales the inverse by 1/n, "forward" the forward one, "ortho" both by
1/sqrt(n). Inputs arrive as floats (the facade turns integers into the default float dtype);
real inputs of the complex-to-complex transforms become complex64/complex128. The Hermitian
transforms are the real ones conjugated, with the scaling swapped:
hfftn(x) = irfftn(conj(x)) scaled as the forward transform, ihfftn(x) = conj(rfftn(x)) / n.
Gradients are JAX's (the adjoint of each linear map, as torch's).

Also the signal helpers: fftfreq/rfftfreq, fftshift/ifftshift, the window functions of
torch.*_window, and stft/istft.
"""

import math

import jax
import jax.numpy as jnp

from .sorting import _name

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
    "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window", "stft", "istft",
]

_NORMS = {None: "backward", "backward": "backward", "forward": "forward", "ortho": "ortho"}
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16"}


def _norm(norm):
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return _NORMS[norm]


def _wrap(dim, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _input(x, kind, name):
    """x as the transform's input dtype: complex for "c" (complex-to-*), real for "r" (real-to-complex)."""
    if x.dtype.name in _DTYPE_NAMES:
        raise RuntimeError(f"Unsupported dtype {_DTYPE_NAMES[x.dtype.name]}")
    cplx = jnp.issubdtype(x.dtype, jnp.complexfloating)
    if kind == "r":
        if cplx:
            raise RuntimeError(f"{name} expects a real input tensor, but got {_name(x.dtype)}")
        return x
    if cplx:
        return x
    return x.astype(jnp.complex128 if x.dtype == jnp.float64 else jnp.complex64)


def _plan(x, s, dim, c2r=False):
    """(dims, sizes) of an n-D transform from torch's `s` and `dim` (all dims when both are None;
    the last len(s) dims when only s is given). For complex-to-real transforms the last size
    defaults to 2 * (m - 1), m the input's size there."""
    if dim is not None:
        dims = tuple(_wrap(d, x.ndim) for d in ((dim,) if isinstance(dim, int) else dim))
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = tuple(range(x.ndim - len(s), x.ndim))
    else:
        dims = tuple(range(x.ndim))
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    sizes = [x.shape[d] if s is None or s[i] == -1 else s[i] for i, d in enumerate(dims)]
    if c2r and dims and (s is None or s[-1] == -1):
        sizes[-1] = 2 * (x.shape[dims[-1]] - 1)
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dims, tuple(sizes)


def _one(n, dim):
    return None if n is None else (n,), (dim,)


# ---------------------------------------------------------------------------- n-dimensional transforms

def fftn(input, s=None, dim=None, norm=None):
    """The n-D discrete Fourier transform over `dim` (see the module docstring)."""
    norm, x = _norm(norm), _input(input, "c", "fftn")
    dims, sizes = _plan(x, s, dim)
    return jnp.fft.fftn(x, sizes, dims, norm) if dims else x


def ifftn(input, s=None, dim=None, norm=None):
    """The n-D inverse discrete Fourier transform."""
    norm, x = _norm(norm), _input(input, "c", "ifftn")
    dims, sizes = _plan(x, s, dim)
    return jnp.fft.ifftn(x, sizes, dims, norm) if dims else x


def rfftn(input, s=None, dim=None, norm=None, *, _name="rfftn"):
    """The n-D transform of a real input; the last dim keeps its n // 2 + 1 non-negative frequencies."""
    norm, x = _norm(norm), _input(input, "r", _name)
    dims, sizes = _plan(x, s, dim)
    if not dims:
        raise RuntimeError(f"{_name} must transform at least one axis")
    return jnp.fft.rfftn(x, sizes, dims, norm)


def irfftn(input, s=None, dim=None, norm=None, *, _name="irfftn"):
    """The inverse of rfftn: a real output whose last dim has size s[-1] (default 2 * (m - 1))."""
    norm, x = _norm(norm), _input(input, "c", _name)
    dims, sizes = _plan(x, s, dim, c2r=True)
    if not dims:
        raise RuntimeError(f"{_name} must transform at least one axis")
    return jnp.fft.irfftn(x, sizes, dims, norm)


def hfftn(input, s=None, dim=None, norm=None):
    """The n-D transform of a signal Hermitian in its last dim, given as its half (a real output)."""
    return irfftn(jnp.conj(_input(input, "c", "hfftn")), s, dim, _SWAP[_norm(norm)], _name="hfftn")


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of hfftn: the one-sided inverse transform of a real input."""
    return jnp.conj(rfftn(input, s, dim, _SWAP[_norm(norm)], _name="ihfftn"))


# ---------------------------------------------------------------------------- 1-D and 2-D forms

def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along `dim`, padded or trimmed to `n` points."""
    return fftn(input, *_one(n, dim), norm)


def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse discrete Fourier transform."""
    return ifftn(input, *_one(n, dim), norm)


def rfft(input, n=None, dim=-1, norm=None):
    """The 1-D transform of a real input: its n // 2 + 1 non-negative frequencies."""
    return rfftn(input, *_one(n, dim), norm, _name="rfft")


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: a real output of n points (default 2 * (m - 1))."""
    return irfftn(input, *_one(n, dim), norm, _name="irfft")


def hfft(input, n=None, dim=-1, norm=None):
    """The 1-D transform of a Hermitian signal given as its half: a real output of n points."""
    return irfftn(jnp.conj(_input(input, "c", "hfft")), *_one(n, dim), _SWAP[_norm(norm)], _name="hfft")


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the one-sided inverse transform of a real input."""
    return jnp.conj(rfftn(input, *_one(n, dim), _SWAP[_norm(norm)], _name="ihfft"))


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """fftn over two dims (the last two by default)."""
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """ifftn over two dims."""
    return ifftn(input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """rfftn over two dims."""
    return rfftn(input, s, dim, norm, _name="rfft2")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """irfftn over two dims."""
    return irfftn(input, s, dim, norm, _name="irfft2")


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """hfftn over two dims."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """ihfftn over two dims."""
    return ihfftn(input, s, dim, norm)


# ---------------------------------------------------------------------------- frequencies and shifts

def _freq_dtype(dtype, name):
    if not jnp.issubdtype(dtype, jnp.inexact):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def fftfreq(n, d=1.0, *, dtype=jnp.float32):
    """The sample frequencies [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n)."""
    dtype = _freq_dtype(dtype, "fftfreq")
    k = jnp.arange(n)
    return (jnp.where(k < (n + 1) // 2, k, k - n).astype(dtype) / jnp.asarray(d * n, dtype)).astype(dtype)


def rfftfreq(n, d=1.0, *, dtype=jnp.float32):
    """The non-negative sample frequencies [0, 1, ..., n // 2] / (d * n) of rfft."""
    dtype = _freq_dtype(dtype, "rfftfreq")
    return (jnp.arange(n // 2 + 1).astype(dtype) / jnp.asarray(d * n, dtype)).astype(dtype)


def _shift(x, dim, sign):
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(_wrap(d, x.ndim) for d in ((dim,) if isinstance(dim, int) else dim))
    if not dims:
        raise RuntimeError("`shifts` required")
    return jnp.roll(x, tuple(sign * (x.shape[d] // 2) for d in dims), dims)


def fftshift(input, dim=None):
    """Roll the zero frequency to the centre of each dim in `dim` (all by default)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, -1)


# ---------------------------------------------------------------------------- windows

def _window_n(name, window_length, periodic, dtype):
    if not jnp.issubdtype(dtype, jnp.floating):
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={_name(dtype)}, "
                           "device=cpu, layout=Strided (default), requires_grad=false (default), "
                           "pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    return window_length + 1 if periodic else window_length


def _cosine_sum(name, window_length, periodic, dtype, coeffs):
    """sum_k (-1)^k coeffs[k] cos(2 pi k i / (N - 1)) over N points, the last dropped when periodic."""
    n = _window_n(name, window_length, periodic, dtype)
    if window_length <= 1:
        return jnp.ones((window_length,), dtype)
    t = jnp.arange(n, dtype=dtype) * jnp.asarray(2 * math.pi / (n - 1), dtype)
    w = sum(((-1) ** k) * jnp.asarray(c, dtype) * jnp.cos(t * k) for k, c in enumerate(coeffs))
    return w[:window_length].astype(dtype)


def hann_window(window_length, periodic=True, *, dtype=jnp.float32):
    """0.5 - 0.5 cos(2 pi i / (N - 1)); N = window_length + 1 when periodic."""
    return _cosine_sum("hann_window", window_length, periodic, dtype, (0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=jnp.float32):
    """alpha - beta cos(2 pi i / (N - 1))."""
    return _cosine_sum("hamming_window", window_length, periodic, dtype, (alpha, beta))


def blackman_window(window_length, periodic=True, *, dtype=jnp.float32):
    """0.42 - 0.5 cos(2 pi i / (N - 1)) + 0.08 cos(4 pi i / (N - 1))."""
    return _cosine_sum("blackman_window", window_length, periodic, dtype, (0.42, 0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=jnp.float32):
    """The triangular window 1 - |2 i / (N - 1) - 1|."""
    n = _window_n("bartlett_window", window_length, periodic, dtype)
    if window_length <= 1:
        return jnp.ones((window_length,), dtype)
    t = jnp.arange(n, dtype=dtype) * jnp.asarray(2 / (n - 1), dtype)
    return jnp.where(t <= 1, t, 2 - t)[:window_length].astype(dtype)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=jnp.float32):
    """I0(beta sqrt(1 - (2 i / (N - 1) - 1)^2)) / I0(beta)."""
    n = _window_n("kaiser_window", window_length, periodic, dtype)
    if window_length <= 1:
        return jnp.ones((window_length,), dtype)
    t = jnp.arange(n, dtype=dtype) * jnp.asarray(2 / (n - 1), dtype) - 1
    b = jnp.asarray(beta, dtype)
    w = jax.scipy.special.i0(b * jnp.sqrt(jnp.maximum(1 - t * t, 0))) / jax.scipy.special.i0(b)
    return w[:window_length].astype(dtype)


# ---------------------------------------------------------------------------- short-time transforms

def _stft_window(window, n_fft, win_length, dtype, name):
    win_length = n_fft if win_length is None else win_length
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{name}: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is None:
        window = jnp.ones((win_length,), jnp.real(jnp.zeros((), dtype)).dtype)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to win_length={win_length}, but "
                           f"got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return jnp.pad(window, (left, n_fft - win_length - left))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform of input (L,) or (B, L) -> (..., n_freq, n_frames):
    frames of n_fft samples every hop_length (default n_fft // 4), each multiplied by the
    window (zero-padded to n_fft, centred), then fft'd. `center` pads the signal by n_fft // 2
    on both sides with `pad_mode`; `normalized` scales by n_fft^-0.5; `onesided` (default for
    real input and window) keeps n_fft // 2 + 1 frequencies. Returns complex, or its
    (..., 2) real view when return_complex=False."""
    if return_complex is None and not (jnp.iscomplexobj(input) or (window is not None and jnp.iscomplexobj(window))):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    hop = n_fft // 4 if hop_length is None else hop_length
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    x = input if input.ndim == 2 else input[None]
    if center:
        p = n_fft // 2
        x = jnp.pad(x, ((0, 0), (p, p)), mode={"constant": "constant", "reflect": "reflect",
                                               "replicate": "edge", "circular": "wrap"}[pad_mode])
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    w = _stft_window(window, n_fft, win_length, x.dtype, "stft")
    frames = 1 + (length - n_fft) // hop
    idx = jnp.arange(frames)[:, None] * hop + jnp.arange(n_fft)[None, :]
    seg = x[:, idx] * w  # (B, frames, n_fft)
    real = not jnp.iscomplexobj(seg)
    onesided = real if onesided is None else onesided
    out = jnp.fft.rfft(seg, axis=-1) if onesided else jnp.fft.fft(_input(seg, "c", "stft"), axis=-1)
    if normalized:
        out = out * jnp.asarray(n_fft ** -0.5, jnp.real(out).dtype)
    out = jnp.swapaxes(out, -1, -2)
    out = out if input.ndim == 2 else out[0]
    return out if return_complex or return_complex is None else jnp.stack([out.real, out.imag], -1)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft by overlap-add: frames are inverse-transformed, windowed, summed and
    divided by the summed squared window; input (..., n_freq, n_frames) complex."""
    if not jnp.iscomplexobj(input):
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else hop_length
    x = input if input.ndim == 3 else input[None]
    n_frames = x.shape[-1]
    onesided = x.shape[-2] != n_fft if onesided is None else onesided
    w = _stft_window(window, n_fft, win_length, x.dtype, "istft")
    spec = jnp.swapaxes(x, -1, -2)  # (B, frames, n_freq)
    if normalized:
        spec = spec * jnp.asarray(n_fft ** 0.5, jnp.real(spec).dtype)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = jnp.fft.irfft(spec, n_fft, axis=-1)
    else:
        frames = jnp.fft.ifft(spec, n_fft, axis=-1)
        frames = frames if return_complex else frames.real
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    idx = (jnp.arange(n_frames)[:, None] * hop + jnp.arange(n_fft)[None, :]).reshape(-1)
    y = jnp.zeros((x.shape[0], total), frames.dtype).at[:, idx].add(frames.reshape(x.shape[0], -1))
    env = jnp.zeros((total,), jnp.real(w).dtype).at[idx].add(jnp.tile(jnp.abs(w) ** 2, n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    y, env = y[:, start:end], env[start:end]
    if length is not None and y.shape[-1] < length:
        y = jnp.pad(y, ((0, 0), (0, length - y.shape[-1])))
        env = jnp.pad(env, (0, length - env.shape[-1]), constant_values=1)
    y = y / jnp.where(env > 1e-11, env, 1)
    return y if input.ndim == 3 else y[0]

