"""Compressed sparse layouts: CSR, CSC, BSR, BSC (`torch.sparse_csr_tensor`, `Tensor.to_sparse_csr` ...).

Like a COO tensor here, a compressed tensor is a Tensor whose array is its dense value, plus the compressed
indices, plain indices and values it was made from (2-D only, no batch or hybrid dense dimensions). The dense
value is built from the values, so gradients reach them.
"""

from __future__ import annotations

import numpy as np

import functional.sparse as FS

from .._dispatch import Op, call
from .._tensor import Tensor
from . import _IDENTITY, _long, _repr

__all__ = ["sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
           "sparse_bsc_tensor"]  # torch.* names

LAYOUT_NAMES = {"strided": "Strided", "sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc",
                "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc"}
BY_ROW = {"sparse_csr": True, "sparse_bsr": True, "sparse_csc": False, "sparse_bsc": False}
_BLOCKED = ("sparse_bsr", "sparse_bsc")
_NAMES = {True: ("crow_indices", "col_indices", "rows", "ncols"), False: ("ccol_indices", "row_indices", "columns",
                                                                          "nrows")}
_BUILD = {}  # grad_fn name -> the row building a compressed tensor's dense value (torch names it by the maker)
_GATHER = Op("_sparse_blocks_gather", FS.blocks_gather, arrays=("input", "rows", "cols"), grad_name="ValuesBackward0")


def _layout(name):
    import facade

    return getattr(facade, name)


def layout_name(t):
    """torch's C++ name of a tensor's layout ("Strided", "SparseCsr" ...), as its layout errors say it."""
    return LAYOUT_NAMES.get(t.layout.name, t.layout.name)


class SparseCompressedTensor(Tensor):
    """A torch.sparse_csr/csc/bsr/bsc tensor (see the module docstring)."""

    is_sparse = False

    @property
    def layout(self):
        return _layout(self._sp_layout)

    @property
    def is_sparse_csr(self):
        return self._sp_layout == "sparse_csr"

    def _indices_of(self, name, by_row, which):
        if BY_ROW[self._sp_layout] != by_row:
            kind = "row" if by_row else "column"
            raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got {layout_name(self)}")
        return which

    def crow_indices(self):
        return self._indices_of("crow_indices", True, self._sp_compressed)

    def col_indices(self):
        return self._indices_of("col_indices", True, self._sp_plain)

    def ccol_indices(self):
        return self._indices_of("ccol_indices", False, self._sp_compressed)

    def row_indices(self):
        return self._indices_of("row_indices", False, self._sp_plain)

    def values(self):
        return self._sp_values

    def _nnz(self):
        return self._sp_plain.shape[0]

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return 0

    def to_dense(self, dtype=None, *, masked_grad=None):
        out = call(_IDENTITY, (self,), None)
        return out if dtype is None else out.to(dtype)

    def __repr__(self, *, tensor_contents=None):
        first, second = _NAMES[BY_ROW[self._sp_layout]][:2]
        return _repr(self, ((first, self._sp_compressed), (second, self._sp_plain), ("values", self._sp_values)),
                     force_newline=False)


def _make(compressed, plain, values, size, layout, rows, cols, grad_name="SparseCompressedTensorBackward0"):
    """A compressed tensor whose dense value is built from `values` (so its grad_fn is named `grad_name`)."""
    op = _BUILD.get(grad_name)
    if op is None:
        op = _BUILD[grad_name] = Op(grad_name, FS.blocks_to_dense, arrays=("rows", "cols", "values"),
                                    grad_name=grad_name)
    t = call(op, (rows, cols, values, tuple(size)), None)
    t.__class__ = SparseCompressedTensor
    t._sp_compressed, t._sp_plain, t._sp_values, t._sp_layout = compressed, plain, values, layout
    return t


