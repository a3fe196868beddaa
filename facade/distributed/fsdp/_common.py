"""What FullyShardedDataParallel and fully_shard share: the layout of the parameters a wrapper manages, and a
forward that shards the root's batch and applies a mixed-precision policy."""

from __future__ import annotations

import contextlib

import jax
from jax.sharding import NamedSharding, PartitionSpec

from ... import _dtype as D
from ..._tensor import Tensor
from ...func._module import _reparametrize
from .. import _spmd

_ACTIVE = []  # the FSDP forwards running now: the outermost one is the root (it shards the batch)


class Layout:
    """The parameters one wrapper manages, as (module, name, sharding) with their names under the wrapped
    module, the buffers (replicated) and the mesh. Laying out happens at construction and after a load."""

    def __init__(self, module, mesh, shard=True, ignored=(), placement=None):
        self.mesh = _spmd.as_mesh(mesh)
        ignored = {id(p) for p in ignored}
        taken = {id(p) for m in module.modules() if m is not module and getattr(m, "_fsdp_layout", None)
                 for p in m._fsdp_layout.params()}
        self.entries, self.names, seen = [], [], set()
        rep = NamedSharding(self.mesh, PartitionSpec())
        self.buffers = [(sub, name, rep) for sub in module.modules() for name, b in sub._buffers.items()
                        if b is not None]
        for prefix, sub in module.named_modules(remove_duplicate=False):
            for name, p in sub._parameters.items():
                if p is None or id(p) in seen or id(p) in ignored or id(p) in taken or p._device.type == "meta":
                    continue
                seen.add(id(p))
                spec = PartitionSpec()
                if shard:
                    dim = placement(p) if placement is not None else None
                    spec = _spmd.fsdp_spec(p.shape, self.mesh) if dim is None else _dim_spec(p, dim, self.mesh)
                self.entries.append((sub, name, NamedSharding(self.mesh, spec)))
                self.names.append(f"{prefix}.{name}" if prefix else name)
                if spec != PartitionSpec() and p.requires_grad:
                    p.register_post_accumulate_grad_hook(_grad_like(self.entries[-1][2]))
        self.apply()

    def params(self):
        return [sub._parameters[name] for sub, name, _ in self.entries]

    def apply(self):
        """Lay out every managed parameter and buffer that is not laid out as it should be (after a load)."""
        for store, items in (("_parameters", self.entries), ("_buffers", self.buffers)):
            for sub, name, s in items:
                t = getattr(sub, store).get(name)
                if t is not None and t._base is None and _spmd.sharding_of(t) != s:
                    _spmd.place(t, s)


def _grad_like(sharding):
    """A hook laying out a parameter's accumulated gradient like the parameter (eagerly XLA may leave it
    replicated; traced, it is a sharding constraint of the step's program)."""

    def hook(p):
        g = p._grad
        if g is not None and g._base is None:
            a = g._data
            if isinstance(a, jax.core.Tracer) or a.sharding != sharding:
                g._data = jax.device_put(a, sharding)

    return hook


def _dim_spec(p, placement, mesh):
    dim = getattr(placement, "dim", placement)
    if not isinstance(dim, int) or not -p.ndim <= dim < p.ndim:
        raise ValueError(f"fully_shard: shard_placement_fn returned {placement!r} for a parameter of shape "
                         f"{tuple(p.shape)}; expected Shard(dim) with a dimension of it, or None")
    dim %= p.ndim
    if p.shape[dim] % mesh.size:
        raise NotImplementedError(f"fully_shard: dimension {dim} of a parameter of shape {tuple(p.shape)} does not "
                                  f"divide by the mesh size {mesh.size}; facade does not pad uneven shards")
    return PartitionSpec(*([None] * dim), _spmd._axes(mesh))


def _cast(tree, dtype):
    if dtype is None:
        return tree
    if isinstance(tree, Tensor):
        return tree.to(dtype) if tree.is_floating_point() else tree
    if isinstance(tree, dict):
        return type(tree)((k, _cast(v, dtype)) for k, v in tree.items())
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(_cast(v, dtype) for v in tree)
    return tree


def forward(owner, module, call, args, kwargs, param_dtype=None, cast_inputs=False, cast_root_inputs=False,
            output_dtype=None, ignore_classes=()):
    """Run `call(*args, **kwargs)` (the wrapped forward): the root shards its tensor inputs along dim 0 over the
    mesh; with a `param_dtype`, the managed floating-point parameters of `module` enter it cast to that dtype
    (a differentiable cast, so the gradients land on the full-precision parameters in their dtype)."""
    root = not _ACTIVE
    layout = owner._fsdp_layout
    if root:
        args, kwargs = _spmd.shard_batch((args, kwargs), layout.mesh)
    if param_dtype is not None and (cast_inputs or (root and cast_root_inputs)):
        args, kwargs = _cast((args, kwargs), param_dtype)
    swap = contextlib.nullcontext()
    if param_dtype is not None:
        skip = {id(p) for m in module.modules() if isinstance(m, ignore_classes) for p in m.parameters()}
        named = dict(module.named_parameters(remove_duplicate=False))
        casted = {n: named[n].to(param_dtype) for n in layout.names
                  if named[n].is_floating_point() and id(named[n]) not in skip and named[n].dtype != param_dtype}
        swap = _reparametrize(module, casted, True, False)
    _ACTIVE.append(owner)
    try:
        with swap:
            out = call(*args, **kwargs)
    finally:
        _ACTIVE.pop()
    return _cast(out, output_dtype)


def dtype_or_none(dtype, what):
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise TypeError(f"{what} must be a torch.dtype or None, got {type(dtype).__name__}")
    return dtype
