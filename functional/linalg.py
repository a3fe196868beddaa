"""Linear algebra with torch's semantics: matrix products (matmul and its family, einsum,
tensordot, kron, cross, cdist, multi_dot), norms, and the torch.linalg decompositions and
solvers.

Products run at full float32 precision (torch's default; `Precision.HIGHEST`, also for the
products inside decompositions and their derivatives) unless the user lowered it with
`torch.set_float32_matmul_precision` (`_hi`); half types accumulate in float32.
Shape and dtype errors are torch's and raise at trace time. A singular or non-positive-
definite input cannot raise under `jax.jit`: `inv_ex`, `solve_ex` and `cholesky_ex` return
torch's `info` (0, or the 1-based position where the factorization failed) for the caller
to check. Decompositions take only the triangle torch reads (eigh, cholesky) and give
torch's symmetric gradient for it.
"""

import functools
import math

import jax
import jax.numpy as jnp

from ._names import cpp_name
from ._names import scalar_name as _name
from .shape import _dim

__all__ = [
    "matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "addmm", "addmv", "addr", "addbmm", "baddbmm",
    "einsum", "tensordot", "kron", "cross", "cross3", "cdist", "multi_dot", "chain_matmul", "trace",
    "vector_norm", "matrix_norm", "norm", "inv", "inv_ex", "solve", "solve_ex", "det", "slogdet", "logdet",
    "cholesky", "cholesky_ex", "eigh", "eigvalsh", "svd", "svd_legacy", "svdvals", "qr", "qr_legacy", "pinv",
    "pinverse", "lstsq", "matrix_rank", "matrix_power", "matrix_exp",
]



def _hi():
    """Matmul precision at trace time: HIGHEST (torch's full float32), or JAX's default once
    torch.set_float32_matmul_precision('high' | 'medium') has set it (a jit-key config, so programs retrace)."""
    return None if jax.config.jax_default_matmul_precision else jax.lax.Precision.HIGHEST


_HALF = (jnp.float16, jnp.bfloat16)


def _highest(fn):
    """Run `fn` (and the derivative rules it traces) with full-precision matmuls."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with jax.default_matmul_precision("highest"):
            return fn(*args, **kwargs)
    return wrapped


def _product(a, b, wide=False):
    """a @ b at full precision; half types accumulate in float32 (torch's CPU kernels do),
    and stay float32 with `wide` (for a following beta * input + alpha * product)."""
    if a.dtype in _HALF:
        out = jnp.matmul(a, b, precision=_hi(), preferred_element_type=jnp.float32)
        return out if wide else out.astype(a.dtype)
    return jnp.matmul(a, b, precision=_hi())


def _not_bool(dtype, kernel):
    if dtype == jnp.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _broadcast(s1, s2):
    """torch's broadcast of two shapes, with its error."""
    n = max(len(s1), len(s2))
    a, b = (1,) * (n - len(s1)) + tuple(s1), (1,) * (n - len(s2)) + tuple(s2)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _expand(x, shape):
    """`x` broadcast to `shape` (torch's expand, with its error)."""
    if x.ndim > len(shape):
        raise RuntimeError(f"the number of sizes provided ({len(shape)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({x.ndim})")
    for i, (s, t) in enumerate(zip(x.shape[::-1], shape[::-1])):
        if s != t and s != 1:
            raise RuntimeError(f"The expanded size of the tensor ({t}) must match the existing size ({s}) at "
                               f"non-singleton dimension {len(shape) - 1 - i}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(x.shape)}")
    return jnp.broadcast_to(x, shape)


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product (input broadcast; ignored when beta == 0, as in BLAS),
    rounded once to input's dtype."""
    dtype = input.dtype
    input = _expand(input, product.shape).astype(product.dtype)
    if not jnp.issubdtype(dtype, jnp.inexact):  # integer kernels take the scalars as integers
        beta, alpha = int(beta), int(alpha)
    out = product if alpha == 1 else product * alpha
    if beta != 0:
        out = out + (input if beta == 1 else input * beta)
    return out.astype(dtype)


# ---------------------------------------------------------------------------- shape checks

def _check_mm(s1, s2, d1, d2):
    if s1[1] != s2[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and {s2[0]}x{s2[1]})")
    if d1 != d2:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(d1)} != {cpp_name(d2)}")
    _not_bool(d1, "addmm_impl_cpu_")


def _check_mv(sm, n, dm, dv):
    if sm[1] != n:
        raise RuntimeError(f"size mismatch, got input ({sm[0]}), mat ({sm[0]}x{sm[1]}), vec ({n})")
    if dm != dv:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(dv)}, {_name(dm)}, and "
                           f"{_name(dv)}")
    _not_bool(dm, "addmv_impl_cpu")


