"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp with torch's conventions, computed by
facade.func's JAX transforms (one vectorised program, not a loop over output entries).

Results are detached unless `create_graph=True`, where they are differentiable with respect to the inputs (and the
tensors that require grad which `func` reads from a closure). `vectorize` is accepted and changes nothing here:
every Jacobian is vectorised. `strict=True` checks, from the traced program, that each output depends on the inputs
(and, for second derivatives, that the gradient does), with torch's messages.
"""

from __future__ import annotations

import jax

from .. import func as F
from .._tensor import Tensor
from .grad_mode import enable_grad, no_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_OUT = "outputs of the user-provided function"
_STRATEGY = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
             'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
             '"reverse-mode".')
_NO_GRAD = ("Output {} of the user-provided function does not require gradients. The outputs must be computed in a "
            "differentiable manner from the input when running in strict mode.")
_INDEPENDENT = ("The output of the user-provided function is independent of input {}. This is not allowed in strict "
                "mode.")
_PAIR = "Output {} of the user-provided function is independent of input {}. This is not allowed in strict mode."
_LINEAR = ("While computing the hessian, found that the jacobian of the user-provided function with respect to input "
           "{} is independent of the input. This is not allowed in strict mode. You should ensure that your function "
           "is twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear "
           "function for example).")


def _as_tuple(x, arg, api):
    """(was it a tuple, x as a tuple of Tensors), with torch's TypeError."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i} has type" if is_tuple else f"the given {arg} has type"
            raise TypeError(f"The {arg} given to {api} must be either a Tensor or a tuple of Tensors but {where} "
                            f"{type(el)}.")
    return is_tuple, items


def _unpack(res, is_tuple):
    """torch's _tuple_postprocess: one bool unpacks a level; a pair (outer, inner) unpacks two."""
    if isinstance(is_tuple, tuple):
        if not is_tuple[1]:
            res = tuple(r[0] for r in res)
        return res if is_tuple[0] else res[0]
    return res if is_tuple else res[0]


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}.")


def _prepare(inputs, create_graph):
    """torch's _grad_preprocess: with create_graph the results get a graph back to the inputs."""
    if not create_graph:
        return inputs, no_grad()
    return tuple(x.view_as(x) if x.requires_grad else x.detach().requires_grad_() for x in inputs), enable_grad()


class _TupleFn:
    """`func` returning a tuple of Tensors always; remembers whether `func` itself returned a tuple."""

    def __init__(self, func, api):
        self.func, self.api, self.is_tuple = func, api, None
        self.__name__ = getattr(func, "__name__", api)

    def __call__(self, *xs):
        self.is_tuple, out = _as_tuple(self.func(*xs), _OUT, self.api)
        return out


def _scalar_fn(func, api):
    def fn(*xs):
        out = func(*xs)
        is_tuple, _ = _as_tuple(out, _OUT, api)
        if is_tuple:
            raise RuntimeError(f"The function given to {api} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {api} should contain a single element")
        return out

    fn.__name__ = getattr(func, "__name__", api)
    return fn


# ---------------------------------------------------------------------------------------------- strict

def _dependencies(fn, inputs):
    """For each output of `fn` (Tensors -> tuple of Tensors), the set of inputs it is computed from."""
    from jax.extend.core import Literal

    def arrays_fn(*arrays):
        return [o._arr() for o in fn(*(Tensor._from_array(a, x._device) for a, x in zip(arrays, inputs)))]

    with no_grad():
        jaxpr = jax.make_jaxpr(arrays_fn)(*(x._arr() for x in inputs)).jaxpr
    deps = {v: {i} for i, v in enumerate(jaxpr.invars)}
    for eqn in jaxpr.eqns:
        s = set().union(*(deps.get(v, ()) for v in eqn.invars if not isinstance(v, Literal)))
        for o in eqn.outvars:
            deps[o] = s
    return [set() if isinstance(v, Literal) else deps.get(v, set()) for v in jaxpr.outvars]


def _strict(fn, inputs, pairs=False):
    deps = _dependencies(fn, inputs)
    for i, d in enumerate(deps):
        if not d:
            raise RuntimeError(_NO_GRAD.format(i))
    for k in range(len(inputs)):
        if pairs:
            for i, d in enumerate(deps):
                if k not in d:
                    raise RuntimeError(_PAIR.format(i, k))
        elif not any(k in d for d in deps):
            raise RuntimeError(_INDEPENDENT.format(k))


