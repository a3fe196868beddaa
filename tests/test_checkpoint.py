"""torch.utils.checkpoint and torch.autograd.graph.saved_tensors_hooks against real torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import facade
from tests._compare import host

XV = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)


def _mlp(lib, p=0.0, layers=1):
    mods = [lib.nn.Linear(4, 8), lib.nn.Dropout(p), lib.nn.Tanh()]
    for _ in range(layers - 1):
        mods += [lib.nn.Linear(8, 8), lib.nn.Tanh()]
    mods.append(lib.nn.Linear(8, 2))
    m = lib.nn.Sequential(*mods)
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return m


def _grads(lib, run, p=0.0, seed=3):
    m = _mlp(lib, p, layers=2)
    x = lib.tensor(XV, requires_grad=True)
    lib.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = run(lib, m, x)
    lib.manual_seed(seed + 100)  # the recomputation must not depend on the RNG state at backward time
    (y ** 2).sum().backward()
    return [host(t.grad) for t in [x, *m.parameters()]]


def _check(lib, m, x, reentrant):
    return lib.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant)


def _check_seq(lib, m, x, reentrant):
    return lib.utils.checkpoint.checkpoint_sequential(m, 2, x, use_reentrant=reentrant)


RUNS = {
    "plain": lambda L, m, x: m(x),
    "reentrant": lambda L, m, x: _check(L, m, x, True),
    "non_reentrant": lambda L, m, x: _check(L, m, x, False),
    "default": lambda L, m, x: L.utils.checkpoint.checkpoint(m, x),
    "sequential": lambda L, m, x: _check_seq(L, m, x, True),
    "sequential_non_reentrant": lambda L, m, x: _check_seq(L, m, x, False),
    "lambda_closure": lambda L, m, x: _check(L, lambda a: m[-1](m[:-1](a) * 2), x, False),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_gradients_equal_torch(run):
    for f, t in zip(_grads(facade, RUNS[run]), _grads(torch, RUNS[run])):
        np.testing.assert_allclose(f, t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reentrant", [True, False])
def test_dropout_mask_is_replayed(reentrant):
    """With preserve_rng_state (the default) the recomputed forward draws the same dropout mask."""
    plain = _grads(facade, RUNS["plain"], p=0.5)
    ckpt = _grads(facade, lambda L, m, x: _check(L, m, x, reentrant), p=0.5)
    for a, b in zip(plain, ckpt):
        np.testing.assert_array_equal(a, b)
    fresh = _grads(facade, lambda L, m, x: L.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant,
                                                                          preserve_rng_state=False), p=0.5)
    assert not all(np.array_equal(a, b) for a, b in zip(plain, fresh))  # a fresh mask gives other gradients


def _describe(lib, reentrant):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kw = {} if reentrant is None else {"use_reentrant": reentrant}
        y = lib.utils.checkpoint.checkpoint(lambda a: a.sin() * 2, x, **kw)
    out = [type(y.grad_fn).__name__, [(w.category, str(w.message)) for w in caught]]
    try:
        out.append(lib.autograd.grad(y.sum(), x)[0].tolist())
    except RuntimeError as e:
        out.append(str(e))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = lib.utils.checkpoint.checkpoint(lambda a: a * 2, lib.ones(2), **kw)
    out += [z.requires_grad, [str(w.message) for w in caught if "requires_grad" in str(w.message)]]
    return out


@pytest.mark.parametrize("reentrant", [None, True, False])
def test_warnings_grad_fn_and_autograd_grad_like_torch(reentrant):
    f, t = _describe(facade, reentrant), _describe(torch, reentrant)
    assert f[0] == t[0]
    assert [(c.__name__, m) for c, m in f[1]] == [(c.__name__, m) for c, m in t[1]]
    assert f[3:] == t[3:]
    assert f[2] == t[2] if isinstance(t[2], str) else np.allclose(f[2], t[2])


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:
        return type(e).__name__, str(e)
    return None


ERRORS = {
    "kwargs_reentrant": lambda L: L.utils.checkpoint.checkpoint(lambda a, b=1: a, L.ones(1), use_reentrant=True, b=2),
    "debug_reentrant": lambda L: L.utils.checkpoint.checkpoint(lambda a: a, L.ones(1), use_reentrant=True,
                                                               debug=True),
    "sequential_kwargs": lambda L: L.utils.checkpoint.checkpoint_sequential([L.nn.Tanh()], 1, L.ones(1),
                                                                            use_reentrant=False, foo=1),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    expected = _error(torch, ERRORS[case])
    assert expected is not None
    assert _error(facade, ERRORS[case]) == expected


def test_non_reentrant_keeps_no_arrays_until_backward():
    m = _mlp(facade)
    x = facade.tensor(XV, requires_grad=True)
    y = facade.utils.checkpoint.checkpoint(m, x, use_reentrant=False)
    node = y.grad_fn
    assert all(not hasattr(v, "shape") for _, v in node._arrays.items)  # only indices are held
    y.sum().backward()
    assert x.grad is not None


# ---------------------------------------------------------------------------- saved_tensors_hooks

def _chain(lib, a, b):
    c = a * b
    d = c.sin()
    e = d @ b
    return e / b


def _hooked(lib, scale):
    a = lib.tensor([0.3, -0.7, 1.1], requires_grad=True)
    b = lib.tensor([1.5, 0.4, -0.2], requires_grad=True)
    packed, unpacked = [], []

    def pack(t):
        packed.append(host(t).tolist())
        return t

    def unpack(t):
        unpacked.append(1)
        return t * scale

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = _chain(lib, a, b)
    y.sum().backward()
    return packed, len(unpacked), host(a.grad), host(b.grad)


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_saved_tensors_hooks_like_torch(scale):
    """mul, sin, matmul and div save their inputs in torch too: the same tensors are packed, unpack's result is used."""
    fp, fu, fa, fb = _hooked(facade, scale)
    tp, tu, ta, tb = _hooked(torch, scale)
    assert len(fp) == len(tp) and fu == tu
    for f, t in zip(sorted(np.atleast_1d(p).tolist() for p in fp), sorted(np.atleast_1d(p).tolist() for p in tp)):
        np.testing.assert_allclose(f, t, rtol=1e-6)
    np.testing.assert_allclose(fa, ta, rtol=1e-5)
    np.testing.assert_allclose(fb, tb, rtol=1e-5)


def test_save_on_cpu_gradients_unchanged():
    def grads(lib, hooks):
        a = lib.tensor([0.3, -0.7, 1.1], requires_grad=True)
        b = lib.tensor([1.5, 0.4, -0.2], requires_grad=True)
        with hooks(lib):
            y = _chain(lib, a, b)
        y.sum().backward()
        return host(a.grad), host(b.grad)

    on_cpu = grads(facade, lambda L: L.autograd.graph.save_on_cpu())
    for f, t in zip(on_cpu, grads(torch, lambda L: L.autograd.graph.save_on_cpu())):
        np.testing.assert_allclose(f, t, rtol=1e-5)


def test_disable_saved_tensors_hooks():
    graph = facade.autograd.graph
    with graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
