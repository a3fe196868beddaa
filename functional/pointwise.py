"""Pointwise math with torch's semantics."""

import jax.numpy as jnp

__all__ = ["add", "sub", "mul", "div", "neg", "exp", "sin", "tanh", "sigmoid", "matmul", "sum", "mean", "pow"]


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return input + other * alpha if not isinstance(alpha, int) or alpha != 1 else input + other


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return input - other * alpha if not isinstance(alpha, int) or alpha != 1 else input - other


def mul(input, other):
    return input * other


def div(input, other, *, rounding_mode=None):
    """input / other; rounding_mode 'trunc' or 'floor' rounds the quotient (integers stay integers)."""
    if rounding_mode is None:
        return input / other
    if rounding_mode == "floor":
        return jnp.floor_divide(input, other) if jnp.issubdtype(input.dtype, jnp.integer) else jnp.floor(input / other)
    return jnp.trunc(input / other).astype(input.dtype)


def neg(input):
    return -input


def exp(input):
    return jnp.exp(input)


def sin(input):
    return jnp.sin(input)


def tanh(input):
    return jnp.tanh(input)


def sigmoid(input):
    return 1 / (1 + jnp.exp(-input))


def pow(input, exponent):
    return jnp.power(input, exponent)


def matmul(input, other):
    return jnp.matmul(input, other, precision="highest")


def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is None and (jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_):
        dtype = jnp.int64
    return jnp.sum(input, axis=dim, keepdims=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return jnp.mean(input, axis=dim, keepdims=keepdim, dtype=dtype)
