"""Single-process SPMD: a model and its batches laid out on a `jax.sharding.Mesh` of the local devices.

A facade Tensor wraps a jax.Array (`Tensor._data`). Putting a tensor on a mesh replaces that array by the same
values laid out by a `NamedSharding`; the tensor stays one logical tensor (the analogue of torch's DTensor).
Every facade op is a jitted JAX function, so an op on sharded arrays is one SPMD program over all the mesh's
devices, with the collectives XLA's sharding propagation inserts (an all-reduce of the gradient of a replicated
weight, the all-gathers of a sharded one). Nothing here communicates by itself; no launch is needed.

Layouts (each leaves values, shapes, dtypes and autograd unchanged):

- `data_parallel(module, mesh)`: parameters and buffers replicated on every device (DDP's layout).
- `fully_shard_module(module, mesh)`: each parameter sharded along its largest dimension divisible by the mesh
  size (`fsdp_spec`; replicated when none is), buffers replicated (FSDP's layout; torch shards dim 0 with padding).
- `shard_batch(batch, mesh)`: every tensor of a batch (nested lists, tuples, dicts) sharded along dim 0 when it
  divides by the mesh size, else replicated. Recorded by autograd and traced by torch.compile.
- `place(tensor, sharding)` lays out one state tensor (and its `.grad`) in place; `distribute(tensor, sharding)`
  returns a laid-out copy through the dispatch chokepoint; `gather(tensor)` returns a full copy on the default
  device (what a FULL_STATE_DICT holds); `place_optimizer_state(opt)` makes existing optimizer state follow
  its parameter's layout. Optimizer state created later follows it by itself (`full_like` keeps the sharding).

A compiled whole step (`torch.compile(step)`) takes sharded state as it is: its program runs on the mesh, and
state it first meets uncommitted (a fresh `step` counter, the generator key) is replicated over the same mesh.
The mesh is `local_mesh()` (every local device, one axis "dp") unless one is passed, as a `jax.sharding.Mesh`
or a `facade.distributed.device_mesh.DeviceMesh`.
"""

from __future__ import annotations

import math

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .. import _creation, _dispatch
from .._device import jax_device
from .._tensor import Tensor, _device_put_op

__all__ = ["local_mesh", "as_mesh", "fsdp_spec", "batch_spec", "place", "distribute", "gather", "shard_batch",
           "data_parallel", "fully_shard_module", "place_optimizer_state", "sharding_of", "is_sharded",
           "check_single_process"]


def local_mesh(mesh_shape=None, mesh_dim_names=None, device_type=None) -> Mesh:
    """A Mesh of this process's devices of `device_type` ('cpu', 'cuda'; default: JAX's default platform),
    `mesh_shape` (default: all of them on one axis) named `mesh_dim_names` (default 'dp', or 'dim_0', ...)."""
    platform = {"cuda": "gpu", None: None}.get(device_type, device_type)
    devices = jax.local_devices(backend=platform)
    shape = (len(devices),) if mesh_shape is None else tuple(int(s) for s in mesh_shape)
    n = math.prod(shape)
    if n > len(devices):
        raise RuntimeError(f"Mesh should not be bigger than default world size {len(devices)}, but found {n} ranks!")
    if mesh_dim_names is None:
        mesh_dim_names = ("dp",) if len(shape) == 1 else tuple(f"dim_{i}" for i in range(len(shape)))
    mesh_dim_names = tuple(mesh_dim_names)
    if len(mesh_dim_names) != len(shape):
        raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(mesh_dim_names)} and len(mesh_shape):{len(shape)}.")
    return Mesh(np.array(devices[:n], dtype=object).reshape(shape), mesh_dim_names)


def as_mesh(mesh=None) -> Mesh:
    """The jax Mesh of `mesh` (a jax Mesh, a DeviceMesh, or None for `local_mesh()`)."""
    if mesh is None:
        return local_mesh()
    if isinstance(mesh, Mesh):
        return mesh
    jm = getattr(mesh, "jax_mesh", None)
    if isinstance(jm, Mesh):
        return jm
    raise TypeError(f"expected a DeviceMesh or a jax.sharding.Mesh as mesh, got {type(mesh).__name__}")


def check_single_process(api: str):
    """Multi-process sharding (a mesh across processes) is not built here: refuse it by name."""
    if jax.process_count() > 1:
        raise NotImplementedError(f"{api} over several processes is not supported by facade: it shards over the "
                                  f"local devices of one process only (this is process {jax.process_index()} of "
                                  f"{jax.process_count()}); use DistributedDataParallel across processes")


def _axes(mesh):
    """All mesh axes as one sharded dimension's entry: 'dp', or ('dp', 'tp') for a 2-D mesh."""
    names = tuple(mesh.axis_names)
    return names[0] if len(names) == 1 else names


