"""Division bit for bit with torch: a divisor broadcast over the dividend (a scalar, a row) divides truly, as torch's
kernel does (XLA alone multiplies by the reciprocal, one ulp off in about 11% of the quotients), and
`number / tensor` is torch's `tensor.reciprocal() * number`, with torch's gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import facade

X = np.random.default_rng(0).standard_normal((64, 33))
CASES = {
    "tensor / int": lambda t: t / 9,
    "tensor.div(float)": lambda t: t.div(0.3),
    "tensor / 0-d tensor": lambda t: t / t[0, 0].detach(),  # (a divisor's own gradient sums over the broadcast
    "tensor / row": lambda t: t / t[0].detach(),  # dims in XLA's order, not torch's, as every reduction does)
    "tensor / column": lambda t: t / t[:, :1].detach(),
    "float / tensor": lambda t: 3.7 / t,
    "int / tensor": lambda t: 2 / t,
    "reciprocal": lambda t: t.reciprocal(),
    "in place": lambda t: t.clone().div_(7),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_division_values_and_gradients_like_torch(case, dtype):
    out = []
    for lib in (torch, facade):
        t = lib.tensor(X.astype(dtype), requires_grad=True)
        y = CASES[case](t)
        y.backward(lib.tensor(np.linspace(-2, 2, y.numel()).reshape(y.shape).astype(dtype)))
        out.append((y.detach().numpy(), t.grad.numpy(), type(y.grad_fn).__name__ if lib is torch else y.grad_fn.name()))
    (yt, gt, nt), (yf, gf, nf) = out
    np.testing.assert_array_equal(yf, yt)
    np.testing.assert_array_equal(gf, gt)
    assert nf == nt


def test_integer_tensor_divided_by_number():
    ints = np.arange(-20, 20)
    for f in (lambda t: t / 7, lambda t: 7 / t.clamp(min=1)):
        np.testing.assert_array_equal(f(facade.tensor(ints)).numpy(), f(torch.tensor(ints)).numpy())


def test_division_under_vmap_like_torch():
    """Under torch.func.vmap the per-sample divisor is broadcast again for the batch: still a true division."""
    x = X.astype(np.float32)
    for f in (lambda t: t / 3.0, lambda t: 2.0 / t, lambda t: t / t[:1]):
        np.testing.assert_array_equal(facade.func.vmap(f)(facade.tensor(x)).numpy(),
                                      torch.func.vmap(f)(torch.tensor(x)).numpy())
