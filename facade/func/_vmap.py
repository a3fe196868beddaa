"""torch.func.vmap over jax.vmap: torch's in_dims/out_dims pytrees, randomness modes, chunk_size and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensor import Tensor
from ..utils._pytree import SUPPORTED_NODES, _get_node_type, tree_flatten, tree_is_leaf, tree_unflatten
from ._core import Inputs, RandomnessError, Transformed, fn_name, generator_key, run

__all__ = ["vmap", "check_randomness", "RandomnessError"]

def check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _broadcast(tree, spec):
    """`tree` (a prefix of `spec`, e.g. in_dims) broadcast to spec's leaves, or None if it does not fit."""
    if tree_is_leaf(tree):
        return [tree] * spec.num_leaves
    if spec.is_leaf() or _get_node_type(tree) != spec.type:
        return None
    children, ctx = SUPPORTED_NODES[spec.type].flatten_fn(tree)
    if len(children) != spec.num_children or ctx != spec.context:
        return None
    out = []
    for child, child_spec in zip(children, spec.children_specs):
        flat = _broadcast(child, child_spec)
        if flat is None:
            return None
        out += flat
    return out


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap: `func` mapped over dimension `in_dims` of its inputs (see the module docstring)."""
    check_randomness(randomness)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    return _VMap(func, in_dims, out_dims, randomness, chunk_size)


class _VMap(Transformed):
    def __init__(self, fn, in_dims, out_dims, randomness, chunk_size):
        super().__init__(fn)
        self.in_dims, self.out_dims, self.randomness, self.chunk_size = in_dims, out_dims, randomness, chunk_size

    def __call__(self, *args, **kwargs):
        dims, size = self._in_dims(args)
        if self.chunk_size is None or size <= self.chunk_size:
            return self._once(args, kwargs, dims)[0]
        leaves, spec = tree_flatten(args)
        pieces = [x.split(self.chunk_size, d) if d is not None else None for x, d in zip(leaves, dims)]
        runs = []
        for c in range((size + self.chunk_size - 1) // self.chunk_size):
            chunk = [p[c] if p is not None else x for p, x in zip(pieces, leaves)]
            runs.append(self._once(tree_unflatten(chunk, spec), kwargs, dims))
        _, out_spec, odims = runs[0]
        outs = [tree_flatten(r[0])[0] for r in runs]
        from .. import cat

        joined = [cat([o[i] for o in outs], d) if d is not None else outs[0][i] for i, d in enumerate(odims)]
        return tree_unflatten(joined, out_spec)

    # -------------------------------------------------------------------------------------- in_dims
    def _prefix(self):
        return f"vmap({fn_name(self.fn)}, in_dims={self.in_dims}, ...)(<inputs>)"

    def _in_dims(self, args):
        in_dims = self.in_dims
        if not isinstance(in_dims, (int, tuple)):
            raise ValueError(f"{self._prefix()}: expected `in_dims` to be int or a (potentially nested) tuple matching "
                             f"the structure of inputs, got: {type(in_dims)}.")
        if not args:
            raise ValueError(f"vmap({fn_name(self.fn)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                             "you are trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(args)
        dims = _broadcast(in_dims, spec)
        if dims is None:
            raise ValueError(f"{self._prefix()}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                             f"structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
        out = []
        for x, d in zip(leaves, dims):
            if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
                raise ValueError(f"{self._prefix()}: Got in_dim={d} for an input but in_dim must be either an integer "
                                 "dimension or None.")
            if d is not None and not isinstance(x, Tensor):
                raise ValueError(f"{self._prefix()}: Got in_dim={d} for an input but the input is of type {type(x)}. "
                                 "We cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
            if d is not None and not -x.ndim <= d < x.ndim:
                raise ValueError(f"{self._prefix()}: Got in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {x.ndim} so expected in_dim to satisfy -{x.ndim} <= in_dim < "
                                 f"{x.ndim}.")
            out.append(None if d is None else d % x.ndim)
        sizes = [x.shape[d] for x, d in zip(leaves, out) if d is not None]
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(s != sizes[0] for s in sizes):
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        return out, sizes[0]

    # -------------------------------------------------------------------------------------- one run
    def _once(self, args, kwargs, dims):
        name = fn_name(self.fn)
        inputs = Inputs((args, kwargs))
        nargs = len(tree_flatten(args)[0])
        tdims = [dims[p] if p < nargs else None for p in inputs.pos]  # kwargs are not mapped
        where = [i for i, d in enumerate(tdims) if d is not None]
        size = inputs.tensors[where[0]].shape[tdims[where[0]]]
        specs = {}

        def core(arrays, invoke, key):
            def inner(batched, keys):
                full = list(arrays)
                for i, a in zip(where, batched):
                    full[i] = a
                a, k = inputs.rebuild(full)
                with generator_key(RandomnessError() if self.randomness == "error" else keys):
                    out = invoke(self.fn, *a, **k)
                return self._outputs(out, name, batched[0]._trace, specs)

            keys, kaxis = key, None
            if self.randomness == "different":
                keys = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(key), size))
                kaxis = 0
            outs = jax.vmap(inner, in_axes=([tdims[i] for i in where], kaxis))([arrays[i] for i in where], keys)
            return [o[0] if d is None else jnp.moveaxis(o, 0, d) for o, d in zip(outs, specs["dims"])], specs["spec"]

        res, _ = run("func.vmap", self, inputs.tensors, lambda *a: _with_rebuild(core(*a)))
        return res, specs["spec"], specs["dims"]

    def _outputs(self, out, name, trace, specs):
        leaves, spec = tree_flatten(out)
        for o in leaves:
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you "
                                 "mean to set out_dims= to None for output?")
        od = self.out_dims
        if not all(d is None or isinstance(d, int) for d in tree_flatten(od)[0]):
            raise ValueError(f"vmap({name}, ..., out_dims={od}): `out_dims` must be an int, None or a python "
                             "collection of ints representing where in the outputs the vmapped dimension should "
                             "appear.")
        dims = _broadcast(od, spec)
        if dims is None:
            raise ValueError(f"vmap({name}, ..., out_dims={od})(<inputs>): out_dims is not compatible with the "
                             f"structure of `outputs`. out_dims has structure {tree_flatten(od)[1]} but outputs has "
                             f"structure {spec}.")
        arrays, norm = [], []
        for o, d in zip(leaves, dims):
            a = o._arr()
            if d is None:
                if getattr(a, "_trace", None) is trace:
                    raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            else:
                nd = o.ndim + 1
                if not isinstance(d, int) or not -nd <= d < nd:
                    raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                                     f"{d})")
                d %= nd
            arrays.append(a)
            norm.append(d)
        specs["spec"], specs["dims"] = spec, norm
        return arrays


def _with_rebuild(result):
    outs, spec = result
    return outs, lambda res: tree_unflatten(res, spec)
