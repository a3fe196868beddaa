"""torch.func's autodiff transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize) over jax's."""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp

from .._tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from ._core import Inputs, RandomnessError, Transformed, flat_tensors, generator_key, run

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]


# ---------------------------------------------------------------------------------------------- checks

def _argnums(argnums, nargs):
    """argnums as a sorted-as-given tuple of non-negative ints, with torch's errors."""
    if isinstance(argnums, int):
        items = (argnums,)
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            if not isinstance(a, int):
                raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        items = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in items:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in items)


def _check_diff(tree, forward=False):
    """The differentiated inputs are floating Tensors (torch's errors for the reverse and forward modes)."""
    for leaf in tree_flatten(tree)[0]:
        if not isinstance(leaf, Tensor):
            if forward:
                raise RuntimeError(f"jvp(f, primals, tangents): Expected primals to only contain Tensors, "
                                   f"got {type(leaf)}")
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
        if not (leaf.dtype.is_floating_point or leaf.dtype.is_complex):
            if forward:
                raise ValueError(f"Expected primal to be floating point or complex, but got: {leaf.dtype}")
            raise RuntimeError("only Tensors of floating point dtype can require gradients")


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


_OUT_ONLY = {"vjp": "vjp(f, *primals): expected f(*primals) to return only tensors",
             "jvp": "jvp(f, primals, tangents): expected f(*primals) to return only tensors"}
_API = {"vjp": "vjp(f, *primals)", "jvp": "jvp(f, primals, tangents)"}


class _Diff:
    """One call of a transform: the inputs, which leaves are differentiated, and f as a function of them."""

    def __init__(self, fn, args, kwargs, argnums):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.argnums = argnums
        self.inputs = Inputs((args, kwargs))
        nums = (argnums,) if isinstance(argnums, int) else argnums
        self.diff_spec = tree_flatten(args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in nums))[1]
        starts, n = [], 0  # where each positional argument's leaves start among the flat leaves
        for a in args:
            starts.append(n)
            n += len(tree_flatten(a)[0])
        rank = {leaf: i for i, leaf in enumerate(self.inputs.pos)}
        self.diff_pos = [rank[starts[i] + j] for i in nums for j in range(len(tree_flatten(args[i])[0]))]

    def call(self, arrays, diff, invoke):
        full = list(arrays)
        for p, a in zip(self.diff_pos, diff):
            full[p] = a
        args, kwargs = self.inputs.rebuild(full)
        return invoke(self.fn, *args, **kwargs)

    def diff_arrays(self, arrays):
        return [arrays[p] for p in self.diff_pos]

    def diff_tree(self, leaves):
        return tree_unflatten(list(leaves), self.diff_spec)


def _aux_arrays(aux):
    return flat_tensors(aux, "Expected tensors")


# ------------------------------------------------------------------------------------------------ grad

def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value: (gradient of the scalar `func` w.r.t. `argnums`, its value[, aux])."""
    return _GradAndValue(func, argnums, has_aux, "grad_and_value")


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad: the gradient of the scalar `func` w.r.t. `argnums` (and the aux, with has_aux)."""
    return _GradAndValue(func, argnums, has_aux, "grad")


class _GradAndValue(Transformed):
    def __init__(self, fn, argnums, has_aux, kind):
        super().__init__(fn)
        self.argnums, self.has_aux, self.kind = argnums, has_aux, kind

    def __call__(self, *args, **kwargs):
        api = "grad_and_value(f)(*args)"
        nums = _argnums(self.argnums, len(args))
        argnums = nums[0] if isinstance(self.argnums, int) else nums
        _check_diff([args[i] for i in nums])
        d = _Diff(self.fn, args, kwargs, argnums)
        specs = {}

        def core(arrays, invoke, key):
            def value(diff):
                out, aux = _split_aux(d.call(arrays, diff, invoke), self.has_aux, api)
                if not isinstance(out, Tensor):
                    raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(out)}")
                if out.ndim != 0:
                    raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                                       f"{out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
                aux_arrays, specs["aux"] = _aux_arrays(aux) if self.has_aux else ([], None)
                return out._arr(), aux_arrays

            (val, aux), grads = jax.value_and_grad(value, has_aux=True)(d.diff_arrays(arrays))
            return [*grads, val, *aux], rebuild

        def rebuild(res):
            n = len(d.diff_pos)
            g, val = d.diff_tree(res[:n]), res[n]
            aux = tree_unflatten(res[n + 1:], specs["aux"]) if self.has_aux else None
            if self.kind == "grad":
                return (g, aux) if self.has_aux else g
            return (g, (val, aux)) if self.has_aux else (g, val)

        return run(f"func.{self.kind}", self, d.inputs.tensors, core)[0]


