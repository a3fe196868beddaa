"""torch.distributed.device_mesh: `init_device_mesh` and `DeviceMesh`, over the local devices of one process.

In torch a DeviceMesh is a grid of ranks, one process per device. Here one process drives every device of the
grid through one SPMD program (see facade.distributed._spmd), so a DeviceMesh wraps a `jax.sharding.Mesh` of
this process's devices (`.jax_mesh`): its "ranks" are the indices of the local devices it holds, `get_rank()`
is this process's rank, and `get_local_rank()` / `get_coordinate()` are those of the process's first device.
Across processes, init_device_mesh gives the 1-D mesh of the default group's ranks (`ProcessMesh`, what
fully_shard shards over there); other meshes spanning processes are not built here (NotImplementedError). A
local mesh's `get_group` has no process group to return (its collectives run inside the programs).
"""

from __future__ import annotations

import math

import jax
import numpy as np

from .. import _creation
from .. import _dtype as D
from . import _pg, _spmd

__all__ = ["init_device_mesh", "DeviceMesh", "ProcessMesh"]


class DeviceMesh:
    """DeviceMesh(device_type, mesh, *, mesh_dim_names=None): `mesh` is an n-d array (or tensor, list) of local
    device indices."""

    def __init__(self, device_type: str, mesh, *, mesh_dim_names=None, _init_backend=True):
        _spmd.check_single_process("DeviceMesh")
        ranks = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, dtype=np.int64)
        if ranks.ndim == 0:
            ranks = ranks.reshape(1)
        platform = {"cuda": "gpu"}.get(device_type, device_type)
        devices = jax.local_devices(backend=platform)
        if ranks.size and (ranks.min() < 0 or ranks.max() >= len(devices)):
            raise RuntimeError(f"Mesh should not be bigger than default world size {len(devices)}, but found "
                               f"{ranks.size} ranks!")
        names = None if mesh_dim_names is None else tuple(mesh_dim_names)
        if names is not None:
            if len(names) != ranks.ndim:
                raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found "
                                   f"len(mesh_dim_names): {len(names)} and len(mesh_shape):{ranks.ndim}.")
            if len(set(names)) != len(names):
                raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                   f"mesh_dim_names {names}")
        self.device_type, self.mesh_dim_names, self._ranks = device_type, names, ranks
        axes = names or (("dp",) if ranks.ndim == 1 else tuple(f"dim_{i}" for i in range(ranks.ndim)))
        grid = np.empty(ranks.shape, dtype=object)
        for idx, r in np.ndenumerate(ranks):
            grid[idx] = devices[r]
        self.jax_mesh = jax.sharding.Mesh(grid, axes)

    @property
    def mesh(self):
        """The grid of (local device) ranks, an int32 tensor as torch's."""
        return _creation.tensor(self._ranks.tolist(), dtype=D.int32)

    @property
    def shape(self) -> tuple:
        return tuple(self._ranks.shape)

    @property
    def ndim(self) -> int:
        return self._ranks.ndim

    def size(self, mesh_dim=None) -> int:
        return self._ranks.size if mesh_dim is None else self._ranks.shape[self._dim(mesh_dim)]

    def get_rank(self) -> int:
        return jax.process_index()

    def get_local_rank(self, mesh_dim=None) -> int:
        if mesh_dim is None and self.ndim > 1:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.")
        return self.get_coordinate()[self._dim(mesh_dim or 0)]

    def get_coordinate(self):
        """The coordinate of the process's first device in the mesh."""
        return (0,) * self.ndim

    def get_group(self, mesh_dim=None):
        raise NotImplementedError("torch.distributed.DeviceMesh.get_group: a mesh of local devices has no process "
                                  "group in facade (its collectives run inside the SPMD programs)")

    def get_all_groups(self):
        return self.get_group()

    def _dim(self, mesh_dim):
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Invalid mesh_dim_names ('{mesh_dim}',) specified. Valid mesh_dim_names are "
                               f"{list(self.mesh_dim_names or ())}.")
            return self.mesh_dim_names.index(mesh_dim)
        return int(mesh_dim)

    def __getitem__(self, names):
        """The sub-mesh along the named dimension(s), through the process's first device."""
        names = (names,) if isinstance(names, str) else tuple(names)
        if not self.mesh_dim_names or any(n not in self.mesh_dim_names for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names or ())}.")
        dims = [self.mesh_dim_names.index(n) for n in names]
        coord = self.get_coordinate()
        index = tuple(slice(None) if d in dims else coord[d] for d in range(self.ndim))
        sub = np.transpose(self._ranks[index], [sorted(dims).index(d) for d in dims])
        return DeviceMesh(self.device_type, sub, mesh_dim_names=names)

    def _strides(self):
        return tuple(math.prod(self.shape[i + 1:]) for i in range(self.ndim))

    def __repr__(self):
        dims = (", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape)) if self.mesh_dim_names
                else ", ".join(map(str, self.shape)) + ("," if self.ndim == 1 else ""))
        return f"DeviceMesh(({dims}), '{self.device_type}', stride={self._strides()})"

    def __eq__(self, other):
        return (isinstance(other, DeviceMesh) and self.device_type == other.device_type
                and self.mesh_dim_names == other.mesh_dim_names and np.array_equal(self._ranks, other._ranks))

    def __hash__(self):
        return hash((self.device_type, self.mesh_dim_names, self._ranks.tobytes(), self._ranks.shape))