def _check_bmm(s1, s2, d1, d2):
    if s2[0] != s1[0] or s2[1] != s1[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] but "
                           f"got: [{s2[0]}, {s2[1]}].")
    if d1 != d2:
        raise RuntimeError(f"expected scalar type {_name(d1)} but found {_name(d2)}")
    _not_bool(d1, "bmm")


def _check_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_name(a.dtype)} and "
                           f"{_name(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")
    _not_bool(a.dtype, "dot")


# ---------------------------------------------------------------------------- products

def matmul(input, other):
    """Matrix product with numpy's rules: 1-D x 1-D is a dot product, a 1-D operand is a
    row (left) or column (right) vector that is dropped from the result, and leading dims
    broadcast as batch dims: (..., n, k) @ (..., k, m) -> (..., n, m)."""
    d1, d2 = input.ndim, other.ndim
    s1, s2, t1, t2 = input.shape, other.shape, input.dtype, other.dtype
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        _check_dot(input, other)
    elif d2 == 1:  # (..., n, k) @ (k,) runs as one matrix-vector product
        _check_mv((math.prod(s1[:-1]), s1[-1]), s2[0], t1, t2)
    elif d2 == 2 and d1 <= 2:
        _check_mm((1, s1[0]) if d1 == 1 else s1, s2, t1, t2)
    elif d2 == 2:  # (..., n, k) @ (k, m) folds the batch into the rows
        _check_mm((math.prod(s1[:-1]), s1[-1]), s2, t1, t2)
    else:
        m1, m2 = ((1,) + s1 if d1 == 1 else s1[-2:]), s2[-2:]
        b = math.prod(_broadcast(s1[:-2], s2[:-2]))
        _check_bmm((b,) + m1, (b,) + m2, t1, t2)
    return _product(input, other)


def mm(input, mat2):
    """(n, k) @ (k, m) -> (n, m)."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input.shape, mat2.shape, input.dtype, mat2.dtype)
    return _product(input, mat2)


def bmm(input, mat2):
    """(b, n, k) @ (b, k, m) -> (b, n, m); no broadcasting."""
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_bmm(input.shape, mat2.shape, input.dtype, mat2.dtype)
    return _product(input, mat2)


def mv(input, vec):
    """(n, k) @ (k,) -> (n,)."""
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _check_mv(input.shape, vec.shape[0], input.dtype, vec.dtype)
    return _product(input, vec)


def dot(input, tensor):
    """sum(input * tensor) of two 1-D tensors of one dtype (no conjugation)."""
    _check_dot(input, tensor)
    return _product(input, tensor)


def vdot(input, other):
    """sum(conj(input) * other) of two 1-D tensors."""
    _check_dot(input, other)
    return _product(jnp.conj(input), other)


def _torch_result_type(a, b):
    """torch's result_type of two tensors (a 0-dim one only counts if its kind is higher)."""
    if (a.ndim == 0) == (b.ndim == 0):
        return jnp.promote_types(a.dtype, b.dtype)
    full, zero = (a, b) if b.ndim == 0 else (b, a)

    def kind(d):
        return 0 if d == jnp.bool_ else 1 if jnp.issubdtype(d, jnp.integer) else 2 if jnp.issubdtype(
            d, jnp.floating) else 3

    return zero.dtype if kind(zero.dtype) > kind(full.dtype) else full.dtype


