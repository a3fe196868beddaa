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
