"""Table rows for linear algebra: products, norms, and the torch.linalg decompositions.

Errors that depend on values (a singular matrix, one not positive-definite) cannot be raised
inside the jitted op: those rows run the `*_ex` function, which returns torch's `info`, and a
`post` step checks it eagerly, raises torch.linalg.LinAlgError, and returns the result alone.
"""

import jax
import numpy as np

import functional.factorizations as X
import functional.linalg as L

from .. import _creation as C
from .. import _dtype as D
from .._dispatch import Op
from .._removed import removed
from ..linalg import LinAlgError

_LA = "torch.linalg"


def _batch(info, i):
    return f"(Batch element {i}): " if info.ndim else ""


def _failed(info):
    """(flat index, value) of the first nonzero info, or None (also when tracing under compile)."""
    a = info._arr()
    if isinstance(a, jax.core.Tracer):
        return None
    a = np.asarray(a)
    bad = np.flatnonzero(a)
    return (int(bad[0]), int(a.reshape(-1)[bad[0]])) if bad.size else None


def _singular(name, keep=False):
    def post(res):
        err = _failed(res[1])
        if err is not None:
            raise LinAlgError(f"{name}: {_batch(res[1], err[0])}The diagonal element {err[1]} is zero, the inversion "
                              "could not be completed because the input matrix is singular.")
        return res if keep else res[0]
    return post


def _solver(name, keep=False):
    def post(res):
        err = _failed(res[1])
        if err is not None:
            raise LinAlgError(f"{name}: {_batch(res[1], err[0])}The solver failed because the input matrix is "
                              "singular.")
        return res if keep else res[0]
    return post


def _not_pd(name, keep=False):
    def post(res):
        err = _failed(res[1])
        if err is not None:
            raise LinAlgError(f"{name}: {_batch(res[1], err[0])}The factorization could not be completed because the "
                              f"input is not positive-definite (the leading minor of order {err[1]} is not "
                              "positive-definite).")
        return res if keep else res[0]
    return post


def _arg(args, kwargs, i, name, default=None):
    return args[i] if len(args) > i else (kwargs or {}).get(name, default)


def _checking(op):
    """Route `X_ex(..., check_errors=True)` to `op`, the row that raises like torch."""
    return lambda args, kwargs: op if (kwargs or {}).get("check_errors") else None


def _matmul(module):
    """torch names matmul's node after the product it runs: dot, mv, mm, or a batched one."""
    names = {(1, 1): "DotBackward0", (1, 2): "SqueezeBackward4", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}
    rows = {k: Op("matmul", L.matmul, arrays=("input", "other"), grad_name=v, module=module) for k, v in names.items()}
    batched = Op("matmul", L.matmul, arrays=("input", "other"), grad_name="UnsafeViewBackward0", module=module)

    def route(args, kwargs):
        a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
        return rows.get((getattr(a, "ndim", 0), getattr(b, "ndim", 0)), batched)

    return Op("matmul", L.matmul, arrays=("input", "other"), dunders=("__matmul__",), rdunders=("__rmatmul__",),
              grad_name="MmBackward0", module=module, method=module == "torch", route=route)


def _matrix_power(module):
    """n < 0 inverts first, which refuses a singular matrix."""
    def inverse_power(A, n):
        inv, info = L.inv_ex(A)
        return L.matrix_power(inv, -n), info

    inverse_power.__doc__ = L.matrix_power.__doc__
    negative = Op("matrix_power", inverse_power, arrays=("A",), grad_name="MmBackward0", module=module,
                  post=_singular("linalg.inv"))
    return Op("matrix_power", L.matrix_power, arrays=("A",), grad_name="MmBackward0", module=module,
              method=module == "torch",
              route=lambda args, kwargs: negative if _arg(args, kwargs, 1, "n", 0) < 0 else None)


_AB = ("A", "B")
_inv_ex_checked = Op("inv_ex", L.inv_ex, arrays=("A",), out=("linalg_inv_ex", ("inverse", "info")),
                     grad_name="LinalgInvExBackward0", module=_LA, method=False,
                     post=_singular("linalg.inv_ex", keep=True))
