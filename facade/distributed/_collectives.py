"""torch.distributed collectives, each ONE jitted JAX program over the group's mesh (one device per rank).

Every rank's tensor becomes its shard of a global array (rows concatenated along dimension 0, sharded on
the mesh axis "p"); the program reshapes that to (n, *shape) and reduces, indexes or transposes it, and
the output sharding (replicated, or sharded on "p") makes XLA insert the all-reduce / all-gather /
all-to-all. The result is written into the caller's tensors through Tensor.copy_ (so version counters
and views behave as for any in-place op). Programs are cached per (kind, static arguments, group) by
jax.jit, and per shape and dtype inside it.

Inside a program that facade's torch.compile runs as one SPMD program over a group (a whole training step that
reaches a DistributedDataParallel module, see facade/_compile/_spmd.py), all_reduce and broadcast on that group
are lax collectives over the mesh axis "p" of that program, with no metadata exchange: the program's inputs
were agreed once before it first ran. Any other collective on a traced tensor is a graph break.

With more than one rank, each collective first all-gathers a small fixed-size description of every
rank's call (function, shape, dtype, root); a mismatch raises a RuntimeError naming the function and
both shapes on every rank, instead of the hang that mismatched programs would cause.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from .. import _tensor
from ..autograd.grad_mode import no_grad
from ._faults import guarded, reraise
from ._pg import get_group_rank, resolve

__all__ = ["ReduceOp", "RedOpType", "Work", "all_reduce", "all_gather", "all_gather_into_tensor",
           "reduce_scatter_tensor", "all_gather_single", "reduce_scatter_single", "broadcast", "reduce", "scatter",
           "gather", "all_to_all", "all_to_all_single", "barrier", "gather_arrays", "broadcast_array", "spmd"]

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

_BITWISE = {RedOpType.BAND: jnp.bitwise_and, RedOpType.BOR: jnp.bitwise_or, RedOpType.BXOR: jnp.bitwise_xor}
_REDUCE = {RedOpType.SUM: jnp.sum, RedOpType.PRODUCT: jnp.prod, RedOpType.MIN: jnp.min, RedOpType.MAX: jnp.max}


class Work:
    """The handle of a collective: wait() blocks until its results are computed; they are already in place."""

    def __init__(self, tensors, arrays):
        self._tensors, self._arrays = tensors, arrays

    def wait(self, timeout=None) -> bool:
        jax.block_until_ready(self._arrays)
        return True

    def is_completed(self) -> bool:
        return all(a.is_ready() for a in self._arrays)

    def is_success(self) -> bool:
        return True

    def exception(self):
        return None

    def result(self) -> list:
        return list(self._tensors)

    def synchronize(self) -> None:
        self.wait()

    def get_future(self):
        from ..futures import Future

        self.wait()
        fut = Future()
        fut.set_result(self.result())
        return fut


# ------------------------------------------------------------------ arrays <-> the global array of a group

def _graph_break():
    from .._compile import GraphBreak

    raise GraphBreak("torch.distributed collectives run eagerly (each is its own program over the process mesh), "
                     "not inside a compiled function (except a DDP step's, run as one SPMD program)")


def _global(pg, a):
    """Rank-local array `a` as this rank's shard of the (n * rows, ...) global array of group `pg`."""
    if isinstance(a, jax.core.Tracer):
        _graph_break()
    if not isinstance(a, jax.Array) or a.devices() != {pg.device}:
        a = jax.device_put(a, pg.device)
    if a.ndim == 0:
        a = a.reshape(1)
    shape = (pg.size() * a.shape[0], *a.shape[1:])
    return jax.make_array_from_single_device_arrays(shape, NamedSharding(pg.mesh, P("p")), [a])


class _Spmd:
    """The group a compiled program is being traced over as one SPMD program (None outside such a trace)."""

    pg = None


