"""The eager autograd tape: nodes whose backward is a cached, jitted JAX VJP, and the engine."""

from __future__ import annotations

import heapq
import itertools
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _multidevice as _md
from .grad_mode import STATE

__all__ = ["Node", "AccumulateGrad", "record", "run_backward", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks"]

_seq = itertools.count()
Tensor = None  # set by facade._tensor
_anomaly = [False, True]  # [enabled, check_nan]


class Node:
    """A recorded op. Its class name is torch's (`AddBackward0`)."""

    __slots__ = ("_comp", "_mask", "_outmask", "_arrays", "_inputs", "_pull", "_edges", "_out_meta", "_saved", "_seq",
                 "_pre_hooks", "_hooks", "_freed", "metadata", "_trace", "__weakref__")

    def __init__(self):
        self._seq = next(_seq)
        self._pre_hooks = self._hooks = None
        self._freed = False
        self._saved = ()
        self._pull = None  # the op's pullback when _arrays are its residuals (_dispatch._Pullback)
        self._inputs = None  # the input arrays too, where create_graph cannot differentiate the residuals
        self.metadata = {}
        self._trace = None

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return tuple(self._edges)

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after this node ran; a returned tuple replaces grad_inputs."""
        self._hooks = (self._hooks or []) + [fn]
        return _Handle(self, "_hooks", fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before this node runs; a returned tuple replaces grad_outputs."""
        return self._add_pre_hook(None, fn)

    def _add_pre_hook(self, nr, fn):
        hooks = dict(self._pre_hooks or {})
        hooks[nr] = hooks.get(nr, []) + [fn]
        self._pre_hooks = hooks
        return _Handle(self, "_pre_hooks", fn, nr)

    def _apply(self, grads, create_graph):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
                "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
                "time or if you need to access saved tensors after calling backward.")
        self._check_saved()
        if create_graph:
            return _apply_differentiably(self, grads)
        fn = self._pull.apply if self._pull is not None else self._comp.vjp(self._mask, self._outmask)
        arrays = self._arrays if self._pull is not None else _arrays_of(self)
        if None in grads:  # outputs that got no gradient (BatchNorm statistics of a compiled forward ...)
            present = tuple(g is not None for g in grads)
            fn = _zeros_for_missing(fn, present, self._out_meta)
            grads = [g for g in grads if g is not None]
        return _md.call(fn, arrays, tuple(grads))

    def _check_saved(self):
        for t, version in self._saved:
            if type(t) is weakref.ref:  # a saved output (see `record`)
                t = t()
                if t is None:  # gone, and every view of it with it (a view holds its base): never modified
                    continue
            if t._version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    f"[{t.type()} {list(t.shape)}] is at version {t._version}; expected version {version} instead. "
                    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).")

    def _release(self):
        self._arrays = self._inputs = None
        self._freed = True


