"""The rest of torch's sparse names: COO products with sparse results (`smm`, `hsmm`, `hspmm`, `saddmm`,
`sspaddmm`), the `*_copy` variants of the index/value accessors, and the in-place COO resizes."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from . import SparseCOOTensor, _long, _make, mm
from ._compressed import layout_name

__all__ = ["smm", "hsmm", "hspmm", "saddmm", "sspaddmm", "values_copy", "indices_copy", "crow_indices_copy",
           "col_indices_copy", "ccol_indices_copy", "row_indices_copy"]  # torch.* names; install() adds the methods


def _need_coo(t, fn):
    if not isinstance(t, SparseCOOTensor):
        raise RuntimeError(f"{fn}: expected a sparse COO tensor, got layout {t.layout}")
    return t.coalesce()


def hspmm(mat1, mat2):
    """torch.hspmm: sparse (n, k) @ dense (k, m) as a hybrid COO tensor: one index per row of mat1 holding
    any entry, whose value is that whole row of the product."""
    s = _need_coo(mat1, "hspmm")
    rows = _long(np.unique(np.asarray(s._sp_indices[0].tolist(), np.int64)))
    return _make(rows.reshape(1, -1), mm(s, mat2)[rows], (s.shape[0], mat2.shape[1]), False)


def smm(input, mat):
    """torch.smm: sparse @ dense as a COO tensor holding every column of each row of input with an entry."""
    h = hspmm(input, mat)
    rows, m = h._sp_indices[0], mat.shape[1]
    cols = _long(np.arange(m)).repeat(rows.shape[0])
    indices = _stack((rows.repeat_interleave(m), cols))
    return _make(indices, h._sp_values.reshape(-1), tuple(h.shape), False)


hsmm = hspmm  # torch.hsmm: the hybrid result, like hspmm


def _stack(parts):
    from .. import stack

    return stack(parts)


def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """torch.sspaddmm: beta * input + alpha * (mat1 @ mat2), sparse, entries of input first (uncoalesced)."""
    if not isinstance(input, SparseCOOTensor):
        raise RuntimeError(f"sspaddmm: expected a sparse COO input, got layout {input.layout}")
    p = smm(mat1, mat2)
    from .. import cat

    values = cat((input._sp_values * beta, p._sp_values * alpha))
    return _make(cat((input._sp_indices, p._sp_indices), 1), values, tuple(input.shape), False)


def saddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """torch.saddmm: sspaddmm's legacy name."""
    return sspaddmm(input, mat1, mat2, beta=beta, alpha=alpha)


def values_copy(input):
    """torch.values_copy: a copy of a compressed tensor's values (torch has no COO kernel for it)."""
    if isinstance(input, SparseCOOTensor):
        raise NotImplementedError("Could not run 'aten::values_copy' with arguments from the 'SparseCPU' backend.")
    return input.values().clone()


def indices_copy(input):
    """torch.indices_copy (torch has no COO kernel for it: it refuses every tensor)."""
    if isinstance(input, SparseCOOTensor):
        raise NotImplementedError("Could not run 'aten::indices_copy' with arguments from the 'SparseCPU' backend.")
    return input.indices().clone()


def _copier(name):
    def copy(input):
        return getattr(input, name)().clone()

    copy.__name__ = copy.__qualname__ = f"{name}_copy"
    copy.__doc__ = f"torch.{name}_copy: a copy of Tensor.{name}()."
    return copy


crow_indices_copy, col_indices_copy, ccol_indices_copy, row_indices_copy = (
    _copier(n) for n in ("crow_indices", "col_indices", "ccol_indices", "row_indices"))


def _resize_error(what, before, after):
    return RuntimeError(f"{what} (from {before} to {after}) on a non-empty sparse tensor is not supported.\n"
                        "You could try the following options:\n"
                        "1. If you need an empty sparse tensor of this size, call `x = torch.sparse_coo_tensor(size)`.")


def sparse_resize_(self, size, sparse_dim, dense_dim):
    """Tensor.sparse_resize_: a COO tensor's new size; a non-empty one keeps its entries, so it may only grow
    its sparse dimensions and keep its dense ones."""
    if not isinstance(self, SparseCOOTensor):
        raise NotImplementedError("Could not run 'aten::sparse_resize_' with arguments from the 'CPU' backend.")
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), but "
                           f"got {len(size)}")
    if self._nnz() == 0:
        return sparse_resize_and_clear_(self, size, sparse_dim, dense_dim)
    old = list(self.shape)
    if sparse_dim != self.sparse_dim():
        raise _resize_error("changing the number of sparse dimensions", self.sparse_dim(), sparse_dim)
    if dense_dim != self.dense_dim():
        raise _resize_error("changing the number of dense dimensions", self.dense_dim(), dense_dim)
    if any(a > b for a, b in zip(old[:sparse_dim], size[:sparse_dim])):
        raise _resize_error("shrinking the size of sparse dimensions", old[:sparse_dim], list(size[:sparse_dim]))
    if list(size[sparse_dim:]) != old[sparse_dim:]:
        raise _resize_error("shrinking the size of dense dimensions", old[sparse_dim:], list(size[sparse_dim:]))
    return _become(self, _make(self._sp_indices, self._sp_values, size, self._sp_coalesced))


def sparse_resize_and_clear_(self, size, sparse_dim, dense_dim):
    """Tensor.sparse_resize_and_clear_: a COO tensor emptied (nnz = 0) and given a new size."""
    if not isinstance(self, SparseCOOTensor):
        raise NotImplementedError("Could not run 'aten::sparse_resize_and_clear_' with arguments from the 'CPU' "
                                  "backend.")
    from .. import zeros

    size = tuple(int(n) for n in size)
    values = zeros((0, *size[sparse_dim:]), dtype=self.dtype, device=self.device)
    return _become(self, _make(_long(np.zeros((sparse_dim, 0), np.int64)), values, size, True))


def resize_as_sparse_(self, other):
    """Tensor.resize_as_sparse_(other): sparse_resize_ to other's size and sparse/dense dimensions."""
    if not isinstance(self, SparseCOOTensor) or not isinstance(other, SparseCOOTensor):
        bad = self if not isinstance(self, SparseCOOTensor) else other
        raise RuntimeError(f"resize_as_sparse_: expected sparse COO tensors, got layout {layout_name(bad)}")
    return sparse_resize_(self, tuple(other.shape), other.sparse_dim(), other.dense_dim())


def _become(self, new):
    self._become(new)
    self.__dict__.update(new.__dict__)
    return self


def install(cls=Tensor):
    """The Tensor methods of this module."""
    cls.smm = smm
    cls.sspaddmm = sspaddmm
    for fn in (sparse_resize_, sparse_resize_and_clear_, resize_as_sparse_):
        setattr(cls, fn.__name__, fn)
