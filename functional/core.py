"""Casting, copying and the scatter used by writes through views."""

import jax
import jax.numpy as jnp

__all__ = ["astype", "put_flat", "clone", "copy", "fill", "replace", "prng_key"]


def astype(input, dtype):
    """`input` cast to numpy dtype `dtype` (torch's `.to(dtype)`; complex -> real keeps the real part)."""
    if jnp.iscomplexobj(input) and not jnp.issubdtype(dtype, jnp.complexfloating):
        input = input.real
    dtype = jnp.dtype(dtype)
    if jnp.issubdtype(input.dtype, jnp.floating) and jnp.issubdtype(dtype, jnp.integer) and dtype.itemsize < 4:
        input = input.astype(jnp.int32)  # torch (C++ on x86) wraps out-of-range values here; XLA would saturate
    return input.astype(dtype)


def put_flat(input, index, src):
    """`input` with the elements at flat positions `index` (any shape) replaced by `src` (index's shape)."""
    src = jnp.broadcast_to(src, index.shape).reshape(-1).astype(input.dtype)
    flat = input.reshape(-1).at[index.reshape(-1)].set(src)
    return flat.reshape(input.shape)


def clone(input, *, memory_format=None):
    """A copy of `input`."""
    return jnp.array(input, copy=True)


def copy(input, src, non_blocking=False):
    """`src` broadcast to `input`'s shape and cast to its dtype (torch's `input.copy_(src)`)."""
    return astype(jnp.broadcast_to(src, input.shape), input.dtype)


def fill(input, value):
    """`input`'s shape and dtype filled with `value` (torch's `fill_`)."""
    if jnp.ndim(value):
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {jnp.ndim(value)} "
                           "dimensions.")
    return jnp.full(input.shape, value, input.dtype)


def replace(input, src):
    """`src` (same shape and dtype as `input`): an in-place write whose gradient to `input` is zero."""
    return src


def prng_key(key):
    """A JAX PRNG key from a 0-dim int64 array holding threefry key data (how facade passes a fresh
    random key into a jitted op such as dropout; see facade._random.next_key)."""
    return jax.random.wrap_key_data(jax.lax.bitcast_convert_type(key, jnp.uint32), impl="threefry2x32")