def inner(input, other):
    """Sum over the last dims: (..., k) and (..., k) -> (*input.shape[:-1], *other.shape[:-1]).
    A 0-dim operand multiplies instead."""
    if input.ndim == 0 or other.ndim == 0:
        dtype = _torch_result_type(input, other)
        return input.astype(dtype) * other.astype(dtype)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def outer(input, vec2):
    """input[:, None] * vec2[None, :] of two 1-D tensors (`ger` is the same)."""
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return input[:, None] * vec2[None, :]


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2); input broadcasts to (n, m)."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if input.dtype != mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(input.dtype)} and "
                           f"{_name(mat2.dtype)}")
    _check_mm(mat1.shape, mat2.shape, mat1.dtype, mat2.dtype)
    return _scaled_sum(input, _product(mat1, mat2, True), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec); input broadcasts to (n,)."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if not input.dtype == mat.dtype == vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(input.dtype)}, "
                           f"{_name(mat.dtype)}, and {_name(vec.dtype)}")
    _check_mv(mat.shape, vec.shape[0], mat.dtype, vec.dtype)
    return _scaled_sum(input, _product(mat, vec, True), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2) (for bool: (beta and input) or (alpha and outer))."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    prod = vec1[:, None] * vec2[None, :]
    if input.dtype == jnp.bool_:
        input = _expand(input, prod.shape)
        return (input & bool(beta)) | (prod & bool(alpha))
    if jnp.issubdtype(input.dtype, jnp.integer):
        for name, s in (("beta", beta), ("alpha", alpha)):
            if isinstance(s, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    return _scaled_sum(input, prod, beta, alpha)


def _check_batches(batch1, batch2):
    for b in (batch1, batch2):
        _dim(2, b.ndim)
        if b.ndim != 3:
            raise RuntimeError(f"{'batch1' if b is batch1 else 'batch2'} must be a 3D tensor")
    _check_bmm(batch1.shape, batch2.shape, batch1.dtype, batch2.dtype)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b]); input broadcasts to (n, m)."""
    if input.dtype != batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(input.dtype)} and "
                           f"{_name(batch2.dtype)}")
    if batch1.ndim == batch2.ndim == 3 and batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    _check_batches(batch1, batch2)
    prod = jnp.einsum("bnk,bkm->nm", batch1, batch2, precision=_hi(),
                      preferred_element_type=jnp.float32 if batch1.dtype in _HALF else None)
    return _scaled_sum(input, prod, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2); input broadcasts to (b, n, m)."""
    if not input.dtype == batch1.dtype == batch2.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_name(input.dtype)}, batch1: "
                           f"{cpp_name(batch1.dtype)}, batch2: {cpp_name(batch2.dtype)}")
    _check_batches(batch1, batch2)
    return _scaled_sum(input, _product(batch1, batch2, True), beta, alpha)


def _flat(operands):
    return tuple(operands[0]) if len(operands) == 1 and isinstance(operands[0], (list, tuple)) else operands


def einsum(equation, *operands):
    """Einstein summation: `einsum("ij,jk->ik", a, b)` or `einsum("ij,jk->ik", [a, b])`.
    Labels of size 1 broadcast against the same label elsewhere, as in torch."""
    ops = _flat(operands)
    eq = equation.replace(" ", "")
    lhs = eq.partition("->")[0]
    terms = lhs.split(",")
    if len(terms) > len(ops):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(ops):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for o in ops[1:]:
        if o.dtype != ops[0].dtype:
            raise RuntimeError(f"expected scalar type {_name(ops[0].dtype)} but found {_name(o.dtype)}")
    if len(ops) > 1:
        _not_bool(ops[0].dtype, "bmm")
    sizes, where = {}, {}
    for k, (term, op) in enumerate(zip(terms, ops)):
        head, dots, tail = term.partition("...")
        nd = op.ndim
        if (dots and len(head) + len(tail) > nd) or (not dots and len(term) != nd):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(head) + len(tail)}) "
                               f"{'is more than' if dots else 'does not match'} the number of dimensions ({nd}) "
                               f"for operand {k}{' and no ellipsis was given' if not dots else ''}")
        axes = list(enumerate(head)) + [(nd - len(tail) + i, c) for i, c in enumerate(tail)]
        for ax, c in axes:
            s, seen = op.shape[ax], sizes.get(c)
            if seen is not None and s != seen and s != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[c] = s
        where[k] = axes
    ops = list(ops)
    for k, axes in where.items():  # size-1 labels broadcast like torch's
        shape = list(ops[k].shape)
        for ax, c in axes:
            shape[ax] = sizes[c] if shape[ax] == 1 else shape[ax]
        if tuple(shape) != ops[k].shape:
            ops[k] = jnp.broadcast_to(ops[k], shape)
    half = ops[0].dtype in _HALF
    out = jnp.einsum(eq, *ops, precision=_hi(), preferred_element_type=jnp.float32 if half else None)
    return out.astype(ops[0].dtype)


def tensordot(a, b, dims=2):
    """Contract the last `dims` dims of `a` with the first `dims` of `b`, or the dims listed
    in the pair `dims = (dims_a, dims_b)`."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = dims
        if isinstance(da, int) or isinstance(db, int):
            raise TypeError("tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int")
        da, db = list(da), list(db)
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, y in zip(da, db):
        sx, sy = a.shape[_dim(x, a.ndim)], b.shape[_dim(y, b.ndim)]
        if sx != sy:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sx} in dim {x} and second "
                               f"has size {sy} in dim {y}")
    if da:
        _not_bool(a.dtype, "addmm_impl_cpu_")
    out = jnp.tensordot(a, b, (da, db), precision=_hi(),
                        preferred_element_type=jnp.float32 if a.dtype in _HALF else None)
    return out.astype(a.dtype)


def kron(input, other):
    """Kronecker product; the operand with fewer dims gets leading 1s."""
    if input.dtype == jnp.bool_:
        return jnp.kron(input.astype(jnp.uint8), other.astype(jnp.uint8)).astype(jnp.bool_)
    return jnp.kron(input, other)


def cross(input, other, dim=-1):
    """Cross product of 3-vectors along `dim` (torch.linalg.cross); leading dims broadcast."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    shape = _broadcast(input.shape, other.shape)
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_name(input.dtype)} but found {_name(other.dtype)}")
    _not_bool(input.dtype, "cross")
    return jnp.cross(jnp.broadcast_to(input, shape), jnp.broadcast_to(other, shape), axis=d)