_solve_ex_checked = Op("solve_ex", L.solve_ex, arrays=_AB, out=("linalg_solve_ex", ("result", "info")),
                       grad_name="LinalgSolveExBackward0", module=_LA, method=False,
                       post=_solver("torch.linalg.solve_ex", keep=True))
_cholesky_ex_checked = Op("cholesky_ex", L.cholesky_ex, arrays=("A",), out=("linalg_cholesky_ex", ("L", "info")),
                          grad_name="LinalgCholeskyExBackward0", module=_LA, method=False,
                          post=_not_pd("linalg.cholesky_ex", keep=True))

OPS = [
    # ------------------------------------------------------------------ products
    _matmul("torch"),
    _matmul(_LA),
    Op("mm", L.mm, arrays=("input", "mat2")),
    Op("bmm", L.bmm, arrays=("input", "mat2")),
    Op("mv", L.mv, arrays=("input", "vec")),
    Op("dot", L.dot, arrays=("input", "tensor")),
    Op("vdot", L.vdot, arrays=("input", "other")),
    Op("inner", L.inner, arrays=("input", "other"), grad_name="ViewBackward0"),
    Op("outer", L.outer, arrays=("input", "vec2"), promote="all", grad_name="MulBackward0", aliases=("ger",)),
    Op("addmm", L.addmm, arrays=("input", "mat1", "mat2"), inplace=True),
    Op("addmv", L.addmv, arrays=("input", "mat", "vec"), inplace=True),
    Op("addr", L.addr, arrays=("input", "vec1", "vec2"), promote="all", inplace=True),
    Op("addbmm", L.addbmm, arrays=("input", "batch1", "batch2"), inplace=True),
    Op("baddbmm", L.baddbmm, arrays=("input", "batch1", "batch2"), inplace=True),
    Op("einsum", L.einsum, arrays=("operands",), varargs="operands", method=False, grad_name="ViewBackward0"),
    Op("tensordot", L.tensordot, arrays=("a", "b"), method=False, grad_name="ViewBackward0"),
    Op("kron", L.kron, arrays=("input", "other"), promote="all", grad_name="UnsafeViewBackward0"),
    Op("cross", L.cross3, arrays=("input", "other"), grad_name="LinalgCrossBackward0"),
    Op("cross", L.cross, arrays=("input", "other"), grad_name="LinalgCrossBackward0", module=_LA, method=False),
    Op("cdist", L.cdist, arrays=("x1", "x2"), method=False),
    Op("multi_dot", L.multi_dot, arrays=("tensors",), grad_name="ViewBackward0", module=_LA, method=False),
    Op("chain_matmul", L.chain_matmul, arrays=("matrices",), varargs="matrices", method=False,
       grad_name="ViewBackward0"),
    Op("trace", L.trace),
    # ------------------------------------------------------------------ norms
    Op("vector_norm", L.vector_norm, arrays=("x",), grad_name="LinalgVectorNormBackward0", module=_LA, method=False),
    Op("matrix_norm", L.matrix_norm, arrays=("A",), grad_name="LinalgVectorNormBackward0", module=_LA, method=False),
    Op("norm", L.norm, arrays=("A",), grad_name="LinalgVectorNormBackward0", module=_LA, method=False),
    # ------------------------------------------------------------------ inverses and solvers
    Op("inv", L.inv_ex, arrays=("A",), grad_name="LinalgInvExBackward0", module=_LA, method=False,
       post=_singular("linalg.inv")),
    Op("inverse", L.inv_ex, arrays=("A",), grad_name="LinalgInvExBackward0", post=_singular("linalg.inv")),
    Op("inv_ex", L.inv_ex, arrays=("A",), out=("linalg_inv_ex", ("inverse", "info")),
       grad_name="LinalgInvExBackward0", module=_LA, method=False, route=_checking(_inv_ex_checked)),
    Op("solve", L.solve_ex, arrays=_AB, grad_name="LinalgSolveExBackward0", module=_LA, method=False,
       post=_solver("torch.linalg.solve")),
    Op("solve_ex", L.solve_ex, arrays=_AB, out=("linalg_solve_ex", ("result", "info")),
       grad_name="LinalgSolveExBackward0", module=_LA, method=False, route=_checking(_solve_ex_checked)),
    Op("det", L.det, arrays=("A",), grad_name="LinalgDetBackward0", module=_LA, method=False),
    Op("det", L.det, arrays=("A",), grad_name="LinalgDetBackward0"),
    Op("slogdet", L.slogdet, arrays=("A",), out=("linalg_slogdet", ("sign", "logabsdet")),
       grad_name="LinalgSlogdetBackward0", module=_LA, method=False),
    Op("slogdet", L.slogdet, arrays=("A",), out=("slogdet", ("sign", "logabsdet")),
       grad_name="LinalgSlogdetBackward0"),
    Op("logdet", L.logdet, arrays=("A",), grad_name="WhereBackward0"),
    _matrix_power("torch"),
    _matrix_power(_LA),
    Op("matrix_exp", L.matrix_exp, arrays=("A",), grad_name="LinalgMatrixExpBackward0", module=_LA, method=False),
    Op("matrix_exp", L.matrix_exp, arrays=("A",), grad_name="LinalgMatrixExpBackward0"),
    # ------------------------------------------------------------------ decompositions
    Op("cholesky", L.cholesky_ex, arrays=("A",), grad_name="LinalgCholeskyExBackward0", module=_LA, method=False,
       post=_not_pd("linalg.cholesky")),
    Op("cholesky", L.cholesky_ex, arrays=("A",), grad_name="CholeskyBackward0", post=_not_pd("cholesky")),
    Op("cholesky_ex", L.cholesky_ex, arrays=("A",), out=("linalg_cholesky_ex", ("L", "info")),
       grad_name="LinalgCholeskyExBackward0", module=_LA, method=False, route=_checking(_cholesky_ex_checked)),
    Op("eigh", L.eigh, arrays=("A",), out=("linalg_eigh", ("eigenvalues", "eigenvectors")),
       grad_name="LinalgEighBackward0", module=_LA, method=False),
    Op("eigvalsh", L.eigvalsh, arrays=("A",), grad_name="LinalgEighBackward0", module=_LA, method=False),
    Op("svd", L.svd, arrays=("A",), out=("linalg_svd", ("U", "S", "Vh")), grad_name="LinalgSvdBackward0",
       module=_LA, method=False),
    Op("svd", L.svd_legacy, out=("svd", ("U", "S", "V")), grad_name="LinalgSvdBackward0"),
    Op("svdvals", L.svdvals, arrays=("A",), grad_name="LinalgSvdBackward0", module=_LA, method=False),
    Op("qr", L.qr, arrays=("A",), out=("linalg_qr", ("Q", "R")), grad_name="LinalgQrBackward0", module=_LA,
       method=False),
    Op("qr", L.qr_legacy, out=("qr", ("Q", "R")), grad_name="LinalgQrBackward0"),
    Op("pinverse", L.pinverse, grad_name="LinalgPinvBackward0"),
    Op("pinv", L.pinv, arrays=("A",), grad_name="LinalgPinvBackward0", module=_LA, method=False),
    Op("lstsq", L.lstsq, arrays=_AB, out=("linalg_lstsq", ("solution", "residuals", "rank", "singular_values")),
       grad_name="LinalgLstsqBackward0", module=_LA, method=False),
    Op("matrix_rank", L.matrix_rank, arrays=("A",), module=_LA, method=False),
]

