"""How a torch.func transform runs: the user's function over Tensors becomes a JAX function over arrays.

`run(name, owner, tensors, core)` records one facade op whose function is `core(arrays, invoke) -> (flat
output arrays, rebuild)`: `core` applies jax.grad / jax.vjp / jax.vmap ... to a function that wraps arrays
into Tensors, calls the user's function through `invoke` and unwraps the result. The op goes through the
dispatch chokepoint, so its outputs carry a facade autograd node whose backward is `jax.vjp` of the whole
transform (outer `backward()` and `create_graph` compose with it) and forward AD propagates through it.

Tensors the function reads without receiving them (module parameters in a closure) and that require grad
are found after a first trace by walking the facade graph of its outputs back to their leaves, then passed
as extra op inputs on a second trace (and on every later call of the same transformed function), so outer
autograd reaches them exactly as torch's does. The RNG key the function draws from is an op input too, so
the backward's re-trace draws the same numbers as the forward.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref

import jax
import jax.numpy as jnp

from .. import _dispatch, _random
from .._tensor import Tensor
from ..autograd import graph
from ..autograd.grad_mode import STATE
from ..utils._pytree import tree_flatten, tree_unflatten

__all__ = ["Inputs", "RandomnessError", "Transformed", "run", "flat_tensors", "generator_key", "fn_name"]


_RANDOM_MSG = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
               "'different' randomness flags on vmap or perform the randomness operation out of vmap")


class RandomnessError:
    """Stands in for the default generator's key under randomness='error': any draw raises torch's error."""

    def devices(self):
        raise RuntimeError(_RANDOM_MSG)

    def __array__(self, *args, **kwargs):
        raise RuntimeError(_RANDOM_MSG)


def fn_name(fn):
    return getattr(fn, "__name__", repr(fn))


class Inputs:
    """The Tensors of a pytree (positions in its flat leaves) and the same pytree rebuilt around new arrays."""

    def __init__(self, tree):
        self.leaves, self.spec = tree_flatten(tree)
        self.pos = [i for i, leaf in enumerate(self.leaves) if isinstance(leaf, Tensor)]
        self.tensors = [self.leaves[i] for i in self.pos]

    def rebuild(self, arrays):
        leaves = list(self.leaves)
        for i, a in zip(self.pos, arrays):
            leaves[i] = Tensor._from_array(a, leaves[i]._device)
        return tree_unflatten(leaves, self.spec)


def flat_tensors(tree, what):
    """The leaves of a pytree of Tensors as (arrays, spec); a non-Tensor leaf raises torch's error."""
    leaves, spec = tree_flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{what}, got unsupported type {type(leaf)}")
    return [leaf._arr() for leaf in leaves], spec


class Transformed:
    """The callable a transform returns; remembers (weakly) the closure tensors its function reads."""

    def __init__(self, fn):
        self.fn = fn
        self._closure = []  # weakrefs to leaves that require grad, found on earlier calls
        self.__wrapped__ = fn
        self.__name__ = fn_name(fn)
        self.__doc__ = getattr(fn, "__doc__", None)

    def closure(self):
        alive = [r() for r in self._closure]
        self._closure = [weakref.ref(t) for t in alive if t is not None]
        return [t for t in alive if t is not None]

    def remember(self, leaves):
        self._closure += [weakref.ref(t) for t in leaves]


_UNTRACKED = "{name}: `{fn}` reads a tensor that requires grad and was computed outside it (not a leaf, not an " \
             "argument); gradients do not flow back through it here. Pass it as an argument instead."


class _Invoker:
    """Calls the user's function with closure leaves bound to the op's traced inputs; finds new ones."""

    def __init__(self, name, owner, leaves):
        self.name, self.owner, self.leaves = name, owner, leaves
        self.lifted = ()
        self.found = []

    def __call__(self, fn, *args, **kwargs):
        start = next(graph._seq)
        with _bound(self.leaves, self.lifted):
            out = fn(*args, **kwargs)
        if STATE.enabled:
            self._discover(out, start)
        return out

    def _discover(self, out, start):
        known = {id(t) for t in self.leaves} | {id(t) for t in self.found}
        stack = [t._edge()[0] for t in tree_flatten(out)[0] if isinstance(t, Tensor) and t.requires_grad]
        seen = set()
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, graph.AccumulateGrad):
                v = node.variable
                if id(v) not in known and v._base is None:
                    known.add(id(v))
                    self.found.append(v)
            elif node._seq < start:
                warnings.warn(_UNTRACKED.format(name=self.name, fn=fn_name(self.owner.fn)), UserWarning, stacklevel=4)
            else:
                stack.extend(e[0] for e in node._edges if e is not None)


@contextlib.contextmanager
def _bound(leaves, arrays):
    """Temporarily make each leaf Tensor hold the given (traced) array."""
    saved = [(t._data, t._np) for t in leaves]
    try:
        for t, a in zip(leaves, arrays):
            t._data, t._np = a, None
        yield
    finally:
        for t, (d, n) in zip(leaves, saved):
            t._data, t._np = d, n


@contextlib.contextmanager
def generator_key(key):
    """Draws from the default generator use `key` (uint32[2] key data, or a sentinel) inside the block."""
    gen = _random.default_generator
    saved = gen._key
    gen._key = key
    try:
        yield
    finally:
        gen._key = saved


def _key_data(k):
    """The uint32[2] key data of an int64 key from `_random.next_key`."""
    return jax.lax.bitcast_convert_type(k, jnp.uint32)


def run(name, owner, tensors, core, key=None):
    """Run `core` as one recorded facade op over `tensors` (plus the closure leaves it reads).

    core(arrays, invoke, key) -> (list of output arrays, rebuild(list of output Tensors) -> result), where
    `invoke(fn, *args, **kwargs)` calls the user's function and `key` is the RNG key data for its draws.
    Returns (result, key): pass the key back to re-run with the same random numbers (vjp_fn, linearize).
    """
    if isinstance(_random.default_generator._key, RandomnessError):
        key = ()  # inside vmap(randomness='error'): no key to draw, and draws must keep raising
    elif key is None:
        device = next((t.device for t in tensors), None)
        key = (_random.next_key(device=device) if device is not None else _random.next_key(),)
    invoke = _Invoker(name, owner, owner.closure())
    box = {}
    n, nk = len(tensors), len(key)

    def raw(*flat):
        invoke.lifted = flat[n + nk:]
        k = _key_data(flat[n]) if nk else _random.default_generator._key
        with generator_key(k):
            outs, box["rebuild"] = core(list(flat[:n]), invoke, k)
        return tuple(outs)

    op = _op(name)
    for _ in range(8):  # each pass lifts the closure leaves the previous one found
        res = _dispatch.run(_dispatch.Compiled.from_raw(op, raw), [*tensors, *key, *invoke.leaves])
        if not invoke.found:
            break
        owner.remember(invoke.found)
        invoke.leaves, invoke.found = invoke.leaves + invoke.found, []
    return box["rebuild"](list(res)), key


_OPS = {}


def _flat(*flat):
    """The signature of every transform's op (its function is set per call)."""


def _op(name):
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = _dispatch.Op(name, _flat, arrays=("flat",), jit=False, grad_name=_grad_name(name))
    return op


def _grad_name(name):
    return "".join(p.title() for p in name.replace(".", "_").split("_")) + "Backward0"
