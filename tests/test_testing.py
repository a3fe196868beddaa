"""torch.testing.assert_close / make_tensor against real torch: outcomes, error types and full messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import facade


def _outcome(lib, build, kwargs):
    a, e = build(lib)
    try:
        lib.testing.assert_close(a, e, **kwargs)
    except Exception as err:
        return type(err), str(err).replace("facade._tensor.Tensor", "torch.Tensor")
    return None


NAN, INF = float("nan"), float("inf")
CASES = {
    "close": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.000001])), {}),
    "one_off": (lambda T: (T.tensor([1., 2., 3.]), T.tensor([1., 2.5, 3.])), {}),
    "tiny_off": (lambda T: (T.tensor([1., 2., 3.]), T.tensor([1., 2., 3.0001])), {}),
    "two_dims": (lambda T: (T.tensor([[1., 2.], [3., 4.]]), T.tensor([[1., 2.5], [3., 4.1]])), {}),
    "float64": (lambda T: (T.tensor([1., 2.], dtype=T.float64), T.tensor([1., 2. + 1e-6], dtype=T.float64)), {}),
    "float16": (lambda T: (T.tensor([1., 2.], dtype=T.float16), T.tensor([1., 2.01], dtype=T.float16)), {}),
    "bfloat16": (lambda T: (T.tensor([1., 2.], dtype=T.bfloat16), T.tensor([1., 2.1], dtype=T.bfloat16)), {}),
    "ints": (lambda T: (T.tensor([1, 2, 3]), T.tensor([1, 2, 4])), {}),
    "int_div": (lambda T: (T.tensor([1, 2, 3]), T.tensor([1, 2, 6])), {}),
    "bools": (lambda T: (T.tensor([True, False]), T.tensor([True, True])), {}),
    "dtype": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.], dtype=T.float64)), {}),
    "dtype_unchecked": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.], dtype=T.float64)), {"check_dtype": False}),
    "dtype_promoted_off": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.5], dtype=T.float64)),
                           {"check_dtype": False}),
    "shape": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2., 3.])), {}),
    "rtol_only": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.])), {"rtol": 1e-3}),
    "atol_only": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.])), {"atol": 1e-3}),
    "loose": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.1])), {"rtol": 0.1, "atol": 0.0}),
    "loose_fail": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.5])), {"rtol": 0.1, "atol": 0.01}),
    "nan": (lambda T: (T.tensor([1., NAN]), T.tensor([1., NAN])), {}),
    "nan_equal": (lambda T: (T.tensor([1., NAN]), T.tensor([1., NAN])), {"equal_nan": True}),
    "inf": (lambda T: (T.tensor([INF]), T.tensor([INF])), {}),
    "inf_sign": (lambda T: (T.tensor([INF]), T.tensor([-INF])), {}),
    "complex": (lambda T: (T.tensor([1. + 1j]), T.tensor([1. + 2j])), {}),
    "zero_dim": (lambda T: (T.tensor(1.), T.tensor(2.)), {}),
    "floats": (lambda T: (1.0, 1.1), {}),
    "ints_py": (lambda T: (1, 2), {}),
    "int_float": (lambda T: (1, 1.0), {}),
    "int_float_unchecked": (lambda T: (1, 1.0), {"check_dtype": False}),
    "py_bools": (lambda T: (True, False), {}),
    "none": (lambda T: (None, None), {}),
    "list": (lambda T: ([1., 2.], [1., 2.1]), {}),
    "tensor_vs_float": (lambda T: (T.tensor([1.]), 1.0), {}),
    "tensor_vs_numpy": (lambda T: (T.tensor([1.]), np.array([1.], np.float32)), {}),
    "numpy_pair": (lambda T: (np.array([1., 2.]), np.array([1., 2.5])), {}),
    "strings": (lambda T: ("a", "a"), {}),
    "seq_of_tensors": (lambda T: ([T.tensor([1.]), T.tensor([2.])], [T.tensor([1.]), T.tensor([2.5])]), {}),
    "mapping": (lambda T: ({"a": T.tensor([1.])}, {"a": T.tensor([1.5])}), {}),
    "nested": (lambda T: ({"a": [T.tensor([1.]), (1, 2.0)]}, {"a": [T.tensor([1.]), (1, 2.5)]}), {}),
    "seq_len": (lambda T: ([1, 2], [1, 2, 3]), {}),
    "keys": (lambda T: ({"a": 1}, {"b": 1}), {}),
    "requires_grad": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.], requires_grad=True)), {}),
    "msg_str": (lambda T: (T.tensor([1., 2.]), T.tensor([1., 2.5])), {"msg": "custom"}),
    "msg_callable": (lambda T: ([T.tensor([1., 2.])], [T.tensor([1., 2.5])]), {"msg": lambda m: "X: " + m}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_assert_close_matches_torch(case):
    build, kwargs = CASES[case]
    expected = _outcome(torch, build, kwargs)
    got = _outcome(facade, build, kwargs)
    assert got == expected


def test_default_tolerances_per_dtype():
    from torch.testing._comparison import default_tolerances as torch_tolerances

    from facade.testing._comparison import default_tolerances

    for name in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int64", "bool"):
        assert default_tolerances(getattr(facade, name)) == torch_tolerances(getattr(torch, name)), name
    assert default_tolerances(facade.float16, facade.float64) == torch_tolerances(torch.float16, torch.float64)
    with pytest.raises(TypeError, match="Expected a torch.Tensor or a torch.dtype, but got <class 'int'> instead."):
        default_tolerances(1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "int64", "int8",
                                   "uint8", "bool"])
def test_make_tensor_range_dtype_shape(dtype):
    t = facade.testing.make_tensor(3, 40, dtype=getattr(facade, dtype), device="cpu")
    ref = torch.testing.make_tensor(3, 40, dtype=getattr(torch, dtype), device="cpu")
    assert (tuple(t.shape), str(t.dtype), t.requires_grad) == (tuple(ref.shape), str(ref.dtype), ref.requires_grad)
    values = t.real if t.is_complex() else t
    low, high = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    assert values.min().item() >= low and values.max().item() <= high
    assert len(set(values.flatten().tolist())) > 1  # random, not constant


def test_make_tensor_options():
    mk = facade.testing.make_tensor
    t = mk((2, 3), dtype=facade.float32, device="cpu", low=0.5, high=1.0, requires_grad=True)
    assert tuple(t.shape) == (2, 3) and t.requires_grad and t.is_leaf
    assert 0.5 <= t.min().item() and t.max().item() <= 1.0
    n = mk(4, 5, dtype=facade.float32, device="cpu", noncontiguous=True)
    assert tuple(n.shape) == (4, 5) and not n.is_contiguous()
    z = mk(200, dtype=facade.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert 0 not in z.tolist()


ERRORS = [
    dict(shape=(2,), dtype="int64", requires_grad=True),
    dict(shape=(2,), dtype="float32", low=3.0, high=1.0),
    dict(shape=(2,), dtype="float32", low=math.nan),
    dict(shape=(2,), dtype="uint8", low=-20, high=-10),
    dict(shape=(2, 2), dtype="float32", noncontiguous=True, memory_format="channels_last"),
]


@pytest.mark.parametrize("kw", ERRORS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items() if k != "shape"))
def test_make_tensor_errors(kw):
    def run(lib):
        kwargs = dict(kw, dtype=getattr(lib, kw["dtype"]))
        try:
            lib.testing.make_tensor(*kwargs.pop("shape"), device="cpu", **kwargs)
        except Exception as e:
            return type(e), str(e)
        return None

    expected = run(torch)
    assert expected is not None
    assert run(facade) == expected


def test_low_equal_high_warns_like_torch():
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        torch.testing.make_tensor(2, dtype=torch.float32, device="cpu", low=1.0, high=1.0)
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        t = facade.testing.make_tensor(2, dtype=facade.float32, device="cpu", low=1.0, high=1.0)
    assert t.tolist() == [1.0, 1.0]
