"""torch.compile of a function: one XLA program per call, the state it touches lifted in and written back.

A call looks up an entry by the guard key (input shapes, dtypes and static values, the identity, shapes and
structure of the state it reaches, module training flags, grad mode). A new key traces the function once
with every slot holding a tracer (the facade engine and every op run on tracers, backward included) into
one pure function `raw(*state, *inputs) -> (*outputs, *new state)`, run through the dispatch chokepoint as a
single op: a jitted forward and, when an input requires grad, one autograd node whose backward is the jitted
VJP of the whole function (`CompiledFunctionBackward`).

What is traced and what stays Python: tensor operations are traced, including autograd and optimizer steps;
Python code runs once, while tracing. So Python values a call computes are constants of its program, except
learning-rate schedulers: their `step()` runs eagerly around every call (before the program when it came
before the optimizer step in the function, after it otherwise). Code that needs a value (`.item()`,
`bool(t)`, `print(t)`, data-dependent shapes) is a graph break: the call runs eagerly, with one warning.
"""

from __future__ import annotations

import functools
import logging
import operator
import os
import sys
import traceback
import warnings
import weakref

import jax

from .. import _device, _dispatch, _random, _xla
from .. import _dtype as _D
from .. import _multidevice as _md
from .._tensor import Tensor, ValueNeeded
from ..autograd.grad_mode import STATE, set_grad_enabled
from ..optim import optimizer as _optim
from . import _spmd, _state
from ._config import config, counters


class GraphBreak(Exception):
    """Raised while tracing by code that cannot be traced (a scheduler step with a metric, a disabled function)."""


_BREAKS = (GraphBreak, ValueNeeded, jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
           jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError,
           jax.errors.NonConcreteBooleanIndexError)  # masked_select, nonzero ...: a shape from values
_LIBRARY_DIRS = tuple(os.path.dirname(os.path.dirname(m.__file__)) + os.sep for m in (jax,)) + (
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + os.sep + "facade" + os.sep,
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + os.sep + "functional" + os.sep)
_LOG = logging.getLogger("torch._dynamo")
_ALL = weakref.WeakSet()  # every compiled function, for torch.compiler.reset()


class TorchDynamoException(RuntimeError):
    """torch._dynamo.exc.TorchDynamoException."""


class Unsupported(TorchDynamoException):
    """torch._dynamo.exc.Unsupported: a graph break under fullgraph=True."""


def _user_frame(tb):
    """'file:line' of the innermost frame of the traceback that is the user's code."""
    where = None
    for frame, line in traceback.walk_tb(tb):
        f = frame.f_code.co_filename
        if not f.startswith(_LIBRARY_DIRS) and "/site-packages/" not in f and not f.startswith("<frozen"):
            where = _code_name(f, line)
    return where or "<unknown>"