# ------------------------------------------------------------------------------------------- vjp / jvp

def _outputs(out, api_key):
    arrays, spec = flat_tensors(out, _OUT_ONLY[api_key])
    return arrays, spec


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: (func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) -> one gradient per primal."""
    owner = Transformed(func)
    _check_diff(primals)
    d = _Diff(func, primals, {}, tuple(range(len(primals))))
    specs = {}

    def forward(arrays, invoke, key):
        out, aux = _split_aux(d.call(arrays, arrays, invoke), has_aux, _API["vjp"])
        outs, specs["out"] = _outputs(out, "vjp")
        aux_arrays, specs["aux"] = _aux_arrays(aux) if has_aux else ([], None)
        specs["meta"] = [(o.shape, o.dtype) for o in outs]
        return [*outs, *aux_arrays], rebuild

    def rebuild(res):
        n = len(specs["meta"])
        out = tree_unflatten(res[:n], specs["out"])
        return (out, tree_unflatten(res[n:], specs["aux"])) if has_aux else (out,)

    head, key = run("func.vjp", owner, d.inputs.tensors, forward)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if ct_spec != specs["out"]:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {treespec_pprint(ct_spec)}, primal output: "
                               f"{treespec_pprint(specs['out'])}")
        for i, (c, (shape, _)) in enumerate(zip(cts, specs["meta"])):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(c)}")
            if tuple(c.shape) != tuple(shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] "
                                   f"has a shape of {Tensor._from_array(jnp.zeros(shape)).shape}.")
        n = len(d.inputs.tensors)

        def backward(arrays, invoke, key):
            def f(diff):
                out, _ = _split_aux(d.call(arrays[:n], diff, invoke), has_aux, _API["vjp"])
                return _outputs(out, "vjp")[0]

            _, pull = jax.vjp(f, d.diff_arrays(arrays[:n]))
            cts = [c.astype(dt) for c, (_, dt) in zip(arrays[n:], specs["meta"])]
            return list(pull(cts)[0]), lambda res: tuple(tree_unflatten(res, d.diff_spec))

        return run("func.vjp_backward", owner, [*d.inputs.tensors, *cts], backward, key)[0]

    out = head[0]
    return (out, vjp_fn, head[1]) if has_aux else (out, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (func(*primals), the directional derivative along `tangents`[, aux])."""
    api = _API["jvp"]
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    _check_diff(primals, forward=True)
    for p, t in zip(p_leaves, t_leaves):
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: Expected tangents to only contain Tensors, got {type(t)}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    return _jvp_run(Transformed(func), primals, p_leaves, t_leaves, has_aux)[0]


def _jvp_run(owner, primals, p_leaves, t_leaves, has_aux, key=None):
    d = _Diff(owner.fn, primals, {}, tuple(range(len(primals))))
    specs = {}
    n = len(d.inputs.tensors)

    def core(arrays, invoke, key):
        def f(diff):
            out, aux = _split_aux(d.call(arrays[:n], diff, invoke), has_aux, _API["jvp"])
            outs, specs["out"] = _outputs(out, "jvp")
            aux_arrays, specs["aux"] = _aux_arrays(aux) if has_aux else ([], None)
            return outs, aux_arrays

        diff = d.diff_arrays(arrays[:n])
        tans = [t.astype(p.dtype) for t, p in zip(arrays[n:], diff)]
        outs, tout, aux = jax.jvp(f, (diff,), (tans,), has_aux=True)
        return [*outs, *tout, *aux], rebuild

    def rebuild(res):
        k = specs["out"].num_leaves
        out, tan = tree_unflatten(res[:k], specs["out"]), tree_unflatten(res[k:2 * k], specs["out"])
        return (out, tan, tree_unflatten(res[2 * k:], specs["aux"])) if has_aux else (out, tan)

    return run("func.jvp", owner, [*d.inputs.tensors, *t_leaves], core, key)


