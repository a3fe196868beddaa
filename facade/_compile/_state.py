"""What a compiled function reads and writes without being told: the state it reaches.

`find(fn, args, kwargs)` walks the function's closure cells, the globals its code names (and the code of
functions and methods it reaches), its bound `self` and its arguments, collecting modules, optimizers,
learning-rate schedulers, generators and plain tensors. `State` turns what was found into slots:

- every root tensor's values (parameters, buffers, optimizer state, plain tensors) and its `.grad`,
- each optimizer group's hyperparameters (`lr`, `betas` ...): data, so a changing learning rate does
  not recompile,
- each generator's key, so dropout draws the same stream as eagerly.

While a trace runs, the slots hold tracers; `swap_in`/`swap_out` put them in and take the results out
and restore what was there, so the traced function leaves no tracer behind.
"""

from __future__ import annotations

import operator
import types

import jax

from .. import _random
from .._tensor import Tensor
from ..nn.modules.module import Module
from ..optim import optimizer as _optim
from ..optim.lr_scheduler import LRScheduler

_CONTAINERS = (list, tuple, dict)
_NONE = type(None)
_FROZEN = (float, int, bool, str, _NONE)
_OPAQUE = (dict, list)  # a group itself, its params list: compared by identity, never read as a value
_SKIP_MODULES = ("facade", "functional", "jax", "numpy", "builtins")


def _own_code(obj):
    """The code object of a user function or method (not facade's, jax's or a builtin's)."""
    fn = getattr(obj, "__func__", obj)
    code = getattr(fn, "__code__", None)
    mod = getattr(fn, "__module__", None) or ""
    if code is None or mod.split(".")[0] in _SKIP_MODULES:
        return None, None
    return fn, code


def _names(code):
    """Global names a code object and its nested code objects read, in the order the code names them: state
    found in a set's order (string hashes differ between processes) would be ordered differently on each rank
    of a step compiled over processes."""
    out = dict.fromkeys(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.update(_names(c))
    return out


class Found:
    """Objects a function reaches, each kind in first-seen order."""

    def __init__(self):
        self.modules, self.optimizers, self.schedulers, self.generators, self.tensors = [], [], [], [], []
        self._seen = set()

    def add(self, obj, depth=0):
        if id(obj) in self._seen or depth > 4:
            return
        if isinstance(obj, Tensor):
            self._seen.add(id(obj))
            self.tensors.append(obj)
        elif isinstance(obj, Module):
            self._seen.add(id(obj))
            self.modules.append(obj)
            for v in vars(obj).values():  # plain attributes: an optimizer or tensor kept on a model
                if isinstance(v, (_optim.Optimizer, LRScheduler, _random.Generator)):
                    self.add(v, depth + 1)
            for m in obj.modules():  # the code of every submodule's forward: globals and closures it reads
                self.add_code(type(m).forward, depth + 1)
        elif isinstance(obj, _optim.Optimizer):
            self._seen.add(id(obj))
            self.optimizers.append(obj)
        elif isinstance(obj, LRScheduler):
            self._seen.add(id(obj))
            self.schedulers.append(obj)
            self.add(obj.optimizer, depth + 1)
        elif isinstance(obj, _random.Generator):
            self._seen.add(id(obj))
            self.generators.append(obj)
        elif isinstance(obj, _CONTAINERS):
            self._seen.add(id(obj))
            for v in (obj.values() if isinstance(obj, dict) else obj):
                self.add(v, depth + 1)
        elif callable(obj):
            self.add_code(obj, depth + 1)
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) and type(obj).__module__ != "builtins":
            self._seen.add(id(obj))  # a user object holding the model, optimizer ...: its attributes
            for v in vars(obj).values():
                self.add(v, depth + 1)

    def add_code(self, obj, depth):
        fn, code = _own_code(obj)
        if code is None or id(code) in self._seen:
            return
        self._seen.add(id(code))
        if getattr(obj, "__self__", None) is not None:
            self.add(obj.__self__, depth)
        for v in (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()):  # def step(model=model): ...
            self.add(v, depth)
        for cell in fn.__closure__ or ():
            try:
                self.add(cell.cell_contents, depth)
            except ValueError:  # an empty cell
                pass
        g = fn.__globals__
        for name in _names(code):
            if name in g:
                v = g[name]
                if not isinstance(v, types.ModuleType):
                    self.add(v, depth)


