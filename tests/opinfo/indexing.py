"""OpInfo entries for indexing: __getitem__/__setitem__, gather/scatter, index_*, masks, take, put, nonzero."""

import numpy as np

from . import Arg, OpInfo, Sample, arr, register

I64 = np.int64


def S(*args, **kwargs):
    return Sample(args, kwargs)


def T(rng, shape=(4, 3), dtype=np.float32):
    return Arg(arr(rng, shape, dtype), transpose=True)


def ix(rng, high, shape, dtype=I64):
    """Random indices in [0, high) (repeats allowed)."""
    return rng.integers(0, high, size=shape).astype(dtype)


def perm_index(rng, n, shape, dim):
    """Indices in [0, n) without repeats along `dim` (so scatter results are determined)."""
    shape = tuple(shape)
    moved = (shape[dim],) + shape[:dim] + shape[dim + 1:]
    cols = int(np.prod(moved[1:], dtype=int))
    out = np.stack([rng.permutation(n)[:moved[0]] for _ in range(cols)], axis=-1).reshape(moved)
    return np.moveaxis(out, 0, dim).astype(I64)


def mask(rng, shape):
    return np.asarray(rng.random(shape) > 0.5)


def shape_only(t, f, rtol, atol, what="value"):
    """For ops whose result torch leaves unspecified (writes to one position from several places)."""
    assert str(t.dtype) == str(f.dtype) and tuple(t.shape) == tuple(f.shape), what


def clone_then(name):
    """Call the in-place Tensor.name on a differentiable copy of the first argument."""
    def call(mod, x, *args, **kwargs):
        y = x.clone()
        getattr(y, name)(*args, **kwargs)
        return y
    return call


# ---------------------------------------------------------------------------- __getitem__ / __setitem__

def getitem_samples(rng):
    x = arr(rng, (5, 6, 7))
    s = slice
    return [
        S(x, -1), S(x, (1, -1, 3)), S(x, (s(1, None), s(None, 3))), S(x, s(-10, 10, 2)), S(x, s(4, 1)),
        S(x, (None, 0)), S(x, (0, Ellipsis, None)), S(x, ()),
        S(x, np.array([0, 2, 4, 2])), S(x, np.array([[0, 1], [2, 3]])), S(x, (s(None), np.array([-1, 1], np.int32))),
        S(x, (np.array([0, 1]), s(None), np.array([1, 2]))), S(x, (0, s(None), np.array([0, 1]))),
        S(x, (np.array([0, 1]), None, np.array([0, 1]))), S(x, (np.array([0, 1]), np.array([[1], [2]]))),
        S(x, np.zeros(0, I64)), S(x, mask(rng, (5, 6))), S(x, (s(None), mask(rng, (6,)))),
        S(x, (mask(rng, (5, 6)), s(0, 2))), S(x, True), S(x, False), S(x, np.array(True)),
        S(x, [0, 2]), S(x, [[0, 1], [1, 2]]), S(x, [True, False, True, False, True]), S(x, np.array(3)),
        S(x, (np.array(1), np.array([2, 3]))), S(arr(rng, ()), None), S(arr(rng, ()), mask(rng, ())),
        S(T(rng), (s(1, 3), 0)), S(T(rng), np.array([2, 0])), S(arr(rng, (4, 3), I64), (np.array([0, 3]), 1)),
        S(arr(rng, (4, 3), np.bool_), mask(rng, (4, 3))),
        S(x, 5), S(x, np.array([5])), S(x, (s(None), np.array([-7]))), S(x, s(None, None, -1)), S(x, 1.5),
        S(x, (0, 0, 0, 0)), S(x, mask(rng, (5, 7))), S(x, (np.array([0, 1]), np.array([0, 1, 2]))),
        S(x, np.array([1.0])), S(x, np.True_), S(arr(rng, ()), 0),
    ]


def setitem(mod, x, index, value):
    y = x.clone()
    y[index] = value
    return y


