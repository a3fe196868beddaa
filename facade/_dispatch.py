"""The one chokepoint every facade op passes through.

`call(op, args, kwargs)` binds torch's arguments, separates arrays (traced) from
everything else (static), applies torch's type promotion, runs the functional
function under a `jax.jit` cached by (op, static arguments, promotion), wraps the
results and records the autograd node.
"""

from __future__ import annotations

import inspect
import weakref
from collections import namedtuple

import jax
import numpy as np

from . import _dtype as D
from . import _host, _ragged
from . import _multidevice as _md
from ._device import put
from .amp import _policy as _amp
from .amp._state import STATE as _AUTOCAST
from .autograd import forward_ad as _fwd
from .autograd import graph
from .autograd.grad_mode import STATE

__all__ = ["Op", "call", "call_inplace"]

ALL = []  # every Op made (routes choose among rows that are not in the table's lists)
_REQ = object()  # marks a required parameter in Op.defaults
Tensor = None  # set by _tensor at import (circular by nature: ops make Tensors)


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


class Op:
    """One row of the op table: a functional function plus how torch exposes it.

    arrays:   parameters that take Tensors (or Python numbers, traced as 0-dim arrays;
              lists/tuples are searched for Tensors). All other parameters are static.
    promote:  parameters whose dtypes combine by torch's result_type; they are cast to it.
              "all" means every array parameter.
    to_float: integer/bool results of the promotion become the default float dtype (or a
              callable(vals) -> bool deciding it per call, e.g. div without rounding_mode).
    scalars:  array parameters cast to the promoted dtype without taking part in it (alpha=).
    """

    def __init__(self, name, fn, *, arrays=("input",), promote=(), to_float=False, scalars=(), method=True,
                 function=True, dunders=(), rdunders=(), inplace=False, view=False, differentiable=True,
                 grad_name=None, out=None, jit=True, saves="inputs", varargs=None, aliases=(), module="torch",
                 inplace_dunders=(), route=None, check=None, post=None):
        self.name, self.fn = name, fn
        sig = inspect.signature(fn)
        self.params = list(sig.parameters)
        self.index = {p: i for i, p in enumerate(self.params)}
        self.defaults = [_REQ if p.default is p.empty else p.default for p in sig.parameters.values()]
        self.nreq = sum(d is _REQ for d in self.defaults)
        self.npos = sum(p.kind != p.KEYWORD_ONLY for p in sig.parameters.values())
        self.array_idx = tuple(self.index[a] for a in arrays)
        promote = arrays if promote == "all" else promote
        self.promote_idx = tuple(self.index[a] for a in promote)
        self.scalar_idx = tuple(self.index[a] for a in scalars)
        self.to_float = to_float
        self.method, self.function, self.dunders, self.rdunders = method, function, dunders, rdunders
        self.inplace, self.inplace_dunders, self.view = inplace, inplace_dunders, view
        self.differentiable, self.jit, self.saves = differentiable, jit, saves
        self.fuse = jit  # may join a fused backward program (graph.py); a compiled function's node stays alone
        self.grad_name = grad_name or _camel(name) + "Backward0"
        self.node_type = type(self.grad_name, (graph.Node,), {"__slots__": ()})
        self.out = namedtuple(out[0], out[1]) if out else None
        if self.out is not None:
            self.out.__module__ = "torch.return_types"
        self.varargs = None if varargs is None else self.index[varargs]
        self.aliases = aliases
        self.modules = (module,) if isinstance(module, str) else tuple(module)  # torch.relu and F.relu
        self.route = route  # callable(args, kwargs) -> the Op of torch's overload for this call, or None for self
        self.check = check  # callable(vals): raises torch's error for arguments refused before promotion
        self.post = post  # callable(result) -> what torch returns instead of the Tensor (bool for allclose)
        self.cache = {}
        self.rg = None  # the rule of its bucketed path (facade/_ragged.py), set by the table
        ALL.append(self)

    def __repr__(self):
        return f"Op({self.name})"


