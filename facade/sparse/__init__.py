"""torch.sparse and COO sparse tensors (`torch.sparse_coo_tensor`, `Tensor.to_sparse`).

A COO tensor here is a Tensor whose array is its dense value, plus the `indices` (sparse_dim, nnz) and
`values` (nnz, *dense_shape) it was made from. torch.sparse's own ops (`mm`, `sum`, `softmax`, `coalesce`)
work on indices and values; every other op computes on the dense value, so results agree with torch and
gradients reach `values`, but such results are dense (strided) tensors where torch may keep them sparse.
The compressed layouts (CSR/CSC/BSR/BSC) are in _compressed.py, the remaining sparse names in _extra.py.
"""

from __future__ import annotations

import numpy as np

import functional as F
import functional.sparse as FS

from .. import _dtype as D
from .._dispatch import Op, call
from .._tensor import Tensor

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sparse_coo_tensor", "spmm"]

_TO_DENSE = {}  # grad_fn name -> the row building a sparse tensor's dense value (torch names it by the maker)
_GATHER = Op("_sparse_gather", FS.coo_gather, arrays=("input", "indices"), grad_name="IndexBackward0")
_SEGMENT_SUM = Op("_coalesce", FS.coo_segment_sum, arrays=("values", "inverse"), grad_name="CoalesceBackward0")
_MM = Op("_sparse_mm", FS.coo_mm, arrays=("indices", "values", "mat"), promote=("values", "mat"),
         grad_name="SparseAddmmBackward0")
_SOFTMAX = Op("_sparse_softmax", FS.coo_softmax, arrays=("indices", "values"))
_IDENTITY = Op("to_dense", F.clone, grad_name="ToDenseBackward0")


def _layout():
    import facade

    return facade.sparse_coo


class SparseCOOTensor(Tensor):
    """A torch.sparse_coo tensor (see the module docstring)."""

    is_sparse = True

    @property
    def layout(self):
        return _layout()

    def sparse_dim(self):
        return self._sp_indices.shape[0]

    def dense_dim(self):
        return self._sp_values.ndim - 1

    def _nnz(self):
        return self._sp_indices.shape[1]

    def _indices(self):
        return self._sp_indices

    def _values(self):
        return self._sp_values

    def indices(self):
        self._check_coalesced("indices")
        return self._sp_indices

    def values(self):
        self._check_coalesced("values")
        return self._sp_values

    def _check_coalesced(self, what):
        if not self._sp_coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")

    def is_coalesced(self):
        return self._sp_coalesced

    def coalesce(self):
        """Sort the indices and sum the values of duplicates (differentiably in the values)."""
        if self._sp_coalesced:
            return self
        idx = np.asarray(self._sp_indices.tolist(), np.int64).reshape(self.sparse_dim(), -1)
        lin = np.ravel_multi_index(tuple(idx), tuple(self.shape[:self.sparse_dim()])) if idx.size else idx[0]
        uniq, inverse = np.unique(lin, return_inverse=True)
        new_idx = np.stack(np.unravel_index(uniq, tuple(self.shape[:self.sparse_dim()]))).reshape(idx.shape[0], -1)
        values = call(_SEGMENT_SUM, (self._sp_values, _long(inverse.reshape(-1)), len(uniq)), None)
        return _make(_long(new_idx), values, tuple(self.shape), True, "CoalesceBackward0")

    def to_dense(self, dtype=None, *, masked_grad=None):
        out = call(_IDENTITY, (self,), None)
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if layout is not None and layout is not _layout():
            return _to_sparse(self, layout=layout, blocksize=blocksize)
        return self

    to_sparse_coo = to_sparse

    def __repr__(self, *, tensor_contents=None):
        return _repr(self, (("indices", self._sp_indices), ("values", self._sp_values)), force_newline=True)