def _code_name(filename, line):
    """'file:line'; for code typed into IPython or a notebook, its traceback's 'Cell In[3], line 4' instead of the
    kernel's temporary file name."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    label = getattr(getattr(shell, "compile", None), "format_code_name", lambda name: None)(filename)
    return f"{label[0]} {label[1]}, line {line}" if label else f"{filename}:{line}"


def _log_recompiles():
    return "recompiles" in os.environ.get("TORCH_LOGS", "") or config.log_recompiles


class _Entry:
    """One compiled program: the slots it reads, in order, and what its outputs mean."""

    def __init__(self, key, tensors, hypers, inputs_spec, state):
        self.key, self.tensors, self.hypers, self.inputs_spec, self.state = key, tensors, hypers, inputs_spec, state
        self.comp = None
        self.eager = False        # a graph break: this key runs eagerly
        self.detached = False     # its outputs carry no graph (it ran backward itself, or nothing requires grad)
        self.out = None           # set while tracing: how to read the outputs back
        self.arrays = None        # the first call's inputs, kept for explain() only
        # A step that reaches an optimizer donates the buffers of its state tensors (parameters, buffers, optimizer
        # state) and of their grads: the program writes every one of them back (or drops the grad), so XLA updates
        # them in place, or reuses a dropped grad's buffer for the new one, instead of allocating new buffers.
        self.donate = bool(state.found.optimizers)
        ngrads = sum(t._grad is not None for t in tensors) if state.lift_grads else 0
        self.ndonate = len(tensors) + ngrads if self.donate else 0
        self.donating = None
        self.unread = None  # slice of the lifted grads among the donating program's inputs, where it never reads
        # them (the step sets them to None before any use, as `optimizer.zero_grad()` does): not passed at all
        self.before, self.after = [], []  # scheduler steps run eagerly around the program
        self.modes = None  # (module, training) the function's train()/eval() set, from its trace: set on every call
        self.plan = None   # (self.out, its writes grouped by kind): see _write_back
        # a step over processes (DDP): one SPMD program over this group, its programs by (donated, 0-d inputs)
        self.spmd = _spmd.group(state) if self.donate else None
        self.spmd_programs = {}


class CompiledFunction:
    """What torch.compile(fn) returns: call it like fn."""

    def __init__(self, fn, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None):
        self._fn, self.fullgraph, self.dynamic = fn, fullgraph, dynamic
        self.backend, self.mode, self.options = backend, mode, options
        self._entries, self._last_key, self._states, self._calls = {}, None, {}, 0
        self._warned, self._keep_arrays, self._bound = set(), False, weakref.WeakKeyDictionary()
        self._lift_grads = True  # a module's forward (OptimizedModule) neither reads nor writes .grad
        self._treedefs = {}  # the structure of a call with n tensor arguments and no keywords
        self.__wrapped__ = fn
        for a in ("__name__", "__qualname__", "__doc__", "__module__"):
            if hasattr(fn, a):
                setattr(self, a, getattr(fn, a))
        _ALL.add(self)

    def __get__(self, obj, objtype=None):
        """A compiled method (`@torch.compile` on `def forward(self, x)`): one compiled function per instance."""
        if obj is None:
            return self
        bound = self._bound.get(obj)
        if bound is None:
            bound = self._bound[obj] = CompiledFunction(self._fn.__get__(obj, objtype), self.fullgraph, self.dynamic,
                                                        self.backend, self.mode, self.options)
        return bound

    def _reset(self):
        self._entries.clear()
        self._states.clear()
        self._last_key = None

    # ------------------------------------------------------------------ the call
    def __call__(self, *args, **kwargs):
        if config.disable or config.tracing:
            return self._fn(*args, **kwargs)
        plain = not kwargs and all(type(a) is Tensor for a in args)  # the common call: tensors only
        objects = () if plain else tuple(id(a) for a in (*args, *kwargs.values())
                                         if not isinstance(a, (Tensor, int, float)))
        st = self._states.get(objects)
        if st is None:  # the state this function reaches with these (non-tensor) arguments
            st = self._states[objects] = _state.State(_state.find(self._fn, args, kwargs), self._lift_grads)
            if st.found.optimizers and self._calls == 0:
                self._calls += 1  # the warm-up call runs eagerly: it creates the optimizer's lazy state
                return self._fn(*args, **kwargs)
        self._calls += 1
        counters["frames"]["total"] += 1
        tensors, hypers = st.tensors(), st.hypers()
        if plain:  # every argument a leaf: the structure is the one of any call with as many
            leaves, treedef = args, self._treedefs.get(len(args))
            if treedef is None:
                treedef = self._treedefs[len(args)] = jax.tree_util.tree_structure((args, kwargs), is_leaf=_is_leaf)
        else:
            leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
        spec = tuple([_spec(t) if isinstance(t, Tensor) else _static(t) for t in leaves])
        key = (treedef, spec, st.key(tensors, hypers), STATE.enabled)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._new_entry(key, st, tensors, hypers, spec)
            if entry is None:
                return self._fn(*args, **kwargs)
        self._last_key = key
        if entry.eager:
            return self._fn(*args, **kwargs)
        return self._run(entry, st, tensors, hypers, leaves, treedef, args, kwargs)

    def _new_entry(self, key, st, tensors, hypers, spec):
        if len(self._entries) >= config.cache_size_limit:
            if "limit" not in self._warned:  # torch's log line; the new case runs eagerly
                self._warned.add("limit")
                code = getattr(getattr(self._fn, "__func__", self._fn), "__code__", None)
                where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
                _LOG.warning("torch._dynamo hit config.recompile_limit (%s)\n   function: '%s'%s\n   last reason: %s\n"
                             'To log all recompilation reasons, use TORCH_LOGS="recompiles".',
                             config.cache_size_limit, getattr(self._fn, "__name__", self._fn), where, self._why(key))
            return None
        counters["stats"]["unique_graphs"] += 1
        if self._entries:
            counters["stats"]["recompiles"] += 1
            if _log_recompiles():
                print(f"torch.compile: recompiling {getattr(self, '__qualname__', self._fn)}: {self._why(key)}",
                      file=sys.stderr)
        entry = self._entries[key] = _Entry(key, tensors, hypers, spec, st)
        return entry

    def _why(self, key):
        """The first guard that differs from the previous call's key, with old and new values."""
        old = self._last_key
        if old is None:
            return "no previous program"
        names = ("input structure", "inputs", "state", "grad mode")
        for name, a, b in zip(names, old, key):
            if a != b:
                if name == "inputs":
                    for i, (x, y) in enumerate(zip(a, b)):
                        if x != y:
                            return f"input {i} changed from {_describe(x)} to {_describe(y)}"
                if name == "state":
                    return _state_why(a.parts, b.parts)
                return f"{name} changed from {a} to {b}"
        return "unknown"

    def _run(self, entry, st, tensors, hypers, leaves, treedef, args, kwargs):
        for s in entry.before:
            s.step()
        # Unless the state was written since a program of this function last wrote it (or is new), its device,
        # the device arrays of unchanged hyperparameters and the generators' keys are the last call's.
        fresh, gens = st._sv is None, st.found.generators
        if fresh:
            st.device = _single_device(tensors)
        device = st.device
        sharded = tensors if device is None else ()  # only state off a single device may live on a Mesh
        if fresh:  # their arrays may be uncommitted
            for t in tensors:
                _commit(t, sharded)
        grads = [t._grad for t in tensors if t._grad is not None] if st.lift_grads else []
        on = device if device is not None and tensors[0]._data.committed else None  # uncommitted: one signature
        if fresh or st.floats is None or st.floats[0] is not hypers or st.floats[1] != on:
            floats = [x for _, hp in hypers for v in hp.values() for x in (v if type(v) is tuple else _state._flat(v))]
            if device is not None:  # hyperparameters as the device arrays jit would make of them, once per value
                floats = [_optim._scalar_data(x, on) if type(x) is float else x for x in floats]
            st.floats = hypers, on, floats
        floats = st.floats[2]
        keys = st.keys
        if fresh or keys is None or not all(map(operator.is_, [g._key for g in gens], keys)):
            # a generator's key goes where the program runs (the state's device), as eager draws move it there
            here = tensors[0]._device if device is not None else None
            keys = st.keys = [_committed(_random._key_on(g, here or g.device), here or g.device, sharded)
                              for g in gens]
            for g, k in zip(gens, keys):  # moved once: a key the program does not draw from stays put
                g._key = k
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        if entry.comp is None:
            entry.comp = _dispatch.Compiled.from_raw(_OP, self._raw(entry, treedef, leaves), resid="all")
        if self._keep_arrays:  # torch._dynamo.explain re-traces the program from them
            entry.arrays = [t._arr() if isinstance(t, Tensor) else t
                            for t in (*tensors, *grads, *floats, *keys, *inputs)]
        try:
            if entry.donate or entry.detached:  # no autograd node to record: the program runs on the arrays
                # Buffers are donated only where nothing else refers to them (`_arrays`): a detached alias or a
                # grad the caller kept would otherwise be left with a deleted buffer.
                unread = entry.unread
                arrays, owned = _arrays(tensors, () if unread else grads, entry.donate)
                if unread and not owned:  # the program that does not donate takes them all
                    arrays[unread] = [g._arr() for g in grads]
                arrays += floats
                arrays += keys
                arrays += [t._data if t._base is None and t._np is None else t._arr() for t in inputs]
                if entry.spmd is not None:
                    outs = _spmd.call(entry, entry.spmd, arrays, owned)
                else:  # one multi-device CPU program at a time (facade._multidevice)
                    if owned and entry.donating is None:
                        entry.donating, entry.unread = _donating(entry.comp.raw, entry.ndonate, arrays,
                                                                 slice(len(tensors), len(tensors) + len(grads)))
                        if entry.unread:
                            del arrays[entry.unread]
                    outs = _md.call(entry.donating if owned else entry.comp.fwd, *arrays)
                device = tensors[0]._device if tensors else _dispatch._default_device()
            else:
                res = _dispatch.run(entry.comp, [*tensors, *grads, *floats, *keys, *inputs])
                res = res if isinstance(res, tuple) else (res,)
                outs, device = [r._data for r in res], res[0]._device
        except _BREAKS as e:
            return self._graph_break(entry, e, args, kwargs)
        out = self._write_back(entry, outs, res if not entry.detached else None, device)
        st.written(tensors)
        if gens:
            st.keys = [g._key for g in gens]
        for m, mode in entry.modes or ():  # Python side effects of the trace: model.train() / model.eval()
            m.training = mode
        for s in entry.after:
            s.step()
        return out

    def _graph_break(self, entry, e, args, kwargs):
        where = _user_frame(e.__traceback__)
        msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if self.fullgraph:
            raise Unsupported(f"torch.compile(fullgraph=True): graph break at {where}: code needs a concrete value "
                              f"({msg})") from e
        entry.eager, entry.comp = True, None
        counters["graph_break"][msg] += 1
        self._report_break(where, msg)
        return self._fn(*args, **kwargs)

    def _report_break(self, where, msg):
        if where not in self._warned:
            self._warned.add(where)
            warnings.warn(f"torch.compile: graph break at {where} (code needs a concrete value: {msg}); "
                          "this call and later ones with the same guards run eagerly", stacklevel=5)

    # ------------------------------------------------------------------ tracing
    def _raw(self, entry, treedef, leaves0):
        fn, st = self._fn, entry.state
        tensors, hypers, gens = entry.tensors, entry.hypers, st.found.generators
        grad_mode = entry.key[-1]
        is_tensor = [isinstance(x, Tensor) for x in leaves0]
        meta = [(x._device, x.requires_grad) if isinstance(x, Tensor) else x for x in leaves0]

        def raw(*arrays):
            it = iter(arrays)
            saved = _Saved(tensors, st)
            try:
                for t in tensors:
                    t._data, t._np = next(it), None
                for t in tensors if st.lift_grads else ():
                    if t._grad is not None:
                        g = t._grad
                        g._data, g._np = next(it), None
                traced = {id(group): {k: _unflat(v, it) for k, v in hp.items()} for group, hp in hypers}
                for g in gens:
                    g._key = next(it)
                keys = [g._key for g in gens]
                leaves = []
                for m, is_t in zip(meta, is_tensor):
                    if is_t:
                        t = Tensor._from_array(next(it), m[0])
                        t.requires_grad = m[1]
                        leaves.append(t)
                    else:
                        leaves.append(m)
                args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
                modes = [m.training for m in st.modules]
                with set_grad_enabled(grad_mode), _Tracing(entry, traced, st.found.schedulers):
                    out = fn(*args, **kwargs)
                if entry.modes is None:  # the forward's trace (a backward's retrace may start from other flags)
                    entry.modes = [(m, m.training) for m, was in zip(st.modules, modes) if m.training != was]
                return self._outputs(entry, out, saved, keys, arrays)
            finally:
                saved.restore()

        raw.__name__ = f"compiled_{getattr(fn, '__name__', 'function')}"
        return raw

    def _outputs(self, entry, out, saved, keys, arrays):
        """The program's outputs: every state slot that changed, in the order of the inputs, then the function's
        tensors. jit gives a donated buffer to the first output of its shape and dtype, so with the state first each
        slot gets its own buffer back; the loss first would take the first 0-d state buffer (an Adam step count),
        and every later step count its neighbour's, each a copy."""
        leaves, treedef = jax.tree_util.tree_flatten(out, is_leaf=_is_leaf)
        res, results, spec = [], [], []
        for x in leaves:
            if isinstance(x, Tensor):
                results.append(x._arr())
                spec.append(None)
            else:
                spec.append(x)
        inputs = {id(a) for a in arrays}
        writes = []  # (kind, target, index into res)
        for t in entry.tensors:
            a = t._arr()
            if entry.donate or id(a) not in inputs:  # a donated buffer is always written back
                writes.append(("data", t, len(res)))
                res.append(a)
        grads_changed = False
        for t, old in zip(entry.tensors, saved.grads if entry.state.lift_grads else ()):
            g = t._grad
            if g is None:
                if old is not None:
                    writes.append(("nograd", t, None))
                    grads_changed = True
            elif g is old:
                a = g._arr()
                if id(a) not in inputs:
                    writes.append(("graddata", g, len(res)))
                    res.append(a)
                    grads_changed = True
                elif entry.donate:  # unchanged, but its buffer was donated: the program hands the values back
                    writes.append(("same", g, len(res)))
                    res.append(a)
            else:
                writes.append(("newgrad", t, len(res)))
                res.append(g._arr())
                grads_changed = True
        known = {id(t) for t in entry.tensors}
        for opt, before in zip(entry.state.found.optimizers, saved.opt_states):
            for path, v in _state.opt_items(opt):
                if isinstance(v, Tensor):
                    if id(v) not in known:
                        writes.append(("optnew", (opt, path, v._device), len(res)))
                        res.append(v._arr())
                elif before.get((id(path[0]), path[1]), _MISSING) is not v:  # a new value or pytree (optax)
                    values, tree = jax.tree_util.tree_flatten(v, is_leaf=_is_leaf)
                    where = []
                    for x in values:
                        if isinstance(x, Tensor):
                            where.append((len(res), x._device))
                            res.append(x._arr())
                        else:
                            where.append((None, x))
                    writes.append(("opttree", (opt, path, tree), where))
        for g, key in zip(entry.state.found.generators, keys):
            if g._key is not key:  # a key the function did not draw from is not an output (nor a copy)
                writes.append(("key", g, len(res)))
                res.append(g._key)
        entry.out = (treedef, spec, writes, len(res))
        # no graph to record when the function ran backward itself, or when none of its outputs requires grad
        # (a body under no_grad): torch's outputs then have no grad_fn, and nothing keeps the residuals
        entry.detached = grads_changed or not any(x.requires_grad for x in leaves if isinstance(x, Tensor))
        return (*res, *results)

    def _write_back(self, entry, outs, res, device):
        """Write the program's state outputs into their slots; the function's outputs as Tensors (those of the
        recorded node, `res`, when there is one)."""
        treedef, spec, writes, first = entry.out
        k = iter(range(first, first + len(spec)))
        leaves = [(res[next(k)] if res is not None else Tensor._from_array(outs[next(k)], device)) if s is None else s
                  for s in spec]
        plan = entry.plan
        if plan is None or plan[0] is not entry.out:  # the writes grouped by kind, once per trace
            plan = entry.plan = (entry.out, *_plan(writes))
        _, data, same, newgrads, nograds, rest = plan
        bump = entry.detached  # the node's own writes (BatchNorm statistics) keep versions
        for t, i in data:
            if t._base is None and t._np is None:  # _set, inlined: one per state tensor on every call
                t._data = outs[i]
                t._sv += 1
                if bump:
                    t._vc += 1
            else:
                t._write(Tensor._from_array(outs[i], t._device), record=False)
        for t, i in same:  # the same values in the buffer the donated one became: no version bump
            if t._base is None and t._np is None:
                t._data = outs[i]
        for t, i in newgrads:
            t._grad = Tensor._from_array(outs[i], t._device)
        for t in nograds:
            t._grad = None
        for kind, target, i in rest:
            if kind == "optnew":
                opt, path, dev = target
                _state.set_opt_item(opt, path, Tensor._from_array(outs[i], dev))
            elif kind == "opttree":
                opt, path, tree = target
                values = [x if j is None else Tensor._from_array(outs[j], x) for j, x in i]
                _state.set_opt_item(opt, path, jax.tree_util.tree_unflatten(tree, values))
            elif kind == "key":
                target._key = outs[i]
        return jax.tree_util.tree_unflatten(treedef, leaves)