class Compiled:
    """The jitted forward of one (op, static arguments, promotion), its forwards with residuals and its VJPs."""

    __slots__ = ("op", "raw", "fwd", "vjps", "bwd_ops", "fwd_vjps", "modes", "resid")

    def __init__(self, op, skel):
        self.op = op

        npos, names = op.npos, op.params

        def raw(*dyn):
            D.check_kernel(op.name, dyn)  # runs when traced: torch's missing kernels for uint16, float8 ...
            it = iter(dyn)
            vals = [_rebuild(s, it) for s in skel]
            return op.fn(*vals[:npos], **dict(zip(names[npos:], vals[npos:])))

        raw.__name__ = op.name
        self.raw = raw
        self.fwd = jax.jit(raw) if op.jit else raw
        self.vjps, self.bwd_ops, self.fwd_vjps, self.modes = {}, {}, {}, {}
        self.resid = op.jit  # records nodes that keep residuals (see residuals()); unjittable ops keep inputs

    @classmethod
    def from_raw(cls, op, raw, resid=False):
        """A Compiled of a ready-made function. `resid="all"` (a torch.compile'd function's single node): its
        forward keeps every residual its pullback needs, as torch.compile's saved activations, so backward
        does not re-run the program; else the node keeps its inputs and its VJP re-runs the function."""
        self = cls.__new__(cls)
        self.op, self.raw, self.vjps, self.bwd_ops, self.fwd_vjps, self.modes = op, raw, {}, {}, {}, {}
        self.fwd = jax.jit(raw) if op.jit else raw
        self.resid = resid
        return self

    def vjp(self, mask, outmask):
        """The pullback (dyn arrays, output cotangents) -> input cotangents, jitted once per mask."""
        fn = self.vjps.get((mask, outmask))
        if fn is None:
            fn = _make_vjp(self.raw, mask, outmask)
            self.vjps[(mask, outmask)] = fn = jax.jit(fn) if self.op.jit else fn
        return fn

    def residuals(self, mask, arrays):
        """The forward that also returns the residuals of its pullback for these arrays, or None where the
        node keeps the op's inputs and its VJP re-runs the forward (`vjp`). Decided once per (mask, shapes,
        dtypes) by tracing, never by history; the first level whose residuals are all inputs, outputs or
        masks (nothing that create_graph could not differentiate through) wins; `resid="all"` keeps all but
        layout ops' results (level "most"), or all of them where the function loops."""
        if self.resid == "all":  # a compiled function: one signature per Compiled (its cache entry)
            level = self.modes.get(mask)
            if level is None:
                level = self.modes[mask] = self._level(mask, arrays, ("most",))
            return self.fwd_vjp(mask, level)
        try:
            key = (mask, tuple([(a.shape, a.dtype) for a in arrays]))
        except AttributeError:  # a Python number passed as is
            key = (mask, tuple([(a.shape, a.dtype) if hasattr(a, "dtype") else type(a) for a in arrays]))
        level = self.modes.get(key, False)
        if level is False:
            try:
                level = self._level(mask, arrays, range(len(_POLICIES)))
            except Exception:  # noqa: BLE001 - not differentiable by JAX at forward time: keep inputs
                level = None
            self.modes[key] = level
        return None if level is None else self.fwd_vjp(mask, level)

    def _level(self, mask, arrays, levels):
        """The first of `levels` that serves (see `residuals`), None if none does. A forward that runs a loop
        (an RNN's scan) keeps every residual, and the inputs for create_graph: under any policy backward would
        run the whole sequential forward again. (The call that follows reuses the trace.)"""
        for lv in levels:
            traced = self.fwd_vjp(mask, lv).trace(*arrays)
            if lv in (0, "most") and _has_loop(traced.jaxpr.jaxpr):
                traced, lv = self.fwd_vjp(mask, "all").trace(*arrays), "all"
            if lv in ("all", "most") or traced.out_info[1].pull.ok:
                return lv
        return None

    def fwd_vjp(self, mask, level):
        fn = self.fwd_vjps.get((mask, level))
        if fn is None:
            fn = self.fwd_vjps[(mask, level)] = jax.jit(_make_fwd_vjp(self.raw, mask, level))
        return fn


def _conj(xs):
    # torch's complex gradients are the conjugates of JAX's cotangents.
    return tuple(x.conj() if np.iscomplexobj(x) else x for x in xs)


