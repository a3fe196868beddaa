"""COO sparse tensors and torch.sparse against real torch: construction, repr, coalesce, to_dense/to_sparse,
sparse.mm/spmm/sum/softmax, and gradients w.r.t. the values."""

import warnings

import numpy as np
import pytest

import facade
from tests._compare import same

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: uncoalesced
VAL = [3.0, 4.0, 5.0, 1.0]
MAT = np.arange(6.0, dtype=np.float32).reshape(3, 2) - 2


def _coo(m, idx=IDX, val=VAL, size=(2, 3), **kw):
    return m.sparse_coo_tensor(m.tensor(idx), m.tensor(val), size, **kw)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that sparse invariant checks are off
        yield


def test_construction_and_queries():
    same(lambda m: repr(_coo(m)))
    same(lambda m: (str(_coo(m).layout), _coo(m).is_sparse, _coo(m).is_coalesced(), _coo(m).sparse_dim(),
                    _coo(m).dense_dim(), _coo(m)._nnz(), tuple(_coo(m).shape)))
    same(lambda m: _coo(m).to_dense())
    same(lambda m: _coo(m)._indices())
    same(lambda m: _coo(m)._values())
    same(lambda m: _coo(m).indices())
    same(lambda m: _coo(m).values())
    same(lambda m: tuple(m.sparse_coo_tensor(m.tensor(IDX), m.tensor(VAL)).shape))
    same(lambda m: repr(_coo(m, val=[1.0, 2.0, 3.0, 4.0], dtype=m.float64)))
    same(lambda m: repr(m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0), (2, 3))))
    same(lambda m: repr(_coo(m, idx=[[0, 1]], val=[[1.0, 2.0], [3.0, 4.0]], size=(2, 2))))


def test_construction_errors():
    same(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0]), (2,)))
    same(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0, 2.0]), (2, 3)))
    same(lambda m: repr(m.sparse_coo_tensor(m.tensor([[0, 1]]).int(), m.tensor([1.0, 2.0]), (2,))))
    # torch accepts out-of-range indices unchecked ("memory errors will occur"); here they are refused
    with pytest.raises(RuntimeError, match="size is inconsistent with indices: for dim 0, size is 1 but found index 1"):
        _coo(facade, size=(1, 3))
    with pytest.raises(RuntimeError, match=r"indices must be sparse_dim x nnz, but got: \[2\]"):
        facade.sparse_coo_tensor(facade.tensor([0, 1]), facade.tensor([1.0, 2.0]), (2,))


def test_coalesce():
    same(lambda m: repr(_coo(m).coalesce()))
    same(lambda m: _coo(m).coalesce().is_coalesced())
    same(lambda m: _coo(m).coalesce().indices())
    same(lambda m: _coo(m).coalesce().values())


def test_dense_methods():
    x = np.array([[0.0, 1.0], [2.0, 0.0]], np.float32)
    same(lambda m: repr(m.tensor(x).to_sparse()))
    same(lambda m: repr(m.tensor(x).to_sparse(1)))
    same(lambda m: repr(m.tensor(x).to_sparse_coo()))
    same(lambda m: m.tensor(x).to_sparse().to_dense())
    same(lambda m: (m.tensor(x).sparse_dim(), m.tensor(x).dense_dim(), m.tensor(x).is_sparse))
    for name in ("is_coalesced", "indices", "values", "coalesce"):
        same(lambda m, name=name: getattr(m.tensor(x), name)())
    same(lambda m: repr(m.arange(6.0).reshape(2, 3).sparse_mask(_coo(m).coalesce())))


def test_sparse_ops():
    same(lambda m: m.sparse.mm(_coo(m), m.tensor(MAT)), rtol=1e-6)
    same(lambda m: m.spmm(_coo(m), m.tensor(MAT)), rtol=1e-6)
    same(lambda m: m.mm(_coo(m), m.tensor(MAT)), rtol=1e-6)
    same(lambda m: _coo(m) @ m.tensor(MAT), rtol=1e-6)
    same(lambda m: m.sparse.mm(_coo(m), m.ones(4, 2)))
    same(lambda m: m.sparse.sum(_coo(m)))
    same(lambda m: repr(m.sparse.sum(_coo(m), dim=0)))
    same(lambda m: repr(m.sparse.sum(_coo(m), dim=1)))
    same(lambda m: m.sparse.sum(_coo(m), dim=(0, 1)))
    same(lambda m: m.sparse.softmax(_coo(m), 1).to_dense(), rtol=1e-6)
    same(lambda m: m.sparse.log_softmax(_coo(m), 0).to_dense(), rtol=1e-6)
    same(lambda m: (_coo(m) * 2).to_dense())


@pytest.mark.parametrize("route", ["to_dense", "sparse.mm", "mm", "coalesce", "softmax", "sum_dim"])
def test_gradients_wrt_values(route):
    def run(m):
        v = m.tensor(VAL, requires_grad=True)
        mat = m.tensor(MAT, requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor(IDX), v, (2, 3))
        out = {"to_dense": lambda: (s.to_dense() * m.arange(6.0).reshape(2, 3)).sum(),
               "sparse.mm": lambda: (m.sparse.mm(s, mat) ** 2).sum(),
               "mm": lambda: (m.mm(s, mat) ** 2).sum(),
               "coalesce": lambda: (s.coalesce().values() ** 2).sum(),
               "softmax": lambda: (m.sparse.softmax(s, 1).to_dense() * m.arange(6.0).reshape(2, 3)).sum(),
               "sum_dim": lambda: (m.sparse.sum(s, dim=0).to_dense() ** 2).sum()}[route]()
        out.backward()
        return v.grad, mat.grad if mat.grad is not None else m.zeros(1)
    same(run, rtol=1e-5)


def test_grad_fn_names():
    def run(m):
        s = m.sparse_coo_tensor(m.tensor(IDX), m.tensor(VAL, requires_grad=True), (2, 3))
        return (type(s.grad_fn).__name__, type(s.to_dense().grad_fn).__name__,
                type(m.sparse.mm(s, m.tensor(MAT)).grad_fn).__name__, type(s.coalesce().grad_fn).__name__)
    same(run)