_MISSING = object()


class _Saved:
    """Everything a trace may change, put back afterwards: the traced call leaves no tracer behind."""

    def __init__(self, tensors, st):
        self.tensors = [(t, t._data, t._np, t._sv, t._vc, t._grad, t._grad_fn, getattr(t, "_output_nr", 0))
                        for t in tensors]
        self.grads = [t._grad for t in tensors]
        self.grad_data = [(g, g._data, g._np, g._sv, g._vc) for g in self.grads if g is not None]
        self.opt_states = [{(id(p), k): v for (p, k), v in _state.opt_items(opt)} for opt in st.found.optimizers]
        self.opt_dicts = [{p: dict(s) if isinstance(s, dict) else s for p, s in opt.state.items()}
                          for opt in st.found.optimizers]
        self.opts = st.found.optimizers
        self.keys = [(g, g._key) for g in st.found.generators]
        self.modules = [(m, dict(m._parameters), dict(m._buffers)) for m in st.modules]
        # Python bookkeeping a module keeps across forward and backward (DistributedDataParallel's reducer)
        self.snapshots = [m._compile_snapshot() for m in st.modules if hasattr(type(m), "_compile_snapshot")]

    def restore(self):
        for t, data, np_, sv, vc, grad, fn, nr in self.tensors:
            t._data, t._np, t._sv, t._vc, t._grad, t._grad_fn, t._output_nr = data, np_, sv, vc, grad, fn, nr
        for g, data, np_, sv, vc in self.grad_data:
            g._data, g._np, g._sv, g._vc = data, np_, sv, vc
        for opt, before in zip(self.opts, self.opt_dicts):
            opt.state.clear()
            opt.state.update({p: dict(s) if isinstance(s, dict) else s for p, s in before.items()})
        for g, key in self.keys:
            g._key = key
        for m, params, buffers in self.modules:
            m._parameters.clear()
            m._parameters.update(params)
            m._buffers.clear()
            m._buffers.update(buffers)
        for restore in self.snapshots:
            restore()


