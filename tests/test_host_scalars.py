"""CPU work that numpy does exactly and that needs no program: `for i in ix` over a CPU integer tensor gives 0-dim
views of its values on the host, and integer arithmetic on them (`i + block_size`, `i % n`) runs in numpy; basic
indexing of a CPU tensor that records no autograd is a numpy copy; host arrays reach the device by `put`. Values,
dtypes, views and errors are torch's, and nothing compiles."""

import operator

import numpy as np
import pytest
import torch

import facade
from facade.compiler import metrics, reset_metrics

from ._compare import same

IX = {"int64": [5, -3, 0, 17, 2**40], "int32": [5, -3, 0, 17, 2**30], "uint8": [5, 250, 0, 17, 128],
      "bool": [True, False, True, True, False]}


def _elements(lib, dtype="int64"):
    return list(lib.tensor(IX[dtype], dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_elements_like_torch(dtype):
    def elements(lib):
        return [(int(i), i.dtype, tuple(i.shape), i.item()) for i in _elements(lib, dtype)]

    got, want = elements(facade), elements(torch)
    assert [(v, str(d), s, it) for v, d, s, it in got] == [(v, str(d), s, it) for v, d, s, it in want]


ARITHMETIC = [
    lambda i: i + 8, lambda i: 8 + i, lambda i: i - 1, lambda i: 3 - i, lambda i: i * 3, lambda i: i // 4,
    lambda i: -7 // i if int(i) else i, lambda i: i % 5, lambda i: -i, lambda i: abs(i), lambda i: i / 2,
    lambda i: i + 1.5, lambda i: i * True, lambda i: i < 3, lambda i: i == 5, lambda i: i + i, lambda i: i * i,
    lambda i: (i + 8) + 1, lambda i: i.clamp(0, 10), lambda i: i & 6, lambda i: i << 2, lambda i: i ** 2,
    lambda i: i.float(), lambda i: i.to(facade.int32 if isinstance(i, facade.Tensor) else torch.int32),
]


@pytest.mark.parametrize("k", range(len(ARITHMETIC)))
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_arithmetic_like_torch(k, dtype):
    fn = ARITHMETIC[k]
    for n in range(len(IX[dtype])):
        same(lambda lib, n=n: fn(_elements(lib, dtype)[n]))


def test_arithmetic_results_stay_on_the_host_and_compile_nothing():
    data = facade.arange(400)
    ix = facade.tensor([3, 40, 7, 100])
    list(ix)  # the first iteration moves ix's values to the host
    reset_metrics()
    rows = [data[i:i + 8] for i in ix] + [data[i + 1:i + 8 + 1] for i in ix]
    starts = [int(i * 2 % 50) for i in ix]
    assert metrics().compiles == 0  # the slices are numpy copies, the scalar ops numpy's
    assert all((i + 1)._np is not None for i in ix)
    want = [torch.arange(400)[i:i + 8] for i in (3, 40, 7, 100)] + \
        [torch.arange(400)[i + 1:i + 9] for i in (3, 40, 7, 100)]
    for r, w in zip(rows, want):
        np.testing.assert_array_equal(r.numpy(), w.numpy())
    assert starts == [int(i * 2 % 50) for i in torch.tensor([3, 40, 7, 100])]


def test_an_element_is_a_view_of_the_tensor():
    """torch's elements are views: writing one writes the tensor, and the tensor's writes show in it."""
    def run(lib):
        ix = lib.tensor([1, 2, 3])
        a, b, c = ix
        a += 10
        b.fill_(7)
        ix[2] = 30
        d = ix + 0  # the tensor still works on the device
        return ix, a, b, c, d

    got, want = run(facade), run(torch)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        assert str(g.dtype).split(".")[1] == str(w.dtype).split(".")[1]


def test_elements_meet_device_tensors_like_torch():
    def run(lib):
        t = lib.arange(24.0).reshape(4, 6)
        return [t[i] * i + t[:, i].sum() for i in lib.tensor([0, 3, -1])] + [lib.stack(list(lib.tensor([2, 1])))]

    for g, w in zip(run(facade), run(torch)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("fn", [lambda i: i // 0, lambda i: i % 0, lambda i: operator.index(i * 1.5),
                                lambda i: i.float().requires_grad_() * 2, lambda i: [][i]],
                         ids=["floordiv0", "mod0", "index-float", "grad", "list-index"])
def test_errors_like_torch(fn):
    same(lambda lib: fn(_elements(lib)[0]), values=False)


@pytest.mark.parametrize("fn", [lambda i: i // 0, lambda i: i % 0], ids=["floordiv0", "mod0"])
def test_errors_like_torch_when_the_call_is_replayed(fn, monkeypatch):
    """A second call of a signature replays the first one's work (facade._host.Replay); torch's checks still
    run on its values."""
    replayed = []
    call = facade._host.Replay.__call__
    monkeypatch.setattr(facade._host.Replay, "__call__", lambda self, dyn: replayed.append(1) or call(self, dyn))
    for i in _elements(facade):
        i // 3, i % 3
    assert len(replayed) >= 8  # every call after the first of each signature
    same(lambda lib: fn(_elements(lib)[0]), values=False)


PAIRS = [("int64", "int32"), ("int32", "uint8"), ("uint8", "bool"), ("bool", "int64"), ("int32", int),
         ("uint8", int), ("bool", bool), ("int64", bool)]


@pytest.mark.parametrize("left,right", PAIRS, ids=[f"{a}-{getattr(b, '__name__', b)}" for a, b in PAIRS])
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.floordiv, operator.lt,
                                operator.and_], ids=["add", "sub", "mul", "floordiv", "lt", "and"])
def test_mixed_signatures_like_torch_on_every_call(left, right, op):
    """Each (op, dtypes) signature is replayed from its first call: the later calls' values, dtypes and
    wrap-around are still torch's, and so are their errors (a bool subtraction, a floordiv by 0)."""
    def run(lib, k):
        a = _elements(lib, left)
        b = _elements(lib, right) if isinstance(right, str) else [right(v) for v in (3, 0, 5, 1, 7)]
        return op(a[k], b[k])

    for k in range(5):
        same(lambda lib, k=k: run(lib, k))


def test_a_static_argument_is_read_on_every_call():
    """A two-argument call whose second argument is a static parameter (cumsum's dim, roll's shifts) is not
    replayed with the first call's value: a dim out of range still raises as on torch."""
    for n in (0, -1, 3, 0, 1):
        same(lambda lib, n=n: _elements(lib)[1].cumsum(n))
        same(lambda lib, n=n: _elements(lib)[1].roll(n))


def test_float_and_grad_tensors_iterate_as_before():
    """Only plain CPU integer (and bool) vectors take the host path; a float vector's elements are device tensors
    and a 2-d tensor's rows come from unbind, with autograd as torch's."""
    grads = []
    for lib in (torch, facade):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = x
        (a * 3 + b).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    assert all(r._np is None for r in facade.arange(6).reshape(2, 3))
    assert all(v._np is None for v in facade.tensor([0.5, 1.5]))


def test_basic_indexing_of_a_cpu_tensor_compiles_nothing():
    """x[a:b], x[:, i], x[i] of a CPU tensor that records no autograd: numpy copies the values (no program per
    new shape); the results are torch's views all the same."""
    base = np.arange(7 * 9 * 4, dtype=np.float32).reshape(7, 9, 4)
    base[0, 0, :2] = (-0.0, np.nan)
    indexes = [slice(2, 5), (slice(None), 3), 4, (1, slice(None), slice(1, 4)), (None, -1, Ellipsis, 2),
               (slice(1, None, 2), slice(None, None, 3)), (0, 0)]
    x = facade.tensor(base)
    reset_metrics()
    got = [x[ix] for ix in indexes]
    assert metrics().compiles == 0
    want = [torch.tensor(base)[ix] for ix in indexes]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        np.testing.assert_array_equal(np.signbit(g.numpy()), np.signbit(w.numpy()))  # -0.0 kept
        assert (tuple(g.shape), g.stride(), g.storage_offset(), g._base is x) == \
            (tuple(w.shape), w.stride(), w.storage_offset(), True)
    seen = []
    for lib in (torch, facade):  # still views: writes go both ways
        t = lib.zeros(4, 5)
        row = t[1]
        row[2] = 7.0
        t[1, 3] = 8.0
        seen.append((row.tolist(), t.tolist(), t._version))
    assert seen[1] == seen[0]


@pytest.mark.parametrize("make", [
    lambda: np.arange(10, dtype=np.float32)[::-1], lambda: np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2],
    lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)), lambda: np.zeros((0, 3), np.float16),
    lambda: np.array(-0.0), lambda: np.array([True, False]), lambda: np.arange(3, dtype=np.complex64) * 1j,
    lambda: np.array([np.nan, -np.inf], np.float32), lambda: np.arange(4, dtype=np.uint8)],
    ids=["reversed", "strided", "fortran", "empty", "0-dim -0.0", "bool", "complex", "nan-inf", "uint8"])
def test_put_is_jax_device_put(make):
    """facade._device.put, the direct host-to-device copy under tensor creation: jax.device_put's array (bits,
    dtype, placement, commitment), a copy that a later write to the numpy array does not reach."""
    import jax

    from facade._device import put

    arr = make()
    for jd in (None, jax.devices("cpu")[0]):
        got, want = put(arr, jd), jax.device_put(arr, jd)
        assert (got.dtype, got.shape, got.weak_type, got.committed, got.sharding) == \
            (want.dtype, want.shape, want.weak_type, want.committed, want.sharding)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    if arr.size:
        before = np.asarray(put(arr)).copy()
        kept = put(arr)
        arr.flat[0] = 1
        np.testing.assert_array_equal(np.asarray(kept), before)
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        put(np.arange(3, dtype=">f4"))


def test_put_without_the_direct_copy_is_jax_device_put(monkeypatch):
    """A jax whose private copy function moved: put falls back to jax.device_put, with the same result."""
    from facade import _device

    arr = np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::2]
    want = _device.put(arr)
    monkeypatch.setattr(_device, "_DIRECT", None)
    got = _device.put(arr)
    assert (got.dtype, got.shape, got.committed) == (want.dtype, want.shape, want.committed)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
