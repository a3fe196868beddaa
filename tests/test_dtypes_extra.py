"""The dtypes beyond the usual twelve: uint16/32/64 and the float8s (real arrays, torch's few kernels and no
promotion), and torch's placeholder dtypes (sub-byte ints, bits, quantized, complex32, packed float4): dtype
objects only. Real torch is the oracle."""

import pickle

import numpy as np
import pytest
import torch

import facade
from tests._compare import same

BAREBONES = ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
             ]
PLACEHOLDERS = ["float8_e8m0fnu", "complex32", "chalf", "float4_e2m1fn_x2", "bit", *(f"int{i}" for i in range(1, 8)),
                *(f"uint{i}" for i in range(1, 8)), "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2", "qint8",
                "quint8", "qint32", "quint4x2", "quint2x4"]
USUAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("name", BAREBONES + PLACEHOLDERS)
def test_dtype_object(name):
    t, f = getattr(torch, name), getattr(facade, name)
    assert repr(f) == repr(t)
    assert f.itemsize == t.itemsize
    assert (f.is_floating_point, f.is_complex) == (t.is_floating_point, t.is_complex)
    assert _outcome(lambda: f.is_signed)[0] == _outcome(lambda: t.is_signed)[0]
    assert _outcome(lambda: f.is_signed) == _outcome(lambda: t.is_signed) or _outcome(lambda: t.is_signed)[0] != "ok"
    assert repr(_outcome(f.to_real)[1]) == repr(_outcome(t.to_real)[1])
    assert pickle.loads(pickle.dumps(f)) is f


def test_aliases_are_the_same_objects():
    assert facade.chalf is facade.complex32 and facade.bit is facade.uint1


@pytest.mark.parametrize("a", BAREBONES + ["complex32", "uint4", "int4", "bits8", "qint8"])
def test_promote_types(a):
    message = a in BAREBONES  # torch's messages for the placeholders are internal asserts
    for b in USUAL + BAREBONES:
        same(lambda m, b=b: m.promote_types(getattr(m, a), getattr(m, b)), message=message)
        same(lambda m, b=b: m.promote_types(getattr(m, b), getattr(m, a)), message=message)


@pytest.mark.parametrize("name", BAREBONES + ["float8_e8m0fnu", "complex32", "float4_e2m1fn_x2", "int4", "bits8",
                                  "qint8"])
def test_finfo_iinfo(name):
    for info in ("finfo", "iinfo"):
        t = _outcome(lambda info=info: repr(getattr(torch, info)(getattr(torch, name))))
        f = _outcome(lambda info=info: repr(getattr(facade, info)(getattr(facade, name))))
        assert f[0] == t[0] and (t[0] != "TypeError" or f[1] == t[1]), (info, f, t)
        if t[0] == "ok":
            assert f == t


@pytest.mark.parametrize("name", BAREBONES)
def test_values_round_trip(name):
    data = [0.0, 1.5, 2.0, 300.0, 0.3, -2.5] if "float8" in name else [0, 1, 300, 65535]
    same(lambda m: m.tensor(data).to(getattr(m, name)).float())
    same(lambda m: m.tensor(data).to(getattr(m, name)).tolist())
    same(lambda m: m.zeros(2, 3, dtype=getattr(m, name)).float())
    same(lambda m: m.ones(3, dtype=getattr(m, name)).type())
    same(lambda m: repr(m.tensor(data).to(getattr(m, name))))


def test_numpy_unsigned():
    for np_dtype in (np.uint16, np.uint32, np.uint64):
        a = np.array([1, 2, 40000], np_dtype)
        same(lambda m, a=a: m.from_numpy(a.copy()))
        same(lambda m, a=a: m.tensor(a))