class _Tracing:
    """While tracing: optimizer groups read traced hyperparameters, `torch.compiler.is_compiling()` is true, and
    LRScheduler.step is recorded (to run eagerly around each call) instead of traced."""

    def __init__(self, entry, hypers, schedulers):
        self.entry, self.hypers, self.schedulers = entry, hypers, schedulers

    def __enter__(self):
        trace = _optim.TRACE
        self.entry.before, self.entry.after = [], []
        self._prev = trace.hypers, trace.steps, config.tracing, _dispatch.TRACING
        trace.hypers, trace.steps, config.tracing, _dispatch.TRACING = self.hypers, 0, True, True
        for sched in self.schedulers:
            sched.step = functools.partial(self._record, sched)
        return self

    def _record(self, sched, *args, **kwargs):
        if args or kwargs:
            raise GraphBreak(f"{type(sched).__name__}.step() with arguments")
        (self.entry.after if _optim.TRACE.steps else self.entry.before).append(sched)

    def __exit__(self, *exc):
        trace = _optim.TRACE
        trace.hypers, trace.steps, config.tracing, _dispatch.TRACING = self._prev
        for sched in self.schedulers:
            del sched.step


def _plan(writes):
    """A program's writes by kind: (data and graddata, same, newgrad, nograd, the rest) for `_write_back`."""
    data, same, newgrads, nograds, rest = [], [], [], [], []
    for kind, target, i in writes:
        if kind == "data" or kind == "graddata":
            data.append((target, i))
        elif kind == "same":
            same.append((target, i))
        elif kind == "newgrad":
            newgrads.append((target, i))
        elif kind == "nograd":
            nograds.append(target)
        else:
            rest.append((kind, target, i))
    return data, same, newgrads, nograds, rest


