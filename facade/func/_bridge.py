"""A facade module or function as a pure JAX function, for jax.jit / jax.grad / jax.vmap and flax/optax code."""

from __future__ import annotations

import jax

from .._tensor import Tensor
from ._module import functional_call


def _wrap(tree):
    from . import from_jax

    return jax.tree_util.tree_map(lambda a: from_jax(a) if isinstance(a, jax.Array) else a, tree)


def _unwrap(tree):
    return jax.tree_util.tree_map(lambda t: t._arr() if isinstance(t, Tensor) else t, tree,
                                  is_leaf=lambda x: isinstance(x, Tensor))


def jax_function(obj):
    """`(fn, params)` for a Module: `fn(params, *args, **kwargs)` runs the module with the arrays of `params` (a
    dict name -> jax.Array of its parameters and buffers, as in `state_dict()`) on JAX-array inputs and returns
    JAX arrays; `params` holds the module's current arrays (no copies). For a plain function over Tensors,
    `(fn, None)` with `fn(*args, **kwargs)` over JAX arrays. Both are pure: use them under jax.jit, jax.grad,
    jax.vmap, or feed `params` to an optax optimizer; write results back with `module.load_state_dict(
    {k: facade.func.from_jax(v) for k, v in params.items()})`."""
    from ..nn.modules.module import Module

    if isinstance(obj, Module):
        params = {k: v._arr() for k, v in (*obj.named_parameters(), *obj.named_buffers())}

        def fn(params, *args, **kwargs):
            return _unwrap(functional_call(obj, _wrap(params), tuple(_wrap(args)), _wrap(kwargs)))

        return fn, params

    def pure(*args, **kwargs):
        return _unwrap(obj(*_wrap(args), **_wrap(kwargs)))

    return pure, None