@contextlib.contextmanager
def spmd(pg):
    """While tracing the body of a program over `pg`'s mesh: its collectives on `pg` are lax collectives."""
    prev, _Spmd.pg = _Spmd.pg, pg
    try:
        yield
    finally:
        _Spmd.pg = prev


def _traced(pg, a):
    """Whether `a` is traced inside an SPMD program over group `pg` (its collective is then a lax one on axis
    "p"); False for a concrete array; a graph break for a tracer of any other program."""
    if not isinstance(a, jax.core.Tracer):
        return False
    if _Spmd.pg is None or tuple(pg.ranks) != tuple(_Spmd.pg.ranks):
        _graph_break()
    return True


def _rows(x, n, shape):
    """(n * rows, ...) -> (n, *shape): one row per rank."""
    return x.reshape(n, *shape)


def _cat(x):
    """(n, *shape) -> (n * shape[0], *shape[1:]), the layout that shards one row to each rank."""
    return x.reshape(-1, *x.shape[2:]) if x.ndim > 1 else x


def _local(out, shape):
    a = out.addressable_data(0)
    return a if a.shape == tuple(shape) else a.reshape(shape)


@functools.lru_cache(None)
def _jit(kind, static, mesh, out_spec):
    """The one jitted program of collective `kind` with `static` Python arguments over a group's mesh."""
    fn = functools.partial(_PROGRAMS[kind], *static)
    out = NamedSharding(mesh, out_spec)
    return jax.jit(fn, static_argnames=("n", "shape"), out_shardings=out)


_IN_FLIGHT = []  # the outputs of the last program over a process mesh that this process launched


def launch(fn, *args, **kwargs):
    """fn(*args, **kwargs), a program over a process mesh, launched once the previous one has finished. XLA's
    CPU runtime does not order a device's programs (see facade._multidevice): two collectives in flight at once
    (FSDP2's gathers of successive layers, which do not depend on each other) may run in either order, and the
    ranks' messages then pair across them (gloo: "Received data size doesn't match expected size")."""
    for a in _IN_FLIGHT:
        if not a.is_deleted():
            a.block_until_ready()
    outs = fn(*args, **kwargs)
    _IN_FLIGHT[:] = [a for a in jax.tree_util.tree_leaves(outs) if isinstance(a, jax.Array)]
    return outs


def _run(pg, kind, static, out_spec, *arrays, shape):
    f = _jit(kind, static, pg.mesh, out_spec)
    try:
        return launch(f, *(_global(pg, a) for a in arrays), n=pg.size(), shape=tuple(shape))
    except Exception as e:  # noqa: BLE001 - a peer died between the metadata exchange and this program
        reraise(pg, kind, e)


def _reduce(op, x):
    if op in _BITWISE:
        return functools.reduce(_BITWISE[op], [x[i] for i in range(x.shape[0])])
    if op == RedOpType.AVG:
        return jnp.mean(x, 0).astype(x.dtype)
    return _REDUCE[op](x, 0).astype(x.dtype)


_PROGRAMS = {
    "all_reduce": lambda op, g, n, shape: _reduce(op, _rows(g, n, shape)),
    "all_gather": lambda g, n, shape: tuple(_rows(g, n, shape)),
    "gather_into": lambda out_shape, g, n, shape: _rows(g, n, shape).reshape(out_shape),
    "reduce_scatter": lambda op, g, n, shape: _cat(_reduce(op, _rows(g, n, (n, *shape))).reshape(n, *shape)),
    "broadcast": lambda src, g, n, shape: _rows(g, n, shape)[src],
    "scatter": lambda src, g, n, shape: _cat(_rows(g, n, (n, *shape))[src]),
    "all_to_all": lambda g, n, shape: tuple(_cat(x) for x in _rows(g, n, (n, *shape))),
    "all_to_all_single": lambda g, n, shape: _cat(jnp.swapaxes(_rows(g, n, (n, *shape)), 0, 1)
                                                   .reshape(n, n * shape[0], *shape[1:])),
}
_REPLICATED, _SHARDED = P(), P("p")