def cross3(input, other, dim=None):
    """torch.cross: `cross` whose `dim=None` means the first dim of size 3."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return cross(input, other, dim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows: (..., P, M) and (..., R, M) -> (..., P, R).

    For p = 2 with more than 25 rows on a side (or `compute_mode="use_mm_for_euclid_dist"`)
    it uses |x|^2 + |y|^2 - 2 x.y, as torch does.
    """
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not jnp.issubdtype(x.dtype, jnp.floating):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_name(x.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1.dtype)} but found {_name(x2.dtype)}")
    if x1.dtype in _HALF:
        raise NotImplementedError(f"\"cdist\" not implemented for '{_name(x1.dtype)}'")
    batch = _broadcast(x1.shape[:-2], x2.shape[:-2])
    x1 = jnp.broadcast_to(x1, batch + x1.shape[-2:])
    x2 = jnp.broadcast_to(x2, batch + x2.shape[-2:])
    r1, r2 = x1.shape[-2], x2.shape[-2]
    mm = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25))
    if p == 2 and mm and r1 and r2:
        n1, n2 = jnp.sum(x1 * x1, -1, keepdims=True), jnp.sum(x2 * x2, -1, keepdims=True)
        d2 = n1 - 2 * _product(x1, jnp.swapaxes(x2, -1, -2)) + jnp.swapaxes(n2, -1, -2)
        return jnp.sqrt(jnp.maximum(d2, 1e-30))
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _vnorm(diff, float(p), (diff.ndim - 1,), False, False)


def multi_dot(tensors):
    """tensors[0] @ tensors[1] @ ... in the cheapest order; the first and last may be 1-D."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        where = "the first tensor" if i == 0 else "the last tensor" if i == len(ts) - 1 else None
        if where and t.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): {where} must be 1D or 2D but got {t.ndim}D")
        if not where and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
        if t.dtype != ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{cpp_name(ts[0].dtype)} and tensor {i} {cpp_name(t.dtype)}")
    shapes = [t.shape for t in ts]
    shapes[0] = (1,) + shapes[0] if ts[0].ndim == 1 else shapes[0]
    shapes[-1] = shapes[-1] + (1,) if ts[-1].ndim == 1 else shapes[-1]
    for i in range(len(ts) - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(shapes[i])} and "
                               f"{list(shapes[i + 1])} cannot be multiplied")
    _not_bool(ts[0].dtype, "addmm_impl_cpu_")
    return jnp.linalg.multi_dot(ts, precision=_hi())


def chain_matmul(*matrices):
    """matrices[0] @ matrices[1] @ ... of 2-D tensors (torch.chain_matmul)."""
    ms = _flat(matrices)
    if not ms:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(ms) == 1:
        if ms[0].ndim != 2:
            raise RuntimeError(f"chain_matmul(): Expected all tensors to be 2D but got {ms[0].ndim}D")
        return jnp.array(ms[0], copy=True)
    return multi_dot(ms)


def trace(input):
    """Sum of the main diagonal of a matrix (int64 for integer input)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    _not_bool(input.dtype, "trace")
    return jnp.trace(input, dtype=jnp.int64 if jnp.issubdtype(input.dtype, jnp.integer) else None)


# ---------------------------------------------------------------------------- norms

@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4))
def _vnorm(x, p, axes, keepdim, split):
    """The p-norm of x over `axes`, differentiated like torch (norm_backward)."""
    a = jnp.abs(x)
    if p == math.inf:
        return jnp.max(a, axes, keepdims=keepdim)
    if p == -math.inf:
        return jnp.min(a, axes, keepdims=keepdim)
    if p == 0:
        return jnp.sum(a != 0, axes, keepdims=keepdim).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, axes, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axes, keepdims=keepdim))
    return jnp.sum(a ** p, axes, keepdims=keepdim) ** (1 / p)


