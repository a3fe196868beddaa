"""Point-to-point: send, recv, isend, irecv, batch_isend_irecv, P2POp, send_object_list, recv_object_list.

JAX has no send/recv between processes, but it runs a program on the devices of any subset of them (as every
process group's collectives do). A transfer from rank s to rank d is one such program over the mesh of the two
ranks' devices: a broadcast of s's tensor (d's own buffer only gives the shape). Both ranks must then run
the programs of their pair in the same order, while torch lets isend/irecv complete in any order (a rank may
post its receive before its send while its peer does the opposite). So the ops are held back and run at the
next wait(), blocking send/recv, collective or destroy_process_group, sorted by (source, destination, tag):
every rank then runs the pair programs in one global order, which cannot deadlock, and ops of one direction
keep the order they were posted in, which is how torch matches them.

Limits: a receive from any source (`src=None`) needs a group of two ranks (the peer is then known: a JAX
program is fixed before it runs); a transfer to the process itself is refused, as torch's gloo refuses it.
"""

from __future__ import annotations

import jax
import numpy as np

from . import _collectives as C
from ._objects import _dumps, _loads, _pad
from ._pg import ProcessGroup, default_group, get_global_rank, get_group_rank, resolve

__all__ = ["P2POp", "send", "recv", "isend", "irecv", "batch_isend_irecv", "send_object_list", "recv_object_list",
           "flush"]

_PENDING = []  # the _Ops posted and not yet run, in posting order


class _Op:
    """One posted transfer of `array` from global rank `src` to `dst`; `sink(received)` on the receiver."""

    __slots__ = ("src", "dst", "tag", "array", "sink", "out", "error")

    def __init__(self, src, dst, tag, array, sink):
        self.src, self.dst, self.tag, self.array, self.sink = src, dst, int(tag), array, sink
        self.out = self.error = None


def _pair(src, dst) -> ProcessGroup:
    """The group of the two global ranks (cached on the default group, so a new world gets new ones)."""
    world = default_group()
    pairs = world.__dict__.setdefault("_pairs", {})
    key = (min(src, dst), max(src, dst))
    if key not in pairs:
        pairs[key] = ProcessGroup(key, world.backend, world.timeout, world.rank())
    return pairs[key]


def _run(op):
    pair = _pair(op.src, op.dst)
    root = pair.ranks.index(op.src)
    a = op.array

    def what(extra):
        src = pair.ranks[extra % 2]
        return f"a transfer from rank {src} to rank {pair.ranks[1 - extra % 2]} (tag {extra // 2})"

    C._agree(pair, "send/recv", a.shape, a.dtype, root + 2 * op.tag, what=what)
    op.out = C._run(pair, "broadcast", (root,), C._REPLICATED, a, shape=a.shape)
    if op.sink is not None:
        op.sink(C._local(op.out, a.shape))


def flush() -> None:
    """Run every pending transfer, in (source, destination, tag) order."""
    if not _PENDING:
        return
    ops = sorted(_PENDING, key=lambda o: (o.src, o.dst, o.tag))  # stable: one direction keeps its order
    _PENDING.clear()
    for i, op in enumerate(ops):
        try:
            _run(op)
        except BaseException as e:
            for rest in ops[i:]:
                rest.error = e
            raise


C.BEFORE.append(flush)  # a collective (and so barrier, destroy_process_group) first runs what is pending


class _P2PWork(C.Work):
    """The handle of an isend/irecv: wait() runs the pending transfers (this one among them) and blocks."""

    def __init__(self, tensor, op):
        super().__init__([tensor], [])
        self._op = op

    def wait(self, timeout=None) -> bool:
        if self._op.out is None and self._op.error is None:
            flush()
        if self._op.error is not None:
            raise self._op.error
        jax.block_until_ready(self._op.out)
        return True

    def is_completed(self) -> bool:
        return self._op.out is not None and self._op.out.is_ready()

    def is_success(self) -> bool:
        return self._op.error is None

    def exception(self):
        return self._op.error

    def _source_rank(self) -> int:
        return self._op.src