def setitem_samples(rng):
    x = arr(rng, (4, 5))
    s = slice
    return [
        S(x, 0, 2.0), S(x, s(1, 3), arr(rng, (2, 5))), S(x, s(None), arr(rng, (5,))), S(x, (0, 1), arr(rng, ())),
        S(x, (s(None), s(0, 5, 2)), arr(rng, (4, 1))), S(x, np.array([0, 2]), arr(rng, (2, 5))),
        S(x, (np.array([0, 2]), np.array([1, 3])), arr(rng, (2,))), S(x, mask(rng, (4, 5)), 7.0),
        S(x, mask(rng, (4,)), arr(rng, (5,))), S(x, (Ellipsis, 0), arr(rng, (4,))), S(x, (None, 0), arr(rng, (1, 5))),
        S(x, 0, arr(rng, (1, 1, 5))), S(x, np.array([0, 0, 2]), arr(rng, ())), S(x, (0, np.array([1, 3])), 3),
        S(x, np.array([[0], [3]]), arr(rng, (2, 1, 5))), S(x, 1, np.array([1, 2, 3, 4, 5], I64)),
        S(arr(rng, (4, 5), I64), 0, 2.7), S(arr(rng, ()), Ellipsis, 5.0), S(T(rng), (s(None), 1), arr(rng, (4,))),
        S(x, 4, 1.0), S(x, np.array([4]), 1.0), S(x, 0, arr(rng, (2,))), S(x, np.array([0]), arr(rng, (2,))),
        S(x, 0, arr(rng, (2, 5))),
    ]


# ---------------------------------------------------------------------------- gather / scatter

def gather_samples(rng):
    x = arr(rng, (3, 4))
    return [
        S(x, 0, ix(rng, 3, (2, 4))), S(x, 1, ix(rng, 4, (3, 2))), S(x, -1, ix(rng, 4, (2, 6))),
        S(x, 0, ix(rng, 3, (5, 2))), S(arr(rng, ()), 0, np.array(0)), S(arr(rng, ()), 0, np.zeros(2, I64)),
        S(arr(rng, (3, 4), I64), 1, ix(rng, 4, (3, 4))), S(T(rng), 0, ix(rng, 4, (2, 3))),
        S(x, 0, np.zeros((0, 4), I64)), S(x, 1, index=ix(rng, 4, (1, 1)), sparse_grad=False),
        S(x, 0, np.array([[3]])), S(x, 0, np.array([0])), S(x, 0, ix(rng, 3, (2, 5))),
        S(x, 0, ix(rng, 3, (2, 4), np.int32)), S(x, 2, ix(rng, 3, (2, 4))),
    ]


def scatter_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, 0, perm_index(rng, 4, (3, 5), 0), arr(rng, (3, 5))),
        S(x, 1, perm_index(rng, 5, (4, 2), 1), arr(rng, (4, 2))),
        S(x, 0, perm_index(rng, 4, (2, 2), 0), 2.5), S(x, 0, perm_index(rng, 4, (2, 2), 0), value=-1.0),
        S(arr(rng, (4, 5), I64), 0, perm_index(rng, 4, (2, 5), 0), 2.7),
        S(arr(rng, (4, 5), I64), 1, perm_index(rng, 5, (4, 5), 1), arr(rng, (4, 5), I64)),
        S(arr(rng, ()), 0, np.array(0), arr(rng, ())), S(T(rng), 0, perm_index(rng, 4, (2, 3), 0), arr(rng, (2, 3))),
        S(x, 0, perm_index(rng, 4, (2, 5), 0), arr(rng, (2, 5), np.float64)),
        S(x, 0, perm_index(rng, 4, (2, 6), 0), arr(rng, (2, 6))), S(x, 0, np.array([[4]]), arr(rng, (1, 1))),
        S(x, 0, perm_index(rng, 4, (2, 5), 0), arr(rng, ())), S(x, 0, perm_index(rng, 4, (2, 5), 0), 1.0,
                                                                reduce="mean"),
    ]


def scatter_dup_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, 0, ix(rng, 3, (5, 4)), arr(rng, (5, 4))), S(x, 1, ix(rng, 2, (3, 6)), arr(rng, (3, 6))),
            S(x, 0, ix(rng, 3, (5, 4)), 3.0)]


def scatter_reduce_op_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, 0, ix(rng, 3, (5, 4)), arr(rng, (5, 4)), reduce="add"),
            S(x, 1, ix(rng, 4, (3, 6)), arr(rng, (3, 6)), reduce="multiply"),
            S(x, 0, ix(rng, 3, (2, 4)), 2.0, reduce="add"), S(x, 0, ix(rng, 3, (2, 4)), 2.0, reduce="multiply")]