@_vnorm.defjvp
def _vnorm_jvp(p, axes, keepdim, split, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _vnorm(x, p, axes, keepdim, split)
    norm = out if keepdim else jnp.expand_dims(out, axes)
    a, sgn = jnp.abs(x), jnp.sign(x)
    if p == 0:
        coef = jnp.zeros_like(a)
    elif p == 1:
        coef = sgn
    elif math.isinf(p):
        mask = (a == norm) | jnp.isnan(a)
        coef = sgn * mask / (jnp.sum(mask, axes, keepdims=True) if split else 1)
    elif p == 2:
        coef = x * jnp.where(norm == 0, 0, 1 / norm)
    elif p < 1:
        coef = sgn * jnp.where(x == 0, 0, a ** (p - 1)) * norm ** (1 - p)
    else:
        coef = (sgn * a ** (p - 1) if p < 2 else x * a ** (p - 2)) * jnp.where(norm == 0, 0, 1 / norm ** (p - 1))
    return out, jnp.sum(jnp.real(jnp.conj(coef) * t) if jnp.iscomplexobj(x) else coef * t, axes, keepdims=keepdim)


def _float_input(A, name, low=True, kernel=None):
    """torch's dtype errors: integers refused by name; half types by name, or (given the
    LAPACK `kernel` torch has no half version of) as not implemented."""
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_name(A.dtype)}")
    if kernel and A.dtype in _HALF:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(A.dtype)}'")
    if not low and A.dtype in _HALF:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_name(A.dtype)}")


def _dims(dim, ndim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(_dim(d, ndim) for d in dims)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """(sum |x|^ord)^(1/ord) over `dim` (all dims when None); ord may be inf, -inf or 0
    (the number of non-zeros). The result is real."""
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    _float_input(x, "linalg.vector_norm")
    if dtype is not None:
        x = x.astype(dtype)
    axes = tuple(range(x.ndim)) if dim is None else _dims(dim, x.ndim)
    if x.size == 0 and (ord < 0 or ord == math.inf) and (dim is None or any(x.shape[d] == 0 for d in axes)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on an empty tensor because the "
                           "operation does not have an identity")
    if x.dtype in _HALF:  # torch accumulates half types in float32
        return _vnorm(x.astype(jnp.float32), float(ord), axes, keepdim, True).astype(x.dtype)
    return _vnorm(x, float(ord), axes, keepdim, True)


def _fmt(v):
    return "inf" if v == math.inf else "-inf" if v == -math.inf else f"{v:g}"


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Matrix norm over the two dims `dim`: 'fro', 'nuc' (sum of singular values), 2 / -2
    (largest / smallest singular value), 1 / -1 (max / min column sum of |A|), inf / -inf
    (max / min row sum)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _float_input(A, "linalg.matrix_norm")
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        A = A.astype(dtype)
    d0, d1 = _dims(dim, A.ndim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        _float_input(A, "linalg.matrix_norm", low=False)
        s = svdvals(jnp.moveaxis(A, (d0, d1), (-2, -1)))
        out = jnp.sum(s, -1) if ord == "nuc" else jnp.max(s, -1) if ord == 2 else jnp.min(s, -1)
        return jnp.expand_dims(out, sorted((d0, d1))) if keepdim else out
    if abs(ord) == math.inf:
        d0, d1 = d1, d0
    sums = vector_norm(A, 1, (d0,), True)
    out = jnp.max(sums, d1, keepdims=True) if ord > 0 else jnp.min(sums, d1, keepdims=True)
    return out if keepdim else jnp.squeeze(out, (d0, d1))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """`vector_norm` or `matrix_norm` by torch.linalg.norm's rules: an int or 1-tuple `dim`
    (or a 1-D input) means a vector norm, a 2-tuple (or a 2-D input with `ord`) a matrix
    norm; with neither `dim` nor `ord`, the 2-norm of the flattened input."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if isinstance(ord, str) or A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype)


# ---------------------------------------------------------------------------- decompositions

def _square(A, name, low=False, floating=True, kernel=None):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if floating:
        _float_input(A, name, low, kernel)


def _mH(A):
    return jnp.conj(jnp.swapaxes(A, -1, -2))


def _lu_info(A):
    """torch's info for an LU factorization: the 1-based position of the first zero pivot, else 0."""
    if A.shape[-1] == 0:
        return jnp.zeros(A.shape[:-2], jnp.int32)
    zero = jnp.diagonal(jax.lax.linalg.lu(jax.lax.stop_gradient(A))[0], axis1=-2, axis2=-1) == 0
    return jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)


@_highest
def inv_ex(A, *, check_errors=False):
    """(inverse, info): the inverse of square matrices A (..., n, n), and int32 `info` per
    matrix: 0, or the 1-based index of the first zero pivot of A's LU factorization (then
    A is singular and the inverse is not finite)."""
    _square(A, "linalg.inv")
    if A.shape[-1] == 0:
        return A, _lu_info(A)
    return jnp.linalg.inv(A), _lu_info(A)


def inv(A):
    """The inverse of square matrices A (..., n, n); not finite where A is singular."""
    return inv_ex(A)[0]


def _solve_shapes(A, B, left):
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    Bm = B[..., None] if vector else B
    n = A.shape[-1]
    if (Bm.shape[-2] if left else Bm.shape[-1]) != n:
        (r, c), eq = (A.shape[-2:], Bm.shape[-2:]), "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({r[0]}x{r[1]} and {c[0]}x{c[1]})")
    return Bm, vector


