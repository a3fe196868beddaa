"""Quantized tensors against real torch: values, integer representations, qparams, repr, gradients, errors."""

import pickle
from functools import partial

import numpy as np
import pytest
import torch

import facade

pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # torch's deprecation note

QDTYPES = ["quint8", "qint8", "qint32"]
# ties at +-0.5 steps, values past both ends of every range, and random ones
VALUES = np.concatenate([np.arange(-40, 40) * 0.05, [1e9, -1e9, 0.0, 12.75, -12.75],
                         np.random.default_rng(0).normal(0, 8, 200)]).astype(np.float32)


def both(a):
    return torch.tensor(a), facade.tensor(a)


def same(ft, tt):
    """A facade tensor equals a torch tensor in dtype, shape and exact values."""
    assert str(ft.dtype) == str(tt.dtype) and tuple(ft.shape) == tuple(tt.shape)
    np.testing.assert_array_equal(ft.numpy(), tt.numpy())


def raises_like(f_call, t_call):
    with pytest.raises(Exception) as t_err:
        t_call()
    with pytest.raises(type(t_err.value)) as f_err:
        f_call()
    return str(t_err.value), str(f_err.value)


@pytest.mark.parametrize("qd", QDTYPES)
@pytest.mark.parametrize("scale,zp", [(0.1, 10), (0.05, 0), (0.37, -3), (1.0, 100)])
def test_quantize_per_tensor(qd, scale, zp):
    t, f = both(VALUES if qd != "qint32" else VALUES[np.abs(VALUES) < 1e8])  # torch's qint32 clamp overflows
    if qd == "quint8" and zp < 0:
        zp = 3
    tq = torch.quantize_per_tensor(t, scale, zp, getattr(torch, qd))
    fq = facade.quantize_per_tensor(f, scale, zp, getattr(facade, qd))
    assert fq.dtype is getattr(facade, qd) and fq.is_quantized and not f.is_quantized
    same(fq.int_repr(), tq.int_repr())
    same(fq.dequantize(), tq.dequantize())
    same(facade.dequantize(fq), torch.dequantize(tq))
    assert (fq.q_scale(), fq.q_zero_point()) == (tq.q_scale(), tq.q_zero_point())
    assert repr(fq.qscheme()) == repr(tq.qscheme()) == "torch.per_tensor_affine"
    assert facade.int_repr(fq).dtype is getattr(facade, str(tq.int_repr().dtype).split(".")[1])


def test_tensor_qparams_and_lists():
    t, f = both(VALUES[:20])
    tq = torch.quantize_per_tensor(t, torch.tensor(0.1), torch.tensor(4), torch.qint32)
    fq = facade.quantize_per_tensor(f, facade.tensor(0.1), facade.tensor(4), facade.qint32)
    assert (fq.q_scale(), fq.q_zero_point()) == (tq.q_scale(), tq.q_zero_point())  # float32 scale, as a double
    same(fq.int_repr(), tq.int_repr())
    tl = torch.quantize_per_tensor([t, t * 2], torch.tensor([0.1, 0.2]), torch.tensor([1, 2]), torch.quint8)
    fl = facade.quantize_per_tensor([f, f * 2], facade.tensor([0.1, 0.2]), facade.tensor([1, 2]), facade.quint8)
    assert type(fl) is type(tl) and len(fl) == 2
    for a, b in zip(fl, tl):
        same(a.int_repr(), b.int_repr())
        assert a.q_scale() == b.q_scale()
    td, fd = torch.dequantize(list(tl)), facade.dequantize(list(fl))
    assert type(fd) is type(td)
    for a, b in zip(fd, td):
        same(a, b)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("qd", QDTYPES)
def test_quantize_per_channel(axis, qd):
    x = VALUES[:60].reshape(3, 4, 5)
    t, f = both(x)
    n = x.shape[axis]
    scales, zps = np.linspace(0.05, 0.5, n), np.arange(n) * 3
    tq = torch.quantize_per_channel(t, torch.tensor(scales), torch.tensor(zps), axis, getattr(torch, qd))
    fq = facade.quantize_per_channel(f, facade.tensor(scales), facade.tensor(zps), axis, getattr(facade, qd))
    same(fq.int_repr(), tq.int_repr())
    same(fq.dequantize(), tq.dequantize())
    same(fq.q_per_channel_scales(), tq.q_per_channel_scales())
    same(fq.q_per_channel_zero_points(), tq.q_per_channel_zero_points())
    assert fq.q_per_channel_axis() == tq.q_per_channel_axis()
    assert repr(fq.qscheme()) == repr(tq.qscheme())
    assert repr(fq) == repr(tq)