def find(fn, args, kwargs):
    found = Found()
    found.add(_random.default_generator)
    found.add_code(fn, 0)
    if getattr(fn, "__self__", None) is not None:
        found.add(fn.__self__)
    for a in (*args, *kwargs.values()):
        if not isinstance(a, Tensor):  # input tensors are inputs, not state
            found.add(a)
    return found


class State:
    """The slots of what `find` found, read fresh on every call (parameters may be replaced between calls)."""

    def __init__(self, found, lift_grads=True):
        self.found, self.lift_grads = found, lift_grads
        self.modules = []
        for m in found.modules:
            self.modules.extend(m.modules())
        self._ids = self._sv = self._meta = None
        self._cands = self._tensors = None  # the last call's candidates (their ids) and the tensors they gave
        self._keyed = None  # the list of tensors whose ids are self._ids
        self._hypers = None  # (the group objects and values they were read from, hypers(), their key part)
        self._key = None  # the last key()
        self.device = self.floats = self.keys = None  # set by the compiled call: see _function._run
        # modules whose Python flags change what a trace records (DistributedDataParallel under no_sync())
        self.guarded = [m for m in self.modules if hasattr(type(m), "_compile_guard")]

    def tensors(self):
        """Root tensors whose values are state: parameters, buffers, optimizer state, plain tensors."""
        cands = []  # gathered by C-level list extends (every call): the values, then their tensors if not all are
        for m in self.modules:
            if m._parameters:
                cands += m._parameters.values()
            if m._buffers:
                cands += m._buffers.values()
        for opt in self.found.optimizers:
            for group in opt.param_groups:
                cands += group["params"]
            for st in opt.state.values():  # opt_items' values
                if isinstance(st, dict):
                    cands += st.values()
                else:
                    cands.append(st)
        if not all(tp is _NONE or issubclass(tp, Tensor) for tp in set(map(type, cands))):
            cands = [x for v in cands for x in ((v,) if v is None or isinstance(v, Tensor) else tensor_leaves(v))]
        cands += [t if t._base is None else t._base for t in self.found.tensors]
        ids = tuple(map(id, cands))
        if self._cands is None or ids != self._cands[0]:  # the same objects as last call (the common case, and
            # kept alive by _cands, so no id is reused): the same tensors, without the dedup
            self._cands = ids, cands
            self._tensors = [t for t in {id(t): t for t in cands if t is not None}.values() if t._base is None]
        return self._tensors

    def hypers(self):
        """(group, hyperparameters) of every optimizer group whose update reads them as traced values: the same
        list as the last call's while every group and value read is the same object (a new learning rate is a
        new float)."""
        read = []
        for opt in self.found.optimizers:
            if type(opt).step is _optim.Optimizer.step:
                for g in opt.param_groups:
                    read.append(g)
                    read += g.values()  # every option: an optimizer's _hypers may read any of them
        last = self._hypers
        if last is not None and last[0] is not None and len(read) == len(last[0]) and all(map(operator.is_, read,
                                                                                               last[0])):
            return last[1]
        hypers = [(g, opt._hypers(g)) for opt in self.found.optimizers if type(opt).step is _optim.Optimizer.step
                  for g in opt.param_groups]
        # a tensor value (lr=torch.tensor(...)) may change in place: read again on every call
        frozen = all(type(v) in _FROZEN or type(v) is tuple and all(type(x) in _FROZEN for x in v) for v in read
                     if type(v) not in _OPAQUE)
        self._hypers = read if frozen else None, hypers, tuple((id(g), tuple(hp)) for g, hp in hypers)
        return hypers

    def key(self, tensors, hypers):
        """What a compiled program depends on besides the values: the state tensors' identity, shape, dtype and
        device (re-read only when a tensor was written since this program last wrote them), requires_grad and
        whether each has a grad; module training flags and guards; optimizer options and state structure."""
        ids = self._ids if tensors is self._keyed else tuple(map(id, tensors))  # tensors() gave the same list
        self._keyed, sv = tensors, tuple([t._sv for t in tensors])
        if ids != self._ids or sv != self._sv:
            self._ids, self._sv = ids, None
            meta = tuple([(t.shape, t.dtype, t._device) for t in tensors])
            self._meta = _META.setdefault(meta, (len(_META), meta))  # hashed here once, not on every call
        parts = [(ids, self._meta), tuple([t.requires_grad for t in tensors]),
                 tuple([None if (g := t._grad) is None else _dtype(g) for t in tensors]) if self.lift_grads else (),
                 tuple([m.training for m in self.modules]), tuple([m._compile_guard() for m in self.guarded])]
        for opt in self.found.optimizers:
            if type(opt).step is _optim.Optimizer.step:  # the update's static options; hyperparameters are data
                parts.append(tuple(opt._step_statics(g) for g in opt.param_groups))
            else:  # a step of its own reads every group value as a Python constant
                parts.append(tuple(tuple((k, _hashable(v)) for k, v in g.items() if k != "params")
                                   for g in opt.param_groups))
            parts.append(tuple(len(st) if isinstance(st, dict) else -1 for st in opt.state.values()))
        parts.append(self._hypers[2] if self._hypers[1] is hypers else tuple((id(g), tuple(hp)) for g, hp in hypers))
        parts, last = tuple(parts), self._key
        if last is None or last.parts != parts:  # equal parts: the last key, whose hash is computed already
            last = self._key = _Key(parts)
        return last

    def written(self, tensors):
        """The program just wrote these tensors: their shapes and dtypes are the ones in the key."""
        self._sv = tuple([t._sv for t in tensors])