def _as_tensor(x, dtype=None):
    from .._creation import tensor

    return x if isinstance(x, Tensor) else tensor(x, dtype=dtype)


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
    """torch.sparse_compressed_tensor: a 2-D CSR/CSC/BSR/BSC tensor from its compressed and plain indices and
    values ((nnz,) or, blocked, (nnz, bm, bn)). The invariants are always checked (torch checks them only when
    asked): the dense value here cannot hold an out-of-range index."""
    if layout is None or layout.name not in BY_ROW:
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout but got {layout}"
                           if layout is not None else
                           "sparse_compressed_tensor expected sparse compressed tensor layout but got none")
    by_row, name, blocked = BY_ROW[layout.name], layout.name, layout.name in _BLOCKED
    cname, pname, cdim, pdim = _NAMES[by_row]
    compressed, plain = _as_tensor(compressed_indices), _as_tensor(plain_indices)
    values = _as_tensor(values, dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if device is not None:
        compressed, plain, values = compressed.to(device), plain.to(device), values.to(device)
    if compressed.ndim != 1 or plain.ndim != 1 or values.ndim != (3 if blocked else 1):
        raise NotImplementedError(f"sparse_compressed_tensor: only 2-D tensors without batch or dense dimensions are "
                                  f"supported here, got {cname} of shape {list(compressed.shape)} and values of "
                                  f"shape {list(values.shape)}")
    block = tuple(values.shape[1:]) if blocked else (1, 1)
    cidx = np.asarray(compressed.tolist(), np.int64)
    pidx = np.asarray(plain.tolist(), np.int64)
    nnz = values.shape[0]
    if size is None:
        ncomp, nplain = len(cidx) - 1, (int(pidx.max()) + 1 if pidx.size else 0)
        shape = (ncomp, nplain) if by_row else (nplain, ncomp)
        size = (shape[0] * block[0], shape[1] * block[1])
    size = tuple(int(s) for s in size)
    grid = (size[0] // block[0], size[1] // block[1])
    ncomp, nplain = grid if by_row else grid[::-1]
    if len(cidx) != ncomp + 1:
        raise RuntimeError(f"{cname}.shape[-1] must be equal to the number of {cdim} + 1 (={ncomp + 1}), but got "
                           f"{len(cidx)}")
    if cidx[0] != 0:
        raise RuntimeError(f"`{cname}[..., 0] == 0` is not satisfied.")
    if cidx[-1] != nnz or len(pidx) != nnz:
        raise RuntimeError(f"`{cname}[..., -1] == nnz` is not satisfied.")
    if (np.diff(cidx) < 0).any():
        raise RuntimeError(f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= {pdim}` is not satisfied.")
    if pidx.size and (pidx.min() < 0 or pidx.max() >= nplain):
        raise RuntimeError(f"`0 <= {pname} < {pdim}` is not satisfied.")
    major = np.repeat(np.arange(ncomp), np.diff(cidx))
    rows, cols = (major, pidx) if by_row else (pidx, major)
    t = _make(compressed, plain, values, size, name, _long(rows), _long(cols))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _maker(target):
    def make(compressed_indices, plain_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
             requires_grad=False, check_invariants=None):
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size, dtype=dtype,
                                        layout=_layout(target), device=device, requires_grad=requires_grad)

    make.__name__ = make.__qualname__ = f"{target}_tensor"
    make.__doc__ = f"torch.{target}_tensor: see sparse_compressed_tensor."
    return make


sparse_csr_tensor, sparse_csc_tensor, sparse_bsr_tensor, sparse_bsc_tensor = (
    _maker(n) for n in ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"))


def to_compressed(self, target, blocksize=None):
    """A dense (or sparse) 2-D tensor's nonzero entries (blocks with a nonzero, when blocked) in a compressed
    layout: row-major for CSR/BSR, column-major for CSC/BSC."""
    fn = f"dense_to_{target}"
    if self.ndim != 2:
        raise NotImplementedError(f"{fn}: only 2-D tensors are supported here, got a {self.ndim}-D tensor")
    blocked, by_row = target in _BLOCKED, BY_ROW[target]
    if not blocked and blocksize is not None:
        raise RuntimeError(f"dense_to_sparse: conversion from {layout_name(self)} to {LAYOUT_NAMES[target]} "
                           "with blocksize argument given is not supported")
    if blocked and blocksize is None:
        raise RuntimeError(f"dense_to_sparse: conversion from {layout_name(self)} to {LAYOUT_NAMES[target]} "
                           "without blocksize argument given is not supported")
    block = ((blocksize, blocksize) if isinstance(blocksize, int) else tuple(blocksize)) if blocked else (1, 1)
    m, n = self.shape
    if m % block[0] or n % block[1]:
        raise RuntimeError(f"{fn}: tensor sparse size ({m},{n}) must be divisible by given blocksize "
                           f"({block[0]},{block[1]})")
    host = np.asarray(self.detach().cpu().numpy()) != 0
    mask = host.reshape(m // block[0], block[0], n // block[1], block[1]).any((1, 3))
    if by_row:
        rows, cols = np.nonzero(mask)
    else:
        cols, rows = np.nonzero(mask.T)
    major, count = (rows, mask.shape[0]) if by_row else (cols, mask.shape[1])
    compressed = np.concatenate([[0], np.cumsum(np.bincount(major, minlength=count))])
    rows_t, cols_t = _long(rows), _long(cols)
    grad_name = f"To{LAYOUT_NAMES[target]}Backward0"
    values = call(_GATHER, (self, rows_t, cols_t, block if blocked else None), None)
    plain = cols_t if by_row else rows_t
    return _make(_long(compressed), plain, values, (m, n), target, rows_t, cols_t, grad_name)

