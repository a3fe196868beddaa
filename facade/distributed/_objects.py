"""Object collectives: each object pickled to uint8, the lengths exchanged first, then one padded buffer."""

from __future__ import annotations

import io
import pickle

import numpy as np

from ._collectives import broadcast_array, gather_arrays
from ._pg import get_group_rank, resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _dumps(obj) -> np.ndarray:
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    return np.frombuffer(f.getbuffer(), np.uint8).copy()


def _loads(buf, n):
    return pickle.loads(np.asarray(buf)[:n].tobytes())


def _pad(a, size):
    """`a` zero-padded to a power of two at least `size` long, so byte counts share a few programs."""
    return np.pad(a, (0, max(64, 1 << (max(size, 1) - 1).bit_length()) - a.size))


def _all_gather(pg, kind, obj):
    mine = _dumps(obj)
    sizes = [int(s[0]) for s in gather_arrays(pg, kind, np.array([mine.size], np.int64))]
    bufs = gather_arrays(pg, kind, _pad(mine, max(sizes)))
    return [_loads(b, s) for b, s in zip(bufs, sizes)]


def all_gather_object(object_list, obj, group=None):
    """torch.distributed.all_gather_object: object_list[i] becomes rank i's (picklable) `obj`."""
    pg = resolve(group, "all_gather_object")
    if pg is None:
        return None
    for i, o in enumerate(_all_gather(pg, "all_gather_object", obj)):
        object_list[i] = o
    return None


def gather_object(obj, object_gather_list=None, dst=0, group=None, group_dst=None):
    """torch.distributed.gather_object: on rank `dst`, object_gather_list[i] becomes rank i's `obj`."""
    pg = resolve(group, "gather_object")
    if pg is None:
        return None
    root = group_dst if group_dst is not None else get_group_rank(pg, dst)
    if pg.rank() == root and object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
    objs = _all_gather(pg, "all_gather_object", obj)
    if pg.rank() == root:
        object_gather_list[:len(objs)] = objs
    return None


def broadcast_object_list(object_list, src=0, group=None, device=None, group_src=None):
    """torch.distributed.broadcast_object_list: every rank's `object_list` becomes rank `src`'s, in place."""
    pg = resolve(group, "broadcast_object_list")
    if pg is None:
        return None
    root = group_src if group_src is not None else get_group_rank(pg, src)
    mine = [_dumps(o) for o in object_list] if pg.rank() == root else []
    sizes = np.array([b.size for b in mine] if mine else [0] * len(object_list), np.int64)
    sizes = broadcast_array(pg, "broadcast_object_list", sizes, root)
    sizes = [int(s) for s in np.asarray(sizes)]
    flat = _pad(np.concatenate(mine) if mine else np.zeros(0, np.uint8), sum(sizes))
    flat = np.asarray(broadcast_array(pg, "broadcast_object_list", flat, root))
    offsets = np.cumsum([0, *sizes])
    for i, s in enumerate(sizes):
        object_list[i] = _loads(flat[offsets[i]:], s)
    return None


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None,
                        group_src=None):
    """torch.distributed.scatter_object_list: scatter_object_output_list[0] becomes element i of rank `src`'s
    list on rank i."""
    pg = resolve(group, "scatter_object_list")
    if pg is None:
        return None
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = group_src if group_src is not None else get_group_rank(pg, src)
    objs = list(scatter_object_input_list) if pg.rank() == root else [None] * pg.size()
    broadcast_object_list(objs, src=pg.ranks[root], group=group)
    scatter_object_output_list[0] = objs[pg.rank()]
    return None