def fsdp_spec(shape, mesh) -> PartitionSpec:
    """The largest dimension of `shape` divisible by the mesh's size, sharded over all its axes (the first such
    dimension on a tie); replicated when no dimension divides."""
    n = mesh.size
    dims = [d for d, s in enumerate(shape) if s >= n and s % n == 0]
    if n == 1 or not dims:
        return PartitionSpec()
    best = max(dims, key=lambda d: (shape[d], -d))
    return PartitionSpec(*([None] * best), _axes(mesh))


def batch_spec(shape, mesh) -> PartitionSpec:
    """Dimension 0 sharded over all the mesh's axes when it divides by the mesh size, else replicated."""
    if len(shape) and shape[0] % mesh.size == 0 and mesh.size > 1:
        return PartitionSpec(_axes(mesh))
    return PartitionSpec()


def _sharding(sharding, mesh):
    return sharding if isinstance(sharding, jax.sharding.Sharding) else NamedSharding(as_mesh(mesh), sharding)


def place(tensor: Tensor, sharding, mesh=None) -> Tensor:
    """Lay out a state tensor (parameter, buffer, optimizer state) in place by `sharding` (a Sharding, or a
    PartitionSpec on `mesh`), and its `.grad` alike. Values and autograd are unchanged."""
    s = _sharding(sharding, mesh)
    tensor._assign_data(jax.device_put(tensor._arr(), s))
    g = tensor._grad
    if g is not None:
        g._assign_data(jax.device_put(g._arr(), s))
    return tensor


def distribute(tensor: Tensor, sharding, mesh=None) -> Tensor:
    """A copy of `tensor` laid out by `sharding`: one op of the dispatch chokepoint, so autograd records it and
    torch.compile traces it (as a sharding constraint)."""
    res = _dispatch.call(_device_put_op(), (tensor, _sharding(sharding, mesh)), None)
    res._device = tensor._device
    return res


def gather(tensor: Tensor) -> Tensor:
    """A full, unsharded copy of `tensor` on its device (uncommitted on the default device, like a new tensor)."""
    out = Tensor._from_array(_creation._put(np.asarray(tensor._arr()), jax_device(tensor._device)), tensor._device)
    out.requires_grad = tensor.requires_grad
    return out


def shard_batch(batch, mesh=None):
    """Every tensor of `batch` (a tensor, or nested lists/tuples/dicts of them) sharded along dim 0 over the
    mesh (`batch_spec`); other values are returned as they are."""
    m = as_mesh(mesh)
    if isinstance(batch, Tensor):
        return distribute(batch, NamedSharding(m, batch_spec(batch.shape, m)))
    if isinstance(batch, dict):
        return type(batch)((k, shard_batch(v, m)) for k, v in batch.items())
    if isinstance(batch, (list, tuple)):
        out = [shard_batch(v, m) for v in batch]
        return type(batch)(*out) if hasattr(batch, "_fields") else type(batch)(out)
    return batch


def _state_tensors(module):
    for t in (*module.parameters(), *module.buffers()):
        if t is not None and t._base is None and t._device.type != "meta":
            yield t


def data_parallel(module, mesh=None):
    """Replicate every parameter and buffer of `module` over the mesh (in place); returns `module`."""
    rep = NamedSharding(as_mesh(mesh), PartitionSpec())
    for t in _state_tensors(module):
        place(t, rep)
    return module


def fully_shard_module(module, mesh=None, params=None):
    """Shard each parameter of `module` (or only those in `params`) by `fsdp_spec` and replicate its buffers,
    in place; returns `module`."""
    m = as_mesh(mesh)
    for p in module.parameters():
        if p._base is None and p._device.type != "meta" and (params is None or p in params):
            place(p, NamedSharding(m, fsdp_spec(p.shape, m)))
    rep = NamedSharding(m, PartitionSpec())
    for b in module.buffers():
        if b is not None and b._base is None:
            place(b, rep)
    return module


def place_optimizer_state(optimizer):
    """Lay out an optimizer's existing state like its parameters: a state tensor of the parameter's shape takes
    the parameter's sharding, any other one (the `step` counter) is replicated over the same mesh."""
    for p, st in optimizer.state.items():
        s = sharding_of(p) if isinstance(p, Tensor) else None
        if not isinstance(s, NamedSharding) or not isinstance(st, dict):
            continue
        rep = NamedSharding(s.mesh, PartitionSpec())
        for v in st.values():
            if isinstance(v, Tensor) and v._base is None:
                place(v, s if v.shape == p.shape else rep)
    return optimizer


def sharding_of(tensor: Tensor):
    """The jax Sharding of a tensor's array (None for a tracer or a meta tensor)."""
    return getattr(tensor._arr(), "sharding", None)


def is_sharded(tensor: Tensor) -> bool:
    """True when the tensor's array is split across devices (not fully replicated)."""
    s = sharding_of(tensor)
    return s is not None and not s.is_fully_replicated
