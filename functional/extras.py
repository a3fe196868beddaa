"""Odd torch ops that fit no family: hash_tensor."""

import jax.numpy as jnp
from jax import lax

__all__ = ["hash_tensor"]


def hash_tensor(input, dim=(), *, keepdim=False, mode=0):
    """XOR of the 64-bit patterns of the elements over `dim` (all dims if empty), uint64.

    Integers and bools are sign-extended to int64, floats widened to float64, then reinterpreted as uint64.
    """
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if jnp.issubdtype(input.dtype, jnp.complexfloating):
        names = {jnp.complex64: "ComplexFloat", jnp.complex128: "ComplexDouble"}
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{names[input.dtype.type]}'")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims and input.size == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify "
                           "the reduction dim with the 'dim' argument.")
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d % input.ndim} to have non-zero size.")
    wide = jnp.float64 if jnp.issubdtype(input.dtype, jnp.floating) else jnp.int64
    bits = lax.bitcast_convert_type(input.astype(wide), jnp.uint64)
    axes = tuple(d % max(input.ndim, 1) for d in dims) if dims else tuple(range(input.ndim))
    out = lax.reduce(bits, jnp.uint64(0), lax.bitwise_xor, axes) if axes else bits
    return jnp.expand_dims(out, axes) if keepdim else out
