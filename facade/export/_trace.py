"""A module's forward as a pure JAX function of (RNG key, parameters and buffers, input arrays), built on
torch.func.functional_call: the module runs with its parameters and buffers replaced by Tensors around the traced
arrays, so jax.export (and jax2onnx) trace it once into one program.

Arrays are traced; everything else (Python values in the inputs, the module's attributes and training flag) is
static and baked into the program. Buffers the forward writes in place (BatchNorm's running statistics in training
mode) come back as extra outputs, as torch.export's buffer mutations do."""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp

from .. import _dispatch
from .._compile._config import config
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..func import from_jax, functional_call
from ..func._core import generator_key
from ..utils._pytree import tree_flatten, tree_unflatten

__all__ = ["Traced", "key_data", "TENSOR"]


class _Tensor:
    def __repr__(self):
        return "<tensor>"


TENSOR = _Tensor()  # stands for a tensor leaf among the constant leaves of a pytree


@contextlib.contextmanager
def _tracing():
    """As torch.compile's trace: constants stay numpy (embedded in the program; a device array created during
    one trace would be captured by the next), and `torch.compiler.is_compiling()` is true."""
    prev = _dispatch.TRACING, config.tracing
    _dispatch.TRACING = config.tracing = True
    try:
        yield
    finally:
        _dispatch.TRACING, config.tracing = prev


def key_data(key):
    """The generator's uint32[2] key data of an int64 key (what `_random.next_key` gives)."""
    return jax.lax.bitcast_convert_type(key, jnp.uint32)


class Traced:
    """The pure function of one (model, example inputs) pair and what a trace of it learns (output structure,
    which buffers it writes). `fn(key, state, inputs)`: key an int64 scalar, state the arrays of `names`, inputs
    the arrays of the tensor leaves of (args, kwargs); returns the flat output arrays, then the written buffers."""

    def __init__(self, model, args, kwargs):
        self.model = model
        params = dict(model.named_parameters())
        buffers = dict(model.named_buffers())
        self.params, self.buffers = list(params), list(buffers)
        self.state = [*params.values(), *buffers.values()]
        leaves, self.in_spec = tree_flatten((args, kwargs))
        self.tensor_pos = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor)]
        self.inputs = [leaves[i] for i in self.tensor_pos]
        self.consts = [TENSOR if isinstance(leaf, Tensor) else leaf for leaf in leaves]
        self.out_spec = self.out_consts = None
        self.mutated = []

    @property
    def names(self):
        return self.params + self.buffers

    def fn(self, key, state, inputs):
        tensors = {n: from_jax(a) for n, a in zip(self.names, state)}
        leaves = list(self.consts)
        for i, a in zip(self.tensor_pos, inputs):
            leaves[i] = from_jax(a)
        args, kwargs = tree_unflatten(leaves, self.in_spec)
        with no_grad(), generator_key(key_data(key)), _tracing():
            out = functional_call(self.model, tensors, tuple(args), kwargs)
        out_leaves, self.out_spec = tree_flatten(out)
        self.out_consts = [TENSOR if isinstance(leaf, Tensor) else leaf for leaf in out_leaves]
        n = len(self.params)
        self.mutated = [b for i, b in enumerate(self.buffers) if tensors[b]._arr() is not state[n + i]]
        return [t._arr() for t in out_leaves if isinstance(t, Tensor)], [tensors[b]._arr() for b in self.mutated]