class ProcessMesh(DeviceMesh):
    """The 1-D mesh of the default process group's ranks (one per process), as init_device_mesh gives it across
    processes: fully_shard shards over it, a DTensor reports it as its device_mesh."""

    def __init__(self, device_type: str, mesh_dim_names=None):
        world = _pg.get_world_size(None)
        self.device_type, self.mesh_dim_names = device_type, None if mesh_dim_names is None else tuple(mesh_dim_names)
        self._ranks = np.arange(world)

    def get_rank(self) -> int:
        return _pg.get_rank(None)

    def get_coordinate(self):
        return (self.get_rank(),)

    def get_group(self, mesh_dim=None):
        from . import group

        return group.WORLD

    def __getitem__(self, names):
        names = (names,) if isinstance(names, str) else tuple(names)
        if names != self.mesh_dim_names:
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names or ())}.")
        return self


def init_device_mesh(device_type: str, mesh_shape, *, mesh_dim_names=None, backend_override=None) -> DeviceMesh:
    """A DeviceMesh of `mesh_shape` over this process's first prod(mesh_shape) devices of `device_type`; across
    processes, the 1-D mesh of the default group's ranks (`ProcessMesh`)."""
    shape = (mesh_shape,) if isinstance(mesh_shape, int) else tuple(mesh_shape)
    if _pg.spans_processes():
        world = _pg.get_world_size(None)
        if shape != (world,):
            raise NotImplementedError(f"init_device_mesh({shape}) across processes is not supported by facade: only "
                                      f"the 1-D mesh of every rank, ({world},), is (fully_shard shards over it)")
        if mesh_dim_names is not None and len(tuple(mesh_dim_names)) != 1:
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                               f"{len(tuple(mesh_dim_names))} and len(mesh_shape):1.")
        return ProcessMesh(device_type, mesh_dim_names)
    _spmd.check_single_process("init_device_mesh")
    if mesh_dim_names is not None and len(tuple(mesh_dim_names)) != len(shape):
        raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(tuple(mesh_dim_names))} and len(mesh_shape):{len(shape)}.")
    n = math.prod(shape)
    local = len(jax.local_devices(backend={"cuda": "gpu"}.get(device_type, device_type)))
    if n > local:
        raise RuntimeError(f"Mesh should not be bigger than default world size {local}, but found {n} ranks!")
    return DeviceMesh(device_type, np.arange(n).reshape(shape), mesh_dim_names=mesh_dim_names)
