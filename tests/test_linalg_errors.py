"""Error messages of the linear algebra and sorting ops: each bad call runs through real torch and
through facade; facade must raise the same exception type with the same message."""

import re

import numpy as np
import pytest
import torch

import facade


def _mat(mod, *shape, dtype="float32", value=None):
    a = np.zeros(shape) if value is None else np.asarray(value)
    return mod.tensor(a.astype(dtype))


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SINGULAR3 = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]

CASES = {
    # matrix products
    "mm shapes": lambda m: m.mm(_mat(m, 2, 3), _mat(m, 4, 5)),
    "matmul 2-D shapes": lambda m: m.matmul(_mat(m, 2, 3), _mat(m, 4, 5)),
    "@ shapes": lambda m: _mat(m, 2, 3) @ _mat(m, 4, 5),
    "matmul 1-D @ 2-D": lambda m: m.matmul(_mat(m, 3), _mat(m, 4, 5)),
    "matmul 2-D @ 1-D": lambda m: m.matmul(_mat(m, 2, 3), _mat(m, 4)),
    "matmul 1-D @ 1-D": lambda m: m.matmul(_mat(m, 3), _mat(m, 4)),
    "matmul folded 3-D @ 2-D": lambda m: m.matmul(_mat(m, 2, 2, 3), _mat(m, 4, 5)),
    "matmul folded 3-D @ 1-D": lambda m: m.matmul(_mat(m, 2, 2, 3), _mat(m, 4)),
    "matmul batched": lambda m: m.matmul(_mat(m, 2, 2, 3), _mat(m, 2, 4, 5)),
    "matmul 1-D @ batched": lambda m: m.matmul(_mat(m, 3), _mat(m, 2, 4, 5)),
    "matmul batch broadcast": lambda m: m.matmul(_mat(m, 2, 2, 3), _mat(m, 3, 3, 5)),
    "matmul 0-D": lambda m: m.matmul(_mat(m), _mat(m, 3)),
    "matmul dtypes": lambda m: m.matmul(_mat(m, 2, 3), _mat(m, 3, 4, dtype="float64")),
    "matmul dtypes 1-D": lambda m: m.matmul(_mat(m, 3), _mat(m, 3, dtype="float64")),
    "matmul bool": lambda m: m.matmul(_mat(m, 2, 3, dtype="bool"), _mat(m, 3, 2, dtype="bool")),
    "mm dtypes": lambda m: m.mm(_mat(m, 2, 3), _mat(m, 3, 5, dtype="float64")),
    "mm 1-D": lambda m: m.mm(_mat(m, 3), _mat(m, 3, 5)),
    "bmm shapes": lambda m: m.bmm(_mat(m, 2, 2, 3), _mat(m, 3, 3, 5)),
    "bmm 2-D": lambda m: m.bmm(_mat(m, 2, 3), _mat(m, 3, 5)),
    "bmm dtypes": lambda m: m.bmm(_mat(m, 2, 2, 3, dtype="float64"), _mat(m, 2, 3, 5)),
    "mv shapes": lambda m: m.mv(_mat(m, 2, 3), _mat(m, 4)),
    "mv dims": lambda m: m.mv(_mat(m, 3, 3), _mat(m, 3, 3)),
    "dot dims": lambda m: m.dot(_mat(m, 3, 3), _mat(m, 3)),
    "dot dtypes": lambda m: m.dot(_mat(m, 3), _mat(m, 3, dtype="float64")),
    "addmm dtypes": lambda m: m.addmm(_mat(m, 2, 4, dtype="float64"), _mat(m, 2, 3), _mat(m, 3, 4)),
    "addmm expand": lambda m: m.addmm(_mat(m, 3, 4), _mat(m, 2, 3), _mat(m, 3, 4)),
    "addr integral alpha": lambda m: m.addr(_mat(m, 2, 2, dtype="int64"), _mat(m, 2, dtype="int64"),
                                            _mat(m, 2, dtype="int64"), alpha=1.5),
    "addbmm batches": lambda m: m.addbmm(_mat(m, 2, 4), _mat(m, 5, 2, 3), _mat(m, 4, 3, 4)),
    "baddbmm dtypes": lambda m: m.baddbmm(_mat(m, 5, 2, 4, dtype="float64"), _mat(m, 5, 2, 3), _mat(m, 5, 3, 4)),
    "inner": lambda m: m.inner(_mat(m, 2, 3), _mat(m, 2, 4)),
    "outer 2-D": lambda m: m.outer(_mat(m, 2, 2), _mat(m, 3)),
    "einsum sizes": lambda m: m.einsum("ij,jk->ik", _mat(m, 3, 2), _mat(m, 4, 4)),
    "einsum operands": lambda m: m.einsum("ij,jk->ik", _mat(m, 3, 2)),
    "tensordot sizes": lambda m: m.tensordot(_mat(m, 3, 2), _mat(m, 4), 1),
    "tensordot dims": lambda m: m.tensordot(_mat(m, 3, 2), _mat(m, 2), -1),
    "cross length": lambda m: m.linalg.cross(_mat(m, 2, 3), _mat(m, 2, 4)),
    "cross dims": lambda m: m.linalg.cross(_mat(m, 3, 3), _mat(m, 2, 3, 3)),
    "cdist columns": lambda m: m.cdist(_mat(m, 3, 2), _mat(m, 4, 3)),
    "cdist p": lambda m: m.cdist(_mat(m, 3, 2), _mat(m, 4, 2), p=-1.0),
    "multi_dot count": lambda m: m.linalg.multi_dot([_mat(m, 3, 2)]),
    "multi_dot shapes": lambda m: m.linalg.multi_dot([_mat(m, 3, 2), _mat(m, 3, 2)]),
    "trace 1-D": lambda m: m.trace(_mat(m, 3)),
    # non-square and wrong-dtype inputs
    "inv non-square": lambda m: m.linalg.inv(_mat(m, 2, 3)),
    "inv 1-D": lambda m: m.linalg.inv(_mat(m, 3)),
    "inv integer": lambda m: m.linalg.inv(_mat(m, 2, 2, dtype="int64")),
    "inv half": lambda m: m.linalg.inv(_mat(m, 2, 2, dtype="float16")),
    "det non-square": lambda m: m.linalg.det(_mat(m, 2, 3)),
    "slogdet non-square": lambda m: m.linalg.slogdet(_mat(m, 2, 3)),
    "solve non-square": lambda m: m.linalg.solve(_mat(m, 2, 3), _mat(m, 2)),
    "solve shapes": lambda m: m.linalg.solve(_mat(m, 2, 2), _mat(m, 3)),
    "solve left=False shapes": lambda m: m.linalg.solve(_mat(m, 2, 2), _mat(m, 2, 3), left=False),
    "solve dtypes": lambda m: m.linalg.solve(_mat(m, 2, 2), _mat(m, 2, dtype="float64")),
    "cholesky non-square": lambda m: m.linalg.cholesky(_mat(m, 2, 3)),
    "eigh non-square": lambda m: m.linalg.eigh(_mat(m, 2, 3)),
    "eigh UPLO": lambda m: m.linalg.eigh(_mat(m, 2, 2), UPLO="X"),
    "matrix_power non-square": lambda m: m.linalg.matrix_power(_mat(m, 2, 3), 2),
    "matrix_exp non-square": lambda m: m.linalg.matrix_exp(_mat(m, 2, 3)),
    "svd 1-D": lambda m: m.linalg.svd(_mat(m, 3)),
    "qr mode": lambda m: m.linalg.qr(_mat(m, 3, 3), mode="foo"),
    "lstsq shapes": lambda m: m.linalg.lstsq(_mat(m, 3, 2), _mat(m, 4, 2)),
    "lstsq driver": lambda m: m.linalg.lstsq(_mat(m, 3, 2), _mat(m, 3, 2), driver="foo"),
    "matrix_norm ord": lambda m: m.linalg.matrix_norm(_mat(m, 3, 3), ord=3),
    "vector_norm empty inf": lambda m: m.linalg.vector_norm(_mat(m, 0, 3), ord=float("inf")),
    "norm dims": lambda m: m.linalg.norm(_mat(m, 3, 3, 3), dim=(0, 1, 2)),
    "norm ord 3-D": lambda m: m.linalg.norm(_mat(m, 3, 3, 3), ord=2),
    # singular and not positive-definite matrices (torch.linalg.LinAlgError)
    "inv singular": lambda m: m.linalg.inv(_mat(m, value=SINGULAR)),
    "inv singular 3x3": lambda m: m.linalg.inv(_mat(m, value=SINGULAR3)),
    "inv zeros": lambda m: m.linalg.inv(_mat(m, 2, 2)),
    "inv singular batch": lambda m: m.linalg.inv(_mat(m, value=[np.eye(2), SINGULAR])),
    "inverse singular": lambda m: m.inverse(_mat(m, value=SINGULAR)),
    "Tensor.inverse singular": lambda m: _mat(m, value=SINGULAR).inverse(),
    "inv_ex check_errors": lambda m: m.linalg.inv_ex(_mat(m, value=SINGULAR), check_errors=True),
    "matrix_power singular": lambda m: m.linalg.matrix_power(_mat(m, value=[np.eye(2), SINGULAR]), -2),
    "solve singular": lambda m: m.linalg.solve(_mat(m, value=SINGULAR), _mat(m, 2)),
    "solve singular batch": lambda m: m.linalg.solve(_mat(m, value=[np.eye(2), SINGULAR]), _mat(m, 2)),
    "solve_ex check_errors": lambda m: m.linalg.solve_ex(_mat(m, value=SINGULAR), _mat(m, 2), check_errors=True),
    "cholesky not PD": lambda m: m.linalg.cholesky(_mat(m, value=NOT_PD)),
    "cholesky negative": lambda m: m.linalg.cholesky(_mat(m, value=-np.eye(3))),
    "cholesky not PD upper": lambda m: m.linalg.cholesky(_mat(m, value=np.triu([[4.0, 1, 1], [0, 1, 3], [0, 0, 1]])),
                                                         upper=True),
    "cholesky not PD batch": lambda m: m.linalg.cholesky(_mat(m, value=[np.eye(2), -np.eye(2)])),
    "torch.cholesky not PD": lambda m: m.cholesky(_mat(m, value=-np.eye(3))),
    "cholesky_ex check_errors": lambda m: m.linalg.cholesky_ex(_mat(m, value=-np.eye(3)), check_errors=True),
    # sorting and counting
    "sort dim": lambda m: m.sort(_mat(m, 3), dim=1),
    "topk k": lambda m: m.topk(_mat(m, 3), 4),
    "kthvalue k": lambda m: m.kthvalue(_mat(m, 3, 4), 5, dim=0),
    "unique dim": lambda m: m.unique(_mat(m, 0, 3), dim=1),
    "searchsorted side": lambda m: m.searchsorted(_mat(m, 3), _mat(m, 2), side="foo"),
    "searchsorted side and right": lambda m: m.searchsorted(_mat(m, 3), _mat(m, 2), side="left", right=True),
    "searchsorted shapes": lambda m: m.searchsorted(_mat(m, 2, 3), _mat(m, 2)),
    "searchsorted sorter": lambda m: m.searchsorted(_mat(m, 3), _mat(m, 2), sorter=_mat(m, 3, dtype="int32")),
    "bucketize boundaries": lambda m: m.bucketize(_mat(m, 2), _mat(m, 2, 3)),
    "bincount negative": lambda m: m.bincount(_mat(m, value=[1, -1, 3], dtype="int64")),
    "bincount minlength": lambda m: m.bincount(_mat(m, 3, dtype="int64"), minlength=-1),
    "bincount weights": lambda m: m.bincount(_mat(m, 3, dtype="int64"), _mat(m, 2)),
    "histc range": lambda m: m.histc(_mat(m, 3), bins=4, min=3, max=1),
    "histc bins": lambda m: m.histc(_mat(m, 3), bins=0),
    # removed in torch 1.9: they raise, naming their replacements
    "torch.solve removed": lambda m: m.solve(_mat(m, 2, 2), _mat(m, 2, 2)),
    "Tensor.solve removed": lambda m: _mat(m, 2, 2).solve(_mat(m, 2, 2)),
    "torch.lstsq removed": lambda m: m.lstsq(_mat(m, 2, 2), _mat(m, 2, 2)),
    "Tensor.lstsq removed": lambda m: _mat(m, 2, 2).lstsq(_mat(m, 2, 2)),
    "torch.eig removed": lambda m: m.eig(_mat(m, 2, 2)),
    "Tensor.eig removed": lambda m: _mat(m, 2, 2).eig(eigenvectors=True),
    "torch.symeig removed": lambda m: m.symeig(_mat(m, 2, 2)),
    "Tensor.symeig removed": lambda m: _mat(m, 2, 2).symeig(),
    # the rest of torch.linalg
    "lu_factor 1-D": lambda m: m.linalg.lu_factor(_mat(m, 3)),
    "solve_triangular int": lambda m: m.linalg.solve_triangular(_mat(m, 2, 2, dtype="int64"),
                                                                _mat(m, 2, 2, dtype="int64"), upper=True),
    "householder_product shapes": lambda m: m.linalg.householder_product(_mat(m, 2, 3), _mat(m, 2)),
    "householder_product tau": lambda m: m.linalg.householder_product(_mat(m, 4, 2), _mat(m, 3)),
    "tensorinv ind": lambda m: m.linalg.tensorinv(_mat(m, 4, 4), ind=0),
    "vander x": lambda m: m.vander(_mat(m, 2, 2)),
    "block_diag 3-D": lambda m: m.block_diag(_mat(m, 2, 2), _mat(m, 1, 2, 2)),
    "cartesian_prod 2-D": lambda m: m.cartesian_prod(_mat(m, 2, 2)),
    "cov 3-D": lambda m: m.cov(_mat(m, 2, 2, 2)),
    "renorm p": lambda m: m.renorm(_mat(m, 2, 2), 0, 0, 1.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_matches_torch(name):
    call = CASES[name]
    with pytest.raises(Exception) as expected:
        call(torch)
    kind = type(expected.value)
    if kind.__name__ == "_LinAlgError":  # torch.linalg.LinAlgError
        kind = facade.linalg.LinAlgError
    # (JAX may append its traceback-filtering note after the message)
    with pytest.raises(kind, match="^" + re.escape(str(expected.value))):
        call(facade)


def test_linalg_error_class():
    assert issubclass(facade.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError):
        facade.linalg.inv(facade.zeros(2, 2))


@pytest.mark.parametrize("value", [SINGULAR, SINGULAR3, [np.eye(2), SINGULAR], np.zeros((3, 3)), np.eye(3)])
def test_inv_ex_info(value):
    """inv_ex and solve_ex report torch's info (first zero pivot, 1-based) instead of raising."""
    want = torch.linalg.inv_ex(_mat(torch, value=value)).info
    got = facade.linalg.inv_ex(_mat(facade, value=value)).info
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()
    b = np.ones(np.shape(value)[:-1])
    want = torch.linalg.solve_ex(_mat(torch, value=value), _mat(torch, value=b)).info
    got = facade.linalg.solve_ex(_mat(facade, value=value), _mat(facade, value=b)).info
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("value", [NOT_PD, -np.eye(3), [[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                                   [np.eye(2), NOT_PD], np.eye(3)])
def test_cholesky_ex_info(value):
    """cholesky_ex reports the order of the first leading minor that is not positive-definite."""
    want = torch.linalg.cholesky_ex(_mat(torch, value=value)).info
    got = facade.linalg.cholesky_ex(_mat(facade, value=value)).info
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()
