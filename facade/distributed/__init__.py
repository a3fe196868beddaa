"""torch.distributed: importable, and answering truthfully that it is not available here.

Multi-process collectives are the distributed issue's; until it lands every operation raises
NotImplementedError naming the torch API. The constants and types scripts reference at import
time (ReduceOp.SUM, Backend.NCCL, group.WORLD, the error classes) exist.
"""

from __future__ import annotations

import datetime
import enum

from .._unsupported import unsupported, unsupported_class

_OWNER = "multi-process training is the distributed issue"

_FUNCTIONS = (
    "init_process_group", "destroy_process_group", "get_rank", "get_world_size", "get_backend", "get_backend_config",
    "new_group", "new_subgroups", "new_subgroups_by_enumeration", "barrier", "monitored_barrier", "all_reduce",
    "all_reduce_coalesced", "all_gather", "all_gather_coalesced", "all_gather_into_tensor", "all_gather_object",
    "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "gather", "gather_object", "scatter", "scatter_object_list", "send", "recv", "isend",
    "irecv", "send_object_list", "recv_object_list", "batch_isend_irecv", "get_global_rank", "get_group_rank",
    "get_process_group_ranks", "get_node_local_rank", "get_pg_count", "get_default_backend_for_device",
    "init_device_mesh", "register_rendezvous_handler", "rendezvous", "split_group", "breakpoint",
)
_CLASSES = ("ProcessGroup", "Store", "TCPStore", "FileStore", "HashStore", "PrefixStore", "Work", "P2POp",
            "DeviceMesh", "GradBucket", "Reducer", "Logger")

__all__ = ["is_available", "is_initialized", "is_nccl_available", "is_gloo_available", "is_mpi_available",
           "is_ucc_available", "is_xccl_available", "is_backend_available", "is_torchelastic_launched",
           "ReduceOp", "Backend", "group", "GroupMember", "DistError", "DistBackendError", "DistNetworkError",
           "DistStoreError", "default_pg_timeout", *_FUNCTIONS, *_CLASSES]

globals().update({n: unsupported(f"torch.distributed.{n}", _OWNER) for n in _FUNCTIONS})
globals().update({n: unsupported_class(f"torch.distributed.{n}", _OWNER) for n in _CLASSES})


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return False


is_nccl_available = is_gloo_available = is_mpi_available = is_ucc_available = is_xccl_available = is_available


def is_torchelastic_launched() -> bool:
    return False


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __str__(self):
        return f"RedOpType.{self.name}"


class ReduceOp:
    """torch.distributed.ReduceOp: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, PREMUL_SUM."""

    RedOpType = RedOpType


for _op in RedOpType:
    setattr(ReduceOp, _op.name, _op)


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


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD = None


class DistError(RuntimeError):
    """Errors of torch.distributed."""


class DistBackendError(DistError):
    pass


class DistNetworkError(DistError):
    pass


class DistStoreError(DistError):
    pass


default_pg_timeout = datetime.timedelta(minutes=30)