def _arrays(tensors, grads, donate):
    """(the arrays of the state tensors and grads, whether all their buffers may be donated): with `donate`,
    every buffer is referred to by its tensor only (`optimizer._own`, checked here in the same pass) and no grad
    object by anything but its tensor's `.grad` (a dropped grad's buffer is reused for the new one)."""
    arrays, owned, refs, array = [], donate, sys.getrefcount, _optim._ARRAY
    for t in tensors:
        a = t._data
        if t._base is None and t._np is None:
            # references to a: t._data, this variable, getrefcount's argument (as in optimizer._own)
            if owned and (type(a) is not array or refs(a) > 3):
                owned = False
            arrays.append(a)
        else:
            owned = False
            arrays.append(t._arr())
    for g in grads:
        a = g._data
        if g._base is None and g._np is None:
            # a grad's references: its tensor's .grad, the `grads` list, this variable, getrefcount's argument
            if owned and (type(a) is not array or refs(a) > 3 or refs(g) > 4):
                owned = False
            arrays.append(a)
        else:
            owned = False
            arrays.append(g._arr())
    return arrays, owned


def _donating(raw, ndonate, arrays, grads):
    """The whole step as a top-level jit writing its state in place (the first `ndonate` buffers donated),
    compiled with XLA's own flags (`_xla.xla_defaults`), as a plain JAX step is; and the slice `grads` of the
    lifted grads among `arrays` where the step never reads them (it sets them to None first, as
    `optimizer.zero_grad()` does; else None): then the program takes no grads, a call passes that many
    arguments fewer (about 1 us each) and the new grads get buffers of their own, as a plain JAX step's do."""
    jit = functools.partial(jax.jit, compiler_options=_xla.xla_defaults())
    if grads.stop > grads.start:
        inner = jax.jit(raw)
        jaxpr = inner.trace(*arrays).jaxpr.jaxpr  # traced once: the program below reuses this trace
        used = {id(v) for eqn in jaxpr.eqns for v in eqn.invars} | {id(v) for v in jaxpr.outvars}
        if not any(id(v) in used for v in jaxpr.invars[grads]):
            specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays[grads]]

            def without_grads(*a):
                unread = [jax.numpy.zeros(s.shape, s.dtype) for s in specs]  # never read: XLA drops them
                return inner(*a[:grads.start], *unread, *a[grads.start:])

            without_grads.__name__ = without_grads.__qualname__ = raw.__name__  # the program's name in metrics
            return jit(without_grads, donate_argnums=tuple(range(ndonate - len(specs)))), grads
    return jit(raw, donate_argnums=tuple(range(ndonate))), None