# ------------------------------------------------------------------ the metadata exchange

_KINDS = ("barrier", "all_reduce", "all_gather", "all_gather_single", "reduce_scatter_single", "broadcast",
          "reduce", "scatter", "gather", "all_to_all", "all_to_all_single", "all_gather_object",
          "broadcast_object_list", "send/recv", "monitored_barrier", "all_reduce_coalesced",
          "all_gather_coalesced", "torch.compile")
_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128", "uint16", "uint32", "uint64")
_MAX_DIMS = 8


@functools.lru_cache(None)
def _meta_program(mesh):
    return jax.jit(lambda g: g, out_shardings=NamedSharding(mesh, _REPLICATED))


def _describe(kind, shape, dtype, extra):
    meta = np.full(4 + _MAX_DIMS, -1, np.int64)
    name = np.dtype(dtype).name if dtype is not None else None
    meta[:4] = _KINDS.index(kind), _DTYPES.index(name) if name in _DTYPES else -2, len(shape), extra
    meta[4:4 + len(shape)] = shape
    return meta


def _shape_of(row):
    return list(int(s) for s in row[4:4 + int(row[2])])


BEFORE = []  # callables run before every collective (the point-to-point module sends what it holds back)


def _agree(pg, kind, shape=(), dtype=None, extra=-1, what=None):
    """All-gather every rank's (function, shape, dtype, extra); raise on any difference. A no-op for one rank.
    `what(extra)` says in words what a rank's `extra` means, for the message of a mismatch."""
    for f in BEFORE:
        f()
    if pg.size() == 1 and kind != "barrier":
        return
    if len(shape) > _MAX_DIMS:
        raise NotImplementedError(f"torch.distributed.{kind}: tensors of more than {_MAX_DIMS} dimensions are not "
                                  f"supported by facade (got {len(shape)})")
    mine = _describe(kind, shape, dtype, extra)
    pg.serial += 1
    g = _global(pg, jax.device_put(mine, pg.device))
    rows = guarded(pg, kind, lambda: np.asarray(launch(_meta_program(pg.mesh), g))).reshape(pg.size(), -1)
    for r, row in enumerate(rows):
        if (row == mine).all():
            continue
        them = pg.ranks[r]
        if row[0] != mine[0]:
            raise RuntimeError(f"{kind}: rank {them} called {_KINDS[row[0]]} while this rank "
                               f"({pg.ranks[pg.rank()]}) called {kind}: every rank must call the same collectives "
                               f"in the same order")
        if row[1] != mine[1]:
            theirs = _DTYPES[row[1]] if row[1] >= 0 else "unknown"
            raise RuntimeError(f"{kind}: tensors differ in dtype across ranks: rank {them} has {theirs}, this rank "
                               f"({pg.ranks[pg.rank()]}) has {np.dtype(dtype).name}")
        if row[3] != mine[3] and what is not None:
            raise RuntimeError(f"{kind}: ranks disagree: rank {them} is at {what(row[3])} while this rank "
                               f"({pg.ranks[pg.rank()]}) is at {what(extra)}")
        if row[3] != mine[3]:
            raise RuntimeError(f"{kind}: ranks disagree on the root/op: rank {them} passed {row[3]}, this rank "
                               f"({pg.ranks[pg.rank()]}) passed {extra}")
        raise RuntimeError(f"{kind}: tensor shapes differ across ranks: rank {them} has {_shape_of(row)}, this "
                           f"rank ({pg.ranks[pg.rank()]}) has {list(shape)}")


# ------------------------------------------------------------------ argument checks and the write back

