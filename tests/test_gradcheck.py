"""torch.autograd.gradcheck / gradgradcheck against real torch: pass/fail outcomes, GradcheckError and messages."""

from __future__ import annotations

import warnings

import pytest
import torch

import facade


def _bad(lib, power, factor, detach=False):
    """x**power whose backward is wrong by `factor` (or, with detach, has no second derivative)."""

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** power

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            base = x.detach() if detach else x
            return g * factor * base ** (power - 1)

    return Bad.apply


def _run(lib, check, fn, make_inputs, **kw):
    from importlib import import_module

    error = import_module(f"{lib.__name__}.autograd.gradcheck").GradcheckError
    inputs = make_inputs(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = getattr(lib.autograd, check)(fn(lib), inputs, **kw)
        except error as e:
            result = ("GradcheckError", str(e))
        except Exception as e:
            result = (type(e).__name__, str(e))
    return result, [str(w.message) for w in caught if "gradient" in str(w.message)]


def _x(lib, dtype="float64"):
    return (lib.tensor([1.0, 2.0], dtype=getattr(lib, dtype), requires_grad=True),)


def _xy(lib):
    return (lib.tensor([0.3, -1.2], dtype=lib.float64, requires_grad=True),
            lib.tensor([[1.0, 2.0], [0.5, 4.0]], dtype=lib.float64, requires_grad=True))


CASES = {
    "sin": ("gradcheck", lambda T: T.sin, _x, {}),
    "two_inputs": ("gradcheck", lambda T: lambda a, b: (a * b).sum(0).tanh(), _xy, {}),
    "two_outputs": ("gradcheck", lambda T: lambda a, b: (a.exp(), b @ a), _xy, {}),
    "bad_function": ("gradcheck", lambda T: _bad(T, 2, 3), _x, {}),
    "bad_second_output": ("gradcheck", lambda T: lambda a, b: (b * 2, _bad(T, 2, 3)(a)), _xy, {}),
    "bad_no_raise": ("gradcheck", lambda T: _bad(T, 2, 3), _x, {"raise_exception": False}),
    "bad_loose": ("gradcheck", lambda T: _bad(T, 2, 2.0001), _x, {"atol": 1e-2, "rtol": 1e-2}),
    "float32_warns": ("gradcheck", lambda T: T.sin, lambda T: _x(T, "float32"), {}),
    "no_input_requires_grad": ("gradcheck", lambda T: T.sin, lambda T: (T.tensor([1.0], dtype=T.float64),), {}),
    "fast_mode_ok": ("gradcheck", lambda T: T.sin, _x, {"fast_mode": True}),
    "forward_ad": ("gradcheck", lambda T: lambda a, b: (a * b).sum(0).tanh(), _xy, {"check_forward_ad": True}),
    "gradgrad_sin": ("gradgradcheck", lambda T: T.sin, _x, {}),
    "gradgrad_two_inputs": ("gradgradcheck", lambda T: lambda a, b: (a * b).sum(0).tanh(), _xy, {}),
    "gradgrad_bad": ("gradgradcheck", lambda T: _bad(T, 3, 3, detach=True), _x, {"raise_exception": False}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_gradcheck_matches_torch(case):
    check, fn, make_inputs, kw = CASES[case]
    assert _run(facade, check, fn, make_inputs, **kw) == _run(torch, check, fn, make_inputs, **kw)


def test_fast_mode_failure_reports_slow_jacobians():
    """Fast mode projects the Jacobians on random vectors (values differ from torch's); the rest is torch's text."""
    (_, f_msg), _ = _run(facade, "gradcheck", lambda T: _bad(T, 2, 3), _x, fast_mode=True)
    (_, t_msg), _ = _run(torch, "gradcheck", lambda T: _bad(T, 2, 3), _x, fast_mode=True)
    assert f_msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert f_msg.split("\nThe above quantities")[1] == t_msg.split("\nThe above quantities")[1]


def test_gradcheck_error_type():
    from facade.autograd.gradcheck import GradcheckError

    assert issubclass(GradcheckError, RuntimeError)
    assert facade.autograd.gradcheck.__name__ == "gradcheck"  # the function shadows the module, as in torch
    with pytest.raises(GradcheckError):
        facade.autograd.gradcheck(_bad(facade, 2, 3), _x(facade))
