"""all_reduce_coalesced, all_gather_coalesced, monitored_barrier, new_subgroups, new_subgroups_by_enumeration.

The coalesced collectives are one program over the concatenation of the flattened tensors, as torch's
coalescing means. monitored_barrier is the barrier of JAX's distributed runtime (its coordination service's
`wait_at_barrier`, which has a timeout); each rank first records its arrival in the runtime's key-value
store, so a timeout can name the ranks that did not arrive, as torch's gloo does.
"""

from __future__ import annotations

import datetime
import itertools
import warnings

import jax.numpy as jnp

from . import _collectives as C
from ._pg import GroupMember, default_pg_timeout, get_process_group_ranks, get_rank, get_world_size, new_group, resolve

__all__ = ["all_reduce_coalesced", "all_gather_coalesced", "monitored_barrier", "new_subgroups",
           "new_subgroups_by_enumeration"]


def _deprecated(name):
    warnings.warn(f"`torch.distributed.{name}` will be deprecated. If you must use it, please revisit our "
                  f"documentation later at https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=3)


def _same_dtype(tensors):
    def base(d):  # torch's rule, quirk included: complex64 counts as float32, complex128 as itself
        return {"complex64": "float32", "complex128": "complex128"}.get(d.name, d.name)

    for t in tensors[1:]:
        if base(t.dtype) != base(tensors[0].dtype):
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {tensors[0].dtype} and  {t.dtype}")


def _tensor_list(ts, param):
    if not isinstance(ts, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")
    C._check_list(ts, param)


def _flat(tensors):
    arrays = [C._check_tensor(t) for t in tensors]
    return jnp.concatenate([a.reshape(-1) for a in arrays]) if arrays else jnp.zeros(0)


def _split(flat, tensors):
    offsets = list(itertools.accumulate((t.numel() for t in tensors), initial=0))
    return [flat[offsets[i]:offsets[i + 1]].reshape(t.shape) for i, t in enumerate(tensors)]


def _future(tensors, arrays):
    return C.Work(tensors, arrays).get_future()


def all_reduce_coalesced(tensors, op=C.RedOpType.SUM, group=None, async_op=False):
    """torch.distributed.all_reduce_coalesced: every tensor of the list all-reduced, in one program."""
    _deprecated("all_reduce_coalesced")
    tensors = [tensors] if isinstance(tensors, C._tensor.Tensor) else tensors
    _tensor_list(tensors, "tensor")
    _same_dtype(tensors)
    pg = resolve(group, "all_reduce_coalesced")
    if pg is None or not tensors:
        return None
    C._check_op("all_reduce_coalesced", op, tensors[0].dtype)
    flat = _flat(tensors)
    C._agree(pg, "all_reduce_coalesced", flat.shape, flat.dtype, int(op))
    out = C._run(pg, "all_reduce", (op,), C._REPLICATED, flat, shape=flat.shape)
    for t, a in zip(tensors, _split(C._local(out, flat.shape), tensors)):
        C._write(t, a)
    return _future(tensors, [out]) if async_op else None


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """torch.distributed.all_gather_coalesced: output_tensor_lists[i] becomes rank i's input_tensor_list."""
    _deprecated("all_gather_coalesced")
    pg = resolve(group, "all_gather_coalesced")
    if pg is None:
        return None
    _tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtype(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    for out in output_tensor_lists:
        _tensor_list(out, "output_tensor_lists")
        _same_dtype(out)
    shapes = [list(t.shape) for t in input_tensor_list]
    if len(output_tensor_lists) != pg.size() or any([list(t.shape) for t in o] != shapes
                                                    for o in output_tensor_lists):
        got = [[list(t.shape) for t in o] for o in output_tensor_lists]
        raise RuntimeError(f"all_gather_coalesced: output_tensor_lists must hold one list per rank ({pg.size()}) of "
                           f"tensors shaped like input_tensor_list {shapes}, got {got}")
    flat = _flat(input_tensor_list)
    C._agree(pg, "all_gather_coalesced", flat.shape, flat.dtype)
    outs = C._run(pg, "all_gather", (), C._REPLICATED, flat, shape=flat.shape)
    for out_list, o in zip(output_tensor_lists, outs):
        for t, a in zip(out_list, _split(C._local(o, flat.shape), input_tensor_list)):
            C._write(t, a)
    return _future([t for o in output_tensor_lists for t in o], list(outs)) if async_op else None


_BARRIERS = {}  # group ranks -> how many monitored barriers this process has entered over them


def monitored_barrier(group=GroupMember.WORLD, timeout=None, wait_all_ranks=False):
    """torch.distributed.monitored_barrier: a barrier that raises RuntimeError naming the rank(s) that did not
    reach it within `timeout` (the first one, or all of them with `wait_all_ranks`)."""
    pg = resolve(group, "monitored_barrier")
    if pg is None:
        return None
    if pg.backend != "gloo":
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        timeout = default_pg_timeout
    elif isinstance(timeout, float):
        warnings.warn(f"Please specify timeout arg as a timedelta. Converting current value of {timeout} assuming "
                      f"it represents seconds", stacklevel=2)
        timeout = datetime.timedelta(seconds=timeout)
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    for f in C.BEFORE:  # pending point-to-point transfers run first, as before a collective
        f()
    if pg.size() == 1:
        return None
    from jax._src import distributed  # the runtime's client: its barrier and key-value store

    client = distributed.global_state.client
    count = _BARRIERS[pg.ranks] = _BARRIERS.get(pg.ranks, 0) + 1
    key = f"facade/monitored_barrier/{'_'.join(map(str, pg.ranks))}/{count}"
    ms = int(timeout.total_seconds() * 1000)
    client.key_value_set(f"{key}/arrived/{pg.ranks[pg.rank()]}", "1")
    try:
        client.wait_at_barrier(key, ms, list(pg.ranks))
    except Exception as e:  # noqa: BLE001 - the runtime's DEADLINE_EXCEEDED (or its barrier failing elsewhere)
        arrived = {int(k.rsplit("/", 1)[-1]) for k, _ in client.key_value_dir_get(f"{key}/arrived/")}
        missing = [r for r in pg.ranks if r not in arrived] or [r for r in pg.ranks if r != pg.ranks[pg.rank()]]
        who = f"Ranks {', '.join(map(str, missing))}" if wait_all_ranks else f"Rank {missing[0]}"
        raise RuntimeError(f"[Rank {pg.ranks[pg.rank()]}]: {who} failed to pass monitoredBarrier in {ms} ms") from e
    return None


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """torch.distributed.new_subgroups_by_enumeration: one group per list of ranks; (this rank's group, all)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups, current, owner = [], None, {}
    for ranks in ranks_per_subgroup_list:
        sub = new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc)
        subgroups.append(sub)
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and {ranks}")
            owner[r] = ranks
            if r == get_rank():
                current = sub
    return current, subgroups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """torch.distributed.new_subgroups: the group's ranks cut into consecutive subgroups of `group_size`
    (default: the number of CUDA devices); (this rank's subgroup, all subgroups)."""
    if group_size is None:
        from .. import cuda

        if not cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA is available.If your subgroup using a "
                             "backend that does not depend on CUDA,please pass in 'group_size' correctly.")
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = get_world_size(group=group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by '{group_size=}'")
    ranks = get_process_group_ranks(group)
    return new_subgroups_by_enumeration([ranks[i:i + group_size] for i in range(0, len(ranks), group_size)],
                                        timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc)
