"""torch.distributed.checkpoint.state_dict_loader: load and the older load_state_dict.

Every rank reads `.metadata` and the items its state dict asks for (all chunks of a tensor: a checkpoint may
hold them in any layout), in one step whose failure on any rank is raised on all. Tensors are loaded in place:
the values are copied into the state dict's tensors (into the layout they have on a mesh); other values
replace the state dict's entries. A Stateful value (a module, an optimizer) gets `load_state_dict(...)` of
its state dict, loaded the same way.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
from jax.sharding import NamedSharding

from ... import serialization
from ..._creation import _put
from ..._device import CPU, jax_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import _spmd
from . import _storage
from ._dist import Ranks
from ._nested import flatten_state_dict, is_stateful, set_element
from .default_planner import DefaultLoadPlanner, resolve
from .metadata import MetadataIndex, TensorStorageMetadata

__all__ = ["load", "load_state_dict"]


def _read_metadata(reader, rank):
    """`.metadata`, else the rank-local `__<rank>.metadata`; torch's AssertionError naming both when neither
    can be read."""
    try:
        return reader.read_metadata()
    except Exception as first:  # noqa: BLE001
        try:
            return reader.read_metadata(rank=rank)
        except Exception as second:  # noqa: BLE001
            raise AssertionError(f"metadata is None; global metadata read failed: {first}; rank local metadata "
                                 f"read failed: {second}") from None


def _assemble(md, records):
    """The whole tensor of TensorStorageMetadata `md` from its chunks' torch.save records."""
    full = np.zeros(tuple(md.size), md.properties.dtype.np)
    for chunk, rec in zip(md.chunks, records):
        part = np.asarray(serialization.load(rec, map_location="cpu", weights_only=True)._arr())
        full[tuple(slice(o, o + s) for o, s in zip(chunk.offsets, chunk.sizes))] = part
    return full


def _copy_into(target, full):
    """Copy the values `full` into `target` in place, keeping the layout `target` has on its mesh."""
    sharding = _spmd.sharding_of(target)
    if isinstance(sharding, NamedSharding):
        arr = jax.device_put(full.astype(target.dtype.np, copy=False), sharding)
    else:
        arr = _put(full, jax_device(target._device))
    with no_grad():
        target.copy_(Tensor._from_array(arr, target._device))
    if isinstance(sharding, NamedSharding) and target._base is None and _spmd.sharding_of(target) != sharding:
        _spmd.place(target, sharding)


def _load_local(state_dict, reader, planner, rank):
    metadata = _read_metadata(reader, rank)
    flat, paths = flatten_state_dict(state_dict) if planner.flatten_state_dict else (state_dict, None)
    wanted = []  # (key, storage metadata, target, [_StorageInfo])
    for fqn, obj in flat.items():
        if fqn not in metadata.state_dict_metadata:
            if planner.allow_partial_load:
                continue
            raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
        md = metadata.state_dict_metadata[fqn]
        if isinstance(md, TensorStorageMetadata):
            if isinstance(obj, Tensor) and tuple(md.size) != tuple(obj.size()):
                raise ValueError(f"Size mismatch between saved {md.size} and current: {obj.size()} for {fqn}")
            infos = [metadata.storage_data[MetadataIndex(fqn, c.offsets)] for c in md.chunks]
        else:
            infos = [metadata.storage_data[MetadataIndex(fqn)]]
        wanted.append((fqn, md, obj, infos))
    records = reader.read_items([info for *_, infos in wanted for info in infos])
    for fqn, md, obj, infos in wanted:
        mine, records = records[:len(infos)], records[len(infos):]
        if not isinstance(md, TensorStorageMetadata):
            value = serialization.load(mine[0], weights_only=False)  # as torch: a checkpoint is trusted
        elif isinstance(obj, Tensor):
            _copy_into(obj, _assemble(md, mine))
            continue
        else:
            value = Tensor._from_array(_put(_assemble(md, mine), jax_device(CPU)), CPU)
        if paths is None:
            state_dict[fqn] = value
        else:
            set_element(state_dict, paths[fqn], value)


def _load(state_dict, checkpoint_id, storage_reader, planner, process_group, no_dist, api):
    reader = _storage.setup(storage_reader, checkpoint_id, reader=True)
    planner = resolve(planner, DefaultLoadPlanner, api)
    ranks = Ranks(process_group, no_dist)
    if not ranks.distributed:
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to load "
                      "in a single process.", stacklevel=3)
    keys = sorted(state_dict)
    loaded = {k: (state_dict[k].state_dict() if is_stateful(state_dict[k]) else state_dict[k]) for k in keys}
    ranks.step("load", lambda: _load_local(loaded, reader, planner, ranks.rank))
    for k in keys:
        if is_stateful(state_dict[k]):
            state_dict[k].load_state_dict(loaded[k])
        else:
            state_dict[k] = loaded[k]


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None,
         no_dist=False) -> None:
    """Load the checkpoint directory `checkpoint_id` into `state_dict`, in place (see the module docstring)."""
    _load(state_dict, checkpoint_id, storage_reader, planner, process_group, no_dist, "load")


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None) -> None:
    """Deprecated in torch for `load`; the same here."""
    warnings.warn("`load_state_dict` is deprecated and will be removed in future versions. Please use `load` "
                  "instead.", FutureWarning, stacklevel=2)
    _load(state_dict, None, storage_reader, planner, process_group, no_dist, "load_state_dict")
