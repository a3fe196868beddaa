"""Fast smoke test: facade imports, does arithmetic and one backward pass. No torch needed.

Run it first when something looks broken: `python -m pytest tests/test_smoke.py`.
"""

import numpy as np

import facade as torch


def test_import_and_defaults():
    assert torch.tensor([1.0, 2.0]).dtype == torch.float32
    assert torch.tensor([1, 2]).dtype == torch.int64
    assert torch.get_default_dtype() == torch.float32
    assert isinstance(torch.zeros(2, 3), torch.Tensor)
    assert torch.zeros(2, 3).shape == torch.Size([2, 3])


def test_ops_match_numpy():
    a_np = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], dtype=np.float32)
    b_np = np.array([0.25, 2.0, -1.0], dtype=np.float32)
    a, b = torch.tensor(a_np), torch.tensor(b_np)
    np.testing.assert_allclose((a + b).numpy(), a_np + b_np)
    np.testing.assert_allclose((a * b - a / b).numpy(), a_np * b_np - a_np / b_np, rtol=1e-6)
    np.testing.assert_allclose((a @ a.T).numpy(), a_np @ a_np.T, rtol=1e-6)
    np.testing.assert_allclose(torch.tanh(a).sum().item(), np.tanh(a_np).sum(), rtol=1e-6)
    np.testing.assert_allclose(a.mean(dim=0).numpy(), a_np.mean(axis=0), rtol=1e-6)


def test_one_backward():
    x_np = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    x = torch.tensor(x_np, requires_grad=True)
    y = (torch.sigmoid(x) * x).sum()
    assert y.requires_grad and y.grad_fn is not None
    y.backward()
    s = 1 / (1 + np.exp(-x_np))
    np.testing.assert_allclose(x.grad.numpy(), s + x_np * s * (1 - s), rtol=1e-6)
    assert x.is_leaf and x.grad.shape == x.shape