def _strict_second(fn, inputs):
    """strict for second derivatives: the outputs need the inputs, and so does every entry of the gradient."""
    _strict(lambda *x: (fn(*x),), inputs)
    grads = _dependencies(lambda *x: F.grad(fn, argnums=tuple(range(len(x))))(*x), inputs)
    for k, d in enumerate(grads):
        if not d:
            raise RuntimeError(_LINEAR.format(k))


# ---------------------------------------------------------------------------------------------- the API

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product of `func` at `inputs`."""
    is_in, inputs = _as_tuple(inputs, "inputs", "vjp")
    fn = _TupleFn(func, "vjp")
    if strict:
        _strict(fn, inputs)
    xs, mode = _prepare(inputs, create_graph)
    with mode:
        outs, pull = F.vjp(fn, *xs)
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = tuple(o.new_ones(o.shape) for o in outs)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
            _validate_v(vs, outs, fn.is_tuple)
        grads = pull(tuple(vs))
    return _unpack(outs, fn.is_tuple), _unpack(grads, is_in)


def _tangents(inputs, v, is_in, api):
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        return tuple(x.new_ones(x.shape) for x in inputs)
    _, vs = _as_tuple(v, "v", api)
    _validate_v(vs, inputs, is_in)
    return vs


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product of `func` at `inputs`."""
    is_in, inputs = _as_tuple(inputs, "inputs", "jvp")
    vs = _tangents(inputs, v, is_in, "jvp")
    fn = _TupleFn(func, "jvp")
    if strict:
        _strict(fn, inputs)
    xs, mode = _prepare(inputs, create_graph)
    with mode:
        outs, tangents = F.jvp(fn, xs, tuple(vs))
    return _unpack(outs, fn.is_tuple), _unpack(tangents, fn.is_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: one entry per (output, input), of shape output.shape + input.shape."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    is_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
    fn = _TupleFn(func, "jacobian")
    if strict:
        if vectorize:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        _strict(fn, inputs, pairs=True)
    xs, mode = _prepare(inputs, create_graph)
    argnums = tuple(range(len(xs)))
    with mode:
        if strategy == "forward-mode":  # torch's forward mode gives lists, its reverse mode tuples
            jac = [list(row) for row in F.jacfwd(fn, argnums=argnums, randomness="same")(*xs)]
        else:
            jac = F.jacrev(fn, argnums=argnums)(*xs)
    return _unpack(jac, (fn.is_tuple, is_in))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar `func` at `inputs`: one entry per pair of inputs, shape in_i.shape + in_j.shape."""
    is_in, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    fn = _scalar_fn(func, "hessian")
    if strict:
        _strict_second(fn, inputs)
    xs, mode = _prepare(inputs, create_graph)
    with mode:
        hess = F.hessian(lambda *x: fn(*x).reshape(()), argnums=tuple(range(len(xs))))(*xs)
    return _unpack(hess, (is_in, is_in))


def _second(func, inputs, v, create_graph, strict, api):
    """(func(inputs), v^T H) for vhp and hvp: vhp pulls v back through the gradient, hvp pushes it forward."""
    is_in, inputs = _as_tuple(inputs, "inputs", api)
    vs = _tangents(inputs, v, is_in, api)
    fn = _scalar_fn(func, api)
    if strict:
        _strict_second(fn, inputs)
    xs, mode = _prepare(inputs, create_graph)
    def scalar(*x):
        out = fn(*x)
        return out.reshape(()), out

    grad = F.grad(scalar, argnums=tuple(range(len(xs))), has_aux=True)
    with mode:
        if api == "vhp":
            _, pull, out = F.vjp(grad, *xs, has_aux=True)
            prod = pull(tuple(vs))
        else:
            _, prod, out = F.jvp(grad, xs, tuple(vs), has_aux=True)
    return out, _unpack(prod, is_in)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vector-Hessian product of the scalar `func` at `inputs`."""
    return _second(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the Hessian-vector product of the scalar `func` at `inputs`."""
    return _second(func, inputs, v, create_graph, strict, "hvp")