def scatter_add_samples(rng):
    x = arr(rng, (3, 4))
    return [
        S(x, 0, ix(rng, 3, (5, 4)), arr(rng, (5, 4))), S(x, 1, ix(rng, 4, (3, 6)), arr(rng, (3, 6))),
        S(arr(rng, (3, 4), I64), 0, ix(rng, 3, (2, 4)), arr(rng, (2, 4), I64)), S(arr(rng, ()), 0, np.array(0),
                                                                                   arr(rng, ())),
        S(T(rng), 1, ix(rng, 3, (4, 3)), arr(rng, (4, 3))), S(x, 0, ix(rng, 3, (2, 4)), 2.0),
        S(x, 0, ix(rng, 3, (2, 4)), arr(rng, (2, 4), np.float64)), S(x, 0, np.array([[3]]), arr(rng, (1, 1))),
    ]


def scatter_reduce_samples(rng):
    def ties(shape, dtype=np.float32):
        return rng.integers(-2, 3, size=shape).astype(dtype)
    out = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            out.append(S(ties((3, 4)), 0, ix(rng, 3, (5, 4)), ties((5, 4)), reduce, include_self=include_self))
    for reduce in ("prod", "mean", "amax"):
        out.append(S(ties((3, 4), I64), 1, ix(rng, 3, (3, 4)), ties((3, 4), I64), reduce, include_self=False))
    x = ties((3, 4))
    x[0, 0] = 0
    return out + [
        S(x, 0, np.array([[0, 1, 2, 0], [0, 1, 2, 0]]), np.array([[0, 2, 0, 0], [3, 0, 0, 1]], np.float32), "prod"),
        S(ties((3, 4), np.float64), 1, ix(rng, 4, (3, 2)), ties((3, 2), np.float64), reduce="mean"),
        S(x, 0, ix(rng, 3, (2, 4)), ties((2, 4), np.float64), "sum"),
    ]


# ---------------------------------------------------------------------------- index_*

def index_select_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, 0, np.array([0, 3, 3])), S(x, 1, np.array([4, 0], np.int32)), S(x, -1, np.array(2)),
        S(x, 0, np.zeros(0, I64)), S(arr(rng, ()), 0, np.array([0])), S(T(rng), 1, np.array([2, 1, 0])),
        S(arr(rng, (4, 5), np.bool_), 0, np.array([1])), S(x, 0, np.array([[0]])), S(x, 0, np.array([4])),
        S(x, 0, np.array([1.0])), S(x, 2, np.array([0])),
    ]


def index_add_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, 0, np.array([0, 3, 0]), arr(rng, (3, 5))), S(x, 1, np.array([4, 1], np.int32), arr(rng, (4, 2)), alpha=2),
        S(arr(rng, (4, 5), I64), 0, np.array([1]), arr(rng, (1, 5), I64), alpha=3), S(arr(rng, ()), 0, np.array([0]),
                                                                                       arr(rng, ())),
        S(T(rng), 0, np.array([1, 1]), arr(rng, (2, 3))), S(x, 0, np.array([0]), arr(rng, (2, 5))),
        S(x, 0, np.array([0]), arr(rng, (1, 5), np.float64)), S(x, 0, np.array([0]), arr(rng, (1, 4))),
        S(x, 0, np.array([4]), arr(rng, (1, 5))), S(x, 0, np.array([0]), arr(rng, (1, 5)), alpha=0.5),
    ]


def index_copy_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, 0, np.array([0, 3]), arr(rng, (2, 5))), S(x, 1, np.array([4, 1, 2]), arr(rng, (4, 3))),
        S(arr(rng, (4, 5), I64), -1, np.array([0]), arr(rng, (4, 1), I64)), S(T(rng), 1, np.array([2]),
                                                                              arr(rng, (4, 1))),
        S(x, 0, np.array([0]), arr(rng, (1, 5), np.float64)), S(x, 0, np.array([0], np.int32), arr(rng, (1, 5))),
        S(x, 0, np.array([0]), arr(rng, (2, 5))),
    ]


