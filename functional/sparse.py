"""COO sparse arrays as (indices, values) pairs: pure JAX, with torch's semantics.

`indices` is (sparse_dim, nnz) int64, `values` (nnz, *dense_shape); the dense array they stand for has
shape `size` = (*sparse_shape, *dense_shape), duplicates adding up.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["coo_to_dense", "coo_gather", "coo_segment_sum", "coo_mm", "coo_softmax", "blocks_to_dense", "blocks_gather"]


def coo_to_dense(indices, values, size):
    """The dense array of shape `size` holding `values` at `indices` (duplicates summed)."""
    return jnp.zeros(size, values.dtype).at[tuple(indices)].add(values)


def coo_gather(input, indices):
    """input[indices[0], indices[1], ...]: the values of a dense array at COO indices, (nnz, *rest)."""
    return input[tuple(indices)]


def coo_segment_sum(values, inverse, num_segments):
    """Values of equal (coalesced) index summed: segment `inverse[i]` gets values[i]."""
    return jax.ops.segment_sum(values, inverse, num_segments=num_segments)


def coo_mm(indices, values, mat, rows):
    """(sparse (rows, k) from indices, values) @ mat (k, m) -> dense (rows, m), touching only the nnz entries."""
    return jnp.zeros((rows, mat.shape[1]), jnp.result_type(values, mat)).at[indices[0]].add(
        values[:, None] * mat[indices[1]])


def coo_softmax(indices, values, size, dim, log=False):
    """torch.sparse.softmax: softmax along `dim` over the specified entries only (unspecified ones count as
    -inf), returned as the new values at the same indices."""
    dense = jnp.full(size, -jnp.inf, values.dtype).at[tuple(indices)].set(values)
    out = jax.nn.log_softmax(dense, axis=dim) if log else jax.nn.softmax(dense, axis=dim)
    return out[tuple(indices)]


def blocks_to_dense(rows, cols, values, size):
    """The dense (M, N) array of blocked values (nnz, bm, bn) placed at block coordinates (rows, cols): the
    dense value of a BSR/BSC tensor (CSR/CSC with 1x1 blocks)."""
    values = values[:, None, None] if values.ndim == 1 else values
    _, bm, bn = values.shape
    grid = jnp.zeros((size[0] // bm, size[1] // bn, bm, bn), values.dtype).at[rows, cols].add(values)
    return grid.transpose(0, 2, 1, 3).reshape(size)


def blocks_gather(input, rows, cols, blocksize=None):
    """The (nnz, bm, bn) blocks of a dense (M, N) array at block coordinates (rows, cols); (nnz,) entries
    when blocksize is None."""
    if blocksize is None:
        return input[rows, cols]
    (m, n), (bm, bn) = input.shape, blocksize
    return input.reshape(m // bm, bm, n // bn, bn).transpose(0, 2, 1, 3)[rows, cols]