@_highest
def solve_ex(A, B, *, left=True, check_errors=False):
    """(X, info): the solution of A X = B (X A = B when `left=False`) for square A (..., n, n)
    and B (..., n, k) or a vector (..., n); batch dims broadcast. `info` as in `inv_ex`."""
    _square(A, "linalg.solve", kernel="lu_cpu")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A.dtype)} and B of type {_name(B.dtype)} instead")
    Bm, vector = _solve_shapes(A, B, left)
    if not left:
        A, Bm = jnp.swapaxes(A, -1, -2), jnp.swapaxes(Bm, -1, -2)
    batch = _broadcast(A.shape[:-2], Bm.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    Bm = jnp.broadcast_to(Bm, batch + Bm.shape[-2:])
    X = jnp.linalg.solve(A, Bm) if A.shape[-1] else Bm
    X = X if left else jnp.swapaxes(X, -1, -2)
    return (X[..., 0] if vector else X), _lu_info(A)


def solve(A, B, *, left=True):
    """The solution X of A X = B (see `solve_ex`)."""
    return solve_ex(A, B, left=left)[0]


@_highest
def det(A):
    """Determinant of square matrices (..., n, n) -> (...)."""
    _square(A, "linalg.det", kernel="lu_cpu")
    if A.shape[-1] == 0:
        return jnp.ones(A.shape[:-2], A.dtype)
    return jnp.linalg.det(A)


@_highest
def slogdet(A):
    """(sign, log|det|) of square matrices; sign is 0 and log|det| is -inf for singular ones."""
    _square(A, "linalg.slogdet")
    if A.shape[-1] == 0:
        return jnp.ones(A.shape[:-2], A.dtype), jnp.zeros(A.shape[:-2], jnp.real(A).dtype)
    return tuple(jnp.linalg.slogdet(A))


def logdet(A):
    """log(det(A)): nan where det < 0, -inf where it is 0."""
    _square(A, "logdet")
    sign, logabs = slogdet(A)
    return jnp.where(sign < 0, jnp.nan, logabs)


@jax.custom_jvp
def _sym_tangent(A):
    return A


@_sym_tangent.defjvp
def _sym_tangent_jvp(primals, tangents):
    (A,), (t,) = primals, tangents
    return A, (t + _mH(t)) / 2


def _hermitian(A, lower):
    """The Hermitian matrix built from A's lower (or upper) triangle, which is all torch reads;
    its gradient is torch's symmetric one."""
    A = _sym_tangent(A)
    return jnp.tril(A) + _mH(jnp.tril(A, -1)) if lower else jnp.triu(A) + _mH(jnp.triu(A, 1))


def _chol_info(H):
    """1-based order of the first leading minor of H that is not positive-definite, else 0."""
    n = H.shape[-1]
    idx = jnp.arange(n)

    def step(k, carry):
        M, info = carry
        d = jnp.real(M[..., k, k])
        bad = ~(d > 0)
        info = jnp.where((info == 0) & bad, k + 1, info)
        col = jnp.where(idx > k, M[..., :, k], 0) / jnp.sqrt(jnp.where(bad, 1, d))[..., None]
        M = M - col[..., :, None] * jnp.conj(col[..., None, :])
        return M, info

    return jax.lax.fori_loop(0, n, step, (jax.lax.stop_gradient(H), jnp.zeros(H.shape[:-2], jnp.int32)))[1]


@_highest
def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info): the Cholesky factor of Hermitian positive-definite A = L L^H (A = U^H U,
    U returned, when `upper`), read from A's lower (upper) triangle. `info` is 0, or the
    order of the first leading minor that is not positive-definite (then L is not finite)."""
    _square(A, "linalg.cholesky", kernel="cholesky_cpu")
    if A.shape[-1] == 0:
        return A, jnp.zeros(A.shape[:-2], jnp.int32)
    H = _hermitian(A, not upper)
    L = jax.lax.linalg.cholesky(H, symmetrize_input=False)
    return (_mH(L) if upper else L), _chol_info(H)


def cholesky(A, *, upper=False):
    """The Cholesky factor of A (see `cholesky_ex`)."""
    return cholesky_ex(A, upper=upper)[0]


def _eigh_input(A):
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _HALF:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{_name(A.dtype)}'")
    _square(A, "linalg.eigh")


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "L"


@_highest
def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of Hermitian A (..., n, n), read from its lower (`UPLO="L"`)
    or upper triangle; eigenvalues ascending, eigenvectors in the columns."""
    lower = _uplo(UPLO)
    _eigh_input(A)
    if A.shape[-1] == 0:
        return jnp.zeros(A.shape[:-1], jnp.real(A).dtype), A
    v, w = jax.lax.linalg.eigh(_hermitian(A, lower), symmetrize_input=False)
    return w, v