def _make_vjp(raw, mask, outmask):
    def bwd(dyn, cts):
        def f(*diff):
            it = iter(diff)
            out = raw(*[next(it) if m else d for d, m in zip(dyn, mask)])
            outs = out if isinstance(out, tuple) else (out,)
            return tuple(o for o, m in zip(outs, outmask) if m)

        diff = [d for d, m in zip(dyn, mask) if m]
        return _conj(jax.vjp(f, *diff)[1](_conj(cts)))

    bwd.__name__ = f"{raw.__name__}_backward"  # names its program in facade.compiler.metrics()
    return bwd


# ---------------------------------------------------------------------------- residuals
# A node records its op's pullback instead of its inputs: the forward runs `jax.vjp` of the op under
# `jax.checkpoint` with a policy, in one jitted program that returns the outputs and the residuals, so the
# node holds exactly what its pullback reads (an input, an output, a boolean mask) and backward applies
# the pullback without running the forward again. Residuals that are inputs or outputs are not returned
# by the program (it would copy them): the node refers to the arrays it already has.

_MASKS = frozenset({"gt", "ge", "lt", "le", "eq", "ne", "is_finite"})
_BOOL_LOGIC = frozenset({"and", "or", "not", "xor"})
_RESULTS = frozenset({"tanh", "exp", "exp2", "logistic", "log", "log1p", "sqrt", "rsqrt", "cbrt", "sin", "cos"})


def _saves_masks(prim, *avals, **params):
    return prim.name in _MASKS or (prim.name in _BOOL_LOGIC and avals[0].dtype == np.bool_)


def _saves_results(prim, *avals, **params):  # tanh keeps its output as torch does, not its input
    return prim.name in _RESULTS or _saves_masks(prim, *avals, **params)


_POLICIES = (_saves_results, _saves_masks)  # levels: the first whose residuals are all inputs/outputs/masks
# Layout ops whose results the "most" level (a compiled function's node) recomputes in backward instead of
# keeping: `x @ w.T` would keep `w.T`, a transposed copy of the weight that the forward program has to write out
# (bench_compile's MLP under torch.compile(model): 1.34x -> 1.1-1.2x the pure JAX step); backward reads `w` and
# transposes it within the dot. Recomputing elementwise ops as well made the GPT's backward 25% slower.
_LAYOUT = frozenset({"transpose", "reshape", "broadcast_in_dim", "squeeze", "expand_dims", "copy", "copy_p"})


def _saves_all_but_layout(prim, *avals, **params):
    return prim.name not in _LAYOUT


