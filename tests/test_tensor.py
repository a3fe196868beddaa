"""The Tensor API that is not math: conversions, properties, .to()/.type(), devices, numpy memory sharing.
Compared against real torch (values, dtypes, shapes, devices, errors with their messages)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import facade

from ._compare import same

X = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2.5

CASES = {
    # item / tolist
    "item_0d": lambda t: t.tensor(2.5).item(),
    "item_1elem": lambda t: t.tensor([[7]]).item(),
    "item_bool": lambda t: t.tensor([True]).item(),
    "item_int32": lambda t: t.tensor(3, dtype=t.int32).item(),
    "item_f16": lambda t: t.tensor(0.1, dtype=t.float16).item(),
    "item_bf16": lambda t: t.tensor(0.1, dtype=t.bfloat16).item(),
    "item_f32_exact": lambda t: t.tensor(0.1).item(),
    "item_complex": lambda t: t.tensor(1 + 2j).item(),
    "item_rg": lambda t: t.tensor([3.0], requires_grad=True).item(),
    "item_many": lambda t: t.tensor(X).item(),
    "item_empty": lambda t: t.tensor([]).item(),
    "tolist": lambda t: t.tensor(X).tolist(),
    "tolist_0d": lambda t: t.tensor(1.5).tolist(),
    "tolist_int": lambda t: t.tensor([[1, 2]], dtype=t.int16).tolist(),
    "tolist_bool": lambda t: t.tensor([True, False]).tolist(),
    "tolist_empty": lambda t: t.zeros(2, 0).tolist(),
    "tolist_rg": lambda t: t.tensor([3.0], requires_grad=True).tolist(),
    "tolist_f16": lambda t: t.tensor([0.1], dtype=t.float16).tolist(),
    "tolist_view": lambda t: t.tensor(X).transpose(0, 1).tolist(),
    # Python protocols
    "len": lambda t: len(t.zeros(4, 2)),
    "len_0d": lambda t: len(t.tensor(1.0)),
    "iter": lambda t: [r.tolist() for r in t.tensor(X)],
    "iter_1d": lambda t: list(t.tensor([1, 2, 3])),
    "iter_0d": lambda t: iter(t.tensor(1.0)),
    "bool_true": lambda t: bool(t.tensor([2.0])),
    "bool_false": lambda t: bool(t.tensor(0)),
    "bool_many": lambda t: bool(t.tensor(X)),
    "bool_empty": lambda t: bool(t.tensor([])),
    "if": lambda t: "yes" if t.tensor(1) else "no",
    "index": lambda t: [10, 20, 30][t.tensor(1)],
    "index_1elem": lambda t: [10, 20, 30][t.tensor([2])],
    "index_bool": lambda t: [10, 20, 30][t.tensor(True)],
    "index_float": lambda t: [10, 20, 30][t.tensor(1.0)],
    "index_many": lambda t: [10, 20, 30][t.tensor([1, 2])],
    "range": lambda t: list(range(t.tensor(3))),
    "hex": lambda t: hex(t.tensor(255)),
    "int": lambda t: int(t.tensor(2.7)),
    "int_neg": lambda t: int(t.tensor(-2.7)),
    "int_1elem": lambda t: int(t.tensor([[2.7]])),
    "int_many": lambda t: int(t.tensor(X)),
    "int_empty": lambda t: int(t.tensor([])),
    "float": lambda t: float(t.tensor(3)),
    "float_many": lambda t: float(t.tensor(X)),
    "complex": lambda t: complex(t.tensor(2.0)),
    "format": lambda t: f"{t.tensor(3.14159):.3f}",
    "format_int": lambda t: f"{t.tensor(3):04d}",
    "format_rg": lambda t: f"{t.tensor(3.0, requires_grad=True):.1f}",
    "format_1d": lambda t: f"{t.tensor([3.14159]):.3f}",
    "format_1d_empty_spec": lambda t: f"{t.tensor([3.14159])}",
    "format_meta": lambda t: f"{t.tensor(1.0, device='meta')}",
    "np_asarray": lambda t: np.asarray(t.tensor(X)).tolist(),
    "np_asarray_dtype": lambda t: np.asarray(t.tensor(X), dtype=np.int64).tolist(),
    "np_array_rg": lambda t: np.array(t.tensor([1.0], requires_grad=True)),
    "np_array_meta": lambda t: np.array(t.ones(2, device="meta")),
    "np_sum": lambda t: float(np.sum(t.tensor(X).numpy())),
    # properties
    "shape": lambda t: t.zeros(2, 3).shape,
    "size": lambda t: t.zeros(2, 3).size(),
    "size_dim": lambda t: t.zeros(2, 3).size(1),
    "size_neg": lambda t: t.zeros(2, 3).size(-1),
    "size_kw": lambda t: t.zeros(2, 3).size(dim=0),
    "size_bad": lambda t: t.zeros(2, 3).size(2),
    "size_0d": lambda t: t.tensor(1).size(),
    "dim": lambda t: t.zeros(2, 3, 4).dim(),
    "ndim": lambda t: t.zeros(2, 3, 4).ndim,
    "ndimension": lambda t: t.zeros(2).ndimension(),
    "numel": lambda t: t.zeros(2, 3, 4).numel(),
    "numel_0d": lambda t: t.tensor(1).numel(),
    "nelement": lambda t: t.zeros(2, 0).nelement(),
    "torch_numel": lambda t: t.numel(t.zeros(5)),
    "dtype": lambda t: t.zeros(2, dtype=t.int16).dtype,
    "device": lambda t: t.zeros(2).device,
    "is_cuda": lambda t: t.zeros(2).is_cuda,
    "is_cpu": lambda t: t.zeros(2).is_cpu,
    "element_size": lambda t: t.zeros(2, dtype=t.float64).element_size(),
    "itemsize": lambda t: t.zeros(2, dtype=t.int16).itemsize,
    "nbytes": lambda t: t.zeros(2, 3, dtype=t.int16).nbytes,
    "is_floating_point": lambda t: (t.zeros(1).is_floating_point(), t.zeros(1, dtype=t.int64).is_floating_point()),
    "is_complex": lambda t: t.zeros(1, dtype=t.complex64).is_complex(),
    "is_tensor": lambda t: (t.is_tensor(t.zeros(1)), t.is_tensor(1)),
    "T": lambda t: t.tensor(X).T,
    "T_1d": lambda t: t.tensor([1, 2]).T,
    "T_0d": lambda t: t.tensor(1.0).T,
    "mT": lambda t: t.tensor(X).reshape(1, 2, 3).mT,
    "mT_1d": lambda t: t.ones(2).mT,
    "data": lambda t: t.tensor([1.0], requires_grad=True).data,
    "is_leaf": lambda t: (t.ones(1).is_leaf, t.ones(1, requires_grad=True).is_leaf,
                          (t.ones(1, requires_grad=True) * 2).is_leaf, (t.ones(1) * 2).is_leaf),
    "grad_none": lambda t: t.ones(1, requires_grad=True).grad,
    "grad_fn_none": lambda t: t.ones(1).grad_fn,
    "grad_fn_name": lambda t: type((t.ones(1, requires_grad=True) * 2).grad_fn).__name__,
    "requires_grad": lambda t: (t.ones(1).requires_grad, (t.ones(1, requires_grad=True) + 1).requires_grad),
    "requires_grad_int": lambda t: t.ones(1, dtype=t.int64).requires_grad_(),
    # .to and friends
    "to_dtype": lambda t: t.tensor(X).to(t.int32),
    "to_dtype_kw": lambda t: t.tensor(X).to(dtype=t.float64),
    "to_device": lambda t: t.tensor(X).to("cpu"),
    "to_device_obj": lambda t: t.tensor(X).to(t.device("cpu")),
    "to_device_dtype": lambda t: t.tensor(X).to("cpu", t.int32),
    "to_device_dtype_kw": lambda t: t.tensor(X).to(device="cpu", dtype=t.int32),
    "to_other": lambda t: t.tensor(X).to(t.tensor(1, dtype=t.int32)),
    "to_nb": lambda t: t.tensor(X).to(t.int32, non_blocking=True),
    "to_nb_positional": lambda t: t.tensor(X).to(t.int32, True),
    "to_copy_kw": lambda t: t.tensor(X).to(t.float64, copy=True),
    "to_meta": lambda t: t.tensor(X).to("meta"),
    "to_bad_device": lambda t: t.tensor(X).to("foo:0"),
    "to_rg": lambda t: t.tensor(X, requires_grad=True).to(t.float64),
    "to_complex_to_real": lambda t: t.tensor([1 + 2j]).to(t.float32),
    "cpu": lambda t: t.tensor(X).cpu(),
    "type": lambda t: t.tensor(X).type(),
    "type_f64": lambda t: t.tensor(X).double().type(),
    "type_int": lambda t: t.tensor([1]).type(),
    "type_bool": lambda t: t.tensor([True]).type(),
    "type_str": lambda t: t.tensor(X).type("torch.IntTensor"),
    "type_str_double": lambda t: t.tensor(X).type("torch.DoubleTensor"),
    "type_dtype": lambda t: t.tensor(X).type(t.int32),
    "type_class": lambda t: t.tensor(X).type(t.IntTensor),
    "type_bad": lambda t: t.tensor(X).type("torch.int32"),
    "type_bad2": lambda t: t.tensor(X).type("foo"),
    "type_as": lambda t: t.tensor(X).type_as(t.tensor([1], dtype=t.int8)),
    "float_method": lambda t: t.tensor([1, -2]).float(),
    "double": lambda t: t.tensor([1, -2]).double(),
    "half": lambda t: t.tensor(X).half(),
    "bfloat16": lambda t: t.tensor(X).bfloat16(),
    "long": lambda t: t.tensor(X).long(),
    "int_": lambda t: t.tensor(X).int(),
    "short": lambda t: t.tensor(X).short(),
    "char": lambda t: t.tensor([-1.0, -2.5, 3.7, 300.0]).char(),
    "byte": lambda t: t.tensor([-1.0, -2.5, 3.7, 300.0]).byte(),
    "byte_from_int": lambda t: t.tensor([-1, 256, 300]).byte(),
    "bool": lambda t: t.tensor([0.0, -0.5, 2.0, float("nan")]).bool(),
    "cfloat": lambda t: t.tensor(X).cfloat(),
    "float_grad_fn": lambda t: type(t.tensor(X, requires_grad=True).double().grad_fn).__name__,
    "pin_memory_is_pinned": lambda t: t.zeros(2).is_pinned(),
    "share_memory": lambda t: t.zeros(2).share_memory_(),
    "get_device": lambda t: t.zeros(2).get_device(),
    # torch.device
    "device_cpu": lambda t: t.device("cpu"),
    "device_cuda": lambda t: t.device("cuda"),
    "device_cuda_1": lambda t: t.device("cuda:1"),
    "device_type_index": lambda t: t.device("cuda", 1),
    "device_cpu_index": lambda t: t.device("cpu", 0),
    "device_meta": lambda t: t.device("meta"),
    "device_copy": lambda t: t.device(t.device("cuda:2")),
    "device_attrs": lambda t: (t.device("cuda:1").type, t.device("cuda:1").index, t.device("cpu").index),
    "device_str": lambda t: (str(t.device("cuda", 1)), repr(t.device("cuda:1")), repr(t.device("cpu"))),
    "device_eq": lambda t: t.device("cuda:0") == t.device("cuda", 0),
    "device_ne_index": lambda t: t.device("cuda") == t.device("cuda:0"),
    "device_eq_str": lambda t: t.device("cpu") == "cpu",
    "device_eq_other": lambda t: t.device("cpu") == 3,
    "device_hash": lambda t: hash(t.device("cpu")) == hash(t.device("cpu")),
    "device_in_dict": lambda t: {t.device("cpu"): 1}[t.device("cpu")],
    "device_bad": lambda t: t.device("cuda:x"),
    "device_neg": lambda t: t.device("cuda", -1),
    "device_double_index": lambda t: t.device("cuda:0", 1),
    "tensor_device_eq": lambda t: t.zeros(1).device == t.device("cpu"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_tensor_api(name):
    # torch's list of device types in that message is its own (see test_device_bad_type_message)
    same(CASES[name], message=name != "to_bad_device")


def test_device_bad_type_message():
    for mod in (torch, facade):
        with pytest.raises(RuntimeError, match="^Expected one of .* device type at start of device string: foo$"):
            mod.device("foo")


def test_numpy_requires_grad_error():
    same(lambda t: t.tensor([1.0], requires_grad=True).numpy())
    same(lambda t: t.tensor([1.0], requires_grad=True).detach().numpy().tolist())
    same(lambda t: t.tensor([1.0], requires_grad=True).numpy(force=True).tolist())
    same(lambda t: t.tensor([1.0], dtype=t.bfloat16).numpy())


def test_cuda_without_gpu():
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    for fn in (lambda t: t.ones(2).cuda(), lambda t: t.ones(2).to("cuda"), lambda t: t.ones(2, device="cuda")):
        if gpus:
            assert fn(facade).device == facade.device("cuda", 0)
        else:
            same(fn)


def test_to_returns_self_or_copy():
    for mod in (torch, facade):
        x = mod.ones(2)
        assert x.to(mod.float32) is x
        assert x.to("cpu") is x
        assert x.to(x) is x
        assert x.cpu() is x
        assert x.float() is x
        assert x.type(mod.float32) is x
        y = x.to(mod.float32, copy=True)
        assert y is not x
        y.add_(1)
        assert x.tolist() == [1.0, 1.0]


def test_to_keeps_autograd():
    for mod in (torch, facade):
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        y = x.to(mod.float64) * 3
        y.sum().backward()
        assert x.grad.tolist() == [3.0, 3.0] and x.grad.dtype == mod.float32


def test_hash_by_identity():
    for mod in (torch, facade):
        a, b = mod.tensor([1.0]), mod.tensor([1.0])
        assert hash(a) == id(a) and hash(a) != hash(b)
        d = {a: "a", b: "b"}
        assert d[a] == "a" and d[b] == "b" and len({a, b}) == 2


def test_jax_interop():
    x = facade.tensor(X)
    assert isinstance(jnp.asarray(x), jax.Array) and isinstance(jnp.array(x), jax.Array)
    np.testing.assert_allclose(np.asarray(jnp.sin(jnp.asarray(x))), np.sin(X), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(x.__jax_array__()), X)


def test_iter_rows_are_views():
    for mod in (torch, facade):
        x = mod.zeros(2, 3)
        for row in x:
            row.add_(1)
        assert x.tolist() == [[1.0] * 3] * 2


def test_data_shares_storage_and_detaches():
    for mod in (torch, facade):
        x = mod.ones(2, requires_grad=True)
        d = x.data
        assert not d.requires_grad and d.is_leaf
        d.add_(1)
        assert x.tolist() == [2.0, 2.0]
        x.data = mod.zeros(3)
        assert x.shape == (3,) and x.requires_grad


def test_grad_and_grad_fn_after_backward():
    for mod in (torch, facade):
        x = mod.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        assert type(y.grad_fn).__name__ == "SumBackward0"
        y.backward()
        assert x.grad.tolist() == [2.0, 4.0]


def test_pin_and_share_accept():
    x = facade.ones(2)
    assert x.share_memory_() is x and not x.is_pinned() and not x.is_shared()
    assert x.pin_memory().tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------- numpy memory sharing

def test_from_numpy_shares_both_ways():
    for mod in (torch, facade):
        a = np.zeros(4, dtype=np.float32)
        t = mod.from_numpy(a)
        t.add_(1)
        assert a.tolist() == [1.0] * 4
        t[1] = 5
        assert a.tolist() == [1.0, 5.0, 1.0, 1.0]
        a[0] = 7
        assert t.tolist() == [7.0, 5.0, 1.0, 1.0]
        t.mul_(2)
        assert a.tolist() == [14.0, 10.0, 2.0, 2.0]
        n = t.numpy()
        assert np.shares_memory(n, a)
        assert (t + 1).tolist() == [15.0, 11.0, 3.0, 3.0]  # out-of-place results are new memory
        assert a.tolist() == [14.0, 10.0, 2.0, 2.0]


def test_from_numpy_2d_views():
    for mod in (torch, facade):
        a = np.zeros((2, 3), dtype=np.float64)
        t = mod.from_numpy(a)
        t[1].fill_(3)
        t.transpose(0, 1)[0].add_(1)
        assert a.tolist() == [[1.0, 0.0, 0.0], [4.0, 3.0, 3.0]]
        a[0, 2] = 9
        assert t[0].tolist() == [1.0, 0.0, 9.0]


def test_from_numpy_noncontiguous():
    for mod in (torch, facade):
        a = np.arange(6.0).reshape(2, 3).T
        t = mod.from_numpy(a)
        assert t.shape == (3, 2)
        t.add_(1)
        assert a.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]


def test_as_tensor_shares_numpy():
    for mod in (torch, facade):
        a = np.zeros(3, dtype=np.float32)
        t = mod.as_tensor(a)
        t.add_(2)
        assert a.tolist() == [2.0] * 3
        c = mod.as_tensor(a, dtype=mod.float64)  # a conversion copies
        c.add_(1)
        assert a.tolist() == [2.0] * 3
        s = mod.asarray(a)
        s.sub_(1)
        assert a.tolist() == [1.0] * 3
        k = mod.asarray(a, copy=True)
        k.sub_(1)
        assert a.tolist() == [1.0] * 3


def test_tensor_numpy_shares():
    for mod in (torch, facade):
        x = mod.ones(3)
        n = x.numpy()
        x.add_(1)
        assert n.tolist() == [2.0] * 3
        n[0] = 9
        assert x.tolist() == [9.0, 2.0, 2.0]
        x[2] = -1
        assert n.tolist() == [9.0, 2.0, -1.0]
        v = x.view(3)
        v.mul_(10)
        assert n.tolist() == [90.0, 20.0, -10.0]
        assert np.shares_memory(x.numpy(), n)
        assert (x * 2).tolist() == [180.0, 40.0, -20.0]


def test_view_numpy_shares():
    for mod in (torch, facade):
        x = mod.zeros(2, 3)
        row = x[1].numpy()
        col = x.transpose(0, 1)[2].numpy()
        row[:] = 1
        assert x.tolist() == [[0.0] * 3, [1.0] * 3]
        col[0] = 5
        assert x.tolist() == [[0.0, 0.0, 5.0], [1.0, 1.0, 1.0]]
        x.add_(1)
        assert row.tolist() == [2.0] * 3 and col.tolist() == [6.0, 2.0]


def test_numpy_dtypes_and_0d():
    for dt in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64"):
        same(lambda t, dt=dt: (t.zeros(2, dtype=getattr(t, dt)).numpy().dtype.name,
                               t.zeros((), dtype=getattr(t, dt)).numpy().shape))


def test_numpy_of_numpy_backed_sum_and_grad():
    a = np.ones(3, dtype=np.float32)
    t = facade.from_numpy(a).requires_grad_()
    (t * 2).sum().backward()
    assert t.grad.tolist() == [2.0] * 3
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        t.numpy()


def test_cpu_returns_self_shares():
    for mod in (torch, facade):
        x = mod.zeros(2)
        x.cpu().add_(1)
        assert x.tolist() == [1.0, 1.0]
