"""Casting, copying, the scatter used by writes through views, and the random key type of every sampler."""

import math

import jax
import jax.extend
import jax.numpy as jnp

__all__ = ["astype", "put_flat", "clone", "copy", "fill", "replace", "prng_key", "bits", "RBG"]


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


def bits(state, shape, dtype=jnp.uint32):
    """(next state, bits) from XLA's RngBitGenerator with its threefry algorithm (the same on every backend): a
    4-word state, a key and a counter. Drawn flat, so a longer draw begins with a shorter one's values."""
    state, out = jax.lax.rng_bit_generator(state, (math.prod(shape),), dtype, algorithm=_THREE_FRY)
    return state, out.reshape(shape)


_THREE_FRY = jax.lax.RandomAlgorithm.RNG_THREE_FRY
_UINT = {8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}
# The key type of every sampler: jax.random's functions over `bits`. One RngBitGenerator op compiles 5-10x faster
# than JAX's threefry2x32 (whose rounds XLA compiles as ordinary ops: a dropout mask of 16x4x64x64 took 0.58 s to
# compile against 0.05 s) and draws 2-3x faster on the CPU.
RBG = jax.extend.random.define_prng_impl(
    key_shape=(4,),
    seed=lambda s: jnp.zeros(4, jnp.uint32).at[0].set(jnp.asarray(s).astype(jnp.uint32)),
    split=lambda k, shape: bits(k, (*shape, 4))[1],
    random_bits=lambda k, width, shape: bits(k, shape, _UINT[width])[1],
    fold_in=lambda k, d: bits(k.at[2:].set(jnp.stack([jnp.asarray(d).astype(jnp.uint32), jnp.uint32(1 << 31)])),
                              (4,))[1],
    name="facade_rbg_threefry", tag="frbg")


def prng_key(key):
    """A JAX PRNG key (of `RBG`) from a 0-dim int64 array holding threefry key data (how facade passes a fresh
    random key into a jitted op such as dropout; see facade._random.next_key)."""
    return jax.random.wrap_key_data(jnp.concatenate([jax.lax.bitcast_convert_type(key, jnp.uint32),
                                                     jnp.zeros(2, jnp.uint32)]), impl=RBG)
