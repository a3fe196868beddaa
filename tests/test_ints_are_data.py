"""Ints are data, not program (issue 11): an int or 0-dim integer tensor that only selects where
(x[i], x[:, i], x[a:a + n], x[i] = v ...) goes into the op as a traced value, so one compiled program
serves every value; results, views and errors are torch's."""

import numpy as np
import pytest
import torch

import facade
from facade.compiler import metrics, reset_metrics

from ._compare import same

BASE = np.arange(2 * 5 * 6, dtype=np.float32).reshape(2, 5, 6)


def _compiles_in(fn, values):
    """Programs built while fn(v) runs for every v, after a warm-up call on the first value."""
    fn(values[0])
    reset_metrics()
    for v in values[1:]:
        fn(v)
    return metrics().compiles


def test_index_loop_compiles_once():
    data = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    results = {}
    for lib in (torch, facade):
        t, s = lib.tensor(data), [lib.zeros(())]

        def step(i, t=t, s=s):
            s[0] = s[0] + t[:, i].sum()

        results[lib] = s
        if lib is facade:
            assert _compiles_in(step, list(range(200))) == 0
        else:
            for i in range(200):
                step(i)
    np.testing.assert_allclose(results[facade][0].numpy(), results[torch][0].numpy(), rtol=1e-5)


def test_write_loop_compiles_once():
    ts = {lib: lib.zeros(64, 256) for lib in (torch, facade)}

    def write(lib):
        def step(i):
            ts[lib][i % 64, :10] = float(i)
        return step

    for i in range(200):
        write(torch)(i)
    assert _compiles_in(write(facade), list(range(200))) == 0
    np.testing.assert_array_equal(ts[facade].numpy(), ts[torch].numpy())


def test_tensor_slice_starts_compile_once():
    """The bigram LM's get_batch: `data[i:i + 8] for i in ix`, i a 0-dim tensor from randint."""
    data = np.arange(300, dtype=np.int64)
    ix = np.random.default_rng(1).integers(0, 292, 40)
    out = {}
    for lib in (torch, facade):
        d, starts = lib.tensor(data), lib.tensor(ix)
        out[lib] = lib.stack([d[i:i + 8] for i in starts])
    np.testing.assert_array_equal(out[facade].numpy(), out[torch].numpy())
    d = facade.tensor(data[:299])  # a shape not seen above, so nothing is compiled yet
    assert _compiles_in(lambda i: d[i:i + 8], list(facade.tensor(ix))) == 0
    assert _compiles_in(lambda i: d[i:i + 8], [int(i) + 1 for i in ix]) == 0


INDEXES = [1, -1, (0, 2), (1, -5, -1), (slice(None), 3), (slice(None), -2, slice(1, 4)), (Ellipsis, 2),
           (None, 1, slice(None, None, 2)), (0, Ellipsis, None, slice(2, 100)), slice(-20, 1), (1, slice(3, 9)),
           (slice(None), slice(1, None, 3), slice(-4, -1, 2)), (1, None, 2, None, 5), (slice(1, 1),),
           (0, slice(4, 2))]


@pytest.mark.parametrize("index", INDEXES, ids=repr)
def test_getitem_like_torch(index):
    def fn(lib):
        x = lib.tensor(BASE, requires_grad=True)
        y = x[index]
        return y, y.stride(), y.storage_offset(), type(y.grad_fn).__name__, y.is_contiguous()
    same(fn)


@pytest.mark.parametrize("index", INDEXES, ids=repr)
def test_setitem_like_torch(index):
    def fn(lib):
        x = lib.tensor(BASE)
        v = lib.tensor(BASE[index] * 0 - 1) if np.asarray(BASE[index]).ndim else -1.0
        x[index] = v
        x[index] = 7.5
        return x
    same(fn)


@pytest.mark.parametrize("index", [3, -6, (0, 5), (slice(None), 6), (1, 2, -7), (Ellipsis, 9)], ids=repr)
def test_out_of_range_ints(index):
    same(lambda lib: lib.tensor(BASE)[index])

    def write(lib):
        lib.tensor(BASE)[index] = 1.0
    same(write)


@pytest.mark.parametrize("start", [0, 3, -2, 5, torch.tensor(4)], ids=repr)
def test_slice_start_tensor_index_like_torch(start):
    def fn(lib):
        x = lib.tensor(BASE[0, :, 0])
        s = lib.tensor(int(start)) if isinstance(start, torch.Tensor) else start
        return x[s:s + 3], x[s], x[..., s:]
    same(fn)


def test_views_write_through_and_see_writes():
    def fn(lib):
        x = lib.tensor(BASE)
        v, w = x[1, 1:4], x[:, 2, ::2]
        v[0, 1:3] = 100.0  # a write through a traced-offset view reaches the base
        x[0, 2, 4] = -3.0  # and a write to the base shows in existing views
        w.mul_(2)
        return x, v, w, v._base is x if lib is facade else v._base is x
    same(fn)


