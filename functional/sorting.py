"""sorting with torch's semantics."""

import jax.numpy as jnp  # noqa: F401

__all__ = []