# Which ops torch has kernels for on these dtypes (NotImplementedError where it has none).
_OPS = {
    "add": lambda m, x: x + x, "sub": lambda m, x: x - x, "mul": lambda m, x: x * x, "add_scalar": lambda m, x: x + 1,
    "div": lambda m, x: x / x, "eq": lambda m, x: x == x, "lt": lambda m, x: x < x, "sum": lambda m, x: x.sum(),
    "amax": lambda m, x: x.amax(), "abs": lambda m, x: x.abs(), "neg": lambda m, x: -x,
    "and": lambda m, x: x & x, "matmul": lambda m, x: x @ x, "cat": lambda m, x: m.cat([x, x]),
    "slice": lambda m, x: x[1:], "clone": lambda m, x: x.clone(), "reshape": lambda m, x: x.reshape(-1),
    "transpose": lambda m, x: x.t(), "sort": lambda m, x: x.sort(-1).values, "cumsum": lambda m, x: x.cumsum(0),
    "exp": lambda m, x: x.exp(), "where": lambda m, x: m.where(x == x, x, x),
    "mix_float32": lambda m, x: x * m.ones(2, 2), "mix_int64": lambda m, x: x * m.ones(2, 2, dtype=m.int64),
}


@pytest.mark.parametrize("name", BAREBONES)
@pytest.mark.parametrize("op", list(_OPS))
def test_kernels_like_torch(name, op):
    def run(m):
        x = m.tensor([[1.0, 2.0], [3.0, 1.0]]).to(getattr(m, name))
        out = _OPS[op](m, x)
        return out.dtype, out.float() if out.dtype.is_floating_point else out.long()
    t, f = _outcome(lambda: run(torch)), _outcome(lambda: run(facade))
    assert f[0] == t[0], (f, t)
    if t[0] == "ok":
        assert str(f[1][0]) == str(t[1][0])
        np.testing.assert_array_equal(f[1][1].numpy(), t[1][1].numpy())
    elif t[0] == "RuntimeError":
        assert f[1] == t[1]


@pytest.mark.parametrize("name", ["float8_e8m0fnu", "int4", "uint4", "int1", "bits8", "float4_e2m1fn_x2", "qint8",
                                  "complex32"])
def test_placeholder_tensors_refused(name):
    with pytest.raises(NotImplementedError, match=f"torch.{name} tensors are not supported"):
        facade.zeros(3, dtype=getattr(facade, name))
    with pytest.raises(NotImplementedError):
        facade.tensor([1.0]).to(getattr(facade, name))


# ---------------------------------------------------------------------------- torch-level types and helpers

@pytest.mark.parametrize("t", ["DoubleTensor", "HalfTensor", "BFloat16Tensor", "torch.DoubleTensor", "LongTensor",
                               "torch.LongTensor", "float64", "torch.Nope"])
def test_set_default_tensor_type(t, monkeypatch):
    monkeypatch.setattr(facade._misc, "_WARNED", [False])

    def run(m):
        arg = t if t.startswith("torch.") else getattr(m, t)
        try:
            m.set_default_tensor_type(arg)
            return str(m.get_default_dtype()), str(m.tensor([1.0]).dtype)
        finally:
            m.set_default_dtype(m.float32)
    same(run)
    facade._misc._WARNED[0] = False
    with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
        facade.set_default_tensor_type(facade.FloatTensor)


def test_set_default_tensor_type_cuda():
    if not facade.cuda.is_available():  # torch here is CPU-only, as facade is on a machine without a GPU
        same(lambda m: m.set_default_tensor_type(m.cuda.FloatTensor))
        return
    try:
        facade.set_default_tensor_type(facade.cuda.DoubleTensor)
        assert facade.get_default_dtype() is facade.float64 and facade.zeros(1).is_cuda
    finally:
        facade.set_default_dtype(facade.float32)
        facade.set_default_device(None)


def test_exceptions_and_guards():
    for name in ("OutOfMemoryError", "AcceleratorError"):
        assert issubclass(getattr(facade, name), RuntimeError) and issubclass(getattr(torch, name), RuntimeError)
    for name in ("DisableTorchFunction", "DisableTorchFunctionSubclass"):
        with getattr(facade, name)() as guard:
            assert facade._misc._TORCH_FUNCTION[guard._key] == 1
        assert facade._misc._TORCH_FUNCTION[guard._key] == 0
    same(lambda m: m.thread_safe_generator())
