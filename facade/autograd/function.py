"""torch.autograd.Function: user-defined forward/backward, recorded as one tape node."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import graph
from .grad_mode import STATE

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The `ctx` of a custom Function."""

    def __init__(self):
        self.saved_tensors = ()
        self.needs_input_grad = ()
        self._non_diff = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def save_for_forward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class _FunctionNode(graph.Node):
    """The tape node of a custom Function: its backward is the user's `backward`."""

    __slots__ = ("_fn", "_ctx", "_nin", "_all")

    def _apply(self, grads, create_graph):
        if self._freed:
            return graph.Node._apply(self, grads, create_graph)
        from .._tensor import Tensor

        it = iter(grads)
        gs = []
        for diff, (s, d) in self._all:  # torch passes a (zero) gradient for non-differentiable outputs too
            g = next(it) if diff else None
            gs.append(g if isinstance(g, Tensor) else Tensor._from_array(g if g is not None else jnp.zeros(s, d)))
        res = self._fn.backward(self._ctx, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        res = [r for r, m in zip(res, self._mask) if m]
        if create_graph:
            return tuple(res)
        return tuple(None if r is None else r._arr() for r in res)

    def _release(self):  # the ctx holds what forward saved, often an output whose grad_fn is this node: a cycle
        self._freed, self._ctx = True, None


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._node_type = type(name + "Backward", (_FunctionNode,), {"__slots__": ()})


class Function(metaclass=_FunctionMeta):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `.apply(*args)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        prev = STATE.enabled
        if any(isinstance(a, Tensor) and isinstance(a._arr(), jax.core.Tracer) for a in args):
            out = _traced(cls, ctx, args, kwargs)  # under torch.compile / torch.func: JAX must see the backward
        else:
            out = _forward(cls, ctx, args, kwargs)
        if not (prev and any(ctx.needs_input_grad)):
            return out
        outs = out if isinstance(out, tuple) else (out,)
        node = cls._node_type()
        node._fn, node._ctx, node._nin = cls, ctx, len(args)
        node._mask = ctx.needs_input_grad
        node._edges = tuple(a._edge() for a, m in zip(args, ctx.needs_input_grad) if m)
        diff = [isinstance(o, Tensor) and id(o) not in ctx._non_diff and o.dtype._cat >= 2 for o in outs]
        node._out_meta = tuple((o.shape, o._arr().dtype) for o, m in zip(outs, diff) if m)
        node._all = tuple((m, (o.shape, o._arr().dtype)) for o, m in zip(outs, diff) if isinstance(o, Tensor))
        wrapped = []
        nr = 0
        for o, m in zip(outs, diff):
            if isinstance(o, Tensor):
                if any(o is a for a in args):
                    o = o.view_as(o)
                if m:
                    o.requires_grad, o._grad_fn, o._output_nr = True, node, nr
                    nr += 1
            wrapped.append(o)
        return tuple(wrapped) if isinstance(out, tuple) else wrapped[0]


def _forward(cls, ctx, args, kwargs):
    prev = STATE.enabled
    STATE.enabled = False
    try:
        if "setup_context" in cls.__dict__:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    finally:
        STATE.enabled = prev
    return out


def _traced(cls, ctx, args, kwargs):
    """The forward as a `jax.custom_vjp` whose backward is the user's: when JAX differentiates the trace (a
    compiled module's VJP, torch.func.grad) it uses `cls.backward`, as torch does. The tape node recorded by
    `apply` serves facade's own backward inside a traced step."""
    from .._tensor import Tensor

    idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    box = {}

    def run(c, arrays):
        full = list(args)
        for i, a in zip(idx, arrays):
            t = Tensor._from_array(a, args[i]._device)
            t.requires_grad = args[i].requires_grad
            full[i] = t
        c.needs_input_grad = ctx.needs_input_grad
        out = _forward(cls, c, tuple(full), kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        if not all(isinstance(o, Tensor) for o in outs):
            raise TypeError("a custom autograd.Function under torch.compile/torch.func must return Tensors")
        box["single"] = not isinstance(out, tuple)
        return tuple(o._arr() for o in outs)

    @jax.custom_vjp
    def f(*arrays):
        box["ctx"] = c = FunctionCtx()
        return run(c, arrays)

    def fwd(*arrays):
        box["ctx"] = c = FunctionCtx()
        outs = run(c, arrays)
        return outs, (tuple(None if t is None else t._arr() for t in c.saved_tensors), arrays)

    def bwd(res, cts):
        saved, arrays = res
        c = box["ctx"]
        c.saved_tensors = tuple(None if a is None else Tensor._from_array(a) for a in saved)
        gs = [Tensor._from_array(jnp.zeros(o.shape, o.dtype) if g.dtype == jax.dtypes.float0 else g) for g, o
              in zip(cts, box["outs"])]
        grads = cls.backward(c, *gs)
        grads = grads if isinstance(grads, tuple) else (grads,)
        picked = [grads[i] if i < len(grads) else None for i in idx]
        return tuple(_zero_cotangent(a) if g is None or not jnp.issubdtype(a.dtype, jnp.inexact) else
                     g._arr().astype(a.dtype) for g, a in zip(picked, arrays))

    f.defvjp(fwd, bwd)
    outs = f(*[args[i]._arr() for i in idx])
    box["outs"] = outs
    ctx.saved_tensors = box["ctx"].saved_tensors  # the tape node's backward (same trace) reads these
    ctx.__dict__.update({k: v for k, v in box["ctx"].__dict__.items() if k not in ("needs_input_grad",)})
    wrapped = tuple(Tensor._from_array(o, args[idx[0]]._device) for o in outs)
    return wrapped[0] if box["single"] else wrapped


def _zero_cotangent(a):
    if jnp.issubdtype(a.dtype, jnp.inexact):
        return jnp.zeros(a.shape, a.dtype)
    return np.zeros(a.shape, jax.dtypes.float0)


def once_differentiable(fn):
    return fn
