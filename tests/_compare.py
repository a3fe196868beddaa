"""Run one expression through real torch and through facade and compare the outcome: tensors by
dtype, shape, device and values; other results by type name and value; errors by type and message."""

from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np
import pytest
import torch

import facade


def host(x):
    """A numpy copy of a torch or facade tensor (bfloat16 as float32)."""
    x = x.detach()
    if isinstance(x, torch.Tensor):
        return x.float().numpy() if x.dtype == torch.bfloat16 else x.numpy()
    return np.asarray(x._arr()).astype(np.float32) if x.dtype == facade.bfloat16 else np.array(x.numpy())


@contextlib.contextmanager
def host_mode():
    """Run facade as in a DataLoader worker: tensors made inside are numpy-backed, ops use facade._host's rules."""
    from facade import _host

    before, _host.ACTIVE = _host.ACTIVE, True
    try:
        yield
    finally:
        _host.ACTIVE = before


def assert_zero_signs(t, f, what="result"):
    """Where torch's float result is a zero, facade's has the same sign (assert_allclose takes -0.0 == 0.0)."""
    if isinstance(t, (tuple, list)):
        for i, (a, b) in enumerate(zip(t, f)):
            assert_zero_signs(a, b, f"{what}[{i}]")
        return
    if not isinstance(t, torch.Tensor) or not t.dtype.is_floating_point or t.device.type == "meta":
        return
    a, b = host(t), host(f)
    zero = a == 0
    bad = np.flatnonzero(zero & (np.signbit(a) != np.signbit(b)))
    assert not bad.size, (f"{what}: signed zeros differ at flat positions {bad[:5].tolist()}: torch "
                          f"{a.ravel()[bad[:5]].tolist()}, facade {b.ravel()[bad[:5]].tolist()}")


def assert_same(t, f, *, values=True, rtol=0.0, atol=0.0, what="result"):
    if isinstance(t, torch.Tensor):
        assert isinstance(f, facade.Tensor), f"{what}: facade gave {type(f).__name__}"
        assert str(f.dtype) == str(t.dtype), f"{what}: dtype {f.dtype} vs torch {t.dtype}"
        assert tuple(f.shape) == tuple(t.shape), f"{what}: shape {tuple(f.shape)} vs torch {tuple(t.shape)}"
        assert str(f.device) == str(t.device), f"{what}: device {f.device} vs torch {t.device}"
        assert f.requires_grad == t.requires_grad, f"{what}: requires_grad {f.requires_grad} vs {t.requires_grad}"
        if values and t.device.type != "meta":
            np.testing.assert_allclose(host(f), host(t), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        return
    if isinstance(t, (tuple, list)) and not isinstance(t, torch.Size):
        assert type(f).__name__ == type(t).__name__ and len(f) == len(t), f"{what}: {f!r} vs torch {t!r}"
        for i, (a, b) in enumerate(zip(t, f)):
            assert_same(a, b, values=values, rtol=rtol, atol=atol, what=f"{what}[{i}]")
        return
    if isinstance(t, (torch.dtype, torch.device)):
        assert str(f) == str(t), f"{what}: {f!r} vs torch {t!r}"
        return
    assert type(f).__name__ == type(t).__name__, f"{what}: type {type(f).__name__} vs torch {type(t).__name__}"
    if isinstance(t, float) and np.isnan(t):
        assert np.isnan(f)
    else:
        assert f == t, f"{what}: {f!r} vs torch {t!r}"
    assert repr(f) == repr(t), f"{what}: repr {f!r} vs torch {t!r}"


def same(fn, *, values=True, message=True, rtol=0.0, atol=0.0):
    """fn(torch) and fn(facade) agree; if torch raises, facade raises the same type (and message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(torch)
        except Exception as e:
            err = e
        else:
            err = None
        if err is not None:
            pattern = "^" + re.escape(str(err).split("\n")[0]) if message else None
            with pytest.raises(type(err), match=pattern):
                fn(facade)
            return
        got = fn(facade)
    assert_same(expected, got, values=values, rtol=rtol, atol=atol)
