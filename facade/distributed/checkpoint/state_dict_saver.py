"""torch.distributed.checkpoint.state_dict_saver: save, async_save and the older save_state_dict.

A save runs in three steps on every rank (a failure on any rank is raised on all, see _dist.py):
1. plan: the state dict is flattened (_nested.py) into items: one per non-tensor value, one per chunk of a
   tensor (a tensor laid out on a mesh gives one chunk per distinct shard, with its offsets; any other tensor
   one chunk). The ranks exchange their item lists; an item held by several ranks (a replicated DDP
   parameter) is written once, by the rank with the least planned bytes so far (torch's dedup_save_plans).
2. write: each rank writes its items to `__<rank>_0.distcp` (filesystem.py).
3. finish: the ranks exchange where each item went; rank 0 writes `.metadata`. Every rank returns Metadata.
"""

from __future__ import annotations

import io
import warnings
from collections import ChainMap
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum

import jax
import numpy as np

from ... import _dtype as D
from ... import serialization
from ..._creation import _put
from ..._device import CPU, jax_device
from ..._tensor import Size, Tensor
from ..tensor._dtensor import DTensor
from ..tensor.placement_types import Shard
from . import _storage
from ._dist import Ranks
from ._nested import flatten_state_dict, stateful_to_state_dict
from .default_planner import DefaultSavePlanner, resolve
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    TensorProperties,
    TensorStorageMetadata,
)

__all__ = ["save", "async_save", "save_state_dict", "AsyncCheckpointerType"]


class AsyncCheckpointerType(Enum):
    THREAD = "thread"
    PROCESS = "process"


@dataclass
class _Item:
    fqn: str
    offsets: tuple | None  # a tensor chunk's offsets; None for a whole non-tensor value
    nbytes: int | None
    tensor: tuple | None  # (dtype name, requires_grad, tensor size, chunk size)
    record: Callable[[], bytes]  # the torch.save record

    @property
    def key(self):
        return self.fqn, self.offsets

    def summary(self):
        return self.fqn, self.offsets, self.nbytes, self.tensor


def _record(obj) -> bytes:
    buf = io.BytesIO()
    serialization.save(obj, buf)
    return buf.getvalue()


def _chunk_record(data):
    # jax arrays are immutable, so holding `data` now is a snapshot: the save may finish later (async_save)
    return lambda: _record(Tensor._from_array(_put(np.asarray(data), jax_device(CPU)), CPU))


def _items(fqn, value):
    if not isinstance(value, Tensor):
        data = _record(value)  # pickled now: a later change of the object does not reach the checkpoint
        return [_Item(fqn, None, None, None, lambda: data)]
    t = value.detach()
    a = t._arr()
    shards = {}
    if isinstance(t, DTensor):  # this rank's rows of a Shard(0) DTensor (none where its part is empty)
        if t._local.numel() or not isinstance(t.placements[0], Shard):
            shards[(t._offset(),) + (0,) * (t.ndim - 1)] = a
    elif isinstance(a, jax.Array) and len(a.sharding.device_set) > 1 and not a.sharding.is_fully_replicated:
        for s in a.addressable_shards:  # replicas of one shard share its index: each is written once
            shards.setdefault(tuple(sl.start or 0 for sl in s.index), s.data)
    else:
        shards[(0,) * t.ndim] = a
    size = tuple(t.shape)
    return [_Item(fqn, offs, int(np.prod(d.shape)) * t.dtype.itemsize,
                  (t.dtype.name, t.requires_grad, size, tuple(d.shape)), _chunk_record(d))
            for offs, d in shards.items()]


def _dedup(plans, to_lowest_rank):
    """{key: the rank writing it}: torch's dedup_save_plans (the least-loaded holder, the lowest on a tie)."""
    holders = {}
    for rank, plan in enumerate(plans):
        for fqn, offsets, nbytes, _ in plan:
            holders.setdefault((fqn, offsets), []).append((rank, nbytes))
    load, owner = [0] * len(plans), {}
    for key, ranks in holders.items():
        rank = ranks[0][0] if to_lowest_rank else min((r for r, _ in ranks), key=lambda r: load[r])
        load[rank] += ranks[0][1] or 1
        owner[key] = rank
    return owner