def _repr(t, fields, force_newline):
    """torch's repr of a sparse tensor: its index and value tensors, then size, nnz, dtype, layout, grad_fn."""
    from .._tensor_str import PRINT_OPTS, tensor_str

    def body(x, indent):
        a = np.asarray(x.detach()._host())
        return tensor_str(a, x.dtype, indent) + ("" if x.numel() else f", size={tuple(x.shape)}")

    text = "tensor(" + ",\n       ".join(f"{name}=tensor({body(x, 15 + len(name))})" for name, x in fields)
    suffixes = [f"size={tuple(t.shape)}", f"nnz={t._nnz()}"]
    if t.dtype not in (D.get_default_dtype(), D.default_complex(), D.int64, D.bool):
        suffixes.append(f"dtype={t.dtype}")
    suffixes.append(f"layout={t.layout}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    width = len(text) - text.rfind("\n") + 1  # as torch's _add_suffixes counts the last line
    for suffix in suffixes:
        if force_newline or width + len(suffix) + 2 > PRINT_OPTS.linewidth:
            text, width, force_newline = text + ",\n       " + suffix, 7 + len(suffix), False
        else:
            text, width = text + ", " + suffix, width + len(suffix) + 2
    return text + ")"


def _long(a):
    from .._creation import tensor

    return tensor(np.asarray(a, np.int64))


def _make(indices, values, size, coalesced, grad_name="SparseCooTensorWithDimsAndTensorsBackward0"):
    op = _TO_DENSE.get(grad_name)
    if op is None:
        op = _TO_DENSE[grad_name] = Op("sparse_coo_tensor", FS.coo_to_dense, arrays=("indices", "values"),
                                       grad_name=grad_name)
    t = call(op, (indices, values, tuple(size)), None)
    t.__class__ = SparseCOOTensor
    t._sp_indices, t._sp_values, t._sp_coalesced = indices, values, coalesced
    return t


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """torch.sparse_coo_tensor(indices, values, size=None): a COO tensor (size inferred from the indices)."""
    from .._creation import tensor

    indices = indices if isinstance(indices, Tensor) else tensor(indices)
    values = values if isinstance(values, Tensor) else tensor(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if device is not None:
        indices, values = indices.to(device), values.to(device)
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if indices.dtype._cat != 1:
        raise RuntimeError(f"indices must be an int64 tensor, but got {indices.dtype}")
    if indices.dtype is not D.int64:
        indices = indices.long()
    if values.ndim == 0:
        values = values.reshape(1)
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {indices.shape[1]}, "
                           f"nnz from values: {values.shape[0]}")
    sparse_dim = indices.shape[0]
    idx = np.asarray(indices.tolist(), np.int64).reshape(sparse_dim, -1)
    if size is None:
        size = (*(idx.max(1) + 1 if idx.size else np.zeros(sparse_dim, np.int64)).tolist(), *values.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + values.ndim - 1:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {values.ndim - 1}")
    for d in range(sparse_dim):
        if idx.size and (idx[d].min() < 0 or idx[d].max() >= size[d]):
            bad = idx[d].max() if idx[d].max() >= size[d] else idx[d].min()
            # torch leaves this unchecked by default (later memory errors); an array here cannot hold it
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found index "
                               f"{bad}")
    t = _make(indices, values, size, bool(is_coalesced) or idx.shape[1] <= 1)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse(sparse_dim=ndim): the nonzero entries of a dense tensor (over its first sparse_dim dims)."""
    if layout is not None and layout is not _layout():
        if layout.name not in _compressed.LAYOUT_NAMES or layout.name == "strided":
            raise RuntimeError(f"to_sparse: expected a sparse layout, got {layout}")
        return _compressed.to_compressed(self, layout.name, blocksize)
    k = self.ndim if sparse_dim is None else sparse_dim
    if not 0 <= k <= self.ndim:
        raise RuntimeError(f"sparse_dim argument must be in [0, {self.ndim}] range, but {k} is given")
    host = np.asarray(self.detach().cpu().numpy())
    mask = host != 0 if k == self.ndim else (host != 0).reshape(*host.shape[:k], -1).any(-1)
    idx = _long(np.stack(np.nonzero(mask)).reshape(k, -1))
    return _make(idx, call(_GATHER, (self, idx), None), tuple(self.shape), True, "ToSparseBackward0")


def _dense_to_sparse_coo(self, sparse_dim=None):
    return _to_sparse(self, sparse_dim)


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    return self if dtype is None else self.to(dtype)


def _coo(t, fn):
    if not isinstance(t, SparseCOOTensor):  # torch's sparse ops coalesce first, so that is what its error names
        raise RuntimeError(f"coalesce expected sparse coordinate tensor layout but got {_compressed.layout_name(t)}")
    return t


def mm(mat1, mat2, reduce="sum"):
    """torch.sparse.mm: sparse @ dense -> dense (through the nnz entries only); sparse @ sparse -> sparse."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm(reduce={reduce!r}) is not supported here")
    if isinstance(mat1, SparseCOOTensor) and isinstance(mat2, SparseCOOTensor):
        return _to_sparse(mat1.to_dense() @ mat2.to_dense())
    if not isinstance(mat1, SparseCOOTensor):
        return mat1 @ mat2.to_dense() if isinstance(mat2, SparseCOOTensor) else mat1 @ mat2
    if mat1.ndim != 2 or mat1.dense_dim() or mat2.ndim != 2:
        raise RuntimeError(f"torch.sparse.mm: expected a 2-D sparse matrix and a 2-D dense matrix, got shapes "
                           f"{list(mat1.shape)} and {list(mat2.shape)}")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {mat1.shape[1]}, got {mat2.shape[0]}")
    return call(_MM, (mat1._sp_indices, mat1._sp_values, mat2, mat1.shape[0]), None)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """torch.sparse.addmm: beta * mat + alpha * (mat1 @ mat2), mat1 sparse (COO or compressed), dense result."""
    return mat * beta + mm(mat1, mat2) * alpha