def _single_device(tensors):
    """The one jax device the state lives on, or None (no state, a sharded model, traced values)."""
    a = tensors[0]._data if tensors else None
    s = getattr(a, "sharding", None) if type(a) is _optim._ARRAY else None
    return next(iter(s.device_set)) if type(s) is jax.sharding.SingleDeviceSharding else None


def _commit(t, sharded):
    """Place a state tensor's array on its device explicitly: an uncommitted array (fresh from jnp.zeros) and
    the committed one the program writes back would otherwise be two signatures, two compiles."""
    if t._base is None:
        t._data = _committed(t._data, t._device, sharded)


def _committed(a, device, sharded):
    """`a` (an array, or a generator's key) committed: to `device`, or replicated over the jax Mesh the state
    tensors `sharded` live on (a model placed by facade.distributed), since one program runs on one set of
    devices. `sharded` is empty where the state is on one device: no scan of it for every array."""
    if a is None or getattr(a, "committed", True) is not False:
        return a
    for t in sharded:
        s = getattr(t._data, "sharding", None)
        if isinstance(s, jax.sharding.NamedSharding) and len(s.device_set) > 1:
            return jax.device_put(a, jax.sharding.NamedSharding(s.mesh, jax.sharding.PartitionSpec()))
    jd = _device.jax_device(device)
    # on JAX's default device it stays uncommitted, as eager arrays there are: jit keeps outputs of uncommitted
    # inputs uncommitted (one signature), and eager ops meet the state with the signature they already compiled
    return a if jd == _default_jax_device() else jax.device_put(a, jd)