class AccumulateGrad(Node):
    """The sink of a leaf tensor: gradients that reach it accumulate into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self._edges = ()
        self._out_meta = ((tuple(variable.shape), variable.dtype.np),)

    def name(self):
        return "torch::autograd::AccumulateGrad"  # torch's C++ name, unlike its generated Backward nodes


class _Handle:
    """What register_hook returns: `.remove()` unregisters."""

    def __init__(self, owner, attr, fn, key=None):
        self._owner, self._attr, self._fn, self._key = weakref.ref(owner), attr, fn, key

    def remove(self):
        owner = self._owner()
        if owner is None:
            return
        hooks = getattr(owner, self._attr)
        if isinstance(hooks, dict):
            hooks = {k: [h for h in v if h is not self._fn] for k, v in hooks.items()}
        elif hooks is not None:
            hooks = [h for h in hooks if h is not self._fn]
        setattr(owner, self._attr, hooks)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def record(comp, dyn, arrays, res, resid=None):
    """Attach a grad_fn to the float outputs of an op whose inputs require grad. The node keeps the op's
    input arrays, or with `resid` (what a forward with residuals returned) the residuals of its pullback."""
    # requires_grad is only ever set on floating/complex tensors, so it alone decides the mask.
    mask = tuple([isinstance(t, Tensor) and t.requires_grad for t in dyn])
    outs = res if isinstance(res, tuple) else (res,)  # namedtuples too (max, median, ...)
    outmask = tuple([o._data.dtype in _DIFFERENTIABLE for o in outs])
    if True not in outmask:
        return
    op = comp.op
    node = op.node_type()
    node._comp, node._mask, node._outmask, node._arrays = comp, mask, outmask, arrays
    # the common edge inline: a non-view input with a grad_fn (Tensor._edge handles the rest)
    node._edges = tuple([(t._grad_fn, t._output_nr) if t._grad_fn is not None and t._base is None else t._edge()
                         for t, m in zip(dyn, mask) if m])
    if len(outs) == 1:
        o = outs[0]
        node._out_meta = ((o._data.shape, o._data.dtype),)
        o.requires_grad, o._grad_fn, o._output_nr = True, node, 0
    else:
        node._out_meta = tuple([(o._data.shape, o._data.dtype) for o, m in zip(outs, outmask) if m])
        nr = 0
        for o, m in zip(outs, outmask):
            if m:
                o.requires_grad, o._grad_fn, o._output_nr = True, node, nr
                nr += 1
    if resid is not None:
        node._pull = resid.pull
        douts = [o._data for o, m in zip(outs, outmask) if m]
        node._arrays = [arrays[k] if kind == 0 else douts[k] if kind == 1 else resid.own[k]
                        for kind, k in resid.pull.spec]
        if not resid.pull.ok:  # a compiled function's activations: create_graph re-runs it from its inputs
            node._inputs = arrays
    elif _saved_hooks:
        node._arrays = _Packed(dyn, arrays, _saved_hooks[-1])
    if op.saves == "inputs":
        node._saved = tuple([(t, t._vc if t._base is None else t._version) for t in dyn if isinstance(t, Tensor)])
    elif op.saves == "result":  # weakly: an output holds this node as its grad_fn, and a cycle would keep the
        # graph and its arrays alive after backward until Python's cycle collector ran (a pause of its own)
        node._saved = tuple([(weakref.ref(o), o._version) for o, m in zip(outs, outmask) if m])
    if _anomaly[0]:
        import traceback

        node._trace = "".join(traceback.format_stack()[:-3])


_bwd_ops = {}
_DIFFERENTIABLE = frozenset(np.dtype(n) for n in ("float16", "float32", "float64", "complex64", "complex128")) | {
    jnp.dtype(jnp.bfloat16)}


_WITH_ZEROS: dict = {}


def _zeros_for_missing(fn, present, out_meta):
    """`fn(arrays, cotangents)` as a program taking only the `present` cotangents, the others zeros made inside
    it: no eager zeros per missing output on every backward (an op each, and a compile per new shape)."""
    key = (fn, present, out_meta)
    wrapped = _WITH_ZEROS.get(key)
    if wrapped is None:
        if len(_WITH_ZEROS) >= 256:  # bounded: keys hold programs
            _WITH_ZEROS.pop(next(iter(_WITH_ZEROS)))

        def with_zeros(arrays, given):
            it = iter(given)
            return fn(arrays, tuple(next(it) if p else jnp.zeros(s, d) for p, (s, d) in zip(present, out_meta)))

        with_zeros.__name__ = f"{getattr(fn, '__name__', 'backward')}_zeros"
        wrapped = _WITH_ZEROS[key] = jax.jit(with_zeros)
    return wrapped


def _apply_differentiably(node, grads):
    """create_graph=True: run the VJP as a recorded op, so the gradient has a graph of its own."""
    from .. import _dispatch

    if node._pull is not None and node._inputs is None:
        return _apply_pull_differentiably(node, grads)
    comp = node._comp
    inputs = node._inputs if node._inputs is not None else _arrays_of(node)
    key = (node._mask, node._outmask)
    bcomp = comp.bwd_ops.get(key)
    if bcomp is None:
        pull = comp.vjp(*key)
        n = len(inputs)

        def vjp_fn(*flat):
            return tuple(pull(flat[:n], flat[n:]))

        bop = _bwd_ops.get(comp.op.name)
        if bop is None:
            bop = _bwd_ops[comp.op.name] = _dispatch.Op(comp.op.grad_name + "Backward", vjp_fn, arrays=("flat",),
                                                         saves=())
        bcomp = comp.bwd_ops[key] = _dispatch.Compiled.from_raw(bop, vjp_fn)
    ins = []
    it = iter(node._edges)
    for a, m in zip(inputs, node._mask):
        if m:
            fn, nr = next(it)
            ins.append(Tensor._with_edge(a, fn, nr))
        else:
            ins.append(a)
    cts = [g if g is not None else Tensor._from_array(jnp.zeros(s, d)) for g, (s, d) in zip(grads, node._out_meta)]
    out = _dispatch.run(bcomp, ins + cts)
    return out if isinstance(out, tuple) else (out,)


def _apply_pull_differentiably(node, grads):
    """create_graph=True on a node holding residuals: the pullback runs as a recorded op of its residuals
    and the cotangents. Residuals are inputs (their edges), the node's own outputs (an edge to the node, as
    torch's saved results have) or masks (constants), so the gradient's graph reaches everything it reads."""
    from .. import _dispatch

    pull = node._pull
    if pull.bwd_comp is None:
        n = len(pull.spec)

        def vjp_fn(*flat):
            return tuple(pull.call(list(flat[:n]), flat[n:]))

        name = node._comp.op.grad_name + "Backward"
        bop = _bwd_ops.get(name)
        if bop is None:
            bop = _bwd_ops[name] = _dispatch.Op(name, vjp_fn, arrays=("flat",), saves=())
        pull.bwd_comp = _dispatch.Compiled.from_raw(bop, vjp_fn)
    edge = {}
    for m, e in zip((k for k, m in enumerate(node._mask) if m), node._edges):
        edge[m] = e
    ins = []
    for (kind, k), a in zip(pull.spec, node._arrays):
        if kind == 0 and k in edge:
            ins.append(Tensor._with_edge(a, *edge[k]))
        elif kind == 1:
            ins.append(Tensor._with_edge(a, node, k))
        else:
            ins.append(a)
    cts = [g if g is not None else Tensor._from_array(jnp.zeros(s, d)) for g, (s, d) in zip(grads, node._out_meta)]
    out = _dispatch.run(pull.bwd_comp, ins + cts)
    return out if isinstance(out, tuple) else (out,)


def _as_tensor(g):
    return g if isinstance(g, Tensor) else Tensor._from_array(g)


def _as_value(g, create_graph):
    if create_graph:
        return _as_tensor(g)
    return g._data if isinstance(g, Tensor) else g


def _run_pre_hooks(node, grads, create_graph):
    for nr, hooks in node._pre_hooks.items():
        for h in hooks:
            if nr is None:
                r = h(tuple(None if g is None else _as_tensor(g) for g in grads))
                if r is not None:
                    grads = [None if g is None else _as_value(g, create_graph) for g in r]
                continue
            if grads[nr] is None:
                continue
            r = h(_as_tensor(grads[nr]))
            if r is not None:
                grads[nr] = _as_value(r, create_graph)
    return grads


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Run the graph from `roots` (list of (node, nr)) with `root_grads`.

    With `inputs` (a list of (node, nr) edges), return the gradients reaching them; with
    `accumulate`, leaves' `.grad` receive theirs.
    """
    _engine_inputs.append(inputs is not None)  # what reentrant checkpointing asks (is_checkpoint_valid)
    try:
        return _run_backward(roots, root_grads, retain_graph, create_graph, inputs, accumulate)
    finally:
        _engine_inputs.pop()