def _check_tensor(t, param="tensor"):
    if not isinstance(t, _tensor.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")
    return t._arr()


def _check_list(ts, param):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, _tensor.Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{param}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")


def _check_op(fn, op, dtype):
    if not isinstance(op, RedOpType) or op in (RedOpType.PREMUL_SUM, RedOpType.UNUSED):
        raise TypeError(f"{fn}: op must be a torch.distributed.ReduceOp (SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, "
                        f"BXOR), got {op!r}")
    if op in _BITWISE and dtype.is_floating_point or op in _BITWISE and dtype.is_complex:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == RedOpType.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_tensor._TYPE_NAMES[dtype.name]}")


def _check_sizes(fn, tensors, shape, expected_len):
    if len(tensors) != expected_len:
        raise RuntimeError(f"{fn}: invalid output tensor list at index 0 (expected length {expected_len}, got "
                           f"{len(tensors)})")
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(shape):
            raise RuntimeError(f"{fn}: invalid tensor size at index {i} (expected {list(shape)}, got "
                               f"{list(t.shape)})")


def _write(t, a):
    """`a` into tensor `t` in place, as the end of Tensor.copy_ does (version bump, write through views); with no
    copy program when `a` already has t's shape and dtype."""
    src = _tensor.Tensor._from_array(a, t.device)
    with no_grad():
        if src.dtype is t.dtype and src.shape == t.shape:
            t._assign(src)
        else:
            t.copy_(src)


def _done(async_op, tensors, arrays):
    return Work(tensors, arrays) if async_op else None


def _root(fn, pg, root):
    try:
        return get_group_rank(pg, root)
    except ValueError:
        raise RuntimeError(f"{fn}: invalid root rank: {root}") from None


# ------------------------------------------------------------------ the collectives

def all_reduce(tensor, op=RedOpType.SUM, group=None, async_op=False):
    """torch.distributed.all_reduce: `tensor` becomes op(every rank's tensor), in place."""
    pg = resolve(group, "all_reduce")
    if pg is None:
        return None
    a = _check_tensor(tensor)
    _check_op("all_reduce", op, tensor.dtype)
    if _traced(pg, a):  # psum for a sum (a DDP bucket); otherwise the eager program's reduction of every row
        out = jax.lax.psum(a, "p") if op == RedOpType.SUM else _reduce(op, jax.lax.all_gather(a, "p"))
        _write(tensor, out)
        return _done(async_op, [tensor], [])
    _agree(pg, "all_reduce", a.shape, a.dtype, int(op))
    out = _run(pg, "all_reduce", (op,), _REPLICATED, a, shape=a.shape)
    _write(tensor, _local(out, a.shape))
    return _done(async_op, [tensor], [out])


def reduce(tensor, dst=0, op=RedOpType.SUM, group=None, async_op=False, group_dst=None):
    """torch.distributed.reduce: on rank `dst`, `tensor` becomes op(every rank's tensor); others keep theirs."""
    pg = resolve(group, "reduce")
    if pg is None:
        return None
    a = _check_tensor(tensor)
    _check_op("reduce", op, tensor.dtype)
    root = group_dst if group_dst is not None else _root("reduce", pg, dst)
    _agree(pg, "reduce", a.shape, a.dtype, int(op) * 1024 + root)
    out = _run(pg, "all_reduce", (op,), _REPLICATED, a, shape=a.shape)
    if pg.rank() == root:
        _write(tensor, _local(out, a.shape))
    return _done(async_op, [tensor], [out])


