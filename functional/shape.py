"""Shape and view ops with torch's semantics."""

import jax.numpy as jnp

__all__ = ["transpose", "reshape", "permute"]


def _dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def transpose(input, dim0, dim1):
    """input with dims dim0 and dim1 swapped."""
    if input.ndim == 0:
        _dim(dim0, 0), _dim(dim1, 0)
        return input
    return jnp.swapaxes(input, _dim(dim0, input.ndim), _dim(dim1, input.ndim))


def permute(input, dims):
    """input with its dims reordered to `dims`."""
    return jnp.transpose(input, [_dim(d, input.ndim) for d in dims])


def reshape(input, shape):
    """input with a new shape of the same number of elements (one dim may be -1)."""
    return jnp.reshape(input, shape)