def index_copy_dup_samples(rng):
    return [S(arr(rng, (4, 5)), 0, np.array([1, 1, 2]), arr(rng, (3, 5)))]


def index_fill_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, 0, np.array([0, 3, 3]), 2.0), S(x, 1, np.array([-1]), -1), S(x, 1, np.array([4, 0]), arr(rng, ())),
        S(arr(rng, (4, 5), I64), 0, np.array([1]), 2.5), S(arr(rng, (4, 5), np.bool_), 0, np.array([1]), True),
        S(arr(rng, ()), 0, np.array([0]), 1.0), S(T(rng), 0, np.array([1]), 0.5),
        S(x, 0, np.array([0]), arr(rng, (1,))), S(x, 0, np.array([0], np.int32), 1.0),
    ]


def index_put_samples(rng):
    x = arr(rng, (4, 5))
    return [
        S(x, (np.array([0, 2]),), arr(rng, (2, 5))), S(x, (np.array([0, 2]), np.array([1, 4])), arr(rng, (2,))),
        S(x, (np.array([0, 0, 1]), np.array([1, 1, 2])), arr(rng, (3,)), accumulate=True),
        S(x, [np.array([3])], arr(rng, ())), S(x, (mask(rng, (4,)),), arr(rng, (5,))),
        S(x, (mask(rng, (4, 5)),), arr(rng, ()), True), S(T(rng), (np.array([1]),), arr(rng, (3,))),
        S(x, (np.array([0]),), arr(rng, (), np.float64)), S(x, (np.array([0]),), arr(rng, (2,))),
        S(arr(rng, (4, 5), I64), (np.array([0]), np.array([0])), arr(rng, (), I64), True),
    ]


# ---------------------------------------------------------------------------- masks, take, put, nonzero

def masked_fill_samples(rng):
    x = arr(rng, (3, 4))
    return [
        S(x, mask(rng, (3, 4)), 9.0), S(x, mask(rng, (4,)), -1), S(x, mask(rng, (2, 3, 4)), 0.5),
        S(x, mask(rng, (3, 4)), arr(rng, ())), S(x, mask(rng, ()), arr(rng, (), np.float64)),
        S(arr(rng, (3, 4), I64), mask(rng, (3, 4)), 9.5),
        S(arr(rng, (3, 4), I64), mask(rng, (3, 4)), Arg(np.array(9.5), grad=False)),
        S(arr(rng, ()), mask(rng, ()), 1.0), S(T(rng), mask(rng, (4, 3)), 2.0), S(x, mask(rng, (2,)), 1.0),
        S(x, arr(rng, (3, 4), I64), 1.0), S(x, mask(rng, (3, 4)), arr(rng, (1,))),
        S(arr(rng, (3, 4), np.bool_), mask(rng, (3, 4)), True),
    ]


def masked_select_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, mask(rng, (3, 4))), S(x, mask(rng, (4,))), S(x, mask(rng, (2, 3, 4))), S(arr(rng, ()), mask(rng, ())),
            S(arr(rng, (3, 4), I64), mask(rng, (3, 4))), S(T(rng), mask(rng, (4, 3))), S(x, arr(rng, (3, 4), I64)),
            S(x, np.zeros((3, 4), bool))]


def masked_scatter_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, mask(rng, (3, 4)), arr(rng, (12,))), S(x, mask(rng, (4,)), arr(rng, (4, 4))),
            S(arr(rng, (4,)), mask(rng, (2, 4)), arr(rng, (10,))), S(arr(rng, (3, 4), I64), mask(rng, (3, 4)),
                                                                     arr(rng, (3, 4), I64)),
            S(T(rng), mask(rng, (4, 3)), arr(rng, (3, 4))), S(x, np.ones((3, 4), bool), arr(rng, (3,))),
            S(x, mask(rng, (3, 4)), arr(rng, (12,), I64)), S(x, np.zeros((3, 4), bool), arr(rng, (0,)))]


def take_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, np.array([[0, 11], [-1, 5]])), S(x, np.array(3)), S(arr(rng, ()), np.array([0, 0])),
            S(T(rng), np.array([1, 2, 3])), S(arr(rng, (3, 4), I64), np.zeros(0, I64)), S(x, np.array([12])),
            S(x, np.array([1], np.int32)), S(x, np.array([-13]))]