def test_gradients_like_torch():
    def fn(lib):
        x = lib.tensor(BASE, requires_grad=True)
        y = x * 1
        y[1, :, 2] = x[0, :, 3] * 2
        loss = (y[:, 1:4, ::2] ** 2).sum() + y[-1, -1].sum()
        loss.backward()
        return loss.detach(), x.grad
    same(fn)


@pytest.mark.parametrize("args", [(1, 2), (0, -1), (2, -6), (1, 5), (1, -6), (3, 0), (-1, 4)], ids=repr)
def test_select_like_torch(args):
    def fn(lib):
        y = lib.tensor(BASE).select(*args)
        return y, y.stride(), y.storage_offset()
    same(fn)


@pytest.mark.parametrize("args", [(1, 2, 3), (2, -4, 2), (0, 1, 1), (1, 5, 0), (1, 4, 2), (2, -7, 1), (1, -5, 5)],
                         ids=repr)
def test_narrow_like_torch(args):
    def fn(lib):
        y = lib.tensor(BASE).narrow(*args)
        return y, y.stride(), y.storage_offset()
    same(fn)


def test_select_narrow_compile_once_and_write_through():
    x = facade.tensor(BASE[:, :, :5])  # a shape not seen elsewhere in this file
    assert _compiles_in(lambda i: x.select(2, i), list(range(-5, 5))) == 0
    assert _compiles_in(lambda i: x.narrow(1, i, 2), [*range(4), -5, -4, -3, -2]) == 0
    assert _compiles_in(lambda i: x.select(2, i), list(facade.arange(5))) == 0

    def fn(lib):
        y = lib.tensor(BASE)
        y.narrow(2, lib.tensor(1), 3).select(0, 1).fill_(-2.0)
        return y
    same(fn)


# ---------------------------------------------------------------------------- roll, index_select, arange

SHIFTS = [(1, 0), (-7, 1), (100, None), (0, -1), ("t", 0), ("t1", 1), ("tb", 0), ((1, 2), (0, 1)), ([-1, 5], [2, 0]),
          (("t", 3), (1, 2)), ("np", 2), ((True, 1), (0, 1))]


def _shift(lib, s):
    conv = {"t": lambda: lib.tensor(2), "t1": lambda: lib.tensor([[3]]), "tb": lambda: lib.tensor(True),
            "np": lambda: np.int64(-4)}
    if isinstance(s, (tuple, list)):
        return type(s)(conv[x]() if x in conv else x for x in s)
    return conv[s]() if isinstance(s, str) else s