def _canonical(pg, global_rank, group_rank):
    """The global rank named by `dst`/`src` (global) or `group_dst`/`group_src` (in `pg`), as torch's
    _canonicalize_group_rank (one of the two, never both)."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        return get_global_rank(pg, group_rank)
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    get_group_rank(pg, global_rank)  # a rank outside the group raises torch's ValueError
    return int(global_rank)


def _peer(pg, fn, global_rank, group_rank, role):
    """The peer's global rank (`_canonical`); a receive from any source is from the other rank of a two-rank
    group. A transfer to the process itself is refused."""
    if global_rank is None and group_rank is None and role == "source":
        if pg.size() != 2:
            raise NotImplementedError(f"torch.distributed.{fn} from any source (src=None) is not supported by facade "
                                      f"in a group of {pg.size()} ranks: a transfer is a JAX program over the two "
                                      f"ranks' devices, fixed before it runs, so the source must be known (it is in "
                                      f"a group of two ranks); pass src")
        peer = pg.ranks[1 - pg.rank()]
    else:
        peer = _canonical(pg, global_rank, group_rank)
    if peer == pg.ranks[pg.rank()]:
        raise RuntimeError(f"torch.distributed.{fn}: the {role} rank {peer} is this process; a transfer to the "
                           f"process itself is not supported (torch's gloo refuses it too)")
    return peer


def _post(fn, tensor, peer, group, tag, group_peer, sending):
    pg = resolve(group, fn)
    if pg is None:
        return None
    a = C._check_tensor(tensor)
    me = pg.ranks[pg.rank()]
    other = _peer(pg, fn, peer, group_peer, "destination" if sending else "source")
    sink = None if sending else (lambda out: C._write(tensor, out))
    op = _Op(me, other, tag, a, sink) if sending else _Op(other, me, tag, a, sink)
    _PENDING.append(op)
    return _P2PWork(tensor, op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """torch.distributed.isend: post the transfer of `tensor` to rank `dst`; runs at the next wait()."""
    return _post("isend", tensor, dst, group, tag, group_dst, True)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """torch.distributed.irecv: post the receive of `tensor` (filled in place) from rank `src`."""
    return _post("irecv", tensor, src, group, tag, group_src, False)


def _not_self(pg, peer, role):
    """torch's check of the blocking calls (the non-blocking ones fail in gloo instead)."""
    if peer == pg.ranks[pg.rank()]:
        raise ValueError(f"Invalid {role} rank: {role} rank should not be the same as the rank of the current "
                         f"process.")


def send(tensor, dst=None, group=None, tag=0, group_dst=None) -> None:
    """torch.distributed.send: send `tensor` to rank `dst` and wait until it is received."""
    pg = resolve(group)
    if pg is not None:
        _not_self(pg, _canonical(pg, dst, group_dst), "destination")
    work = _post("send", tensor, dst, group, tag, group_dst, True)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None) -> int:
    """torch.distributed.recv: fill `tensor` with what rank `src` sends; returns the sender's global rank
    (-1 on a rank outside the group)."""
    work = _post("recv", tensor, src, group, tag, group_src, False)
    if work is None:
        return -1
    work.wait()
    return work._source_rank()


class P2POp:
    """torch.distributed.P2POp: one isend/irecv of `tensor` with `peer` for batch_isend_irecv."""

    def __new__(cls, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op is not isend and op is not irecv:
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        C._check_tensor(tensor)
        return object.__new__(cls)

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op, self.tensor, self.tag = op, tensor, tag
        self.group = default_group() if group is None else group
        if group_peer is not None and peer is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if group_peer is None and peer is None:
            raise ValueError("Must specify global_rank or group_rank")
        self.peer = get_global_rank(self.group, group_peer) if group_peer is not None else peer
        self.group_peer = group_peer if group_peer is not None else get_group_rank(self.group, peer)

    def __repr__(self):
        me = self.group.rank()
        s, d = (me, self.group_peer) if self.op is isend else (self.group_peer, me)
        return (f"P2POp({self.op.__name__} pg={self.group.backend}, group_src={s}, group_dst={d},  "
                f"{self.tensor.shape}, {self.tensor.dtype})")


def batch_isend_irecv(p2p_op_list) -> list:
    """torch.distributed.batch_isend_irecv: post every op; their order within the list does not matter."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if not all(p.group == group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        peer = {"group_dst" if p.op is isend else "group_src": p.group_peer}
        work = p.op(p.tensor, group=p.group, tag=p.tag, **peer)
        if work is not None:
            works.append(work)
    return works


# ------------------------------------------------------------------ objects: the sizes, then the padded bytes

def _transfer(pg, src, dst, array):
    """Blocking transfer of a host array from global rank src to dst; the received array on dst."""
    got = []
    arr = jax.device_put(array, pg.device)
    _PENDING.append(_Op(src, dst, 0, arr, got.append if dst == pg.ranks[pg.rank()] else None))
    flush()
    return np.asarray(got[0]) if got else None


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False):
    """torch.distributed.send_object_list: pickle each object and send them to rank `dst`."""
    pg = resolve(group, "send_object_list")
    if pg is None:
        return None
    _not_self(pg, _canonical(pg, dst, group_dst), "destination")
    peer = _peer(pg, "send_object_list", dst, group_dst, "destination")
    mine = [_dumps(o) for o in object_list]
    sizes = np.array([b.size for b in mine], np.int64)
    _transfer(pg, pg.ranks[pg.rank()], peer, sizes)
    _transfer(pg, pg.ranks[pg.rank()], peer, _pad(np.concatenate(mine) if mine else np.zeros(0, np.uint8),
                                                  int(sizes.sum())))
    return None


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False) -> int:
    """torch.distributed.recv_object_list: fill `object_list` (of the sender's length) with rank `src`'s objects;
    returns the sender's global rank (-1 on a rank outside the group)."""
    pg = resolve(group, "recv_object_list")
    if pg is None:
        return -1
    peer = _peer(pg, "recv_object_list", src, group_src, "source")
    me = pg.ranks[pg.rank()]
    sizes = [int(s) for s in _transfer(pg, peer, me, np.zeros(len(object_list), np.int64))]
    flat = _transfer(pg, peer, me, _pad(np.zeros(0, np.uint8), sum(sizes)))
    offsets = np.cumsum([0, *sizes])
    for i, s in enumerate(sizes):
        object_list[i] = _loads(flat[offsets[i]:], s)
    return peer

