"""Deferred bucketed ops: a generation step's forward runs as one program, not one program per op.

A bucketed op (facade/_ragged.py) records its program and arguments as a `Pending` buffer, with the result's
shape and dtype from the program's abstract evaluation (cached per argument avals), and runs nothing. The first
read of a value (a plain result such as `logits[:, -1, :]`, `.numpy()`, a value check, any op without a bucketed
rule) runs every pending op it depends on as one jitted program that calls the ops' own programs in order: XLA
inlines them, so the values are those of the ops run one by one, and a loop that repeats its forward finds the
program of the same graph in a cache (compiled with XLA's fusion emitters: facade/_xla.Program). A graph's
structure (programs, and which argument is which earlier result or input array) is the cache key; its input arrays
are the program's arguments.

Results other than the one read are kept where something outside the graph still holds them (a tensor the script
keeps, another pending op), found by reference counts; those not kept are recomputed if read later, so a miscount
costs time, never values. A chain longer than `DEPTH` runs at once (a loop that never reads its values).
A graph compiled before its first run (the next bucket's, in facade/_ragged.py's background thread) is kept as an
executable in `_AHEAD` and called from there. Off with FACADE_DEFER=0 (then every bucketed op runs its program at
once).
"""

from __future__ import annotations

import os
import sys

import jax

from . import _xla
from ._device import spec

ON = os.environ.get("FACADE_DEFER", "1") != "0"
DEPTH = 512
NEW = None  # called with (structure, outputs, each op's (program, *argument avals)) when a graph first runs


class Pending:
    """fn(*args) not computed yet: args are arrays and Pendings; `aval` its result's, `value` once computed."""

    __slots__ = ("fn", "args", "aval", "depth", "value")

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    weak_type = property(lambda self: self.aval.weak_type)
    ndim = property(lambda self: self.aval.ndim)


_AVALS = {}  # (program, its arguments' avals) -> its result's aval (None: not one array)


def aval(a):
    """The aval of an argument: an array's, a Pending's, or a Python number's (lerp's weight)."""
    return a.aval if hasattr(a, "aval") else jax.typeof(a)


def defer(fn, args, key):
    """A Pending for fn(*args) (the program `fn`, jitted), or None where its result is not one array.
    key: (fn, *(a.aval for a in args))."""
    out = _AVALS.get(key, False)
    if out is False:
        if len(_AVALS) > 4096:
            _AVALS.clear()
        out = jax.eval_shape(fn, *[spec(a) if type(a) is Pending else a for a in args])
        out = _AVALS[key] = (jax.core.ShapedArray(out.shape, out.dtype, weak_type=out.weak_type)
                             if type(out) is jax.ShapeDtypeStruct else None)
    if out is None:
        return None
    p = Pending()
    p.fn, p.args, p.aval, p.value = fn, args, out, None
    depth = 0
    for a in args:
        if type(a) is Pending and a.depth > depth:
            depth = a.depth
    p.depth = depth + 1
    if depth >= DEPTH:
        force(p)
    return p


def concrete(a):
    """The array of `a` (an array, or a Pending computed now)."""
    return force(a) if type(a) is Pending else a


def _graph(p):
    """The pending nodes `p` depends on (itself included), each after its arguments."""
    order, seen, stack = [], set(), [(p, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((a, False) for a in node.args if type(a) is Pending and a.value is None and id(a) not in seen)
    return order


_PROGRAMS = {}  # (structure, outputs) -> the jitted graph
_RAN = set()  # the (structure, outputs) run so far
_AHEAD = {}  # (structure, outputs, input shapes and dtypes) -> the graph's executable compiled ahead (`compile_ahead`)
# with one codegen thread: XLA's parallel codegen would take the core the loop runs on (the same code, same values)
_ONE_THREAD = {"xla_cpu_parallel_codegen_split_count": 1}


def program(structure, outs):
    """The jitted graph: structure as `_structure` gives it, returning the results of the ops at `outs`."""
    fn = _PROGRAMS.get((structure, outs))
    if fn is None:
        if len(_PROGRAMS) > 1024:
            _PROGRAMS.clear()

        def graph(*inputs):
            vals = []
            for f, refs in structure:
                vals.append(f(*[vals[-1 - r] if r < 0 else inputs[r] for r in refs]))
            return tuple(vals[k] for k in outs)

        fn = _PROGRAMS[(structure, outs)] = _xla.Program(graph)
    return fn


def compile_ahead(structure, outs, specs):
    """Compile the graph for input `specs` before it first runs (facade/_ragged.py's next bucket, in a background
    thread), for `force` to call."""
    if len(_AHEAD) > 256:
        _AHEAD.clear()
    exe = program(structure, outs).plain.lower(*specs).compile({**_xla.xla_defaults(), **_ONE_THREAD})
    _AHEAD[(structure, outs, tuple((s.shape, s.dtype, s.weak_type) for s in specs))] = exe


def _run(structure, outs, inputs):
    """The graph's results: from its executable compiled ahead if any, else its jitted program."""
    if _AHEAD:
        exe = _AHEAD.get((structure, outs, tuple((v.shape, v.dtype, v.weak_type) for v in map(aval, inputs))))
        if exe is not None:
            return exe(*inputs)
    return program(structure, outs)(*inputs)


def _structure(order):
    """(per node: its program and where its arguments come from (-1 - k: node k's result; j >= 0: inputs[j]),
    the input arrays, {id(node): how many arguments in the graph are that node})."""
    inputs, where, node_at, uses, structure = [], {}, {}, {}, []
    for k, node in enumerate(order):
        node_at[id(node)] = k
        refs = []
        for a in node.args:
            if type(a) is Pending:
                if a.value is None:
                    refs.append(-1 - node_at[id(a)])
                    uses[id(a)] = uses.get(id(a), 0) + 1
                    continue
                a = a.value
            j = where.get(id(a))
            if j is None:
                j = where[id(a)] = len(inputs)
                inputs.append(a)
            refs.append(j)
        structure.append((node.fn, tuple(refs)))
    return tuple(structure), inputs, uses


def force(p):
    """Compute pending `p` (with every pending op it depends on, in one program) and return its array."""
    if p.value is not None:
        return p.value
    order = _graph(p)
    if len(order) == 1:  # one op on arrays: its own program
        p.value = p.fn(*map(concrete, p.args))
        p.fn, p.args, p.depth = None, None, 0
        return p.value
    structure, inputs, uses = _structure(order)
    # kept: `p`, and the nodes referenced from outside the graph (more than by `order`, getrefcount's argument and
    # the graph's own arguments)
    outs = tuple(k for k in range(len(order))
                 if order[k] is p or sys.getrefcount(order[k]) > 2 + uses.get(id(order[k]), 0))
    if NEW is not None and (structure, outs) not in _RAN:  # (its program may have been compiled ahead)
        if len(_RAN) > 1024:
            _RAN.clear()
        _RAN.add((structure, outs))
        avals = [aval(a) for a in inputs]
        NEW(structure, outs, [(f, *(avals[r] if r >= 0 else order[-1 - r].aval for r in refs))
                              for f, refs in structure])
    values = _run(structure, outs, inputs)
    for k, v in zip(outs, values):
        node = order[k]
        node.value, node.fn, node.args, node.depth = v, None, None, 0
    return p.value