def eigvalsh(A, UPLO="L"):
    """The ascending eigenvalues of Hermitian A (see `eigh`)."""
    _uplo(UPLO)
    _eigh_input(A)
    return eigh(A, UPLO)[0]


def _svd_input(A, name="linalg.svd"):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _float_input(A, name, kernel="linalg_svd_cpu")


@_highest
def svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending. U is (..., m, m) and Vh (..., n, n)
    with `full_matrices`, else (..., m, k) and (..., k, n), k = min(m, n). Gradients (as in
    torch) need distinct singular values and ignore the extra columns of full matrices."""
    _svd_input(A)
    m, n = A.shape[-2:]
    if min(m, n) == 0:
        U, S, Vh = jnp.linalg.svd(A, full_matrices=full_matrices)
        return U, S, Vh
    U, S, Vh = jnp.linalg.svd(A, full_matrices=False)
    if full_matrices and m != n:  # JAX has no derivative for full matrices: complete them as constants
        Uf, _, Vhf = jnp.linalg.svd(jax.lax.stop_gradient(A), full_matrices=True)
        U = jnp.concatenate([U, Uf[..., :, min(m, n):]], -1)
        Vh = jnp.concatenate([Vh, Vhf[..., min(m, n):, :]], -2)
    return U, S, Vh


def svd_legacy(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V = Vh^H; reduced unless `some=False`. Without `compute_uv`,
    U and V are zero (m, m) and (n, n) matrices."""
    _svd_input(input)
    if not compute_uv:
        m, n = input.shape[-2:]
        S = svdvals(input)
        return (jnp.zeros(input.shape[:-2] + (m, m), input.dtype), S,
                jnp.zeros(input.shape[:-2] + (n, n), input.dtype))
    U, S, Vh = svd(input, full_matrices=not some)
    return U, S, _mH(Vh)


@_highest
def svdvals(A):
    """The singular values of A (..., m, n) -> (..., min(m, n)), descending."""
    _svd_input(A)
    return jnp.linalg.svd(A, compute_uv=False) if min(A.shape[-2:]) else jnp.zeros(
        A.shape[:-2] + (0,), jnp.real(A).dtype)