_engine_inputs = []


def is_checkpoint_valid():
    """False inside a backward that was given `inputs` (autograd.grad, backward(inputs=)): reentrant
    checkpointing, which accumulates into leaves itself, cannot serve it."""
    return not _engine_inputs or not _engine_inputs[-1]


def _run_backward(roots, root_grads, retain_graph, create_graph, inputs, accumulate):
    deps = {}
    stack = list(dict.fromkeys(n for n, _ in roots))  # a node may be the root of several outputs
    seen = set(stack)
    while stack:
        n = stack.pop()
        for nxt, _ in n._edges:
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    buffers = {}

    def add(node, nr, g):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * len(node._out_meta)
        prev = buf[nr]
        buf[nr] = g if prev is None else prev + g

    if not create_graph and not _anomaly[0]:
        fused = _fused.run(roots, root_grads, deps, inputs, accumulate, retain_graph)
        if fused is not None:
            return fused
    for (n, nr), g in zip(roots, root_grads):
        add(n, nr, g)
    captured = {}
    want = {e: i for i, e in enumerate(inputs)} if inputs is not None else {}
    heap = [(-n._seq, id(n), n) for n in {n for n, _ in roots} if deps.get(n, 0) == 0]
    heapq.heapify(heap)
    with _grad_mode(create_graph):
        while heap:
            _, _, node = heapq.heappop(heap)
            grads = buffers.pop(node, None) or [None] * len(node._out_meta)
            if node._pre_hooks:
                grads = _run_pre_hooks(node, grads, create_graph)
            if type(node) is AccumulateGrad and "_grad_dtype" in node.variable.__dict__ and grads[0] is not None:
                grads = [_in_grad_dtype(node.variable, grads[0])]
            for nr, g in enumerate(grads):
                i = want.get((node, nr))
                if i is not None:
                    captured[i] = g
            if isinstance(node, AccumulateGrad):
                if accumulate and grads[0] is not None:
                    _accumulate(node.variable, grads[0], create_graph)
                continue
            if not node._edges:
                continue
            if all(g is None for g in grads):
                outs = (None,) * len(node._edges)
            else:
                outs = node._apply(grads, create_graph)
                if node._hooks:
                    for h in node._hooks:
                        r = h(tuple(_as_tensor(g) for g in outs),
                              tuple(None if g is None else _as_tensor(g) for g in grads))
                        if r is not None:
                            outs = tuple(_as_value(g, create_graph) for g in r)
                if _anomaly[0] and _anomaly[1]:
                    _check_nan(node, outs)
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node._edges, outs):
                if g is not None:
                    add(nxt, nr, g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(heap, (-nxt._seq, id(nxt), nxt))
    return captured


class _Fused:
    """The whole backward of a graph as one jitted XLA program.

    An eager training loop builds the same graph every step; its backward runs as one jitted call
    over every node's saved arrays (one program per graph structure: ops, static arguments, shapes,
    edges) instead of one call per node. Graphs with hooks, custom Functions or unjittable ops take
    the node-by-node path.

    Which path runs depends only on the graph, never on history (was it seen before, is its
    program cached): the two paths differ in the last bits, because XLA fuses neighbouring nodes'
    VJPs and what a kernel fuses changes its rounding (a*b+c becomes one FMA; a reduction's order
    follows its fusion). No barrier keeps XLA from fusing across nodes while compiling each node as
    its own program (an optimization barrier is expanded before fusion on CPU; a non-inlined call
    compiles a convolution 100x slower), so a graph takes the fused path from its first backward on.
    """

    def __init__(self, size=64):
        self.compiled, self.size = {}, size

    def plan(self, roots, deps, inputs):
        deps = dict(deps)
        heap = [(-n._seq, id(n), n) for n in dict.fromkeys(n for n, _ in roots) if deps.get(n, 0) == 0]
        heapq.heapify(heap)
        order, index, sinks = [], {}, {}
        while heap:
            _, _, node = heapq.heappop(heap)
            if type(node) is AccumulateGrad:
                if node.variable._hooks or "_grad_dtype" in node.variable.__dict__:
                    return None
                sinks[node] = len(sinks)
                continue
            if node._pre_hooks or node._hooks or node._freed or not hasattr(node, "_comp") or not node._comp.op.fuse:
                return None
            index[node] = len(order)
            order.append(node)
            for nxt, _ in node._edges:
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(heap, (-nxt._seq, id(nxt), nxt))

        def spec(node, nr):
            return (0, index[node], nr) if node in index else (1, sinks[node], 0)

        key = (tuple((n._comp, n._mask, n._outmask, n._out_meta, tuple(spec(m, nr) for m, nr in n._edges), n._pull)
                     for n in order),
               tuple(spec(n, nr) for n, nr in roots),
               None if inputs is None else tuple(spec(n, nr) if n in index or n in sinks else None for n, nr in inputs))
        return key, order, sinks

    def run(self, roots, root_grads, deps, inputs, accumulate, retain_graph):
        planned = self.plan(roots, deps, inputs)
        if planned is None:
            return None
        key, order, sinks = planned
        fn = self.compiled.get(key)
        if fn is None:
            if len(self.compiled) >= self.size:
                self.compiled.pop(next(iter(self.compiled)))
            fn = self.compiled[key] = jax.jit(_fused_backward(key, accumulate))
        for node in order:
            node._check_saved()
        leaves = list(sinks)
        existing = [n.variable._grad._arr() if accumulate and n.variable._grad is not None else None for n in leaves]
        out, captured = _md.call(fn, [_arrays_of(n) for n in order], list(root_grads), existing)
        if not retain_graph:
            for node in order:
                node._release()
        if accumulate:
            for n, g in zip(leaves, out):
                if g is not None:
                    t = n.variable
                    if t._grad is None:
                        t._grad = Tensor._from_array(g, t._device)
                    else:
                        t._grad._assign_data(g)
                    for h in t._post_acc_hooks or ():
                        h(t)
        return {i: g for i, g in enumerate(captured) if g is not None}


def _fused_backward(key, accumulate):
    nodes, root_specs, capture_specs = key

    def fused(arrays, root_grads, existing):
        bufs = [[None] * len(n[3]) for n in nodes]
        sinks = [None] * len(existing)

        def add(spec, g):
            kind, i, nr = spec
            buf = bufs[i] if kind == 0 else sinks
            j = nr if kind == 0 else i
            buf[j] = g if buf[j] is None else buf[j] + g

        for spec, g in zip(root_specs, root_grads):
            add(spec, g)
        captured = [None] * len(capture_specs or ())
        wanted = {s: k for k, s in enumerate(capture_specs or ()) if s is not None}
        for i, (comp, mask, outmask, out_meta, targets, pull) in enumerate(nodes):
            grads = bufs[i]
            for nr, g in enumerate(grads):
                k = wanted.get((0, i, nr))
                if k is not None:
                    captured[k] = g
            if all(g is None for g in grads):
                continue
            cts = tuple(g if g is not None else jnp.zeros(s, d) for g, (s, d) in zip(grads, out_meta))
            bwd = pull.apply if pull is not None else comp.vjp(mask, outmask)
            for spec, g in zip(targets, bwd(arrays[i], cts)):
                add(spec, g)
        for s, k in wanted.items():
            if s[0] == 1:
                captured[k] = sinks[s[1]]
        if accumulate:
            sinks = [g if e is None or g is None else e + g for g, e in zip(sinks, existing)]
        else:
            sinks = [None] * len(sinks)
        return sinks, captured

    return fused


_fused = _Fused()


class _grad_mode:
    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = self.on

    def __exit__(self, *exc):
        STATE.enabled = self.prev


def _in_grad_dtype(t, g):
    """A leaf's incoming gradient cast to the grad_dtype the user set on it (None: any dtype)."""
    dt = t.__dict__["_grad_dtype"]
    if dt is None:
        return g
    if isinstance(g, Tensor):
        return g if g.dtype is dt else g.to(dt)
    return g if g.dtype == dt.np else g.astype(dt.np)


def _accumulate(t, g, create_graph):
    hooks = t._hooks
    if hooks:
        for h in hooks:
            r = h(_as_tensor(g))
            if r is not None:
                g = _as_value(r, create_graph)
    if t.grad is None:
        t.grad = _as_tensor(g) if create_graph else Tensor._from_array(g, t._device)
    elif create_graph:
        t.grad = t.grad + _as_tensor(g)
    else:
        t.grad._assign_data(t.grad._arr() + g)  # _arr: the grad may live on the host after .numpy()
    if t._post_acc_hooks:
        for h in t._post_acc_hooks:
            h(t)


def _check_nan(node, outs):
    for i, g in enumerate(outs):
        if g is not None:
            a = g._data if isinstance(g, Tensor) else g
            if bool(np.isnan(np.asarray(a)).any()):
                msg = f"Function '{node.name()}' returned nan values in its {i}th output."
                if node._trace:
                    msg += "\nTraceback of forward call that caused the error:\n" + node._trace
                raise RuntimeError(msg)


# ---------------------------------------------------------------------------- saved tensors hooks
# A node saves the residuals of its op's pullback (_dispatch.Compiled.residuals), or, where those would
# not serve create_graph or JAX cannot form the pullback at forward time, every input array of the op.
# Under saved_tensors_hooks a node saves its inputs: each input Tensor is packed when the node is recorded
# and unpacked when its backward runs; the VJP (which re-runs the forward) uses what unpack returns.

_saved_hooks = []  # stack of (pack_hook, unpack_hook)


class _Packed:
    """A node's saved arrays with its input Tensors packed: unpacking gives the arrays back."""

    __slots__ = ("items", "unpack")

    def __init__(self, dyn, arrays, hooks):
        pack, self.unpack = hooks
        self.items = [(True, pack(Tensor._from_array(a, t._device))) if isinstance(t, Tensor) else (False, a)
                      for t, a in zip(dyn, arrays)]

    def arrays(self):
        out = []
        for packed, v in self.items:
            if packed:
                v = self.unpack(v)
                if not isinstance(v, Tensor):
                    raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                                    f"type {type(v).__name__}")
                v = v._arr()
            out.append(v)
        return out


def _arrays_of(node):
    a = node._arrays
    return a.arrays() if type(a) is _Packed else a


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor)` runs for every tensor a node saves when it is recorded, and
    `unpack_hook(packed)` when backward needs it; its result (a Tensor) is what backward uses."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _hooks_disabled:
            raise RuntimeError(_hooks_disabled[-1])
        _saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device when backward needs them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, t.cpu()

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager in which entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _hooks_disabled.append(self.error_message)

    def __exit__(self, *exc):
        _hooks_disabled.pop()


_hooks_disabled = []