@pytest.mark.parametrize("qd", ["quint8", "qint8"])
@pytest.mark.parametrize("reduce_range", [False, True])
@pytest.mark.parametrize("lo,hi", [(-1.0, 30.0), (2.0, 5.0), (-7.0, -0.5), (0.0, 0.0), (-3.3, 3.3)])
def test_quantize_per_tensor_dynamic(qd, reduce_range, lo, hi):
    t, f = both(np.linspace(lo, hi, 17, dtype=np.float32))
    tq = torch.quantize_per_tensor_dynamic(t, getattr(torch, qd), reduce_range)
    fq = facade.quantize_per_tensor_dynamic(f, getattr(facade, qd), reduce_range)
    assert (fq.q_scale(), fq.q_zero_point()) == (tq.q_scale(), tq.q_zero_point())
    same(fq.int_repr(), tq.int_repr())


def test_repr():
    t, f = both(np.array([-1.0, 0.26, 0.5, 3.0, 30.0], np.float32))
    for args in ((0.1, 10, "quint8"), (0.25, -3, "qint8"), (0.1, 0, "qint32")):
        tq = torch.quantize_per_tensor(t, *args[:2], getattr(torch, args[2]))
        fq = facade.quantize_per_tensor(f, *args[:2], getattr(facade, args[2]))
        assert repr(fq) == repr(tq)
        assert repr(fq[1:3]) == repr(tq[1:3]) and repr(fq[2]) == repr(tq[2])
        assert repr(fq.reshape(5, 1)) == repr(tq.reshape(5, 1))
    empty_t = torch.quantize_per_tensor(torch.tensor([]), 0.1, 1, torch.quint8)
    assert repr(facade.quantize_per_tensor(facade.tensor([]), 0.1, 1, facade.quint8)) == repr(empty_t)
    for name in ("per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
                 "per_channel_affine_float_qparams"):
        assert repr(getattr(facade, name)) == repr(getattr(torch, name))
        assert isinstance(getattr(facade, name), facade.qscheme)
    assert facade.qscheme.__module__ == torch.qscheme.__module__ and facade.qscheme.__name__ == "qscheme"


def test_allowed_ops_keep_the_quantizer():
    t, f = both(VALUES[:24])
    tq, fq = torch.quantize_per_tensor(t, 0.1, 5, torch.quint8), facade.quantize_per_tensor(f, 0.1, 5, facade.quint8)
    for op in (lambda q: q.clone(), lambda q: q.detach(), lambda q: q.view(4, 6), lambda q: q.reshape(2, 3, 4)[1],
               lambda q: q.view(4, 6).t(), lambda q: q.view(4, 6).transpose(0, 1), lambda q: q.unsqueeze(0),
               lambda q: q[::3], lambda q: q.view(2, 12).permute(1, 0).flatten(), lambda q: q.contiguous()):
        same(op(fq).int_repr(), op(tq).int_repr())
        assert op(fq).is_quantized and op(fq).q_scale() == op(tq).q_scale()
    assert (fq.shape, fq.numel(), fq.element_size()) == (tuple(tq.shape), tq.numel(), tq.element_size())
    et, ef = torch.empty_quantized([2, 3], tq), facade.empty_quantized([2, 3], fq)
    assert (ef.dtype, tuple(ef.shape), ef.q_scale(), ef.q_zero_point()) == \
        (facade.quint8, tuple(et.shape), et.q_scale(), et.q_zero_point())


def test_refused_ops():
    t, f = both(VALUES[:6])
    tq, fq = torch.quantize_per_tensor(t, 0.1, 5, torch.quint8), facade.quantize_per_tensor(f, 0.1, 5, facade.quint8)
    for op in (lambda q: q + 1, lambda q: q * 2, lambda q: q - 1, lambda q: q / 2):
        t_msg, f_msg = raises_like(partial(op, fq), partial(op, tq))
        assert f_msg == t_msg
    for op in (lambda q: q + q, lambda q: q.sum(), lambda q: q.abs(), lambda q: q.exp()):
        t_msg, f_msg = raises_like(partial(op, fq), partial(op, tq))
        assert "QuantizedCPU" in t_msg and ("QuantizedCPU" in f_msg or "quint8" in f_msg)  # promotion says quint8
    t_msg, f_msg = raises_like(lambda: fq.requires_grad_(), lambda: tq.requires_grad_())
    assert f_msg == t_msg