@_highest
def qr(A, mode="reduced"):
    """(Q, R) with A = Q R, Q orthonormal columns and R upper triangular (Householder, as
    LAPACK). mode "reduced": Q (..., m, k), R (..., k, n); "complete": Q (..., m, m);
    "r": Q is empty and only R is computed."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           "'complete'")
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _float_input(A, "linalg.qr", kernel="geqrf_cpu")
    if mode == "r":
        return jnp.zeros((0,), A.dtype), jnp.linalg.qr(A, mode="r")
    Q, R = jnp.linalg.qr(A, mode=mode)
    return Q, R


def qr_legacy(input, some=True):
    """torch.qr: `qr` with mode "reduced" (or "complete" when `some=False`)."""
    return qr(input, "reduced" if some else "complete")


def _cutoff(S, m, n, atol, rtol):
    """torch's singular-value cutoff max(atol, rtol * S_max); rtol defaults to eps * max(m, n)
    unless only atol is given."""
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else float(jnp.finfo(S.dtype).eps) * max(m, n)
    smax = jnp.max(S, -1, keepdims=True) if S.shape[-1] else jnp.zeros(S.shape[:-1] + (1,), S.dtype)
    return jnp.maximum(0.0 if atol is None else atol, rtol * smax)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _pinv(A, atol, rtol, hermitian):
    m, n = A.shape[-2:]
    if hermitian:
        w, V = eigh(A)
        keep = jnp.abs(w) > _cutoff(jnp.abs(w), m, n, atol, rtol)
        return jnp.einsum("...ij,...j,...kj->...ik", V, jnp.where(keep, 1 / jnp.where(keep, w, 1), 0), jnp.conj(V))
    U, S, Vh = jnp.linalg.svd(A, full_matrices=False)
    keep = S > _cutoff(S, m, n, atol, rtol)
    s_inv = jnp.where(keep, 1 / jnp.where(keep, S, 1), 0).astype(A.dtype)
    return jnp.einsum("...ji,...j,...kj->...ik", jnp.conj(Vh), s_inv, jnp.conj(U))


@_pinv.defjvp
def _pinv_jvp(atol, rtol, hermitian, primals, tangents):
    # the derivative of the pseudo-inverse at fixed rank (Golub & Pereyra), as torch's pinv_backward
    (A,), (dA,) = primals, tangents
    P = _pinv(A, atol, rtol, hermitian)
    m, n = A.shape[-2:]
    dP = -P @ dA @ P
    dP = dP + P @ _mH(P) @ _mH(dA) @ (jnp.eye(m, dtype=A.dtype) - A @ P)
    dP = dP + (jnp.eye(n, dtype=A.dtype) - P @ A) @ _mH(dA) @ _mH(P) @ P
    return P, dP


@_highest
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """Moore-Penrose pseudo-inverse (..., m, n) -> (..., n, m) by SVD (eigh when `hermitian`);
    singular values at or below max(atol, rtol * largest) count as zero (`rcond` is rtol)."""
    if A.ndim < 2 or not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _HALF:
        raise RuntimeError(f"linalg.pinv({_name(A.dtype)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        _eigh_input(A)
    rtol = rcond if rcond is not None else rtol
    if min(A.shape[-2:]) == 0:
        return jnp.zeros(A.shape[:-2] + A.shape[-2:][::-1], A.dtype)
    return _pinv(A, atol, rtol, hermitian)


def pinverse(input, rcond=1e-15):
    """torch.pinverse: `pinv` with singular values up to rcond * largest treated as zero."""
    return pinv(input, rtol=rcond)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@_highest
def lstsq(A, B, rcond=None, *, driver=None):
    """(solution, residuals, rank, singular_values) of min ||A X - B|| for A (..., m, n) and
    B (..., m, k) or (..., m): the minimum-norm solution, with singular values of A at or
    below rcond * largest (default eps * max(m, n)) treated as zero.

    The other outputs are those of torch on CPU for `driver` (default "gelsy"): rank for all
    but "gels"; singular values only for "gelsd"/"gelss"; residuals (squared residual norms,
    assuming full rank) only when m > n and the driver is not "gelsy"; empty tensors otherwise.
    """
    driver = driver or "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _HALF:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {_name(A.dtype)} and other's dtype {_name(B.dtype)}")
    vector = B.ndim == A.ndim - 1
    Bm = B[..., None] if vector else B
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2:]
    batch = _broadcast(A.shape[:-2], Bm.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    Bm = jnp.broadcast_to(Bm, batch + Bm.shape[-2:])
    rdt = jnp.real(A).dtype
    X = _product(pinv(A, rtol=rcond), Bm)
    S = svdvals(A)
    empty = jnp.zeros((0,), rdt)
    rank = empty.astype(jnp.int64) if driver == "gels" else jnp.sum(S > _cutoff(S, m, n, None, rcond), -1)
    sv = S if driver in ("gelsd", "gelss") else empty
    res = empty
    if m > n and driver != "gelsy":
        res = jnp.sum(jnp.abs(_product(A, X) - Bm) ** 2, -2)  # (..., k): a vector B keeps its k = 1
    return (X[..., 0] if vector else X), res, rank.astype(jnp.int64), sv


@_highest
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values (|eigenvalues| when `hermitian`) of A above
    max(atol, rtol * largest) (int64 per matrix); `tol` is the legacy atol with rtol 0."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _HALF:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        _eigh_input(A)
        S = jnp.abs(eigh(A)[0])
    else:
        S = svdvals(A)
    m, n = A.shape[-2:]
    return jnp.sum(S > _cutoff(S, m, n, atol, rtol), -1).astype(jnp.int64)


def matrix_power(A, n):
    """A @ A @ ... (n times) for square A by repeated squaring; n = 0 gives the identity and
    n < 0 powers of the inverse (not finite for singular A)."""
    _square(A, "linalg.matrix_power", floating=False)
    if n == 0:
        return jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else _product(result, base)
        n >>= 1
        if n:
            base = _product(base, base)
    return result


@_highest
def matrix_exp(A):
    """The matrix exponential exp(A) = sum_k A^k / k! of square matrices (Pade approximation
    with scaling and squaring). Half types are computed in float32."""
    _square(A, "linalg.matrix_exp", low=True)
    if A.shape[-1] == 0:
        return A
    X = A.astype(jnp.float32) if A.dtype in _HALF else A
    return jax.scipy.linalg.expm(X).astype(A.dtype)