def _has_loop(jaxpr):
    """Whether a jaxpr runs a loop (scan, while), at any depth."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in ("scan", "while"):
            return True
        for v in eqn.params.values():
            for sub in v if isinstance(v, tuple) else (v,):
                sub = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's Jaxpr
                if hasattr(sub, "eqns") and _has_loop(sub):
                    return True
    return False


class _Pullback:
    """What a node needs to apply an op's pullback: the pullback's tree, where each of its residuals comes
    from ((0, k) input array k, (1, k) differentiable output k, (2, k) residual k the forward returned),
    whether they can all be differentiated through by create_graph (`ok`), and the jitted application."""

    __slots__ = ("tree", "spec", "ok", "call", "apply", "bwd_comp")

    def __init__(self, tree, spec, ok, name):
        self.tree, self.spec, self.ok, self.bwd_comp = tree, spec, ok, None

        def call(leaves, cts):
            return _conj(tree.unflatten(leaves)(_conj(cts)))

        call.__name__ = f"{name}_backward"
        self.call, self.apply = call, jax.jit(call)


class _Res:
    """The residuals a forward returns (children) with their _Pullback (static): a pytree through jit."""

    __slots__ = ("own", "pull")

    def __init__(self, own, pull):
        self.own, self.pull = own, pull


jax.tree_util.register_pytree_node(_Res, lambda r: (r.own, r.pull), lambda pull, own: _Res(own, pull))


def _make_fwd_vjp(raw, mask, level):
    policy = None if level == "all" else _saves_all_but_layout if level == "most" else _POLICIES[level]

    def fwd(*dyn):
        shape = []

        def f(*diff):
            it = iter(diff)
            out = raw(*[next(it) if m else d for d, m in zip(dyn, mask)])
            outs = out if isinstance(out, tuple) else (out,)
            shape[:] = [type(out) if isinstance(out, tuple) else None,
                        [o.dtype in graph._DIFFERENTIABLE for o in outs]]
            return tuple(o for o in outs if o.dtype in graph._DIFFERENTIABLE), [
                o for o in outs if o.dtype not in graph._DIFFERENTIABLE]

        diff = [d for d, m in zip(dyn, mask) if m]
        g = f if policy is None else jax.checkpoint(f, policy=policy, prevent_cse=False)
        douts, pull, others = jax.vjp(g, *diff, has_aux=True)
        leaves, tree = jax.tree_util.tree_flatten(pull)
        spec, own = [], []
        for leaf in leaves:
            k = next((i for i, d in enumerate(dyn) if d is leaf), None)
            if k is not None:
                spec.append((0, k))
                continue
            k = next((i for i, o in enumerate(douts) if o is leaf), None)
            if k is not None:
                spec.append((1, k))
                continue
            spec.append((2, len(own)))
            own.append(leaf)
        ok = bool(douts) and not any(o.dtype in graph._DIFFERENTIABLE for o in own)
        kind, isdiff = shape
        d, n = iter(douts), iter(others)
        outs = tuple(next(d) if m else next(n) for m in isdiff)
        out = outs[0] if kind is None else outs
        return out, _Res(own, _Pullback(tree, tuple(spec), ok, raw.__name__))

    fwd.__name__ = f"{raw.__name__}_with_residuals"
    return fwd


# ---------------------------------------------------------------------------- skeletons
# A skeleton is the hashable static image of the arguments: Tensors and traced scalars
# become slots ("T"/"S", with the dtype they are cast to), everything else stays as is.

def _jax_scalar(a, dtype):
    return jax.numpy.asarray(a, dtype=dtype)


def _rebuild(s, it, scalar=_jax_scalar):
    """The argument values of one call from its skeleton and its traced values `it`
    (`scalar(value, dtype)` casts a traced number; host mode passes a numpy one)."""
    kind = s[0] if type(s) is tuple else None
    if kind == "T":
        a = next(it)
        return a if s[1] is None or s[1] == a.dtype else a.astype(s[1])
    if kind == "S":
        a = next(it)
        return scalar(a, s[1]) if s[1] is not None else a
    if kind == "L":
        return [_rebuild(c, it, scalar) for c in s[1]]
    if kind == "U":
        return tuple(_rebuild(c, it, scalar) for c in s[1])
    if kind == "slice":
        return slice(*s[1:])
    if kind == "C":
        return s[1]
    return s


_NUM = (int, float, bool, complex)


_PLAIN = frozenset({int, str, type(None)})


def _static(v):
    """Hashable static form of a non-array argument (Tensors become Python values)."""
    if type(v) in _PLAIN:
        return v
    if isinstance(v, (list, tuple)):
        return ("U", tuple(_static(x) for x in v))
    if isinstance(v, slice):
        return ("slice", _static(v.start), _static(v.stop), _static(v.step))
    if isinstance(v, (Tensor, np.ndarray)):  # a tensor's values as a (hashable) static Python value
        return _static(v.tolist())
    if isinstance(v, np.generic):
        return _static(v.item())
    if isinstance(v, D.dtype):
        return v.np
    if type(v) is tuple or isinstance(v, (dict, set)):
        raise TypeError(f"unhashable static argument {v!r}")
    if isinstance(v, (bool, float)):  # True, 1 and 1.0 hash alike: keep them apart in the jit cache
        return ("C", v, type(v))
    return v


_SCALARS = {}
TRACING = False  # set by torch.compile while it traces: constants are numpy, embedded in the program


def _scalar(v, dtype):
    """A Python number as a cached 0-dim array of the dtype it is cast to: a jitted call takes an
    array argument faster than a Python scalar, and scripts reuse a handful of constants."""
    key = (v, type(v), dtype) if v else (v, type(v), dtype, str(v))  # str keeps -0.0 apart from 0.0
    a = _SCALARS.get(key)
    if a is None or TRACING:  # traced: a numpy constant (a captured device array breaks jit-of-vjp dispatch)
        try:
            a = np.asarray(v, dtype)
        except OverflowError:  # uint8 tensor + (-2): torch wraps the scalar around, as astype does
            a = np.asarray(v).astype(dtype)
        if TRACING:
            return a
        if len(_SCALARS) > 512:
            _SCALARS.clear()
        a = _SCALARS[key] = put(a)
    return a


def _walk(v, dyn, top, cast, host=False):
    """Skeleton of an array argument; appends its Tensors (and top-level numbers: as arrays unless `host`,
    numpy computes the op) to dyn."""
    if isinstance(v, Tensor):
        dyn.append(v)
        return ("T", cast)
    if top and isinstance(v, _NUM):
        dyn.append(_scalar(v, cast) if cast is not None and not host else v)
        return ("S", cast)
    if isinstance(v, (list, tuple)):
        return ("L" if isinstance(v, list) else "U", tuple(_walk(x, dyn, False, cast) for x in v))
    if isinstance(v, np.ndarray) and top:
        dyn.append(Tensor._from_array(jax.numpy.asarray(v)))
        return ("T", cast)
    return _static(v)


# ---------------------------------------------------------------------------- promotion

_SCALAR_CAT = {bool: 0, int: 1, float: 2, complex: 3}


def _promote(op, vals):
    first = None
    same = True
    scalar_cat = -1
    for i in op.promote_idx:
        v = vals[i]
        if isinstance(v, Tensor):
            if first is None:
                first = v.dtype
            elif v.dtype is not first:
                same = False
        elif v is not None:
            c = _SCALAR_CAT.get(type(v))
            if c is None:
                same = False
            elif c > scalar_cat:
                scalar_cat = c
    # Tensors of one dtype with Python scalars of no higher category: that dtype (the common case).
    if same and first is not None and scalar_cat <= first._cat:
        d = first
    else:
        dims, zeros, scalars = [], [], []
        for i in op.promote_idx:
            v = vals[i]
            if isinstance(v, Tensor):
                (dims if v.ndim else zeros).append(v.dtype)
            elif isinstance(v, (list, tuple)):
                dims.extend(x.dtype for x in v if isinstance(x, Tensor))
            elif isinstance(v, _NUM):
                scalars.append(D._scalar_dtype(v))
        d = D.result_dtype(dims, zeros, scalars)
        if d is None:
            return None
    if op.to_float and d._cat < 2 and (op.to_float is True or op.to_float(vals)):
        d = D.get_default_dtype()
    return d


# ---------------------------------------------------------------------------- the call

def bind(op, args, kwargs):
    n = len(args)
    if op.varargs is not None and n > op.varargs:
        k = op.varargs
        rest = args[k:]
        if not (len(rest) == 1 and isinstance(rest[0], (list, tuple))):
            args = (*args[:k], tuple(rest))
        n = len(args)
    if n > len(op.params):
        raise TypeError(f"{op.name}() takes {len(op.params)} positional arguments but {n} were given")
    vals = list(args)
    if n < len(op.params):
        vals.extend(op.defaults[n:])
    if kwargs:
        for k, v in kwargs.items():
            i = op.index.get(k)
            if i is None:
                raise TypeError(f"{op.name}() got an unexpected keyword argument '{k}'")
            vals[i] = v
    if n < op.nreq:
        for i, v in enumerate(vals):
            if v is _REQ:
                raise TypeError(f"{op.name}() missing required argument '{op.params[i]}' (position {i})")
    return vals


def call(op, args, kwargs, autocast=True):
    # `i + block_size` again: replayed (a device tensor first, the common call, is told apart by its _np first)
    if _REPLAYS and len(args) == 2 and getattr(args[0], "_np", 0) is not None and not kwargs and \
            not _AUTOCAST.active:
        replay = _REPLAYS.get(_host_pair(op, args))
        if replay is not None and (op.route is None or (op.route(args, kwargs) or op) is replay.op):
            if op.check is not None:
                op.check(bind(op, args, None))
            result = replay(args)
            return result if op.post is None else op.post(result)
    first = op
    if op.route is not None:
        op = op.route(args, kwargs) or op
    out = kwargs.pop("out", None) if kwargs else None
    vals = bind(op, args, kwargs)
    if _AUTOCAST.active and autocast and out is None:  # torch.autocast: the op's policy (facade.amp._policy)
        vals = _amp.cast(op, vals, Tensor, _autocast_to)
    rg = op.rg is not None and (_ragged.SEEN or op.rg is _ragged.cat_along) and _ragged.ON and not TRACING
    if op.check is not None:
        op.check(vals)  # a bucketed tensor shows its logical shape and values (_deferred._where)
    cast = _promote(op, vals) if op.promote_idx else None
    npcast = None if cast is None else cast.np
    host = _host.ACTIVE or _host_scalars(op, vals)  # numpy computes it: numbers stay Python numbers
    dyn = []
    skel = []
    arr = op.array_idx
    for i, v in enumerate(vals):
        if i in arr:
            c = npcast if (i in op.promote_idx or i in op.scalar_idx) else None
            skel.append(_walk(v, dyn, True, c, host))
        else:
            skel.append(_static(v))
    skel = tuple(skel)
    comp = op.cache.get(skel)
    if comp is None:
        comp = op.cache[skel] = Compiled(op, skel)
    dev = _ragged.active(dyn) if rg else None
    result = NotImplemented if dev is None else _ragged.call(comp, dyn, vals, dev)
    if result is NotImplemented:
        if not host:
            result = run(comp, dyn)
        elif _host.ACTIVE:  # DataLoader workers
            result = _host.run(comp, skel, dyn)
        else:  # numpy-backed scalars: the results stay numpy-backed
            result = _host.run(comp, skel, dyn, numpy_backed=True)
            if out is None and not kwargs and len(args) == 2 and not _AUTOCAST.active:
                key = _host_pair(first, args)
                if key is not None and key not in _REPLAYS and len(_REPLAYS) < 1024:
                    _REPLAYS[key] = _host.Replay.make(comp, skel, dyn)
    if op.view and (op.view is True or op.view(vals)):
        _mark_views(op, vals[0], result, args, kwargs)
    if out is not None:
        return _write_out(op, out, result)
    return result if op.post is None else op.post(result)


_REPLAYS = {}  # (op, its two arguments' dtypes or types) -> _host.Replay (or None: not replayable)


def _host_scalar(t):
    """Whether Tensor `t` is a numpy-backed integer (or bool) scalar with no autograd, as iterating a CPU tensor
    gives: what the host lane computes with (`_host_scalars`, `_host_pair`)."""
    a = t._np
    return a is not None and not a.ndim and a.dtype.kind in "biu" and t._base is None and not t.requires_grad


def _host_pair(op, args):
    """The replay key of a two-argument call whose tensors are host scalars (`_host_scalar`) and whose other
    argument, if not such a tensor, is a Python int or bool; None otherwise (or while host mode, a trace or
    forward AD is on, where the full path decides)."""
    a, b = args
    if type(a) is Tensor:
        if not _host_scalar(a):
            return None
        if type(b) is Tensor:
            if not _host_scalar(b):
                return None
            key = (op, a._np.dtype, b._np.dtype)
        elif type(b) is int or type(b) is bool:
            key = (op, a._np.dtype, type(b))
        else:
            return None
    elif (type(a) is int or type(a) is bool) and type(b) is Tensor and _host_scalar(b):
        key = (op, type(a), b._np.dtype)
    else:
        return None
    return None if _host.ACTIVE or TRACING or _fwd.STATE.level is not None else key


def _host_scalars(op, vals):
    """Whether the op's tensors are all numpy-backed integer (or bool) scalars with no autograd, as iterating a
    CPU tensor gives (`i + block_size`, `i % n`, `n - 1`): numpy computes them exactly, with no dispatch, no
    program to compile and no device round trip, and the result stays on the host for the int() or index that
    usually reads it. (Lists of tensors, as torch.stack takes, go to the device.)"""
    seen = False
    for t in vals:
        if isinstance(t, Tensor):
            if not _host_scalar(t):
                return False
            seen = True
        elif type(t) in (list, tuple) and any(isinstance(x, Tensor) for x in t):
            return False
    return seen and not op.view and not TRACING and _fwd.STATE.level is None and _host.has_rule(op)


def _mark_views(op, src, result, args, kwargs):
    rest, kw = tuple(args[1:]), tuple(kwargs.items()) if kwargs else None
    if isinstance(result, tuple):
        for k, r in enumerate(result):
            r._mark_view(src, op, rest, kw, k)
    else:
        result._mark_view(src, op, rest, kw)


def run(comp, dyn):
    """Run a compiled op on Tensors/scalars `dyn`, wrap the result and record autograd."""
    op = comp.op
    device = None
    arrays = []
    needs_grad = False
    for t in dyn:
        if isinstance(t, Tensor):
            a = t._data if t._base is None else t._sync()
            if a is None:
                a = t._sync()
            if device is None:
                device = t._device
            elif t._device is not device:
                device = _check_devices(op, device, t)
            if t.requires_grad:
                needs_grad = True
            arrays.append(a)
        else:
            arrays.append(t)
    resid = None
    if device is not None and device.type == "meta":
        outs = jax.eval_shape(comp.raw, *arrays)
    else:
        fwd = comp.fwd
        if needs_grad and comp.resid and STATE.enabled and op.differentiable and not graph._saved_hooks:
            fwd = comp.residuals(tuple([isinstance(t, Tensor) and t.requires_grad for t in dyn]), arrays) or fwd
        outs = _md.call(fwd, *arrays) if _md.ON else fwd(*arrays)  # one multi-device CPU program at a time
        if fwd is not comp.fwd:
            outs, resid = outs
    dev = device or _default_device()
    if type(outs) is tuple:
        res = tuple(Tensor._from_array(o, dev) for o in outs)
        if op.out is not None:
            res = op.out(*res)
    else:
        res = Tensor._from_array(outs, dev)
    if needs_grad and STATE.enabled and op.differentiable:
        graph.record(comp, dyn, arrays, res, resid)
    if _fwd.STATE.level is not None and op.differentiable:  # forward AD: tangents through jax.jvp
        _fwd.propagate(comp, dyn, arrays, res)
    return res


def _default_device():
    from ._creation import default_device

    return default_device()


def _check_devices(op, device, t):
    other = t._device
    if t.ndim == 0 and other.type == "cpu":
        return device
    if device.type == "cpu" and other.type != "cpu":
        return other  # a 0-dim cpu tensor came first; the real check happens on later tensors
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, {device} and {other}! "
        f"(when checking argument for {op.name})")


def _write_out(op, out, result):
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            o._resize_assign(r)
        return out
    out._resize_assign(result)
    return out


_CAST = []


def _cast_op():
    if not _CAST:
        from functional import astype

        _CAST.append(Op("_to_copy", astype, grad_name="ToCopyBackward0", saves=()))
    return _CAST[0]


def _autocast_to(t, dtype):
    """An autocast cast: recorded by autograd (ToCopyBackward0) like any other op."""
    return call(_cast_op(), (t, dtype), None)


def call_inplace(op, self, args, kwargs):
    """Tensor.X_: the out-of-place op, cast back to self's dtype and written into self."""
    res = call(op, (self, *args), kwargs, autocast=False)  # autocast leaves in-place ops alone, as torch's does
    self._check_inplace(op, res)
    node = res._grad_fn
    if node is not None and node._saved:  # self's old value is held by the node itself; only later writes count
        node._saved = tuple(s for s in node._saved if s[0] is not self)
    out = res
    if res.dtype is not self.dtype:
        res = call(_cast_op(), (res, self.dtype), None)
    if res._grad_fn is None and self.requires_grad and STATE.enabled and op.differentiable:
        # torch records ops like eq_ with a node that gives zero gradients; ops without any
        # derivative (logical_not_ ...) leave the tensor's history as it was.
        res = call(_cut_op(op), (self, res), None)
    self._assign(res)
    if node is not None and node._saved:  # a saved result (exp_, sigmoid_ ...) is self's value from now on
        mine = weakref.ref(self if self._base is None else self._base)
        node._saved = tuple((mine, self._version) if type(t) is weakref.ref and t() is out else (t, v)
                            for t, v in node._saved)
    return self


_CUT = {}


def _cut_op(op):
    """An op returning its second input, so the gradient to the first (the overwritten tensor) is zero."""
    cut = _CUT.get(op.name)
    if cut is None:
        from functional import replace

        cut = _CUT[op.name] = Op(op.name + "_", replace, arrays=("input", "src"), grad_name=op.grad_name, saves=())
    return cut
