"""The process group state of torch.distributed: init_process_group over `jax.distributed.initialize`.

One process is one rank and drives one JAX device (its first local device). With world_size > 1 the ranks
join JAX's distributed runtime (coordinator at MASTER_ADDR:MASTER_PORT, rank 0 hosts it; CPU collectives
through JAX's gloo), so a program over a mesh of one device per rank runs across the processes.
With world_size 1 nothing distributed is started: the mesh is the one local device.
"""

from __future__ import annotations

import atexit
import datetime
import os
import urllib.parse
import warnings

import jax
import numpy as np
from jax.sharding import Mesh

__all__ = ["ProcessGroup", "GroupMember", "group", "init_process_group", "destroy_process_group", "is_initialized",
           "default_group", "resolve", "new_group", "get_rank", "get_world_size", "get_backend",
           "get_process_group_ranks", "get_global_rank", "get_group_rank", "NON_GROUP_MEMBER", "default_pg_timeout"]

default_pg_timeout = datetime.timedelta(minutes=30)
NON_GROUP_MEMBER = -100
_BACKENDS = ("gloo", "nccl", "mpi", "ucc", "xccl", "undefined")
_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class ProcessGroup:
    """A set of global ranks (sorted) and the JAX mesh of their devices; made by init_process_group/new_group."""

    def __init__(self, ranks, backend, timeout, global_rank):
        self.ranks, self.backend, self.timeout = tuple(ranks), backend, timeout
        self._rank = self.ranks.index(global_rank)
        self.mesh = Mesh(np.array([_State.devices[r] for r in self.ranks]), ("p",))
        self.device = _State.devices[global_rank]
        self.serial = 0  # collectives started on this group (the same count on every member)
        self.broken = None  # why the group can no longer run collectives (after a timeout), see _faults

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return len(self.ranks)

    def name(self) -> str:
        return self.backend

    def __repr__(self):
        return f"ProcessGroup(ranks={list(self.ranks)}, backend={self.backend!r})"


class GroupMember:
    """torch's GroupMember: WORLD is the default group once initialized (None before)."""

    WORLD = None
    NON_GROUP_MEMBER = NON_GROUP_MEMBER


class group:
    WORLD = None


def _set_world(pg):
    _State.world = group.WORLD = GroupMember.WORLD = pg
    _State.groups = [] if pg is None else [pg]


class _State:
    world: ProcessGroup | None = None
    jax_world: tuple | None = None  # (world_size, rank) of the jax.distributed runtime once started
    devices: list = []
    groups: list = []
    non_member_ranks: list = []  # the ranks of the last new_group this rank is not in
    store = None  # the store given to init_process_group, if any


def is_initialized() -> bool:
    return _State.world is not None


def spans_processes(group=None) -> bool:
    """Whether `group` (the default one by default) is an initialised process group of more than one rank: what
    decides whether a wrapper (DDP, FSDP, fully_shard, a device mesh) works across processes."""
    return is_initialized() and get_world_size(group) > 1


def default_group() -> ProcessGroup:
    if _State.world is None:
        raise ValueError(_NOT_INIT)
    return _State.world


def resolve(group, op=None) -> ProcessGroup | None:
    """The ProcessGroup collective `op` runs over (the default one for None); None (with torch's warning) when
    this rank is not a member."""
    world = default_group()
    if group is None:
        return world
    if group == NON_GROUP_MEMBER:
        if op is not None:
            warnings.warn(f"Running {op} on global rank {world.rank()} which does not belong to the given group.",
                          stacklevel=3)
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"Invalid process group: expected a ProcessGroup, but got {type(group).__name__}")
    return group


def _backend_name(backend) -> str:
    if backend is None:
        return "undefined"
    name = str(backend).lower()
    for part in name.split(","):
        b = part.split(":")[-1]
        if b not in _BACKENDS:
            raise AssertionError(f"Unknown backend type {b}")
        if b in ("mpi", "ucc", "xccl"):
            raise NotImplementedError(f"torch.distributed backend {b!r} is not supported by facade: collectives run "
                                      f"on JAX's own (gloo on CPU, nccl on GPU); pass 'gloo' or 'nccl'")
    return "undefined" if "," in name or ":" in name else name


def _env(name):
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                         f"{name} expected, but not set")
    return value


def _rendezvous(init_method, rank, world_size):
    """(host, port, rank, world_size) from `init_method` ('env://' or 'tcp://host:port[?rank=..&world_size=..]')."""
    url = urllib.parse.urlparse(init_method)
    query = dict(urllib.parse.parse_qsl(url.query))
    rank = int(query.get("rank", rank))
    world_size = int(query.get("world_size", world_size))
    if url.scheme == "env":
        rank = int(_env("RANK")) if rank == -1 else rank
        world_size = int(_env("WORLD_SIZE")) if world_size == -1 else world_size
        return _env("MASTER_ADDR"), int(_env("MASTER_PORT")), rank, world_size
    if url.scheme == "tcp":
        if rank == -1 or world_size == -1:
            raise ValueError(f"rank and world_size must be given with the tcp:// init_method, got rank={rank}, "
                             f"world_size={world_size}")
        if not url.hostname or url.port is None:
            raise ValueError(f"Error initializing torch.distributed using tcp:// rendezvous: port number missing "
                             f"in {init_method!r}")
        return url.hostname, url.port, rank, world_size
    raise NotImplementedError(f"torch.distributed.init_process_group: init_method {init_method!r} is not supported "
                              f"by facade: JAX's distributed runtime needs a coordinator address (use env:// or "
                              f"tcp://host:port)")


