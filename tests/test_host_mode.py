"""Host mode (facade._host: the numpy rules DataLoader workers run) against real torch and facade's main
JAX path: what datasets and transforms really do, special values through every elementwise rule, and
that tests/test_ops.py::test_op_host reaches every rule. Each case runs in this process with
facade._host.ACTIVE set, as in a worker."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import torch

import facade
from facade import _host

from ._compare import assert_same, assert_zero_signs, host_mode
from .test_ops import HOST_CASES, host_rule

DIGITS = Path(__file__).resolve().parents[1] / "examples" / "data" / "digits.csv.gz"


def _three_ways(fn, main=True, rtol=1e-5, atol=1e-6):
    """fn(facade) in host mode gives real torch's dtype, shape, values, NaN/inf and signed zeros, in numpy-backed
    tensors; and (main=True) facade's main JAX path gives the same values."""
    expected = fn(torch)
    with host_mode():
        got = fn(facade)
        outs = got if isinstance(got, tuple) else (got,)
        assert all(isinstance(g._arr(), np.ndarray) for g in outs), "host mode builds numpy-backed tensors"
    assert_same(expected, got, rtol=rtol, atol=atol, what="host mode")
    assert_zero_signs(expected, got, "host mode")
    if main:
        assert_same(expected, fn(facade), rtol=rtol, atol=atol, what="main path")


def _images(t):
    """torchvision-style transforms on one HWC uint8 image: ToTensor, Normalize, flips, crops, padding,
    erasing, grayscale and jitter blends, noise, as their tensor code does them."""
    rng = np.random.default_rng(0)
    pic = rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)
    img = t.from_numpy(pic.transpose((2, 0, 1)).copy()).contiguous().to(dtype=t.float32).div(255)  # ToTensor
    mean = t.as_tensor([0.485, 0.456, 0.406], dtype=img.dtype).view(-1, 1, 1)
    std = t.as_tensor([0.229, 0.224, 0.225], dtype=img.dtype).view(-1, 1, 1)
    assert not (std == 0).any()
    norm = img.clone().sub_(mean).div_(std)  # Normalize
    crop = norm.flip(-1)[..., 1:9, 2:10]  # RandomHorizontalFlip, RandomCrop
    padded = t.nn.functional.pad(img, [2, 2, 2, 2], value=0.0)  # RandomCrop(padding=2)
    reflect = t.nn.functional.pad(img, [1, 2, 0, 1], mode="reflect")
    erased = img.clone()
    erased[..., 2:5, 3:7] = t.from_numpy(rng.standard_normal((3, 3, 4)).astype(np.float32))  # RandomErasing
    r, g, b = img.unbind(dim=-3)
    gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)  # rgb_to_grayscale
    m = t.mean(gray, dim=(-3, -2, -1), keepdim=True)
    jitter = (0.8 * img + (1.0 - 0.8) * m).clamp(0, 1.0)  # adjust_contrast's blend
    hue = t.fmod(img.max(dim=-3).values * 6.0, 1.0)
    return norm, crop, padded, reflect, erased, gray, jitter, hue, img.mul(255).round().to(t.uint8)  # ToPILImage


def _records(t):
    """Dataset code beyond images: train_digits' TensorDataset and collate, token windows and one-hot
    targets, padding collate of sequences, log-spectrogram features."""
    rows = np.loadtxt(gzip.open(DIGITS, "rt"), delimiter=",", dtype=np.float32, max_rows=40)
    x, y = t.from_numpy(rows[:, :64].reshape(-1, 1, 8, 8) / 16.0), t.from_numpy(rows[:, 64].astype(np.int64))
    ds = t.utils.data.TensorDataset(x, y)
    batch = t.utils.data.default_collate([ds[i] for i in (3, 1, 4, 1, 5)])
    data = t.arange(100) * 7 % 65
    window = t.stack([data[i:i + 8] for i in (0, 17, 50)]), t.stack([data[i + 1:i + 9] for i in (0, 17, 50)])
    onehot = t.nn.functional.one_hot(y[:6], 10).float()
    seqs = [data[:n] for n in (3, 5, 4)]
    padded = t.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1)
    spec = t.from_numpy(np.linspace(0.0, 3.0, 24, dtype=np.float32).reshape(4, 6))
    logs = t.log1p(spec), (spec + 1e-6).log10() * 10, spec.clamp(min=1e-10).log()
    whiten = (spec - spec.mean()) / (spec.std() + 1e-5)
    return (*batch, *window, onehot, padded, *logs, whiten, y.float().std(unbiased=False), x.sum((1, 2, 3)))


@pytest.mark.parametrize("fn", [_images, _records], ids=["images", "records"])
def test_dataset_code_in_host_mode(fn):
    """What a Dataset.__getitem__, its transforms and collate do, in a worker, equals torch and the main path."""
    _three_ways(fn)