class _Key:
    """key()'s parts with their hash computed once: a compiled call looks its program up by this key on every
    call, and a tuple hashes all its items again each time."""

    __slots__ = ("parts", "hash")

    def __init__(self, parts):
        self.parts, self.hash = parts, hash(parts)

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        return self is other or type(other) is _Key and self.hash == other.hash and self.parts == other.parts


class _Meta(tuple):
    """(token, shapes/dtypes/devices): compares and hashes by its token, so a key lookup does not hash every
    tensor's shape and device on every call."""

    def __hash__(self):
        return self[0]

    def __eq__(self, other):
        return self[0] == other[0]

    def __ne__(self, other):
        return self[0] != other[0]


class _MetaTable(dict):
    def setdefault(self, meta, value):
        got = self.get(meta)
        if got is None:
            got = self[meta] = _Meta(value)
        return got


_META = _MetaTable()


def _dtype(t):
    """t.dtype as its array's numpy dtype: what the property maps to a torch dtype, in a third of its time."""
    if t._rg is not None:
        return t._rg.buf.dtype
    a = t._data if t._data is not None else t._np
    return (a if a is not None else t._arr()).dtype


def opt_items(opt):
    """((param, name), value) for every entry of an optimizer's state; an entry that is not a dict of values
    (`from_optax` keeps one pytree under "optax_state") is ((key, None), value)."""
    for p, st in opt.state.items():
        if isinstance(st, dict):
            for k, v in st.items():
                yield (p, k), v
        else:
            yield (p, None), st


def set_opt_item(opt, path, value):
    p, k = path
    if k is None:
        opt.state[p] = value
    else:
        opt.state.setdefault(p, {})[k] = value


def tensor_leaves(v):
    """The Tensors in a state value: itself, or the Tensor leaves of a pytree (optax state)."""
    if isinstance(v, Tensor):
        return [v]
    if isinstance(v, (int, float, bool, str, type(None))):
        return []
    return [x for x in jax.tree_util.tree_leaves(v, is_leaf=_is_tensor) if isinstance(x, Tensor)]


def _is_tensor(x):
    return isinstance(x, Tensor)


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def _flat(v):
    if isinstance(v, (tuple, list)):
        for x in v:
            yield from _flat(x)
    else:
        yield v
