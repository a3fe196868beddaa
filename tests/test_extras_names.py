"""The remaining torch.* and Tensor names of facade/_extras.py (anomaly flags, Stream/Event, fork/wait, binomial,
hash_tensor, legacy norms, combinations, is_inference, grad_dtype, as_subclass, module_load, volatile, reinforce),
each against real torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import facade

from . import test_ops as _ops


def _both(fn):
    """fn(lib) under torch and facade: the same value, or the same error type and message."""
    out = []
    for lib in (torch, facade):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(("ok", fn(lib)))
        except Exception as e:  # noqa: BLE001  (the error itself is compared)
            out.append((type(e).__name__, str(e)))
    (tk, tv), (fk, fv) = out
    assert (tk, fk) == (tk, tk), (out[0], out[1])
    if tk != "ok":
        assert fv == tv
    return tv, fv


def _same(fn, tol=1e-6):
    t, f = _both(fn)
    if isinstance(t, torch.Tensor):
        _ops.assert_same(t, f, tol, tol)
    else:
        assert t == f


def _lib_tensor(lib, values, dtype=None):
    return lib.tensor(values, dtype=None if dtype is None else getattr(lib, dtype))


# ---------------------------------------------------------------------------- flags and probes

def test_anomaly_flags():
    def flags(lib):
        seen = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        try:
            lib.set_anomaly_enabled(True, False)
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled(),
                     lib.is_anomaly_enabled()]
            lib.set_anomaly_enabled(False)
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        finally:
            lib.set_anomaly_enabled(False, True)
        with lib.autograd.detect_anomaly(check_nan=False):
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        return seen

    _same(flags)
    _same(lambda lib: lib.set_anomaly_enabled(1))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.cudnn_is_acceptable(lib.ones(2)),
    lambda lib: lib.cudnn_is_acceptable(3),
    lambda lib: lib.is_vulkan_available(),
    lambda lib: lib.is_inference(3),
])
def test_probes(fn):
    _same(fn)


@pytest.mark.parametrize("fn, args", [
    ("sym_constrain_range", (3, 0, 5)), ("sym_constrain_range", (-1, 0, 5)), ("sym_constrain_range", (7, 0, 5)),
    ("sym_constrain_range", (3, None, None)), ("sym_constrain_range_for_size", (-1, None, None)),
    ("sym_constrain_range_for_size", (0, None, None)), ("sym_constrain_range_for_size", (7, 2, 5)),
])
def test_sym_constrain_range(fn, args):
    size, lo, hi = args
    _same(lambda lib: getattr(lib, fn)(size, min=lo, max=hi))


# ---------------------------------------------------------------------------- Stream / Event

@pytest.mark.parametrize("fn", [
    lambda lib: repr(lib.Stream()),
    lambda lib: repr(lib.Stream(device="cpu", priority=-1)),
    lambda lib: repr(lib.Stream(lib.device("meta"))),
    lambda lib: (lib.Stream().query(), lib.Stream().synchronize(), lib.Stream().is_capturing()),
    lambda lib: (lib.Stream().device_type, lib.Stream().device_index, lib.Stream().stream_id, str(lib.Stream().device)),
    lambda lib: (lib.Stream() == lib.Stream(), hash(lib.Stream()) == hash(lib.Stream())),
    lambda lib: lib.Stream().wait_stream(lib.Stream()),
    lambda lib: lib.Stream().record_event(),
    lambda lib: lib.Stream().native_handle,
    lambda lib: lib.Stream(stream_id=3),
    lambda lib: repr(lib.Event()),
    lambda lib: repr(lib.Event(device="cpu", enable_timing=True, blocking=True)),
    lambda lib: (lib.Event().query(), lib.Event().synchronize(), lib.Event().wait(), lib.Event().event_id),
    lambda lib: lib.Event().record(),
    lambda lib: lib.Event().elapsed_time(lib.Event()),
    lambda lib: lib.Event().ipc_handle(),
])
def test_stream_event_cpu(fn):
    _same(fn)


def test_stream_is_a_context():
    with facade.Stream() as s:
        assert isinstance(s, facade.Stream)


# ---------------------------------------------------------------------------- fork / wait

def test_fork_wait():
    fut = facade.fork(lambda a, b: a + b, facade.ones(2), b=facade.ones(2))
    assert isinstance(fut, facade.futures.Future) and facade.fork is facade.jit.fork
    tfut = torch.jit.fork(lambda a, b: a + b, torch.ones(2), b=torch.ones(2))
    _ops.assert_same(torch.wait(tfut), facade.wait(fut), 0, 0)


# ---------------------------------------------------------------------------- binomial

def test_binomial():
    count, prob = facade.tensor([10.0, 5.0, 0.0, 100.0]), facade.tensor([0.5, 0.1, 0.3, 1.0])
    gen = facade.Generator().manual_seed(3)
    draws = np.stack([facade.binomial(count, prob, generator=gen).numpy() for _ in range(400)])
    ref = torch.binomial(torch.tensor([10.0, 5.0, 0.0, 100.0]), torch.tensor([0.5, 0.1, 0.3, 1.0]))
    assert facade.binomial(count, prob).dtype is facade.float32 and ref.dtype == torch.float32
    assert np.all(draws == np.round(draws)) and np.all((draws >= 0) & (draws <= count.numpy()))
    np.testing.assert_allclose(draws.mean(0), [5.0, 0.5, 0.0, 100.0], atol=0.35)
    again = facade.binomial(count, prob, generator=facade.Generator().manual_seed(3))
    np.testing.assert_array_equal(again.numpy(), draws[0])
    d = facade.binomial(facade.tensor([[4.0], [8.0]], dtype=facade.float64), facade.tensor([0.5, 0.25],
                                                                                          dtype=facade.float64))
    assert d.shape == facade.Size([2, 2]) and d.dtype is facade.float64


@pytest.mark.parametrize("args", [(([10, 5], None), ([0.5, 0.1], None)), (([10.0], None), ([0.5], "float64"))])
def test_binomial_errors(args):
    (c, cd), (p, pd) = args
    _same(lambda lib: lib.binomial(_lib_tensor(lib, c, cd), _lib_tensor(lib, p, pd)))


# ---------------------------------------------------------------------------- hash_tensor

@pytest.mark.parametrize("values, dtype, kw", [
    ([1, 2, 3], "int64", {}), ([1.5, 2.0], "float32", {}), ([[1, 2], [7, 8]], "int32", {"dim": 1, "keepdim": True}),
    ([[1, 2], [7, 8]], "int16", {"dim": [0]}), ([-1, 5], "int8", {}), ([1.5, -0.0, 3.25], "float16", {}),
    ([0.1, 1e300], "float64", {}), ([True, False, True], "bool", {}), ([[0.5, 2.0], [1e-3, 7.0]], "bfloat16", {}),
    ([], "float32", {}), ([[], []], "float32", {"dim": 1}), ([[], []], "float32", {"dim": 0}),
    ([1, 2], "int64", {"mode": 1}), ([1j], "complex64", {}),
    ([200, 3], "uint8", {}),
])
def test_hash_tensor(values, dtype, kw):
    _same(lambda lib: lib.hash_tensor(_lib_tensor(lib, values, dtype), **kw))


# ---------------------------------------------------------------------------- legacy norms, combinations

_M = np.arange(12.0).reshape(3, 4) - 5


@pytest.mark.parametrize("fn", [
    lambda lib, m: lib.frobenius_norm(m, [0, 1]),
    lambda lib, m: lib.frobenius_norm(m, [1], True),
    lambda lib, m: lib.frobenius_norm(m, 0),
    lambda lib, m: lib.frobenius_norm(m, []),
    lambda lib, m: lib.frobenius_norm(m, [0, 1, 1]),
    lambda lib, m: lib.frobenius_norm(lib.ones(2, dtype=lib.long), [0]),
    lambda lib, m: lib.nuclear_norm(m),
    lambda lib, m: lib.nuclear_norm(m, True),
    lambda lib, m: lib.nuclear_norm(m, [1, 0], True),
    lambda lib, m: lib.nuclear_norm(lib.ones(3)),
    lambda lib, m: lib.norm_except_dim(m),
    lambda lib, m: lib.norm_except_dim(m, 2, 1),
    lambda lib, m: lib.norm_except_dim(m, 2, -1),
    lambda lib, m: lib.norm_except_dim(m, 3, 0),
    lambda lib, m: lib.native_norm(m),
])
def test_legacy_norms(fn):
    def run(lib):
        try:
            return fn(lib, lib.tensor(_M, dtype=lib.float32))
        except NotImplementedError as e:  # native_norm: torch lists its backends after the first two sentences
            raise NotImplementedError(". ".join(str(e).split(". ")[:2])) from None

    _same(run, 1e-5)


def test_legacy_norm_gradients():
    for fn in (lambda lib, m: lib.frobenius_norm(m, [0, 1]), lambda lib, m: lib.norm_except_dim(m, 2, 1).sum(),
               lambda lib, m: lib.nuclear_norm(m)):
        grads = []
        for lib in (torch, facade):
            # full rank: at a zero singular value the nuclear norm has no unique gradient (LAPACK picks one)
            m = lib.tensor(_M + np.eye(3, 4), dtype=lib.float32, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib, m).backward()
            grads.append(m.grad)
        _ops.assert_same(grads[0], grads[1], 1e-5, 1e-5)


def test_deprecation_warnings():
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        facade.frobenius_norm(facade.ones(2, 2), [0])
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        facade.nuclear_norm(facade.ones(2, 2))


@pytest.mark.parametrize("values, kw", [
    ([1, 2, 3], {}), ([1.0, 2.0, 3.0], {"r": 3, "with_replacement": True}), ([1, 2], {"r": 3}),
    ([1.0, 2.0, 3.0, 4.0], {"r": 1}), ([1, 2, 3], {"r": 2, "with_replacement": True}), ([1.0, 2.0], {"r": 0}),
    ([[1, 2], [3, 4]], {}), ([1.0, 2.0], {"r": -1}),
])
def test_combinations(values, kw):
    _same(lambda lib: lib.combinations(lib.tensor(values), **kw))


@pytest.mark.parametrize("view, dim, start, end, step", [
    ((slice(1, 3),), 0, 1, 3, 1), ((slice(0, 4, 2),), 0, 0, 4, 2), ((slice(None), slice(1, 2)), 1, 1, 2, 1)])
def test_slice_inverse(view, dim, start, end, step):
    def run(lib):
        x = lib.arange(15.0).reshape(5, 3)
        r = lib.slice_inverse(x[view], x, dim, start, end, step)
        r[0, 0] = 100.0  # writes through to x: the result aliases x's storage
        return r.tolist(), x[0, 0].item(), r.data_ptr() == x.data_ptr()

    _same(run)
    _same(lambda lib: lib.slice_inverse(lib.zeros(2, 3), lib.zeros(5, 3), 0, 1, 3))


def test_combinations_gradient():
    grads = []
    for lib in (torch, facade):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (lib.combinations(x, 2, True) ** 2).sum().backward()
        grads.append(x.grad)
    _ops.assert_same(grads[0], grads[1], 1e-6, 1e-6)


# ---------------------------------------------------------------------------- Tensor methods

def test_is_inference():
    def states(lib):
        x = lib.ones(2)
        with lib.inference_mode():
            y, z, v = lib.ones(2), x + 1, x[0:1]
            seen = [y.is_inference(), z.is_inference(), v.is_inference(), x.is_inference()]
        with lib.no_grad():
            seen.append(lib.ones(1).is_inference())
        return seen + [y[0:1].is_inference(), y.detach().is_inference(), (y + 1).is_inference(),
                       lib.is_inference(y), lib.nn.Parameter(lib.ones(1)).is_inference()]

    _same(states)


def test_grad_dtype():
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        seen = [str(a.grad_dtype), str(lib.ones(2, dtype=lib.long).grad_dtype)]
        a.grad_dtype = lib.float64
        (a * 2).sum().backward()
        seen += [str(a.grad_dtype), str(a.grad.dtype), a.grad.tolist()]
        e = lib.ones(2, requires_grad=True)
        e.grad_dtype = lib.float16
        seen.append(str(lib.autograd.grad((e * 2).sum(), e)[0].dtype))
        n = lib.ones(2, requires_grad=True)
        n.grad_dtype = None
        (n * 2).sum().backward()
        return seen + [n.grad_dtype, str(n.grad.dtype)]

    _same(run)
    _same(lambda lib: setattr(lib.ones(2, requires_grad=True) * 2, "grad_dtype", lib.float64))
    _same(lambda lib: (lib.ones(2, requires_grad=True) * 2).grad_dtype)
    _same(lambda lib: setattr(lib.ones(2, requires_grad=True), "grad_dtype", 3))

    def assign(lib):
        f = lib.ones(2, requires_grad=True)
        f.grad_dtype = lib.float64
        f.grad = lib.ones(2)

    _same(assign)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
                                   "complex64"])
@pytest.mark.parametrize("to", ["float32", "float64", "int64"])
def test_assigned_grad_must_match_the_dtype_by_default(dtype, to):
    """grad_dtype defaults to the tensor's dtype: `p.grad = g` of another dtype is torch's RuntimeError."""

    def assign(lib):
        p = lib.zeros(3, dtype=getattr(lib, to))
        p.grad = lib.zeros(3, dtype=getattr(lib, dtype))
        p.grad = None
        return str(p.grad)

    _same(assign)


@pytest.mark.parametrize("shape", [(4,), (), (1, 3), (3,)])
def test_assigned_grad_must_match_the_size(shape):
    def assign(lib):
        p = lib.zeros(3, requires_grad=True)
        p.grad = lib.ones(shape)
        return p.grad.tolist()

    _same(assign)
    _same(lambda lib: setattr(lib.zeros(3), "grad", 3.0))


def test_as_subclass():
    class T(torch.Tensor):
        pass

    class F(facade.Tensor):
        pass

    t, f = torch.ones(2, requires_grad=True) * 3, facade.ones(2, requires_grad=True) * 3
    ts, fs = t.as_subclass(T), f.as_subclass(F)
    assert type(fs) is F and type(ts) is T
    assert (fs.grad_fn is f.grad_fn) and (ts.grad_fn is not None)
    _ops.assert_same(ts.detach(), fs.detach(), 0, 0)
    _same(lambda lib: lib.ones(2).as_subclass(int))


def test_module_load():
    def run(lib):
        a, b = lib.ones(2), lib.zeros(2)
        r = a.module_load(b)
        c = lib.full((2,), 5.0)
        s = a.module_load(c, assign=True)
        return [r.tolist(), a.tolist(), r is b, s.tolist(), s is c, s.requires_grad]

    _same(run)


def test_volatile_and_reinforce():
    for lib in (torch, facade):
        t = lib.ones(2)
        with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
            assert t.volatile is False
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            t.volatile = True
    _same(lambda lib: lib.ones(2).reinforce(1))


@pytest.mark.parametrize("pred", [True, 0, "tensor_true", "tensor_false", "tensor_two"])
def test_cond_runs_the_chosen_branch_eagerly(pred):
    def run(lib):
        p = {"tensor_true": lib.tensor(True), "tensor_false": lib.tensor([0.0]),
             "tensor_two": lib.tensor([True, False])}.get(pred, pred) if isinstance(pred, str) else pred
        x = lib.arange(3.0, requires_grad=True)
        s = lib.tensor(2.0) if pred != "tensor_two" else 2.0  # a tensor pred takes only tensor operands
        y = lib.cond(p, lambda t, s: (t * s).sin(), lambda t, s: t - s, (x, s))
        y.sum().backward()
        return y.tolist(), x.grad.tolist()

    _same(run)