@pytest.mark.parametrize("shifts,dims", SHIFTS, ids=repr)
def test_roll_like_torch(shifts, dims):
    def fn(lib):
        x = lib.tensor(BASE, requires_grad=True)
        y = x.roll(_shift(lib, shifts), dims) if dims is not None else lib.roll(x, _shift(lib, shifts))
        (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    same(fn)


@pytest.mark.parametrize("call", [
    lambda t, x: t.roll(x, 1.5, 0), lambda t, x: x.roll(1.5), lambda t, x: t.roll(x, shifts=1.5, dims=0),
    lambda t, x: t.roll(x, True, 0), lambda t, x: t.roll(x, t.tensor(1.0), 0),
    lambda t, x: t.roll(x, t.tensor([1, 2]), 0),
    lambda t, x: t.roll(x, np.array([1, 2]), (0, 1)), lambda t, x: t.roll(x, None, 0), lambda t, x: t.roll(x, "a", 0),
    lambda t, x: t.roll(x, (1.5, 1), (0, 1)), lambda t, x: t.roll(x, (1, 2, 1.5), (0, 1, 2)),
    lambda t, x: t.roll(x, (1, t.tensor(1.0)), (0, 1)), lambda t, x: t.roll(x, (1, None), (0, 1)),
    lambda t, x: t.roll(x, [True], [0]), lambda t, x: t.roll(x, range(2), (0, 1)), lambda t, x: t.roll(x, (), ()),
    lambda t, x: x.roll((1, 2), 0), lambda t, x: x.roll((1, 2)), lambda t, x: x.roll(1, 3),
    lambda t, x: t.tensor(3.0).roll(1, 0), lambda t, x: t.tensor(3.0).roll(1), lambda t, x: t.zeros(0, 3).roll(2, 0),
])
def test_roll_errors_and_edges_like_torch(call):
    same(lambda lib: call(lib, lib.tensor(BASE)))


def test_roll_compiles_once():
    x = facade.tensor(BASE[:, :4], requires_grad=True)  # a shape not seen elsewhere in this file
    assert _compiles_in(lambda i: x.roll(i, 1), list(range(-6, 7))) == 0
    assert _compiles_in(lambda i: facade.roll(x, i), list(range(9))) == 0
    assert _compiles_in(lambda i: x.roll(facade.tensor(i), 0), list(range(-3, 4))) == 0
    assert _compiles_in(lambda i: x.roll((i, 2 * i, -i), (0, 1, 2)), list(range(6))) == 0
    x.roll(0, 2).sum().backward()  # a graph seen twice runs fused: that program is built on the second sight
    assert _compiles_in(lambda i: x.roll(i, 2).sum().backward(), list(range(5))) == 0


INDEX_SELECT = {  # name: (index(lib), dims it selects along)
    "0d": (lambda t: t.tensor(1), (0, 1, 2)), "1el": (lambda t: t.tensor([1]), (0, 1, 2)),
    "0d_i32": (lambda t: t.tensor(1, dtype=t.int32), (0, 1, 2)), "empty": (lambda t: t.tensor([], dtype=t.int64), (1,)),
    "neg_first": (lambda t: t.tensor(-1), (0,)), "neg_inner": (lambda t: t.tensor([-1]), (1,)),
    "oob_inner": (lambda t: t.tensor([5]), (1,)), "oob_last": (lambda t: t.tensor(6), (2,)),
    "oob_first": (lambda t: t.tensor([2]), (0,)), "float": (lambda t: t.tensor(1.0), (0,)),
    "2d": (lambda t: t.tensor([[1]]), (0,)), "int": (lambda t: 1, (0,)),
}


@pytest.mark.parametrize("case", INDEX_SELECT)
def test_index_select_scalar_like_torch(case):
    index, dims = INDEX_SELECT[case]

    def fn(lib):
        x = lib.tensor(BASE, requires_grad=True)
        ys = [lib.index_select(x, d, index(lib)) for d in dims]
        sum((y * 3).sum() for y in ys).backward()
        return ys, x.grad, type(ys[0].grad_fn).__name__
    same(fn, message=case != "int")


def test_index_select_int_index_message():
    with pytest.raises(TypeError, match="index_select\\(\\): argument 'index'.* must be Tensor, not int"):
        facade.tensor(BASE).index_select(0, 1)


def test_index_select_compiles_once():
    x = facade.tensor(BASE[:, :, :3])
    assert _compiles_in(lambda i: x.index_select(2, facade.tensor(i)), [0, 1, 2]) == 0
    assert _compiles_in(lambda i: facade.index_select(x, 1, facade.tensor([i])), list(range(5))) == 0


ARANGES = [(3, 8), (-2, 5), (0.5, 6.5), (1.25, 10.0, 0.75), (7, -3, -2), ("t", 9), ("t", "t+"), ("tf", 4.0),
           (1 << 14, (1 << 14) + 20000), (0.5, 30000.5), (-0.25, 40000.0, 2.5), (-(1 << 15), 9)]


def _arange_args(lib, args):
    conv = {"t": lambda: lib.tensor(3), "t+": lambda: lib.tensor(3) + 4, "tf": lambda: lib.tensor(0.5)}
    return [conv[a]() if isinstance(a, str) else a for a in args]


@pytest.mark.parametrize("args,dtype", [(a, d) for a in ARANGES for d in (None, "float64", "int32", "float16")
                                        if d != "float16" or all(abs(v) < 2048 for v in a if not isinstance(v, str))],
                         ids=repr)
def test_arange_like_torch(args, dtype):
    """Bit-equal where start + k * step is exact in the result dtype (torch's CPU kernel rounds inexact sums its own
    way: vectorised blocks of (rounded base) + i * step, so float16 beyond 2048 and tenths may differ by an ulp)."""
    same(lambda lib: lib.arange(*_arange_args(lib, args), dtype=dtype and getattr(lib, dtype)))


def test_arange_inexact_floats_within_an_ulp():
    for args in [(0.1, 3.05, 0.1), (-3.7, 100.1, 0.013), (0.1, 3000.3, 0.1)]:
        t, f = torch.arange(*args, dtype=torch.float64).numpy(), facade.arange(*args, dtype=facade.float64).numpy()
        assert t.shape == f.shape
        np.testing.assert_array_less(np.abs(t - f), 4 * np.spacing(np.abs(args).max()))


@pytest.mark.parametrize("call", [lambda t: t.arange(t.tensor([2]), 5), lambda t: t.arange(t.tensor([5])),
                                  lambda t: t.arange(0, t.tensor([5, 6]), 2),
                                  lambda t: t.arange(t.tensor([2]), 5, dtype=t.float32)])
def test_arange_refuses_non_scalar_tensors(call):
    same(call)


def test_arange_offsets_compile_once():
    n = 20000  # above the size made on the host: one program for every offset
    assert _compiles_in(lambda i: facade.arange(i, i + n), list(range(-3, 4))) == 0
    assert _compiles_in(lambda i: facade.arange(i * 0.5, i * 0.5 + n, 1.0), list(range(4))) == 0
    assert _compiles_in(lambda i: facade.arange(i, i + n), [facade.tensor(i) for i in range(4)]) == 0
    assert _compiles_in(lambda i: facade.arange(i, i + 7), list(range(50))) == 0  # small: made on the host