_DEFAULT = []


def _default_jax_device():
    """jax.local_devices()[0], looked up once (the first call starts the backend, so not at import)."""
    if not _DEFAULT:
        _DEFAULT.append(jax.local_devices()[0])
    return _DEFAULT[0]


def _unflat(v, it):
    if isinstance(v, (tuple, list)):
        return type(v)(_unflat(x, it) for x in v)
    return next(it)


def _is_leaf(x):
    return isinstance(x, Tensor)


def _static(v):
    try:
        hash(v)
        return (type(v), v)
    except TypeError:
        return (type(v), id(v))


def _spec(t):
    """What a tensor argument's program depends on: shape, (numpy) dtype, requires_grad and device, read from
    its array where it has one (the properties cost twice as much, on every call)."""
    a = t._data if t._data is not None else t._np
    if a is None or t._rg is not None:
        return tuple(t.shape), _state._dtype(t), t.requires_grad, t._device
    return a.shape, a.dtype, t.requires_grad, t._device


def _describe(x):
    if isinstance(x, tuple) and len(x) == 4 and isinstance(x[0], tuple):
        return f"Tensor(shape={list(x[0])}, dtype={_D._FROM_NP.get(x[1], x[1])}, requires_grad={x[2]})"
    return repr(x[1]) if isinstance(x, tuple) and len(x) == 2 else repr(x)