_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5, 0.5, -2.0, 1e-30, 3e38]
_UNARY = ["abs", "neg", "sign", "reciprocal", "square", "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt",
          "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "floor", "ceil", "trunc", "frac", "round", "isnan",
          "isinf", "isfinite", "positive", "logical_not", "clone"]
_BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "atan2", "eq", "ne", "lt", "le",
           "gt", "ge", "logical_and", "logical_or", "logical_xor"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_through_elementwise_rules(dtype):
    """NaN, +-inf, +-0 and extremes, every element against every other for binary rules. Host mode only: the
    main path's own special values are tests/test_ops.py's (its opinfo samples)."""
    a = np.array(_SPECIAL, dtype)
    x, y = np.repeat(a, a.size), np.tile(a, a.size)
    for name in _UNARY:
        _three_ways(lambda t, n=name: getattr(t, n)(t.tensor(a)), main=False)
    for name in _BINARY:
        _three_ways(lambda t, n=name: getattr(t, n)(t.tensor(x), t.tensor(y)), main=False)
    # (clamp with tensor bounds: torch's vectorized and scalar loops keep different zeros where x == bound)
    _three_ways(main=False, fn=lambda t: (t.clamp(t.tensor(x), min=-0.0, max=1.5), t.clamp(t.tensor(x), 2.0, 1.0),
                                          t.clamp(t.tensor(x), min=0.0), t.clamp(t.tensor(x), max=-0.0),
                                          t.div(t.tensor(x), t.tensor(y), rounding_mode="trunc"),
                                          t.div(t.tensor(x), t.tensor(y), rounding_mode="floor"),
                                          t.tensor(x).to(t.float16), t.where(t.tensor(x) > 0, t.tensor(x), -0.0),
                                          t.tensor(x).masked_fill(t.tensor(y) > 1, -0.0)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_pow_by_a_number_in_host_mode_is_torchs_kernel(dtype):
    """x ** 2, 3, -2, -1 (float16: 2, -1) in host mode: torch's products and quotients, bit for bit, as the main
    path computes them (tests/test_special_values.py); other exponents to rounding. (3e38 is left out: its
    reciprocal is a denormal, which XLA's CPU programs flush to zero and torch keeps.)"""
    a = np.array([*_SPECIAL[:-1], *np.linspace(-7, 7, 57)], dtype)
    exact = (2, -1) if dtype == "float16" else (2, 3, -2, -1, 2.0, 3.0)
    _three_ways(lambda t: tuple(t.tensor(a) ** e for e in exact), rtol=0, atol=0)
    if dtype != "float16":  # (torch's float16 takes std::pow for +-0.5 too: (-inf) ** 0.5 is inf there)
        _three_ways(lambda t: tuple(t.tensor(a) ** e for e in (0.5, -0.5, 1.5, 4)), main=False, rtol=2e-3)


def test_integer_rules():
    """Integer division rounding, negative integer powers, remainder signs, wraparound casts."""
    a = np.array([7, -7, 3, -3, 1, -1, 0, 2], np.int64)
    b = np.array([2, 2, -2, -2, -3, 3, 5, -1], np.int64)
    _three_ways(lambda t: (t.tensor(a) // t.tensor(b), t.tensor(a) % t.tensor(b), t.fmod(t.tensor(a), t.tensor(b)),
                           t.div(t.tensor(a), t.tensor(b), rounding_mode="trunc"), t.tensor(a) / t.tensor(b),
                           t.pow(t.tensor(a), t.tensor(b)), t.tensor(a).pow(2), t.tensor(a * 40).to(t.uint8),
                           t.tensor(a).sign(), t.tensor(a > 0).sign(), t.tensor(a).cumsum(0)))


def test_index_rules_follow_torch_not_numpy():
    """torch applies ints before index arrays (numpy counts them among the arrays), in reads and writes."""
    base = np.arange(210.0, dtype=np.float32).reshape(5, 6, 7)

    def fn(t):
        x, i = t.tensor(base), t.tensor([0, 2])
        y = x.clone()
        y[1, :, i] = -0.0
        y[..., 0, i] = 5.0
        return x[0, :, i], x[i, 0, i], x[:, 0, i], x[None, 0, :, i], x[..., 1, i], x[i, :, 0], y

    _three_ways(fn)


def test_every_public_rule_is_run_by_the_op_table():
    """test_op_host reaches each numpy rule that stands for a torch op (the rest: see the dataset tests)."""
    reached = {host_rule(*p.values) for p in HOST_CASES}
    public = (set(_host._NUMPY) | _host._SHAPED | _host._SPLITS) - _host._INTERNAL
    assert not public - reached, f"host rules no op-table sample reaches: {sorted(public - reached)}"


def test_unsupported_op_is_refused_by_name():
    with host_mode():
        x = facade.ones(3)
        with pytest.raises(RuntimeError, match=r"^torch\.erf is not available in DataLoader worker processes"):
            facade.erf(x)