def broadcast(tensor, src=0, group=None, async_op=False, group_src=None):
    """torch.distributed.broadcast: every rank's `tensor` becomes rank `src`'s, in place."""
    pg = resolve(group, "broadcast")
    if pg is None:
        return None
    a = _check_tensor(tensor)
    root = group_src if group_src is not None else _root("broadcast", pg, src)
    if _traced(pg, a):
        _write(tensor, jax.lax.all_gather(a, "p")[root])
        return _done(async_op, [tensor], [])
    _agree(pg, "broadcast", a.shape, a.dtype, root)
    out = _run(pg, "broadcast", (root,), _REPLICATED, a, shape=a.shape)
    _write(tensor, _local(out, a.shape))
    return _done(async_op, [tensor], [out])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """torch.distributed.all_gather: tensor_list[i] becomes rank i's `tensor`, in place."""
    pg = resolve(group, "all_gather")
    if pg is None:
        return None
    _check_list(tensor_list, "tensor_list")
    a = _check_tensor(tensor)
    _check_sizes("all_gather", tensor_list, a.shape, pg.size())
    _agree(pg, "all_gather", a.shape, a.dtype)
    outs = _run(pg, "all_gather", (), _REPLICATED, a, shape=a.shape)
    for t, o in zip(tensor_list, outs):
        _write(t, _local(o, a.shape))
    return _done(async_op, list(tensor_list), list(outs))


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """torch.distributed.all_gather_single: `output_tensor` (n * rows, ...) or (n, ...) holds every rank's
    `input_tensor` in rank order."""
    pg = resolve(group, "all_gather_single")
    if pg is None:
        return None
    a = _check_tensor(input_tensor, "input_tensor")
    _check_tensor(output_tensor, "output_tensor")
    n, out_shape = pg.size(), tuple(output_tensor.shape)
    if output_tensor.numel() != n * a.size or output_tensor.dtype != input_tensor.dtype:
        raise ValueError(f"all_gather_single: output tensor size must be equal to world_size times input "
                         f"tensor size, and the dtypes must match (output {list(out_shape)} "
                         f"{output_tensor.dtype}, input {list(a.shape)} {input_tensor.dtype}, world_size {n})")
    _agree(pg, "all_gather_single", a.shape, a.dtype)
    out = _run(pg, "gather_into", (out_shape,), _REPLICATED, a, shape=a.shape)
    _write(output_tensor, _local(out, out_shape))
    return _done(async_op, [output_tensor], [out])


def reduce_scatter_single(output, input, op=RedOpType.SUM, group=None, async_op=False):
    """torch.distributed.reduce_scatter_single: op over ranks of `input`, rank i keeps the i-th block of rows."""
    pg = resolve(group, "reduce_scatter_single")
    if pg is None:
        return None
    a = _check_tensor(input, "input")
    _check_tensor(output, "output")
    _check_op("reduce_scatter_single", op, input.dtype)
    n, shape = pg.size(), tuple(output.shape)
    if a.size != n * output.numel() or output.dtype != input.dtype:
        raise ValueError(f"reduce_scatter_single: input tensor must be the same size as output size times world "
                         f"size, and the dtypes must match (input {list(a.shape)} {input.dtype}, output "
                         f"{list(shape)} {output.dtype}, world_size {n})")
    _agree(pg, "reduce_scatter_single", a.shape, a.dtype, int(op))
    out = _run(pg, "reduce_scatter", (op,), _SHARDED, a.reshape(n, *shape), shape=shape)
    _write(output, _local(out, shape))
    return _done(async_op, [output], [out])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """torch.distributed.all_gather_into_tensor: deprecated (torch 2.13) for all_gather_single."""
    _deprecated("all_gather_into_tensor", "all_gather_single")
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def reduce_scatter_tensor(output, input, op=RedOpType.SUM, group=None, async_op=False):
    """torch.distributed.reduce_scatter_tensor: deprecated (torch 2.13) for reduce_scatter_single."""
    _deprecated("reduce_scatter_tensor", "reduce_scatter_single")
    return reduce_scatter_single(output, input, op, group, async_op)