_LU = ("LU", "pivots", "B")
OPS += [
    # ------------------------------------------------------------------ LU, triangular and Cholesky solves
    Op("lu_factor_ex", X.lu_factor_ex, arrays=("A",), out=("linalg_lu_factor_ex", ("LU", "pivots", "info")),
       grad_name="LinalgLuFactorExBackward0", module=_LA, method=False),
    Op("lu_factor", X.lu_factor, arrays=("A",), out=("linalg_lu_factor", ("LU", "pivots")),
       grad_name="LinalgLuFactorExBackward0", module=_LA, method=False),
    Op("lu", X.lu, arrays=("A",), out=("linalg_lu", ("P", "L", "U")), grad_name="LinalgLuBackward0", module=_LA,
       method=False),
    Op("lu", X.lu_legacy, arrays=("A",), grad_name="LinalgLuFactorExBackward0"),
    Op("lu_unpack", X.lu_unpack, arrays=("LU_data", "LU_pivots"), out=("lu_unpack", ("P", "L", "U")),
       grad_name="LuUnpackBackward0", method=False),
    Op("lu_solve", X.lu_solve, arrays=_LU, grad_name="LinalgLuSolveBackward0", module=_LA, method=False),
    Op("lu_solve", X.lu_solve_legacy, arrays=("b", "LU_data", "LU_pivots"), grad_name="LinalgLuSolveBackward0"),
    Op("solve_triangular", X.solve_triangular, arrays=_AB, grad_name="LinalgSolveTriangularBackward0", module=_LA,
       method=False),
    Op("triangular_solve", X.triangular_solve, arrays=("input", "A"),
       out=("triangular_solve", ("solution", "cloned_coefficient")), grad_name="TriangularSolveBackward0"),
    Op("cholesky_solve", X.cholesky_solve, arrays=("input", "input2")),
    Op("cholesky_inverse", X.cholesky_inverse),
    # ------------------------------------------------------------------ eigen, Householder
    Op("eig", X.eig, arrays=("A",), out=("linalg_eig", ("eigenvalues", "eigenvectors")),
       grad_name="LinalgEigBackward0", module=_LA, method=False),
    Op("eigvals", X.eigvals, arrays=("A",), grad_name="LinalgEigBackward0", module=_LA, method=False),
    Op("householder_product", X.householder_product, arrays=("A", "tau"), module=_LA, method=False,
       grad_name="LinalgHouseholderProductBackward0"),
    Op("orgqr", X.householder_product, arrays=("A", "tau"), grad_name="LinalgHouseholderProductBackward0"),
    Op("geqrf", X.geqrf, out=("geqrf", ("a", "tau"))),  # recorded, and its backward raises, as torch's
    Op("ormqr", X.ormqr, arrays=("input", "input2", "input3")),
    # ------------------------------------------------------------------ the rest of torch.linalg
    Op("cond", X.cond, arrays=("A",), module=_LA, method=False, grad_name="LinalgVectorNormBackward0"),
    Op("tensorinv", X.tensorinv, arrays=("A",), module=_LA, method=False, grad_name="ViewBackward0"),
    Op("tensorsolve", X.tensorsolve, arrays=_AB, module=_LA, method=False, grad_name="ViewBackward0"),
    Op("vander", X.vander, arrays=("x",), module=_LA, method=False, grad_name="CumprodBackward0"),
    Op("vecdot", X.vecdot, arrays=("x", "y"), promote="all", module=_LA, method=False, grad_name="SumBackward1"),
    Op("diagonal", X.diagonal, arrays=("A",), module=_LA, method=False, grad_name="DiagonalBackward0"),
    # ------------------------------------------------------------------ torch-level helpers
    Op("vander", X.vander_legacy, arrays=("x",), method=False, grad_name="FlipBackward0"),
    Op("block_diag", X.block_diag, arrays=("tensors",), varargs="tensors", method=False,
       grad_name="BlockDiagBackward0"),
    Op("cartesian_prod", X.cartesian_prod, arrays=("tensors",), varargs="tensors", method=False,
       grad_name="StackBackward0"),
    Op("cov", X.cov, arrays=("input", "fweights", "aweights"), grad_name="DivBackward0"),
    Op("corrcoef", X.corrcoef, grad_name="ClampBackward1"),
    Op("trapezoid", X.trapezoid, arrays=("y", "x"), promote="all", method=False, aliases=("trapz",),
       grad_name="DivBackward0"),
    Op("cumulative_trapezoid", X.cumulative_trapezoid, arrays=("y", "x"), promote="all", method=False,
       grad_name="CumsumBackward0"),
    Op("renorm", X.renorm, inplace=True),
]


def _indices(name):
    fn = getattr(X, name)

    def indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
        dt = C._dt(dtype, D.int64)
        return C._made(lambda: fn(row, col, offset).astype(dt.np), dt, device, False)

    indices.__name__ = indices.__qualname__ = name
    indices.__doc__ = fn.__doc__
    return indices


FUNCTIONS = {"tril_indices": _indices("tril_indices"), "triu_indices": _indices("triu_indices"),
             **{n: removed(n) for n in ("solve", "lstsq", "eig", "symeig")}}
METHODS = {n: removed(n) for n in ("solve", "lstsq", "eig", "symeig")}