def test_accessor_errors():
    t, f = both(VALUES[:6].reshape(2, 3))
    tq, fq = torch.quantize_per_tensor(t, 0.1, 5, torch.quint8), facade.quantize_per_tensor(f, 0.1, 5, facade.quint8)
    tc = torch.quantize_per_channel(t, torch.tensor([0.1, 0.2]), torch.tensor([0, 1]), 0, torch.qint8)
    fc = facade.quantize_per_channel(f, facade.tensor([0.1, 0.2]), facade.tensor([0, 1]), 0, facade.qint8)
    for name in ("q_per_channel_scales", "q_per_channel_zero_points", "q_per_channel_axis"):
        t_msg, f_msg = raises_like(getattr(fq, name), getattr(tq, name))
        assert f_msg in t_msg
    for name in ("q_scale", "q_zero_point"):
        t_msg, f_msg = raises_like(getattr(fc, name), getattr(tc, name))
        assert f_msg in t_msg
    for name in ("int_repr", "q_scale", "q_zero_point", "qscheme", "q_per_channel_axis"):
        t_msg, f_msg = raises_like(getattr(f, name), getattr(t, name))
        assert f_msg.split(" with")[0] == t_msg.split(" with")[0]  # Could not run 'aten::int_repr'
    same(f.dequantize(), t.dequantize())


def _bad_inputs(lib):
    x = lib.tensor(VALUES[:6].reshape(2, 3))
    return [
        lambda: lib.quantize_per_tensor(x.double(), 0.1, 1, lib.quint8),
        lambda: lib.quantize_per_tensor(x.long(), 0.1, 1, lib.quint8),
        lambda: lib.quantize_per_tensor(x, 0.1, 0, lib.int8),
        lambda: lib.quantize_per_tensor(x, 0.1, 0, lib.float32),
        lambda: lib.quantize_per_tensor(x, 0.1, 1000, lib.quint8),
        lambda: lib.quantize_per_tensor(x, 0.1, -1, lib.quint8),
        lambda: lib.quantize_per_tensor_dynamic(x, lib.qint32, False),
        lambda: lib.quantize_per_channel(x, lib.tensor([0.1, 0.2, 0.3]), lib.tensor([0, 1]), 0, lib.qint8),
        lambda: lib.quantize_per_channel(x, lib.tensor([0.1, 0.2, 0.3]), lib.tensor([0, 1, 2]), 0, lib.qint8),
        lambda: lib.quantize_per_channel(x, lib.tensor([0.1, 0.2]), lib.tensor([0, 1]), 2, lib.qint8),
        lambda: lib.quantize_per_channel(x, lib.tensor([0.1, 0.2]), lib.tensor([0, 1]), -1, lib.qint8),
        lambda: lib.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255),
        lambda: lib.fake_quantize_per_tensor_affine(x, 0.1, 3, 10, 5),
    ]


@pytest.mark.parametrize("i", range(13))
def test_bad_input(i):
    t_msg, f_msg = raises_like(_bad_inputs(facade)[i], _bad_inputs(torch)[i])
    assert f_msg.startswith(t_msg.rstrip(".")) or t_msg in f_msg


@pytest.mark.parametrize("scale,zp,qmin,qmax", [(0.1, 10, 0, 255), (0.05, 0, -128, 127), (0.3, 2, 0, 15)])
def test_fake_quantize_per_tensor(scale, zp, qmin, qmax):
    t, f = both(VALUES)
    t.requires_grad_(True)
    f.requires_grad_(True)
    tout = torch.fake_quantize_per_tensor_affine(t, scale, zp, qmin, qmax)
    fout = facade.fake_quantize_per_tensor_affine(f, scale, zp, qmin, qmax)
    same(fout.detach(), tout.detach())
    g = np.random.default_rng(1).normal(size=VALUES.shape).astype(np.float32)
    tout.backward(torch.tensor(g))
    fout.backward(facade.tensor(g))
    same(f.grad, t.grad)  # straight through inside the range, zero outside
    tt = torch.fake_quantize_per_tensor_affine(t.detach(), torch.tensor(scale), torch.tensor(zp, dtype=torch.int32),
                                               qmin, qmax)
    ft = facade.fake_quantize_per_tensor_affine(f.detach(), facade.tensor(scale),
                                                facade.tensor(zp, dtype=facade.int32), qmin, qmax)
    same(ft, tt)