def _deprecated(old, new):
    warnings.warn(f"`torch.distributed.{old}` is deprecated. Please use `torch.distributed.{new}` instead.",
                  FutureWarning, stacklevel=3)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False, group_src=None):
    """torch.distributed.scatter: rank i's `tensor` becomes scatter_list[i] of rank `src`."""
    pg = resolve(group, "scatter")
    if pg is None:
        return None
    a = _check_tensor(tensor)
    root = group_src if group_src is not None else _root("scatter", pg, src)
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, "scatter_list")
        _check_sizes("scatter", scatter_list, a.shape, pg.size())
        stacked = jnp.stack([t._arr() for t in scatter_list]).astype(a.dtype)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        stacked = jnp.zeros((pg.size(), *a.shape), a.dtype)
    _agree(pg, "scatter", a.shape, a.dtype, root)
    out = _run(pg, "scatter", (root,), _SHARDED, stacked, shape=a.shape)
    _write(tensor, _local(out, a.shape))
    return _done(async_op, [tensor], [out])


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False, group_dst=None):
    """torch.distributed.gather: on rank `dst`, gather_list[i] becomes rank i's `tensor`."""
    pg = resolve(group, "gather")
    if pg is None:
        return None
    a = _check_tensor(tensor)
    root = group_dst if group_dst is not None else _root("gather", pg, dst)
    if pg.rank() == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, "gather_list")
        _check_sizes("gather", gather_list, a.shape, pg.size())
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _agree(pg, "gather", a.shape, a.dtype, root)
    outs = _run(pg, "all_gather", (), _REPLICATED, a, shape=a.shape)
    if pg.rank() == root:
        for t, o in zip(gather_list, outs):
            _write(t, _local(o, a.shape))
    return _done(async_op, list(gather_list or []), list(outs))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """torch.distributed.all_to_all: output_tensor_list[i] of rank j becomes input_tensor_list[j] of rank i (the
    blocks may differ in shape: see `_uneven`)."""
    pg = resolve(group, "all_to_all")
    if pg is None:
        return None
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    n, shape = pg.size(), tuple(input_tensor_list[0].shape) if input_tensor_list else ()
    for name, tensors in (("output", output_tensor_list), ("input", input_tensor_list)):
        if len(tensors) != n:  # torch gloo's message
            raise RuntimeError(f"ProcessGroupGloo::alltoall: {name} tensor list size {len(tensors)} does not match "
                               f"world size {n}")
    if len({tuple(t.shape) for t in (*input_tensor_list, *output_tensor_list)}) > 1:
        blocks = [t._arr().reshape(-1) for t in input_tensor_list]
        got = _uneven(pg, "all_to_all", blocks, [t.numel() for t in output_tensor_list])
        for t, o in zip(output_tensor_list, got):
            _write(t, o.reshape(tuple(t.shape)))
        return _done(async_op, list(output_tensor_list), got)
    stacked = jnp.stack([t._arr() for t in input_tensor_list])
    _agree(pg, "all_to_all", shape, stacked.dtype)
    outs = _run(pg, "all_to_all", (), _SHARDED, stacked, shape=shape)
    for t, o in zip(output_tensor_list, outs):
        _write(t, _local(o, shape))
    return _done(async_op, list(output_tensor_list), list(outs))


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """torch.distributed.all_to_all_single: the j-th block of rows of rank i's `input` goes to the i-th block of
    rank j's `output`; blocks are equal, or sized by `input_split_sizes` / `output_split_sizes` (in rows)."""
    pg = resolve(group, "all_to_all_single")
    if pg is None:
        return None
    a = _check_tensor(input, "input")
    _check_tensor(output, "output")
    n = pg.size()
    rows = a.shape[0] if a.ndim else 0
    if input_split_sizes or output_split_sizes:  # list(...) of [] is "equal splits", as torch's
        row = math.prod(a.shape[1:])
        ins, outs = _splits(input_split_sizes, rows, n, "input"), _splits(output_split_sizes, output.shape[0], n,
                                                                        "output")
        if tuple(output.shape[1:]) != tuple(a.shape[1:]):
            raise ValueError(f"all_to_all_single: input and output must have the same shape past dimension 0 "
                             f"(input {list(a.shape)}, output {list(output.shape)})")
        starts = np.cumsum([0, *ins])
        blocks = [a[starts[j]:starts[j + 1]].reshape(-1) for j in range(n)]
        got = _uneven(pg, "all_to_all_single", blocks, [k * row for k in outs])
        whole = jnp.concatenate(got).reshape(tuple(output.shape)) if got else a
        _write(output, whole)
        return _done(async_op, [output], [whole])
    if a.ndim == 0 or rows % n or tuple(output.shape) != tuple(a.shape):
        raise ValueError(f"all_to_all_single: input and output must have the same shape with dimension 0 divisible "
                         f"by the world size {n} (input {list(a.shape)}, output {list(output.shape)})")
    shape = (rows // n, *a.shape[1:])
    _agree(pg, "all_to_all_single", a.shape, a.dtype)
    out = _run(pg, "all_to_all_single", (), _SHARDED, a.reshape(n, *shape), shape=shape)
    _write(output, _local(out, a.shape))
    return _done(async_op, [output], [out])


def _splits(sizes, rows, n, side):
    """Rows per rank of one side of all_to_all_single: `sizes`, or equal blocks where it is None or empty."""
    if not sizes:
        if rows % n:
            raise ValueError(f"all_to_all_single: {side} dimension 0 ({rows}) must be divisible by the world size "
                             f"{n} where no {side}_split_sizes are given")
        return [rows // n] * n
    sizes = [int(k) for k in sizes]
    if len(sizes) != n or sum(sizes) != rows or min(sizes) < 0:
        raise ValueError(f"all_to_all_single: {side}_split_sizes {sizes} must hold {n} non-negative sizes (one per "
                         f"rank) summing to the {side}'s dimension 0 ({rows})")
    return sizes


def _uneven(pg, kind, blocks, expect):
    """An all-to-all of blocks of different lengths: `blocks[j]` (1-D) goes to rank j, which expects `expect[i]`
    elements from rank i. The ranks exchange every block's length first (every rank then sees a mismatch and
    raises), then run the equal all-to-all over blocks padded to the longest; each received block is cut back."""
    n, me = pg.size(), pg.rank()
    dtype = blocks[0].dtype
    table = np.stack(gather_arrays(pg, kind, jnp.asarray([b.size for b in blocks] + list(expect), jnp.int64)))
    sent, wanted = table[:, :n], table[:, n:]  # sent[r, j]: rank r to rank j; wanted[j, r]: what j expects of r
    for r, j in np.argwhere(sent != wanted.T):
        raise RuntimeError(f"{kind}: rank {pg.ranks[r]} sends {sent[r, j]} elements to rank {pg.ranks[j]}, which "
                           f"expects {wanted[j, r]} from it: the blocks' sizes must agree across ranks")
    width = int(sent.max())
    if width == 0:
        return [jnp.zeros(0, dtype) for _ in range(n)]
    stacked = jnp.stack([jnp.pad(b, (0, width - b.size)) for b in blocks])
    _agree(pg, kind, (width,), dtype)
    outs = _run(pg, "all_to_all", (), _SHARDED, stacked, shape=(width,))
    return [_local(o, (width,))[:wanted[me, i]] for i, o in enumerate(outs)]


def barrier(group=None, async_op=False, device_ids=None):
    """torch.distributed.barrier: returns once every rank of the group has reached it."""
    pg = resolve(group, "barrier")
    if pg is None:
        return None
    _agree(pg, "barrier")
    return _done(async_op, [], [])


# ------------------------------------------------------------------ for the object collectives

def gather_arrays(pg, kind, a):
    """Every rank's 1-D array `a` (same length everywhere), as a list in group rank order."""
    _agree(pg, kind, a.shape, a.dtype)
    return [_local(o, a.shape) for o in _run(pg, "all_gather", (), _REPLICATED, a, shape=a.shape)]


def broadcast_array(pg, kind, a, root):
    """Group rank `root`'s array `a` (same shape everywhere)."""
    _agree(pg, kind, a.shape, a.dtype, root)
    return _local(_run(pg, "broadcast", (root,), _REPLICATED, a, shape=a.shape), a.shape)