def _state_why(a, b):
    labels = ("state tensors", "requires_grad of state tensors", "grads of state tensors", "module training flags",
              "gradient sync flags of DistributedDataParallel modules (no_sync())")
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if i == 0:
            if x[0] != y[0]:
                return f"the state tensors changed ({len(x[0])} before, {len(y[0])} now, or other objects)"
            old, new = x[1][1], y[1][1]  # (token, per-tensor (shape, dtype, device))
            j = next(j for j, (u, v) in enumerate(zip(old, new)) if u != v)
            (s0, d0, _), (s1, d1, _) = old[j], new[j]
            return f"state tensor {j} changed from shape={list(s0)}, dtype={d0} to shape={list(s1)}, dtype={d1}"
        if i < len(labels):
            j = next(j for j, (u, v) in enumerate(zip(x, y)) if u != v)
            old, new = (_D._FROM_NP.get(v, v) for v in (x[j], y[j])) if i == 2 else (x[j], y[j])  # grad dtypes
            return f"{labels[i]}: entry {j} changed from {old} to {new}"
        return "optimizer options or state changed" if i < len(a) - 1 else "optimizer groups changed"
    return "state changed"


def _compiled_function(*args):
    """The op every compiled call is (its node is CompiledFunctionBackward, as torch's)."""


_OP = _dispatch.Op("compiled_function", _compiled_function, arrays=(), grad_name="CompiledFunctionBackward",
                   method=False, function=False)
_OP.fuse = False  # its backward is already one program; a fused graph would retrace the whole function


def reset():
    """torch.compiler.reset(): forget every compiled program (the next call of each traces again)."""
    for f in list(_ALL):
        f._reset()
