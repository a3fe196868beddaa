"""torch.distributed on JAX's distributed runtime: process groups, collectives, object collectives.

`init_process_group` starts `jax.distributed.initialize` (one process per rank, one device per process;
CPU collectives through JAX's gloo), and each collective is one jitted JAX program over the mesh of the
group's devices (see _collectives). Names below that are not built yet raise NotImplementedError naming
the torch API; the constants and types scripts reference at import time exist.
"""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class
from . import device_mesh, fsdp  # noqa: F401  (torch.distributed.device_mesh / .fsdp as attributes)
from ._collectives import (
    RedOpType,
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_single,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter_single,
    reduce_scatter_tensor,
    scatter,
)
from ._extras import (
    all_gather_coalesced,
    all_reduce_coalesced,
    monitored_barrier,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._p2p import P2POp, batch_isend_irecv, irecv, isend, recv, recv_object_list, send, send_object_list
from ._pg import (
    GroupMember,
    ProcessGroup,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_initialized,
    new_group,
)
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore
from .device_mesh import DeviceMesh, init_device_mesh

_OWNER = "not built on JAX's distributed runtime here"
_MISSING = (
    "get_backend_config", "reduce_scatter", "get_node_local_rank", "get_pg_count",
    "get_default_backend_for_device", "register_rendezvous_handler", "rendezvous", "split_group",
    "breakpoint",
)
_CLASSES = ("GradBucket", "Reducer", "Logger")

__all__ = [
    "is_available", "is_initialized", "is_nccl_available", "is_gloo_available", "is_mpi_available",
    "is_ucc_available", "is_xccl_available", "is_backend_available", "is_torchelastic_launched", "ReduceOp",
    "RedOpType", "Backend", "group", "GroupMember", "DistError", "DistBackendError", "DistNetworkError",
    "DistStoreError", "default_pg_timeout", "ProcessGroup", "Work", "init_process_group", "destroy_process_group",
    "get_rank", "get_world_size", "get_backend", "new_group", "get_global_rank", "get_group_rank",
    "get_process_group_ranks", "barrier", "all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
    "all_gather_single", "reduce_scatter_single",
    "broadcast", "reduce", "scatter", "gather", "all_to_all", "all_to_all_single", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "DeviceMesh", "init_device_mesh",
    "P2POp", "send", "recv", "isend", "irecv", "batch_isend_irecv", "send_object_list", "recv_object_list",
    "all_reduce_coalesced", "all_gather_coalesced", "monitored_barrier", "new_subgroups",
    "new_subgroups_by_enumeration", "Store", "TCPStore", "FileStore", "HashStore", "PrefixStore",
    *_MISSING, *_CLASSES,
]

globals().update({n: unsupported(f"torch.distributed.{n}", _OWNER) for n in _MISSING})
globals().update({n: unsupported_class(f"torch.distributed.{n}", _OWNER) for n in _CLASSES})


def is_available() -> bool:
    return True


def is_backend_available(backend: str) -> bool:
    return str(backend).lower() in ("gloo", "nccl")


def is_gloo_available() -> bool:
    return True


def is_nccl_available() -> bool:
    """nccl names JAX's GPU collectives: available where JAX sees a GPU."""
    from .._device import gpus

    return bool(gpus())


def _false() -> bool:
    return False


is_mpi_available = is_ucc_available = is_xccl_available = _false


def is_torchelastic_launched() -> bool:
    import os

    return os.getenv("TORCHELASTIC_RUN_ID") is not None


class Backend(str):
    """torch.distributed.Backend: a backend name, lower-cased ('nccl', 'gloo', ...)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)} {name}")
        return str.__new__(cls, name.lower())


class DistError(RuntimeError):
    """Errors of torch.distributed."""


class DistBackendError(DistError):
    pass


class DistNetworkError(DistError):
    pass


class DistStoreError(DistError):
    pass