def linearize(func, *primals):
    """torch.func.linearize: (func(*primals), jvp_fn); jvp_fn(*tangents) is the jvp at `primals`."""
    owner = Transformed(func)
    p_leaves, p_spec = tree_flatten(primals)
    _check_diff(primals, forward=True)
    zeros = [Tensor._from_array(jnp.zeros(p.shape, p._arr().dtype), p._device) for p in p_leaves]
    (out, _), key = _jvp_run(owner, primals, p_leaves, zeros, False)

    def jvp_fn(*tangents):
        t_leaves, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents to have the structure of the primals {p_spec}, got {t_spec}")
        return _jvp_run(owner, primals, p_leaves, t_leaves, False, key)[0][1]

    return out, jvp_fn


# ------------------------------------------------------------------------------------ jacobians, hessian

def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev: the Jacobian by reverse mode (output structure outside, inputs' inside)."""
    _check_chunk(chunk_size)
    return _Jacobian(func, argnums, has_aux, "rev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the Jacobian by forward mode (random ops follow vmap's `randomness`)."""
    from ._vmap import check_randomness

    check_randomness(randomness)
    return _Jacobian(func, argnums, has_aux, "fwd", randomness)


def hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func)), nested like torch's for tuple argnums."""
    return _Jacobian(func, argnums, False, "hessian")


def _check_chunk(chunk_size):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")


class _Jacobian(Transformed):
    def __init__(self, fn, argnums, has_aux, mode, randomness="error"):
        super().__init__(fn)
        self.argnums, self.has_aux, self.mode, self.randomness = argnums, has_aux, mode, randomness

    def __call__(self, *args, **kwargs):
        nums = _argnums(self.argnums, len(args))
        argnums = nums[0] if isinstance(self.argnums, int) else nums
        api = _API["vjp" if self.mode == "rev" else "jvp"]
        _check_diff([args[i] for i in nums], forward=self.mode == "fwd")
        d = _Diff(self.fn, args, kwargs, argnums)
        specs = {}

        def core(arrays, invoke, key):
            def f(diff):
                out, aux = _split_aux(d.call(arrays, diff, invoke), self.has_aux, api)
                outs, specs["out"] = _outputs(out, "vjp" if self.mode != "fwd" else "jvp")
                aux_arrays, specs["aux"] = _aux_arrays(aux) if self.has_aux else ([], None)
                return outs, aux_arrays

            transform = {"rev": jax.jacrev, "fwd": jax.jacfwd, "hessian": jax.hessian}[self.mode]
            with _randomness(self.randomness if self.mode == "fwd" else "same"):
                if self.mode == "hessian":
                    jac, aux = transform(lambda diff: f(diff)[0])(d.diff_arrays(arrays)), []
                else:
                    jac, aux = transform(f, has_aux=True)(d.diff_arrays(arrays))
            specs["n"] = len(jac)
            return [a for row in jac for a in _leaves(row)] + list(aux), rebuild

        def rebuild(res):
            m = len(d.diff_pos) ** (2 if self.mode == "hessian" else 1)
            rows = [self._nest(d, res[i * m:(i + 1) * m]) for i in range(specs["n"])]
            jac = tree_unflatten(rows, specs["out"])
            return (jac, tree_unflatten(res[specs["n"] * m:], specs["aux"])) if self.has_aux else jac

        return run(f"func.jac{self.mode}", self, d.inputs.tensors, core)[0]

    def _nest(self, d, flat):
        if self.mode != "hessian":
            return d.diff_tree(flat)
        k = len(d.diff_pos)
        return d.diff_tree([d.diff_tree(flat[i * k:(i + 1) * k]) for i in range(k)])


def _leaves(row):
    """jax's per-output Jacobian row (a list over inputs, nested for the Hessian) as flat arrays."""
    return jax.tree_util.tree_leaves(row)


def _randomness(mode):
    """jacfwd's randomness: 'error' makes random ops raise as under vmap; otherwise draws are shared."""
    return generator_key(RandomnessError()) if mode == "error" else contextlib.nullcontext()