@pytest.mark.parametrize("axis", [0, 1])
def test_fake_quantize_per_channel(axis):
    x = VALUES[:40].reshape(4, 10) * 3
    t, f = both(x)
    t.requires_grad_(True)
    f.requires_grad_(True)
    n = x.shape[axis]
    scale, zp = np.linspace(0.05, 0.4, n).astype(np.float32), (np.arange(n) % 5).astype(np.int32)
    tout = torch.fake_quantize_per_channel_affine(t, torch.tensor(scale), torch.tensor(zp), axis, 0, 15)
    fout = facade.fake_quantize_per_channel_affine(f, facade.tensor(scale), facade.tensor(zp), axis, 0, 15)
    same(fout.detach(), tout.detach())
    tout.sum().backward()
    fout.sum().backward()
    same(f.grad, t.grad)
    assert 0 < float(t.grad.sum()) < t.numel()  # the mask is partial: the test sees both sides of it


@pytest.mark.parametrize("qd", ["quint8", "qint8"])
def test_quantized_batch_norm(qd):
    rng = np.random.default_rng(0)
    x = rng.normal(0, 2, (2, 3, 6, 6)).astype(np.float32)
    w, b, m = (rng.normal(size=3).astype(np.float32) for _ in range(3))
    v = np.abs(rng.normal(size=3)).astype(np.float32) + 0.1
    tq = torch.quantize_per_tensor(torch.tensor(x), 0.05, 7, getattr(torch, qd))
    fq = facade.quantize_per_tensor(facade.tensor(x), 0.05, 7, getattr(facade, qd))
    for out_scale, out_zp in [(0.1, 3), (0.03, 0), (0.2, 10)]:
        tb = torch.quantized_batch_norm(tq, *map(torch.tensor, (w, b, m, v)), 1e-5, out_scale, out_zp)
        fb = facade.quantized_batch_norm(fq, *map(facade.tensor, (w, b, m, v)), 1e-5, out_scale, out_zp)
        same(fb.int_repr(), tb.int_repr())
        assert (fb.dtype, fb.q_scale(), fb.q_zero_point()) == (fq.dtype, tb.q_scale(), tb.q_zero_point())


@pytest.mark.parametrize("n,args", [(1, ([3], [2], [1], [1], False)), (2, ([3, 3], [2, 2], [1, 1], [1, 1], True)),
                                    (2, ([2, 2], [], [0, 0], [1, 1], False)), (3, ([2, 2, 2], [1, 2, 2]))])
def test_quantized_max_pool(n, args):
    x = np.random.default_rng(2).normal(0, 2, (2, 3) + (6,) * n).astype(np.float32)
    tq = torch.quantize_per_tensor(torch.tensor(x), 0.05, 7, torch.quint8)
    fq = facade.quantize_per_tensor(facade.tensor(x), 0.05, 7, facade.quint8)
    tr = getattr(torch, f"quantized_max_pool{n}d")(tq, *args)
    fr = getattr(facade, f"quantized_max_pool{n}d")(fq, *args)
    same(fr.int_repr(), tr.int_repr())
    assert repr(fr) == repr(tr)
    t_msg, f_msg = raises_like(lambda: facade.quantized_max_pool2d(facade.ones(1, 1, 4, 4), [2, 2]),
                               lambda: torch.quantized_max_pool2d(torch.ones(1, 1, 4, 4), [2, 2]))
    assert f_msg.split(" with")[0] == t_msg.split(" with")[0]


def test_pickle_is_refused_clearly():
    fq = facade.quantize_per_tensor(facade.ones(2), 0.1, 0, facade.quint8)
    with pytest.raises(NotImplementedError, match="quantized tensors is not supported here"):
        pickle.dumps(fq)