def take_along_dim_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, ix(rng, 3, (2, 4)), 0), S(x, ix(rng, 4, (3, 6)), dim=1), S(x, ix(rng, 12, (5,))),
            S(x, ix(rng, 4, (1, 2)), -1), S(arr(rng, (3, 1, 4)), ix(rng, 4, (1, 5, 2)), 2),
            S(x, ix(rng, 4, (3, 2), np.int32), 1), S(x, ix(rng, 4, (2, 2)), 1), S(x, ix(rng, 4, (3,)), 1),
            S(T(rng), ix(rng, 3, (4, 2)), 1)]


def put_samples(rng):
    x = arr(rng, (3, 4))
    return [S(x, np.array([0, 11, 5]), arr(rng, (3,))), S(x, np.array([[-1, 2]]), arr(rng, (2,))),
            S(x, np.array([0, 0, 5]), arr(rng, (3,)), accumulate=True), S(arr(rng, ()), np.array([0]), arr(rng, (1,))),
            S(arr(rng, (3, 4), I64), np.array([1]), arr(rng, (1,), I64)), S(x, np.array([12]), arr(rng, (1,))),
            S(x, np.array([0, 1]), arr(rng, (3,))), S(x, np.array([0]), arr(rng, (1,), I64))]


def nonzero_samples(rng):
    return [S(arr(rng, (3, 4), I64, -1, 1)), S(arr(rng, (2, 3, 2), np.bool_)), S(arr(rng, (5,))),
            S(np.zeros((0, 3), np.float32)), S(np.array(0.0, np.float32)), S(np.array(2, I64)),
            S(arr(rng, (3, 4), I64, -1, 1), as_tuple=True), S(np.array(1.0, np.float32), as_tuple=True),
            S(np.array(0.0, np.float32), as_tuple=True), S(T(rng, (4, 3), I64))]


