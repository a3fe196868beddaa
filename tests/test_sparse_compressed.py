"""Compressed sparse layouts (CSR/CSC/BSR/BSC) and the remaining sparse names (smm, hspmm, sspaddmm, the *_copy
accessors, the COO resizes) against real torch: values, dtypes, layouts, reprs, errors and gradients."""

import warnings

import numpy as np
import pytest
import torch

import facade
from tests._compare import same

DENSE = [[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]
BLOCKY = np.array([[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 0], [0, 0, 5, 0]], np.float32)
LAYOUTS = ["sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that sparse CSR support is in beta
        yield


def _convert(m, layout, x):
    blocked = layout in ("sparse_bsr", "sparse_bsc")
    return getattr(x, f"to_{layout}")((2, 2)) if blocked else getattr(x, f"to_{layout}")()


def _csr(m, values=(2.0, 3.0, 4.0), **kw):
    return m.sparse_csr_tensor(m.tensor([0, 1, 3]), m.tensor([1, 0, 2]), m.tensor(values), (2, 3), **kw)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_dense_to_compressed(layout):
    same(lambda m: repr(_convert(m, layout, m.tensor(BLOCKY))))
    same(lambda m: _convert(m, layout, m.tensor(BLOCKY)).values())
    same(lambda m: _convert(m, layout, m.tensor(BLOCKY)).to_dense())
    block = (2, 2) if layout in ("sparse_bsr", "sparse_bsc") else None
    same(lambda m: repr(m.tensor(BLOCKY).to_sparse(layout=getattr(m, layout), blocksize=block)))
    same(lambda m: m.tensor(BLOCKY).to_sparse(layout=getattr(m, layout), blocksize=None if block else (2, 2)))
    same(lambda m: (str(_convert(m, layout, m.tensor(BLOCKY)).layout), _convert(m, layout, m.tensor(BLOCKY)).is_sparse,
                    _convert(m, layout, m.tensor(BLOCKY)).is_sparse_csr, _convert(m, layout, m.tensor(BLOCKY))._nnz()))
    same(lambda m: repr(m.tensor(BLOCKY).to_sparse(layout=getattr(m, layout), blocksize=(2, 2))))
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices"):
        same(lambda m, name=name: getattr(_convert(m, layout, m.tensor(BLOCKY)), name)())
        same(lambda m, name=name: getattr(m, f"{name}_copy")(_convert(m, layout, m.tensor(BLOCKY))))
    same(lambda m: _convert(m, layout, m.tensor(BLOCKY)).indices())
    same(lambda m: m.values_copy(_convert(m, layout, m.tensor(BLOCKY))))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradient_through_conversion(layout):
    def fn(m):
        x = m.tensor(BLOCKY, requires_grad=True)
        s = _convert(m, layout, x)
        (s.values() * m.arange(1.0, 1.0 + s.values().numel()).reshape(s.values().shape)).sum().backward()
        return type(s.grad_fn).__name__, type(s.values().grad_fn).__name__, x.grad

    same(fn)


def test_constructors():
    same(lambda m: repr(_csr(m)))
    same(lambda m: repr(_csr(m, dtype=m.float64)))
    same(lambda m: repr(m.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [2, 3, 4], (2, 3))))
    same(lambda m: repr(m.sparse_csr_tensor(m.tensor([0, 1, 3]).int(), m.tensor([1, 0, 2]).int(), m.ones(3))))
    same(lambda m: tuple(m.sparse_csr_tensor(m.tensor([0, 1, 3]), m.tensor([1, 0, 2]), m.ones(3)).shape))
    same(lambda m: repr(m.sparse_csc_tensor(m.tensor([0, 1, 2, 3]), m.tensor([1, 0, 1]), m.tensor([3.0, 2.0, 4.0]))))
    same(lambda m: repr(m.sparse_bsr_tensor(m.tensor([0, 1]), m.tensor([0]), m.ones(1, 2, 2))))
    same(lambda m: m.sparse_bsc_tensor(m.tensor([0, 1, 1]), m.tensor([1]), m.arange(4.0).reshape(1, 2, 2),
                                       (4, 4)).to_dense())
    same(lambda m: repr(m.sparse_compressed_tensor(m.tensor([0, 1, 2, 3]), m.tensor([1, 0, 1]), m.ones(3), (2, 3),
                                                   layout=m.sparse_csc)))


def test_constructor_errors():
    def make(crow, col, m, **kw):
        return m.sparse_csr_tensor(m.tensor(crow), m.tensor(col), m.ones(3), (2, 3), check_invariants=True, **kw)

    same(lambda m: m.sparse_compressed_tensor(m.tensor([0, 1, 3]), m.tensor([1, 0, 2]), m.ones(3), (2, 3)))
    for crow, col in (([0, 1, 4], [1, 0, 2]), ([1, 1, 3], [1, 0, 2]), ([0, 1, 3], [1, 0, 5]), ([0, 1], [1, 0, 2])):
        same(lambda m, crow=crow, col=col: make(crow, col, m))
    same(lambda m: m.sparse_csc_tensor(m.tensor([0, 1]), m.tensor([1, 0, 2]), m.ones(3), (2, 3),
                                       check_invariants=True))
    same(lambda m: m.arange(6.0).reshape(2, 3).to_sparse_bsr((2, 2)))
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices", "values"):
        same(lambda m, name=name: getattr(m.tensor(DENSE), name)())
        same(lambda m, name=name: getattr(m.tensor(DENSE).to_sparse(), name)() if name != "values" else m.zeros(1))
    same(lambda m: m.crow_indices_copy(m.tensor(DENSE)))
    same(lambda m: m.values_copy(m.tensor(DENSE)))
    same(lambda m: m.indices_copy(m.tensor(DENSE)))
    same(lambda m: m.sparse.sum(_csr(m)))
    same(lambda m: m.sparse.sum(m.tensor(DENSE)))


def test_gradient_wrt_values():
    def fn(m):
        v = m.tensor([2.0, 3.0, 4.0], requires_grad=True)
        s = _csr(m, v)
        out = m.sparse.mm(s, m.arange(6.0).reshape(3, 2)) * m.tensor([1.0, -2.0])
        (out.sum() + (s.to_dense() ** 2).sum()).backward()
        return type(s.grad_fn).__name__, type(s.to_dense().grad_fn).__name__, v.grad

    same(fn)


def test_products_with_compressed_inputs():
    mat = np.arange(6.0, dtype=np.float32).reshape(3, 2) - 2
    same(lambda m: m.sparse.mm(_csr(m), m.tensor(mat)))
    same(lambda m: _csr(m) @ m.tensor(mat))
    same(lambda m: m.sparse.addmm(m.ones(2, 2), _csr(m), m.tensor(mat), beta=2, alpha=3))
    same(lambda m: m.sparse.addmm(m.ones(2, 2), m.tensor(DENSE).to_sparse(), m.tensor(mat)))
    same(lambda m: _csr(m).sum())
    same(lambda m: repr(_csr(m).to_sparse()))
    same(lambda m: repr(_csr(m).to_sparse_csc()))
    same(lambda m: repr(m.tensor(DENSE).to_sparse().to_sparse_csr()))


def _sp(m):
    return m.tensor(DENSE).to_sparse()


@pytest.mark.parametrize("mat", [np.ones((3, 2), np.float32), np.zeros((3, 2), np.float32)])
def test_sparse_results(mat):
    for name in ("smm", "hsmm", "hspmm"):
        same(lambda m, name=name: repr(getattr(m, name)(_sp(m), m.tensor(mat))))
        same(lambda m, name=name: getattr(m, name)(_sp(m), m.tensor(mat)).is_coalesced())
    same(lambda m: repr(_sp(m).smm(m.tensor(mat))))
    for name in ("saddmm", "sspaddmm"):
        same(lambda m, name=name: repr(getattr(m, name)(m.ones(2, 2).to_sparse(), _sp(m), m.tensor(mat))))
        same(lambda m, name=name: repr(getattr(m, name)(m.ones(2, 2).to_sparse(), _sp(m), m.tensor(mat), beta=2,
                                                        alpha=0.5)))
    same(lambda m: repr(m.ones(2, 2).to_sparse().sspaddmm(_sp(m), m.tensor(mat))))


@pytest.mark.parametrize("name", ["smm", "hspmm", "sspaddmm"])
def test_sparse_results_gradient(name):
    """torch has no derivative for these ("derivative for aten::sspaddmm is not implemented"); here they are
    differentiable, and their gradients are torch's for the same product computed densely."""
    def grads(m, product):
        v = m.tensor([2.0, 3.0, 4.0], requires_grad=True)
        d = m.arange(6.0).reshape(3, 2).requires_grad_()
        s = m.sparse_coo_tensor(m.tensor([[0, 1, 1], [1, 0, 2]]), v, (2, 3))
        (product(m, s, d) * m.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return v.grad, d.grad

    sparse = {"smm": lambda m, s, d: m.smm(s, d).to_dense(), "hspmm": lambda m, s, d: m.hspmm(s, d).to_dense(),
              "sspaddmm": lambda m, s, d: m.sspaddmm(m.ones(2, 2).to_sparse(), s, d).to_dense()}[name]
    extra = 1.0 if name == "sspaddmm" else 0.0
    expected = grads(torch, lambda m, s, d: s.to_dense() @ d + extra)
    for want, got in zip(expected, grads(facade, sparse)):
        np.testing.assert_allclose(got.numpy(), want.numpy())


def test_copies_of_coo_refused_like_torch():
    same(lambda m: m.values_copy(_sp(m)), message=False)
    same(lambda m: m.indices_copy(_sp(m)), message=False)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::values_copy' with arguments from the "
                                                  "'SparseCPU' backend"):
        facade.values_copy(_sp(facade))


def test_resizes():
    def resized(m, method, *args):
        s = _sp(m).coalesce()
        out = getattr(s, method)(*args)
        return repr(s), out is s

    same(lambda m: resized(m, "sparse_resize_", (3, 4), 2, 0))
    same(lambda m: resized(m, "sparse_resize_and_clear_", (3, 4), 2, 0))
    same(lambda m: resized(m, "sparse_resize_and_clear_", (3, 4), 1, 1))
    same(lambda m: resized(m, "sparse_resize_", (1, 4), 2, 0))
    same(lambda m: resized(m, "sparse_resize_", (3, 4), 1, 1))
    same(lambda m: resized(m, "resize_as_sparse_", m.zeros(5, 5).to_sparse()))
    same(lambda m: repr(m.zeros(5, 5).to_sparse().resize_as_sparse_(_sp(m))))
    same(lambda m: m.tensor(DENSE).sparse_resize_((3, 4), 2, 0), message=False)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::sparse_resize_' with arguments from the "
                                                  "'CPU' backend"):
        facade.tensor(DENSE).sparse_resize_((3, 4), 2, 0)