def _metadata(plans, owner, written, paths) -> Metadata:
    where = {key: info for results in written for key, info in results}
    md, storage = {}, {}
    for rank, plan in enumerate(plans):
        for fqn, offsets, _, tensor in plan:
            if owner[(fqn, offsets)] != rank:
                continue
            info = where[(fqn, offsets)]
            if tensor is None:
                md[fqn] = BytesStorageMetadata()
                storage[MetadataIndex(fqn)] = info
                continue
            dtype, requires_grad, size, sizes = tensor
            props = TensorProperties(dtype=D._NAMES[dtype], requires_grad=requires_grad)
            tmd = md.setdefault(fqn, TensorStorageMetadata(props, Size(size), []))
            storage[MetadataIndex(fqn, offsets, len(tmd.chunks))] = info
            tmd.chunks.append(ChunkStorageMetadata(Size(offsets), Size(sizes)))
    planner_data = dict(ChainMap(*paths)) if paths[0] is not None else None
    return Metadata(md, planner_data=planner_data, storage_data=storage)


class _Save:
    """One save: staged (planned, values snapshotted) at construction; `run()` writes."""

    def __init__(self, state_dict, checkpoint_id, storage_writer, planner, process_group, no_dist, api):
        self.writer = _storage.setup(storage_writer, checkpoint_id, reader=False)
        self.planner = resolve(planner, DefaultSavePlanner, api)
        self.ranks = Ranks(process_group, no_dist)
        if not self.ranks.distributed:
            warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to "
                          "save in a single process.", stacklevel=3)
        sd = stateful_to_state_dict(state_dict)
        flat, paths = flatten_state_dict(sd) if self.planner.flatten_state_dict else (sd, None)
        items = [item for fqn, v in flat.items() for item in _items(fqn, v)]
        self.items = {item.key: item for item in items}

        def plan():
            self.writer.prepare()
            return [item.summary() for item in items], paths

        gathered = self.ranks.step("plan", plan)
        self.plans, self.paths = [g[0] for g in gathered], [g[1] for g in gathered]
        self.owner = _dedup(self.plans, self.planner.dedup_save_to_lowest_rank)

    def run(self) -> Metadata:
        rank = self.ranks.rank
        mine = [(key, item.record) for key, item in self.items.items() if self.owner[key] == rank]
        written = self.ranks.step("write", lambda: self.writer.write_items(rank, mine))
        metadata = _metadata(self.plans, self.owner, written, self.paths)
        self.ranks.step("finish", lambda: self.writer.finish(metadata) if self.ranks.is_coordinator else None)
        return metadata


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None, no_dist=False,
         use_collectives=True) -> Metadata:
    """Save `state_dict` (nested dicts/lists of tensors and picklable values; Stateful values by their
    `state_dict()`) from every rank into the checkpoint directory `checkpoint_id`, in torch's format."""
    if not use_collectives:
        raise NotImplementedError("torch.distributed.checkpoint.save(use_collectives=False): rank-local metadata "
                                  "files are not written by facade")
    return _Save(state_dict, checkpoint_id, storage_writer, planner, process_group, no_dist, "save").run()


_EXECUTOR = None


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
               async_checkpointer_type=AsyncCheckpointerType.THREAD, async_stager=None, no_dist=False,
               use_collectives=True) -> Future:
    """Stage the save now (plan, snapshot the values) and write in a background thread; the Future's result is
    the Metadata. Across processes the writes run before returning (the ranks' exchanges are collectives,
    which must not run concurrently with the caller's), and the Future is already done."""
    global _EXECUTOR
    if async_checkpointer_type is not AsyncCheckpointerType.THREAD or async_stager is not None or not use_collectives:
        raise NotImplementedError("torch.distributed.checkpoint.async_save: facade supports the default thread "
                                  "checkpointer only (no async_stager, use_collectives=True)")
    job = _Save(state_dict, checkpoint_id, storage_writer, planner, process_group, no_dist, "async_save")
    if job.ranks.distributed and job.ranks.world > 1:
        fut = Future()
        fut.set_result(job.run())
        return fut
    if _EXECUTOR is None:
        _EXECUTOR = ThreadPoolExecutor(1, thread_name_prefix="dcp_async_save")
    return _EXECUTOR.submit(job.run)


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None) -> Metadata:
    """Deprecated in torch for `save`; the same here."""
    warnings.warn("`save_state_dict` is deprecated and will be removed in future versions.Please use `save` "
                  "instead.", FutureWarning, stacklevel=2)
    if coordinator_rank != 0:
        raise NotImplementedError("save_state_dict(coordinator_rank != 0) is not supported by facade")
    return _Save(state_dict, None, storage_writer, planner, process_group, no_dist, "save_state_dict").run()