def _start_jax(host, port, rank, world_size, seconds):
    if _State.jax_world is not None:
        if _State.jax_world != (world_size, rank):
            raise RuntimeError(f"init_process_group: this process already joined a JAX distributed runtime as rank "
                               f"{_State.jax_world[1]} of {_State.jax_world[0]}; it cannot rejoin as rank {rank} of "
                               f"{world_size} (JAX starts its distributed runtime once per process)")
        return
    # recoverable: a rank that dies is marked dead in the coordination service instead of aborting every other
    # process, so the survivors see a RuntimeError at their next collective (see _faults)
    jax.config.update("jax_enable_recoverability", True)
    try:
        jax.distributed.initialize(f"{host}:{port}", num_processes=world_size, process_id=rank,
                                   initialization_timeout=seconds, heartbeat_timeout_seconds=min(seconds, 100),
                                   shutdown_timeout_seconds=min(seconds, 300))
        jax.config.update("jax_cpu_collectives_implementation", "gloo")  # read when the CPU backend starts
    except RuntimeError as e:
        jax.config.update("jax_enable_recoverability", False)  # no runtime: the process keeps JAX's default
        raise RuntimeError(f"init_process_group: JAX's distributed runtime could not start ({e}). It must start "
                           f"before the process makes its first tensor: call init_process_group first") from e
    _State.jax_world = (world_size, rank)
    from ._faults import at_exit  # here: _faults is only needed once a runtime runs

    # registered after JAX's own exit handler, so it runs before it (atexit runs the last registered first)
    atexit.register(at_exit, world_size, rank, min(seconds, 300), min(seconds, 100))


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None) -> None:
    """torch.distributed.init_process_group: join `world_size` ranks through JAX's distributed runtime."""
    if _State.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None and world_size <= 0:
        raise AssertionError("world_size must be positive if using store")
    if store is not None and rank < 0:
        raise AssertionError("rank must be non-negative if using store")
    name = _backend_name(backend)
    timeout = default_pg_timeout if timeout is None else timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    if store is None:
        host, port, rank, world_size = _rendezvous(init_method or "env://", rank, world_size)
    elif world_size > 1:  # the store only says where JAX's coordination service runs; the service does the rest
        from ._store import coordinator

        host, port = coordinator(store, rank, world_size)
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {world_size - 1}]")
    seconds = max(1, int(timeout.total_seconds()))
    if world_size > 1:
        _start_jax(host, port, rank, world_size, seconds)
        by_process = {}
        for d in jax.devices():
            by_process.setdefault(d.process_index, d)
        _State.devices = [by_process[p] for p in range(world_size)]
    else:
        _State.devices = [jax.local_devices()[0]]
    _set_world(ProcessGroup(range(world_size), name, timeout, rank))
    _State.store = store
    if store is not None and world_size > 1 and hasattr(store, "_publish_local"):
        store._publish_local()


def destroy_process_group(group=None) -> None:
    """Forget the default group (and every group) or one group. JAX's runtime itself stays up until exit."""
    if _State.world is None or (group is not None and group not in _State.groups):
        raise AssertionError("Process group cannot be None")
    from ._collectives import BEFORE  # here, not at the top: _collectives imports this module

    for f in BEFORE:  # point-to-point transfers still pending run first (torch's would complete too)
        f()
    if group is None or group is _State.world:
        _set_world(None)
    else:
        _State.groups.remove(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (all of them by default); GroupMember.NON_GROUP_MEMBER on other ranks."""
    world = default_group()
    ranks = sorted(world.ranks if ranks is None else (int(r) for r in ranks))
    if len(ranks) > world.size():
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    me = world.rank()
    if me not in ranks:
        _State.non_member_ranks = list(ranks)
        return NON_GROUP_MEMBER
    pg = ProcessGroup(ranks, world.backend if backend is None else _backend_name(backend),
                      world.timeout if timeout is None else timeout, me)
    _State.groups.append(pg)
    return pg


def get_rank(group=None) -> int:
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    from . import Backend

    return Backend(pg.backend)


def get_process_group_ranks(group) -> list[int]:
    """The global ranks of `group`; for NON_GROUP_MEMBER, torch's answer: those of the last group made that this
    rank is not in."""
    pg = resolve(group)
    return list(_State.non_member_ranks) if pg is None else list(pg.ranks)


def get_global_rank(group, group_rank: int) -> int:
    pg = resolve(group)
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group {pg} does not contain rank {group_rank}")
    return pg.ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    pg = resolve(group)
    if global_rank not in pg.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg.ranks.index(global_rank)
