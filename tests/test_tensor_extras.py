"""Tensor methods and torch functions that are not table ops (metadata, legacy constructors, resize_, set_,
apply_ ...), torch's ATen-signature aliases of nn functions, and indexing with a Python range; each against
real torch."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import facade
from facade import _table

from . import test_ops as _ops
from .opinfo import OpInfo, Sample, arr
from .test_runner import _both, assert_same_numbers


def _pair(values, **kw):
    return torch.tensor(values, **kw), facade.tensor(values, **{k: getattr(facade, str(v).split(".")[1])
                                                                  for k, v in kw.items()})


def _same(t, f):
    _ops.assert_same(t, f, 1e-6, 1e-6)


# ---------------------------------------------------------------------------- indexing with a range

@pytest.mark.parametrize("index", [range(3), range(1, 5, 2), range(0), (range(2), 0), (range(2), range(1, 3)),
                                   [range(2), 0], (slice(None), range(2, 0, -1))])
def test_range_index_reads_and_writes_like_torch(index):
    t, f = torch.arange(20.0).reshape(5, 4), facade.arange(20.0).reshape(5, 4)
    _same(t[index], f[index])
    t[index], f[index] = -1.0, -1.0
    _same(t, f)


def test_range_index_in_a_script(tmp_path):
    ref, got = _both(tmp_path, """
        import torch
        x = torch.arange(12.).reshape(4, 3)
        print(x[range(3)].sum().item(), x[range(1, 4, 2)].tolist())
        x[range(0, 4, 2)] = torch.tensor([7., 8., 9.])
        y = torch.arange(5)
        y[range(2)] = 0
        print(x.tolist(), y.tolist())
    """)
    assert_same_numbers(ref, got)


# ---------------------------------------------------------------------------- metadata

def test_metadata_answers_like_torch():
    for values, dtype in (([1.0, 2.0], "float32"), ([1, 2], "int64"), ([True], "bool"), ([1 + 2j], "complex64")):
        t, f = torch.tensor(values, dtype=getattr(torch, dtype)), facade.tensor(values, dtype=getattr(facade, dtype))
        for name in ("is_conj", "is_neg", "is_signed", "get_device", "dim_order", "output_nr", "name"):
            want = getattr(t, name)
            got = getattr(f, name)
            assert (want() if callable(want) else want) == (got() if callable(got) else got), (name, dtype)
        for name in ("is_conj", "is_neg", "is_signed", "get_device", "typename", "is_distributed"):
            assert getattr(torch, name)(t) == getattr(facade, name)(f), (name, dtype)
        assert f.storage_type().__name__ == t.storage_type().__name__
    t = torch.zeros(2, 3, 4).permute(2, 0, 1)
    assert facade.zeros(2, 3, 4).permute(2, 0, 1).dim_order() == t.dim_order()
    assert facade.typename(facade.nn.Linear(2, 2)) == torch.typename(torch.nn.Linear(2, 2))
    assert facade.typename(3) == torch.typename(3)
    assert facade.typename(facade.nn.Parameter) == torch.typename(torch.nn.Parameter)  # a class names itself
    f = facade.ones(2, requires_grad=True).unbind()
    assert [x.output_nr for x in f] == [x.output_nr for x in torch.ones(2, requires_grad=True).unbind()]
    x = facade.ones(3)
    assert x.const_data_ptr() == x.data_ptr() and x.record_stream(None) is None


@pytest.mark.parametrize("values", [[3.0], [0], [[True]], [0.0, 1.0], []])
def test_is_nonzero(values):
    t, f = torch.tensor(values), facade.tensor(values)
    try:
        want = torch.is_nonzero(t)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            facade.is_nonzero(f)
        return
    assert facade.is_nonzero(f) == want == f.is_nonzero()


def test_dsmm_of_dense_matrices():
    a, b = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones((3, 2), np.float32)
    _same(torch.dsmm(torch.tensor(a), torch.tensor(b)), facade.dsmm(facade.tensor(a), facade.tensor(b)))


def test_as_strided_in_place():
    t, f = torch.arange(6.0)[1:], facade.arange(6.0)[1:]
    _same(torch.as_strided_(t, (2, 2), (1, 2)), facade.as_strided_(f, (2, 2), (1, 2)))
    _same(t.as_strided_((3,), (2,), 0), f.as_strided_((3,), (2,), 0))


def test_is_same_size_and_torch_level_detach():
    assert facade.is_same_size(facade.ones(2, 3), facade.zeros(2, 3)) and not facade.ones(2).is_same_size(
        facade.ones(3))
    f = facade.ones(2, requires_grad=True) * 2
    t = torch.ones(2, requires_grad=True) * 2
    assert facade.detach(f).requires_grad == torch.detach(t).requires_grad
    assert facade.detach_(f) is f and not f.requires_grad and f.grad_fn is None


def test_torch_inplace_names_are_torchs():
    missing = sorted(n for n in _table.TORCH_INPLACE if not hasattr(torch, n))
    assert not missing, f"facade installs torch.X_ names torch lacks: {missing}"
    lacking = sorted(n for n in _table.TORCH_INPLACE if not hasattr(facade, n))
    assert lacking in ([], ["i0_"]), lacking  # i0 belongs to the special-functions part
    x = facade.tensor([-1.0, 4.0])
    assert facade.abs_(x) is x and x.tolist() == [1.0, 4.0]
    assert not hasattr(facade, "add_") and not hasattr(torch, "add_")


# ---------------------------------------------------------------------------- H, mH, sum_to_size, fill_diagonal_

@pytest.mark.parametrize("shape,attr", [((2, 3), "H"), ((3,), "H"), ((), "H"), ((2, 2, 3), "H"), ((2, 2, 3), "mH"),
                                        ((3,), "mH")])
def test_conjugate_transposes(shape, attr):
    v = (np.arange(np.prod(shape)) + 1j).reshape(shape).astype(np.complex64)
    t, f = torch.tensor(v), facade.tensor(v)
    try:
        want = getattr(t, attr)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=re.escape(str(e))):
            getattr(f, attr)
        return
    _same(want, getattr(f, attr))


@pytest.mark.parametrize("size", [(1, 4), (4,), (3, 1), (1, 1), (2, 3, 4), (3, 2), ()])
def test_sum_to_size(size):
    v = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    t, f = torch.tensor(v, requires_grad=True), facade.tensor(v, requires_grad=True)
    try:
        want = t.sum_to_size(*size) if size else t.sum_to_size(size)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=re.escape(str(e))):
            f.sum_to_size(*size) if size else f.sum_to_size(size)
        return
    got = f.sum_to_size(*size) if size else f.sum_to_size(size)
    _same(want, got)
    want.sum().backward()
    got.sum().backward()
    _same(t.grad, f.grad)


@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False),
                                        ((4,), False), ((2, 3, 3), False)])
def test_fill_diagonal_(shape, wrap):
    t, f = torch.zeros(shape), facade.zeros(shape)
    try:
        t.fill_diagonal_(5.0, wrap=wrap)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            f.fill_diagonal_(5.0, wrap=wrap)
        return
    assert f.fill_diagonal_(5.0, wrap=wrap) is f
    _same(t, f)


def test_fill_diagonal_gradient():
    t, f = torch.ones(3, 3, requires_grad=True), facade.ones(3, 3, requires_grad=True)
    (t * 2).fill_diagonal_(0.0).pow(2).sum().backward()
    (f * 2).fill_diagonal_(0.0).pow(2).sum().backward()
    _same(t.grad, f.grad)


# ---------------------------------------------------------------------------- legacy constructors, resize_, set_

@pytest.mark.parametrize("args", [(), (2, 3), ([1, 2],), ((2,),)])
def test_new(args):
    t, f = torch.zeros(1, dtype=torch.int32), facade.zeros(1, dtype=facade.int32)
    want, got = t.new(*args), f.new(*args)
    assert str(want.dtype) == str(got.dtype) and tuple(want.shape) == tuple(got.shape)
    if args and isinstance(args[0], list):
        _same(want, got)
    e = f.new_empty_strided((2, 3), (3, 1))
    assert e.shape == t.new_empty_strided((2, 3), (3, 1)).shape and e.dtype is facade.int32


def test_resize_():
    t, f = torch.arange(6.0), facade.arange(6.0)
    assert f.resize_(2, 2) is f
    t.resize_(2, 2)
    _same(t, f)
    t.resize_as_(torch.zeros(4)), f.resize_as_(facade.zeros(4))
    _same(t, f)
    torch.resize_as_(t, torch.zeros(2, 2)), facade.resize_as_(f, facade.zeros(2, 2))
    _same(t, f)
    _same(t.resize(2, 2), f.resize(2, 2))
    assert tuple(f.resize_((3, 3)).shape) == (3, 3) and f[0, :].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        facade.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.ones(2, requires_grad=True).resize_(3)


def test_set_aliases_the_source():
    a, b = facade.zeros(3), facade.arange(4.0)
    assert a.set_(b) is a and a.is_set_to(b) and b.is_set_to(a)
    a[0] = 9.0
    assert b.tolist() == [9.0, 1.0, 2.0, 3.0]
    b.mul_(2)
    assert a.tolist() == [18.0, 2.0, 4.0, 6.0]
    assert not facade.zeros(2).is_set_to(facade.zeros(2))
    assert tuple(facade.ones(2).set_().shape) == tuple(torch.ones(2).set_().shape)


def test_apply_and_map():
    t, f = _pair([1.0, 2.0, 3.0])
    _same(t.apply_(lambda v: v * v + 1), f.apply_(lambda v: v * v + 1))
    ot, of = _pair([10.0, 20.0, 30.0])
    _same(t.map_(ot, lambda x, y: x - y), f.map_(of, lambda x, y: x - y))
    _same(t.map2_(ot, ot, lambda x, y, z: x + y * z), f.map2_(of, of, lambda x, y, z: x + y * z))
    it, i_f = _pair([1, 2], dtype=torch.int64)
    _same(it.apply_(lambda v: v // 2), i_f.apply_(lambda v: v // 2))


# ---------------------------------------------------------------------------- creation helpers

@pytest.mark.parametrize("values,size", [([0, 1, 1, 0, 1], 5), ([0, 1, 1, 0, 1], 2), ([[1, 0], [1, 1]], 4), ([], 2)])
def test_nonzero_static(values, size):
    t, f = torch.tensor(values), facade.tensor(values)
    _same(torch.nonzero_static(t, size=size), facade.nonzero_static(f, size=size))
    _same(t.nonzero_static(size=size, fill_value=7), f.nonzero_static(size=size, fill_value=7))


@pytest.mark.parametrize("indices,shape", [([7, -7, 13, 0], (2, 3)), ([[1, 5], [3, 2]], (2, 3)), (4, (2, 3)),
                                           ([3], 5), ([1], (2, -3)), ([1.0], (2, 3))])
def test_unravel_index(indices, shape):
    t, f = torch.tensor(indices), facade.tensor(indices)
    try:
        want = torch.unravel_index(t, shape)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            facade.unravel_index(f, shape)
        return
    _same(want, facade.unravel_index(f, shape))


def test_frombuffer_from_file_and_empty_permuted(tmp_path):
    buf = np.arange(6, dtype=np.int32).tobytes()
    _same(torch.frombuffer(bytearray(buf), dtype=torch.int32, count=4, offset=4),
          facade.frombuffer(bytearray(buf), dtype=facade.int32, count=4, offset=4))
    path = tmp_path / "x.bin"
    np.arange(5, dtype=np.float32).tofile(path)
    _same(torch.from_file(str(path), size=5, dtype=torch.float32), facade.from_file(str(path), size=5,
                                                                                   dtype=facade.float32))
    e_t, e_f = torch.empty_permuted((2, 3, 4), (0, 2, 1)), facade.empty_permuted((2, 3, 4), (0, 2, 1))
    assert tuple(e_t.shape) == tuple(e_f.shape) and str(e_t.dtype) == str(e_f.dtype)


# ---------------------------------------------------------------------------- torch.<nn op>: ATen signatures

def _nn_aten(rng):
    x, w = arr(rng, (2, 3, 5)), arr(rng, (4, 3, 2))
    img, grid = arr(rng, (1, 2, 4, 4)), rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    vol, grid3 = arr(rng, (1, 1, 3, 3, 3)), rng.uniform(-1, 1, (1, 2, 2, 2, 3)).astype(np.float32)
    c = arr(rng, (3,))
    return {
        "native_layer_norm": [Sample((x, [5], arr(rng, (5,)), arr(rng, (5,)), 1e-5)), Sample((x, [3, 5], None, None,
                                                                                              1e-5))],
        "native_group_norm": [Sample((arr(rng, (2, 6, 4)), arr(rng, (6,)), arr(rng, (6,)), 2, 6, 4, 3, 1e-5))],
        "native_batch_norm": [Sample((x, c, c, None, None, True, 0.1, 1e-5))],
        "native_channel_shuffle": [Sample((arr(rng, (1, 6, 2)), 3))],
        "batch_norm": [Sample((x, c, c, None, None, True, 0.1, 1e-5, False))],
        "instance_norm": [Sample((x, c, c, None, None, True, 0.1, 1e-5, False))],
        "convolution": [Sample((x, w, arr(rng, (4,)), [1], [1], [1], False, [0], 1)),
                        Sample((x, arr(rng, (3, 2, 2)), None, [2], [0], [1], True, [1], 1)),
                        Sample((img, arr(rng, (4, 1, 3, 3)), None, [1, 1], [1, 0], [1, 1], False, [0, 0], 2))],
        "conv_tbc": [Sample((arr(rng, (5, 2, 3)), arr(rng, (3, 3, 4)), arr(rng, (4,)), 1)),
                     Sample((arr(rng, (5, 2, 3)), arr(rng, (2, 3, 4)), arr(rng, (4,))))],
        "grid_sampler_2d": [Sample((img, grid, m, p, a)) for m, p, a in ((0, 0, False), (1, 1, True), (2, 2, False))],
        "grid_sampler_3d": [Sample((vol, grid3, 0, 0, True))],
    }


# torch has no derivative of native_channel_shuffle
_NN_CASES = [(OpInfo(n, None, rtol=1e-4, atol=1e-5, grad=n != "native_channel_shuffle"), s)
             for n, ss in _nn_aten(np.random.default_rng(0)).items() for s in ss]


@pytest.mark.parametrize("info,sample", _NN_CASES, ids=[f"{i.name}-{k}" for k, (i, _) in enumerate(_NN_CASES)])
def test_nn_aten_aliases(info, sample):
    _ops.test_op(info, sample)


def test_native_batch_norm_statistics_and_eval():
    x = np.random.default_rng(0).standard_normal((4, 3, 2)).astype(np.float32)
    rm_t, rv_t, rm_f, rv_f = torch.zeros(3), torch.ones(3), facade.zeros(3), facade.ones(3)
    _same(torch.native_batch_norm(torch.tensor(x), None, None, rm_t, rv_t, True, 0.1, 1e-5),
          facade.native_batch_norm(facade.tensor(x), None, None, rm_f, rv_f, True, 0.1, 1e-5))
    _same((rm_t, rv_t), (rm_f, rv_f))
    _same(torch.native_batch_norm(torch.tensor(x), None, None, rm_t, rv_t, False, 0.1, 1e-5),
          facade.native_batch_norm(facade.tensor(x), None, None, rm_f, rv_f, False, 0.1, 1e-5))


@pytest.mark.parametrize("train", [True, False, None])
def test_native_dropout(train):
    x = facade.ones(1000)
    out, mask = facade.native_dropout(x, 0.25, train)
    t_out, t_mask = torch.native_dropout(torch.ones(1000), 0.25, train)
    assert mask.dtype is facade.bool and str(t_mask.dtype) == "torch.bool"
    assert np.allclose(out.numpy(), mask.numpy() / (0.75 if train is not False else 1.0))
    assert (mask.numpy().mean() < 0.9) == (t_mask.numpy().mean() < 0.9)