def spmm(input, mat2):
    """torch.spmm: sparse @ dense."""
    return mm(input, mat2)


def sum(input, dim=None, dtype=None):
    """torch.sparse.sum: a dense 0-dim tensor over all dims, else a coalesced sparse tensor without `dim`."""
    s = _coo(input, "torch.sparse.sum").coalesce()
    if dim is None:
        out = s._sp_values.sum(dtype=dtype)
        return out
    dims = {d % s.ndim for d in ((dim,) if isinstance(dim, int) else dim)}
    sd = s.sparse_dim()
    dense_axes = tuple(1 + d - sd for d in sorted(dims) if d >= sd)
    values = s._sp_values.sum(dense_axes, dtype=dtype) if dense_axes else s._sp_values
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return values.sum(0)
    size = tuple(n for d, n in enumerate(s.shape) if d not in dims)
    indices = s._sp_indices[keep] if len(keep) < sd else s._sp_indices
    return _make(indices, values, size, len(keep) == sd, "SparseSumBackward0").coalesce()


def _softmax(input, dim, dtype, log, fn):
    s = _coo(input, fn).coalesce()
    if s.dense_dim():
        raise NotImplementedError(f"{fn}: hybrid sparse tensors (dense_dim > 0) are not supported here")
    values = s._sp_values if dtype is None else s._sp_values.to(dtype)
    out = call(_SOFTMAX, (s._sp_indices, values, tuple(s.shape), dim % s.ndim, log), None)
    return _make(s._sp_indices, out, tuple(s.shape), True, "LogSoftmaxBackward0" if log else "SoftmaxBackward0")


def softmax(input, dim, *, dtype=None):
    """torch.sparse.softmax: softmax along dim over the specified entries (unspecified ones count as -inf)."""
    return _softmax(input, dim, dtype, False, "torch.sparse.softmax")


def log_softmax(input, dim, *, dtype=None):
    return _softmax(input, dim, dtype, True, "torch.sparse.log_softmax")


def _sparse_mask(self, mask):
    """Tensor.sparse_mask(mask): self's values at a sparse mask's indices, as a sparse tensor."""
    mask = _coo(mask, "sparse_mask").coalesce()
    return _make(mask._sp_indices, call(_GATHER, (self, mask._sp_indices), None), tuple(self.shape), True)


def _refuse(name, layout="sparse coordinate tensor"):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {layout} layout but got {_compressed.layout_name(self)}")

    method.__name__ = name
    return method


def _install(Tensor):
    """Tensor's sparse methods on dense tensors (to_sparse, to_dense, sparse_dim ...; torch's errors for
    the COO-only ones)."""
    Tensor.to_sparse = _to_sparse
    Tensor.to_sparse_coo = _dense_to_sparse_coo
    Tensor.to_dense = _dense_to_dense
    Tensor.sparse_mask = _sparse_mask
    Tensor.sparse_dim = lambda self: 0
    Tensor.dense_dim = lambda self: self.ndim
    for name in ("is_coalesced", "indices", "coalesce"):
        setattr(Tensor, name, _refuse(name))
    Tensor.values = _refuse("values", "sparse tensor")
    for names, layout in ((("crow_indices", "col_indices"), "sparse row compressed tensor"),
                          (("ccol_indices", "row_indices"), "sparse column compressed tensor")):
        for name in names:
            setattr(Tensor, name, _refuse(name, layout))
    for name in _compressed.BY_ROW:
        setattr(Tensor, f"to_{name}", _to_layout(name))
    Tensor.is_sparse_csr = False
    _extra.install(Tensor)


def _to_layout(name):
    blocked = name in ("sparse_bsr", "sparse_bsc")

    def method(self, *args, dense_dim=None, **kwargs):
        if dense_dim:
            raise NotImplementedError(f"to_{name}(dense_dim={dense_dim}): hybrid tensors are not supported here")
        blocksize = (args[0] if args else kwargs.get("blocksize")) if blocked else None
        return _compressed.to_compressed(self, name, blocksize)

    method.__name__ = f"to_{name}"
    method.__doc__ = f"Tensor.to_{name}: see facade.sparse._compressed.to_compressed."
    return method


from . import _compressed, _extra  # noqa: E402  (they build on the COO helpers above)
