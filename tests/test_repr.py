"""repr(tensor) equals torch's, character for character, over a table of cases."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import facade

_rng = np.random.default_rng(0)
R = {  # fixed random data shared by both libraries
    "normal": _rng.standard_normal((4, 5)).astype(np.float32),
    "wide": (_rng.standard_normal(30) * 10.0 ** _rng.integers(-6, 6, 30)).astype(np.float64),
    "big3d": _rng.standard_normal((12, 10, 11)).astype(np.float32),
    "ints": _rng.integers(-1000, 100000, (6, 7)),
    "cplx": (_rng.standard_normal(5) + 1j * _rng.standard_normal(5)).astype(np.complex64),
}
nan, inf = float("nan"), float("inf")

CASES = {
    # integers and bools
    "int1d": lambda t: t.tensor([1, 2, 3]),
    "int_neg": lambda t: t.tensor([-1, 100, 3]),
    "int2d": lambda t: t.tensor(R["ints"]),
    "int0d": lambda t: t.tensor(5),
    "int32": lambda t: t.tensor([1, 2], dtype=t.int32),
    "uint8": lambda t: t.tensor([0, 255, 7], dtype=t.uint8),
    "int8_0d": lambda t: t.tensor(-3, dtype=t.int8),
    "int16_2d": lambda t: t.tensor([[1, -20], [300, 4]], dtype=t.int16),
    "int_wrap": lambda t: t.arange(100),
    "int_large_values": lambda t: t.tensor([2**62, -5]),
    "bool1d": lambda t: t.tensor([True, False, True]),
    "bool2d": lambda t: t.tensor([[True, False], [False, False]]),
    "bool0d": lambda t: t.tensor(False),
    # floats: fixed, integer mode, scientific mode
    "f_int_mode": lambda t: t.tensor([1.0, 2.0, -3.0]),
    "f_fixed": lambda t: t.tensor([1.5, 2.25, -0.125]),
    "f_normal2d": lambda t: t.tensor(R["normal"]),
    "f_sci_small": lambda t: t.tensor([1e-5, 1.0]),
    "f_sci_big": lambda t: t.tensor([1e10, 1.0]),
    "f_sci_ratio": lambda t: t.tensor([0.1, 1000.5]),
    "f_no_sci_ratio": lambda t: t.tensor([0.1, 99.9]),
    "f_sci_int_mode": lambda t: t.tensor([1.0, 1e9]),
    "f_wide64": lambda t: t.tensor(R["wide"]),
    "f_nan_inf": lambda t: t.tensor([nan, inf, -inf, 1.5]),
    "f_only_nan": lambda t: t.tensor([nan, nan]),
    "f_inf_int": lambda t: t.tensor([inf, 1.0, -2.0]),
    "f_zeros": lambda t: t.zeros(2, 3),
    "f_neg_zero": lambda t: t.tensor([0.0, -0.0]),
    "f_0d": lambda t: t.tensor(3.14159),
    "f_0d_int": lambda t: t.tensor(2.0),
    "f_0d_sci": lambda t: t.tensor(1e20),
    "f_0d_nan": lambda t: t.tensor(nan),
    "f_0d_small": lambda t: t.tensor(-1.5e-7),
    "f64": lambda t: t.tensor([1.5, 2.0], dtype=t.float64),
    "f64_0d": lambda t: t.tensor(1.0, dtype=t.float64),
    "f16": lambda t: t.tensor([0.1, 2.0, 65504.0], dtype=t.float16),
    "bf16": lambda t: t.tensor([0.1, 2.0, -3.3], dtype=t.bfloat16),
    "f3d": lambda t: t.tensor(R["normal"]).reshape(2, 2, 5),
    "f4d": lambda t: t.arange(24.0).reshape(2, 3, 2, 2),
    "f_wrap": lambda t: t.arange(30.0) / 7,
    "f_wrap_sci": lambda t: t.tensor(R["wide"]).reshape(3, 10),
    # summarised (more than 1000 elements)
    "sum_1d": lambda t: t.arange(2000.0),
    "sum_1d_int": lambda t: t.arange(1001),
    "sum_2d": lambda t: t.arange(1200.0).reshape(40, 30),
    "sum_2d_narrow": lambda t: t.arange(1500).reshape(3, 500),
    "sum_3d": lambda t: t.tensor(R["big3d"]),
    "sum_bool": lambda t: t.arange(1500).reshape(30, 50) > 700,
    "not_summarised_1000": lambda t: t.arange(1000).reshape(10, 100),
    # empty
    "empty": lambda t: t.tensor([]),
    "empty_2d": lambda t: t.zeros(0, 3),
    "empty_int": lambda t: t.zeros(0, dtype=t.int64),
    "empty_int32_2d": lambda t: t.zeros(2, 0, dtype=t.int32),
    "empty_f64": lambda t: t.zeros(0, dtype=t.float64),
    "empty_bool": lambda t: t.zeros(0, dtype=t.bool),
    # complex
    "c1d": lambda t: t.tensor([1 + 2j, -3.5 - 1j]),
    "c_rand": lambda t: t.tensor(R["cplx"]),
    "c0d": lambda t: t.tensor(2 - 0.5j),
    "c128": lambda t: t.tensor([1j, 2], dtype=t.complex128),
    "c_int_mode": lambda t: t.tensor([1 + 1j, 2 - 3j]),
    "c_sci": lambda t: t.tensor([1e-6 + 1j, 1e6 - 1j]),
    # autograd suffixes
    "requires_grad": lambda t: t.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad_0d": lambda t: t.tensor(1.5, requires_grad=True),
    "grad_fn_mul": lambda t: t.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_add": lambda t: t.tensor([[1.0, 2.0]], requires_grad=True) + 1,
    "grad_fn_sum": lambda t: t.tensor([1.0, 2.0], requires_grad=True).sum(),
    "grad_fn_f64": lambda t: t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True) * 3,
    "grad_fn_wraps": lambda t: t.tensor(R["normal"][0].tolist() * 2, requires_grad=True) * 1000,
    "requires_grad_empty": lambda t: t.zeros(0, 2, requires_grad=True),
    "detached": lambda t: (t.tensor([1.0], requires_grad=True) * 2).detach(),
    # meta
    "meta": lambda t: t.zeros(2, 3, device="meta"),
    "meta_int": lambda t: t.zeros(2, dtype=t.int64, device="meta"),
    "meta_0d": lambda t: t.ones((), device="meta"),
    "meta_grad": lambda t: t.ones(3, device="meta", requires_grad=True) * 2,
    "meta_f64": lambda t: t.ones(3, device="meta", dtype=t.float64),
}


@pytest.mark.parametrize("name", list(CASES))
def test_repr(name):
    fn = CASES[name]
    expected = repr(fn(torch))
    got = repr(fn(facade))
    assert got == expected
    assert str(fn(facade)) == expected


OPTION_CASES = [
    (dict(precision=2), "normal"),
    (dict(precision=6), "wide"),
    (dict(precision=1), "f_fixed"),
    (dict(threshold=5), "int_wrap"),
    (dict(threshold=5, edgeitems=1), "f_normal2d"),
    (dict(threshold=5, edgeitems=0), "f_normal2d"),
    (dict(threshold=5, edgeitems=0), "int1d"),
    (dict(linewidth=40), "f_wrap"),
    (dict(linewidth=40), "grad_fn_mul"),
    (dict(linewidth=200), "f_wrap"),
    (dict(sci_mode=True), "f_fixed"),
    (dict(sci_mode=True), "f_int_mode"),
    (dict(sci_mode=False), "f_sci_small"),
    (dict(sci_mode=False), "wide"),
    (dict(profile="short"), "sum_2d"),
    (dict(profile="full"), "sum_1d_int"),
    (dict(profile="full", precision=2), "normal"),
]


@pytest.mark.parametrize("opts,name", OPTION_CASES, ids=[f"{n}-{o}" for o, n in OPTION_CASES])
def test_printoptions(opts, name):
    fn = CASES.get(name) or (lambda t: t.tensor(R[name]))
    try:
        torch.set_printoptions(**opts)
        facade.set_printoptions(**opts)
        expected = repr(fn(torch))
        got = repr(fn(facade))
    finally:
        torch.set_printoptions(profile="default")
        facade.set_printoptions(profile="default")
    assert got == expected


@pytest.mark.parametrize("name", ["f_fixed", "f64", "c1d", "c128", "empty", "empty_f64", "int1d", "f16"])
def test_repr_default_float64(name):
    """With a float64 default dtype, float64 (and complex128) print without dtype=, float32 with it."""
    fn = CASES[name]
    try:
        torch.set_default_dtype(torch.float64)
        facade.set_default_dtype(facade.float64)
        expected = repr(fn(torch))
        got = repr(fn(facade))
    finally:
        torch.set_default_dtype(torch.float32)
        facade.set_default_dtype(facade.float32)
    assert got == expected


def test_repr_float32_under_float64_default():
    try:
        torch.set_default_dtype(torch.float64)
        facade.set_default_dtype(facade.float64)
        expected = repr(torch.tensor([1.5], dtype=torch.float32))
        got = repr(facade.tensor([1.5], dtype=facade.float32))
    finally:
        torch.set_default_dtype(torch.float32)
        facade.set_default_dtype(facade.float32)
    assert got == expected


def test_format_and_str():
    for fn in (lambda t: f"{t.tensor(3.14159):.3f}", lambda t: f"{t.tensor(7):04d}", lambda t: f"{t.tensor([1.5])}",
               lambda t: "{}".format(t.tensor([[1, 2]])),  # noqa: UP032
               lambda t: f"{t.tensor(2.5, requires_grad=True):.1f}"):
        assert fn(facade) == fn(torch)
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{facade.tensor([1.0]):.3f}"


def test_printoptions_restore():
    facade.set_printoptions(precision=2)
    facade.set_printoptions(profile="default")
    assert repr(facade.tensor([1.12345])) == "tensor([1.1235])"