register(
    OpInfo("__getitem__", getitem_samples),
    OpInfo("__setitem__", setitem_samples, call=setitem),
    OpInfo("__setitem__", lambda rng: [S(arr(rng, (4, 5)), (np.array([0, 1, 0]), np.array([2, 2, 2])),
                                         arr(rng, (3,)))], call=setitem, compare=shape_only),
    OpInfo("gather", gather_samples),
    OpInfo("Tensor.gather", lambda rng: [S(arr(rng, (3, 4)), 1, ix(rng, 4, (3, 4)))]),
    OpInfo("scatter", scatter_samples),
    OpInfo("scatter", scatter_dup_samples, compare=shape_only),
    OpInfo("scatter", scatter_reduce_op_samples, grad=False),
    # torch's own backward refuses a src larger than index (its gradient has index's shape): values only
    OpInfo("scatter", lambda rng: [S(arr(rng, (4, 5)), -1, perm_index(rng, 5, (2, 5), 1), src=arr(rng, (3, 6)))],
           grad=False),
    OpInfo("scatter_add", lambda rng: [S(arr(rng, (3, 4)), 1, ix(rng, 4, (3, 6)), arr(rng, (3, 7)))], grad=False),
    OpInfo("Tensor.scatter_", lambda rng: [S(arr(rng, (4, 5)), 0, perm_index(rng, 4, (2, 5), 0), arr(rng, (2, 5))),
                                           S(arr(rng, (4, 5)), 1, perm_index(rng, 5, (4, 1), 1), 3.0)],
           call=clone_then("scatter_")),
    OpInfo("scatter_add", scatter_add_samples),
    OpInfo("Tensor.scatter_add_", lambda rng: [S(arr(rng, (3, 4)), 0, ix(rng, 3, (5, 4)), arr(rng, (5, 4)))],
           call=clone_then("scatter_add_")),
    OpInfo("scatter_reduce", scatter_reduce_samples),
    # torch takes the legacy names 'max'/'min' forward but its backward refuses them
    OpInfo("scatter_reduce", lambda rng: [S(arr(rng, (3, 4)), 0, ix(rng, 3, (2, 4)), arr(rng, (2, 4)), "max"),
                                          S(arr(rng, (3, 4)), 1, ix(rng, 4, (3, 4)), arr(rng, (3, 4)), "min")],
           grad=False),
    OpInfo("Tensor.scatter_reduce_", lambda rng: [S(arr(rng, (3, 4)), 0, ix(rng, 3, (5, 4)), arr(rng, (5, 4)),
                                                    "amax", include_self=False)], call=clone_then("scatter_reduce_")),
    OpInfo("index_select", index_select_samples),
    OpInfo("index_add", index_add_samples),
    OpInfo("Tensor.index_add_", lambda rng: [S(arr(rng, (4, 5)), 0, np.array([1, 1]), arr(rng, (2, 5)), alpha=-1)],
           call=clone_then("index_add_")),
    OpInfo("index_copy", index_copy_samples),
    OpInfo("index_copy", index_copy_dup_samples, compare=shape_only),
    OpInfo("Tensor.index_copy_", lambda rng: [S(arr(rng, (4, 5)), 1, np.array([0, 4]), arr(rng, (4, 2)))],
           call=clone_then("index_copy_")),
    OpInfo("index_fill", index_fill_samples),
    OpInfo("Tensor.index_fill_", lambda rng: [S(arr(rng, (4, 5)), 1, np.array([0, 4]), arr(rng, ()))],
           call=clone_then("index_fill_")),
    OpInfo("index_put", index_put_samples),
    OpInfo("Tensor.index_put_", lambda rng: [S(arr(rng, (4, 5)), (np.array([1, 1]),), arr(rng, (5,)), True)],
           call=clone_then("index_put_")),
    OpInfo("masked_fill", masked_fill_samples),
    OpInfo("Tensor.masked_fill_", lambda rng: [S(arr(rng, (3, 4)), mask(rng, (4,)), arr(rng, ())),
                                               S(arr(rng, (3, 4)), mask(rng, (2, 3, 4)), 1.0)],
           call=clone_then("masked_fill_")),
    OpInfo("masked_select", masked_select_samples),
    OpInfo("masked_scatter", masked_scatter_samples),
    OpInfo("Tensor.masked_scatter_", lambda rng: [S(arr(rng, (3, 4)), mask(rng, (3, 4)), arr(rng, (12,)))],
           call=clone_then("masked_scatter_")),
    OpInfo("take", take_samples),
    OpInfo("take_along_dim", take_along_dim_samples),
    OpInfo("put", put_samples),
    OpInfo("Tensor.put_", lambda rng: [S(arr(rng, (3, 4)), np.array([2, 7]), arr(rng, (2,)))], call=clone_then("put_")),
    OpInfo("nonzero", nonzero_samples),
    OpInfo("argwhere", lambda rng: [S(arr(rng, (3, 4), I64, -1, 1)), S(np.array(1.0, np.float32)),
                                    S(np.zeros((2, 0), np.float32))]),
)


def index_reduce_samples(rng):
    a, idx = arr(rng, (4, 5)), np.array([0, 2, 0])
    out = [S(a, 0, idx, arr(rng, (3, 5)), r, include_self=s) for r in ("prod", "mean", "amax", "amin")
           for s in (True, False)]
    return out + [
        S(a, 1, np.array([4, 4]), arr(rng, (4, 2)), "mean"), S(arr(rng, (5,), np.int64), 0, np.array([1, 1, 3]),
                                                                arr(rng, (3,), np.int64), "mean", include_self=False),
        S(a, 0, idx, arr(rng, (3, 5)), "sum"), S(a, 0, np.array([0, 9, 1]), arr(rng, (3, 5)), "prod"),
        S(a, 0, idx.astype(np.float32), arr(rng, (3, 5)), "prod"), S(a, 0, idx, arr(rng, (3, 5), np.float64), "amax"),
        S(a, 0, idx.astype(np.int32), arr(rng, (3, 5)), "amin"), S(a, 0, idx, arr(rng, (2, 5)), "prod"),
    ]


register(
    OpInfo("index_reduce", index_reduce_samples),
    OpInfo("Tensor.index_reduce_", lambda rng: [S(arr(rng, (4, 5)), 0, np.array([1, 1]), arr(rng, (2, 5)), "amax")],
           call=clone_then("index_reduce_")),
)
