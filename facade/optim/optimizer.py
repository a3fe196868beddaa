"""torch.optim.optimizer: the Optimizer base class.

An optimizer here is a pure update plus a thin class (DESIGN.md rule 6). A subclass names its
hyper-parameters (`_hyper`: traced scalars, so `group['lr'] = x` never recompiles), the group
options that select a code path (`_static`), how a parameter's state starts (`_init_state`) and a
pure `_update(params, grads, states, hp, static) -> (params, states)` over the lists of arrays of
one parameter group. `step()` runs that update as ONE jitted call per group and writes the results
back into the same Parameter and state tensor objects in place (bumping their versions).
"""

from __future__ import annotations

import functools
import math
import sys
import threading
import warnings
import weakref
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any

import jax
import jax.numpy as jnp
from jax._src.array import ArrayImpl

from .. import _creation, _dtype, _xla
from .. import _multidevice as _md
from .._device import spec as _spec
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..compiler import _metrics
from ..utils.hooks import _register

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()
ParamsT = Any

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook `hook(optimizer, args, kwargs)` run before every optimizer's step()."""
    return _register(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Register a post hook `hook(optimizer, args, kwargs)` run after every optimizer's step()."""
    return _register(_global_optimizer_post_hooks, hook)


def _hooked(func):
    """Wrap a step() so the step pre/post hooks run around it (torch's profile_hook_step)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
        out = func(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


def _typename(x):
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified class name otherwise."""
    if isinstance(x, Tensor):
        return x.type()
    module = type(x).__module__
    return type(x).__qualname__ if module == "builtins" else module.replace("facade", "torch") + "." + type(
        x).__qualname__


def _scalar(v):
    """A group value as the traced scalar the update receives (floats keep one jit cache entry)."""
    if isinstance(v, (tuple, list)):
        return tuple(_scalar(x) for x in v)
    return float(v)


class _Trace:
    """Set by torch.compile while it traces a step: {id(group): traced hyperparameters}, and how many group
    updates read them (a scheduler step before the first one runs before the program)."""

    hypers = None
    steps = 0


TRACE = _Trace()


def _set(t, a):
    """Write array `a` into tensor `t` in place, as torch's in-place optimizer ops do."""
    if t._base is None and t._np is None:
        t._data = a
        t._sv += 1
        t._vc += 1
    else:
        t._write(Tensor._from_array(a, t._device), record=True)


def _zeros_like(p, dtype=None, value=0):
    a = p._arr()
    if jnp.iscomplexobj(a):
        value = complex(value, value)  # torch fills both halves of a complex state (Adagrad's sum, Rprop's step)
    return Tensor._from_array(_creation.full_as(a, value, dtype=dtype), p._device)


def _scalar_tensor(p, value):
    """torch's 0-dim float32 state scalar (`step`, `mu_product`, `eta`, `mu`), on the parameter's device."""
    return Tensor._from_array(_creation.full_as(p._arr(), value, dtype=jnp.float32, shape=()), p._device)


def _as_real(x):
    return jnp.stack([x.real, x.imag], -1) if jnp.iscomplexobj(x) else x


def _as_complex(x, like):
    return jax.lax.complex(x[..., 0], x[..., 1]).astype(like.dtype) if jnp.iscomplexobj(like) else x


def _update_group(update, static, hp, params, grads, states):
    """One group's update. Complex tensors are updated as pairs of reals, like torch's view_as_real."""
    static = dict(static)
    if not static.pop(_DECAYS, True) and "weight_decay" in hp:  # 0: the update leaves the term out (functional.optim)
        hp = {**hp, "weight_decay": 0.0}
    real = [{k: _as_real(v) for k, v in s.items()} for s in states]
    new_p, new_s = update([_as_real(p) for p in params], [_as_real(g) for g in grads], real, hp, static)
    new_p = [_as_complex(n, p) for n, p in zip(new_p, params)]
    new_s = [{k: _as_complex(v, s.get(k, p)) for k, v in ns.items()} for ns, s, p in zip(new_s, states, params)]
    return new_p, new_s


_DECAYS = "_decays"  # the static option `_step_statics` adds: whether the group's weight_decay is not 0
_apply = jax.jit(_update_group, static_argnums=(0, 1))  # inside a compiled step's trace
# An eager update compiles with XLA's own emitters (see facade._xla), as a compiled step does: the MLP's Adam
# update of bench_compile runs 1.46 -> 0.40 ms with them, its eager training step 3.25 -> 2.06 ms. The same
# flags with and without donation: which one runs must not change the bits.
_apply_eager = jax.jit(_update_group, static_argnums=(0, 1), compiler_options=_xla.xla_defaults())
# The same update writing the parameters and their state in place (their buffers donated): no new buffers to
# allocate and fault in on every step. Used only where nothing but the tensor holds the array (`_own`).
_apply_in_place = jax.jit(_update_group, static_argnums=(0, 1), donate_argnums=(3, 5),
                          compiler_options=_xla.xla_defaults())


def _eager_hypers(hp, first):
    """An eager step's hyperparameters: floats as cached device scalars, committed only where the parameters are
    (else the update's outputs, the parameters, would be committed and every forward op compile again)."""
    sharding = first.sharding
    if type(sharding) is jax.sharding.SingleDeviceSharding:
        return _as_data(hp, next(iter(sharding.device_set)) if first.committed else None)
    return hp


WARM_UP = True  # Optimizer._warm_up (a switch for measuring it)
_WARMING = weakref.WeakKeyDictionary()  # optimizer -> the thread compiling its first update
_WARMED = set()  # what the warm-ups of this process compiled: (optimizer type, per group: options, shapes)
_STATE_SPECS = {}  # (optimizer type, options, parameter shape, device) -> the shapes of its fresh state


def _compile(jobs):
    for fn, args in jobs:
        try:
            fn.lower(*args).compile()
        except Exception:  # noqa: BLE001 - the step compiles again and raises its own error
            pass


def _warming(init):
    """Wrap an optimizer class's __init__ so that the outermost call (the most derived class's) starts
    `_warm_up` when it returns."""

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if "_initing" in self.__dict__:  # a subclass's __init__ calling super().__init__
            return init(self, *args, **kwargs)
        self._initing = True
        try:
            init(self, *args, **kwargs)
        finally:
            del self._initing
        self._warm_up()

    wrapper.warms = True
    return wrapper


def _own(t):
    """Whether `t`'s array may be donated: a plain root tensor's concrete array that no other Python object (a
    detached alias, a numpy view, a saved autograd input) refers to: references from t._data and this call."""
    a = t._data
    return t._base is None and t._np is None and type(a) is _ARRAY and sys.getrefcount(a) <= 3


_ARRAY = ArrayImpl  # not type(jnp.zeros(())): that starts the XLA backend at import, before init_process_group
_SCALARS = {}


def _scalar_data(v, device):
    """A Python float hyperparameter as the device array jit would make of it (weak-typed, the same program),
    kept per value and device so that a step does not transfer it again; -0.0 and 0.0 are kept apart."""
    key = (v, device) if v else (v, math.copysign(1.0, v), device)
    a = _SCALARS.get(key)
    if a is None:
        if len(_SCALARS) > 256:  # a scheduler makes a new lr every step: keep the cache small
            _SCALARS.clear()
        a = _SCALARS[key] = jax.device_put(v, device)
    return a


def _as_data(hp, device):
    """The hyperparameters with every float replaced by `_scalar_data` (dict, tuples of floats)."""
    return {k: tuple(_scalar_data(x, device) for x in v) if isinstance(v, tuple) else _scalar_data(v, device)
            if type(v) is float else v for k, v in hp.items()}


class Optimizer:
    """Base class for all optimizers (torch.optim.Optimizer): `params` is an iterable of Tensors,
    of (name, Tensor) pairs, or of dicts defining parameter groups; `defaults` holds each group's
    default options."""

    _hyper: tuple = ()   # group keys passed to `_update` as traced scalars
    _static: tuple = ()  # group keys that select a code path (part of the compile key)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked(step)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "warms", False):
            cls.__init__ = _warming(init)

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group to the optimizer's `param_groups`."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(map(id, tensors))):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(map(id, group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(map(id, tensors)):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors (to None, or to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    # ------------------------------------------------------------------ step
    def step(self, closure=None):
        """Perform a single optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _init_state(self, p, group) -> dict:
        return {}

    def _hypers(self, group):
        return {k: _scalar(group[k]) for k in self._hyper}

    def _group_hypers(self, group):
        """The group's hyperparameters: traced values while torch.compile traces a step (data, not program)."""
        if TRACE.hypers is not None:
            TRACE.steps += 1
            hp = TRACE.hypers.get(id(group))
            if hp is not None:
                return hp
        return self._hypers(group)

    def _statics(self, group):
        return tuple((k, group[k]) for k in self._static)

    def _step_statics(self, group):
        """The update's static options (`_statics`), and whether weight decay is on: torch branches on
        `weight_decay != 0` in Python, so the decay term is part of the program only where it is not 0 (a
        constant zero would still read every parameter once more). Part of a compiled step's key."""
        st = self._statics(group)
        wd = group.get("weight_decay") if "weight_decay" in self._hyper or "weight_decay" in self.defaults else None
        return (*st, (_DECAYS, wd != 0)) if type(wd) in (int, float) else st

    def _step_group(self, group):
        params, grads = [], []
        for p in group["params"]:
            g = p.grad
            if g is not None:
                params.append(p)
                grads.append(g)
        if not params:
            return
        states, state = [], self.state
        for p, g in zip(params, grads):
            if g.is_sparse:
                raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
            st = state.get(p)
            if not st:  # lazy init; torch never creates an entry for stateless updates (SGD without momentum)
                st = self._init_state(p, group)
                lay_out = getattr(type(p), "_lay_out_state", None)  # a DTensor's state is laid out like it
                if lay_out is not None:
                    st = lay_out(p, st)
                if st:
                    state[p] = st
            states.append(st)
        hp, apply = self._group_hypers(group), _apply
        eager = TRACE.hypers is None and type(params[0]._data) is _ARRAY
        if eager:  # an eager step: floats as cached arrays, buffers updated in place where that is safe
            apply, hp = _apply_eager, _eager_hypers(hp, params[0]._data)
            warming = _WARMING.pop(self, None) if _WARMING else None  # empty after the first steps: no weakref
            if warming is not None:  # the first step: its program is (being) compiled in the background
                warming.join()
        own, arrays = eager, []  # the state arrays, and (one pass) whether every buffer may be donated
        for st in states:
            d = {}
            for k, v in st.items():
                if isinstance(v, Tensor):
                    if own and not _own(v):
                        own = False
                    d[k] = v._arr()
            arrays.append(d)
        if own and all([_own(p) for p in params]):
            apply = _apply_in_place
        new_params, new_states = _md.call(apply, type(self)._update, self._step_statics(group), hp,
                                          [p._arr() for p in params], [g._arr() for g in grads], arrays)
        for p, a in zip(params, new_params):
            _set(p, a)
        for p, st, new in zip(params, states, new_states):
            if new and not st:
                st = state[p]
            for k, a in new.items():
                t = st.get(k)
                if isinstance(t, Tensor):
                    _set(t, a)
                else:
                    st[k] = Tensor._from_array(a, p._device)

    @staticmethod
    def _update(params, grads, states, hp, static):
        raise NotImplementedError

    def _warm_up(self):
        """Start compiling each group's first eager updates in a background thread, so that the compile overlaps
        the first forward and backward instead of following them (XLA compiles without the GIL). The step's own
        call finds the program in jit's cache, or, where its arguments differ, compiles as before: the same
        function with the same flags, so the same program either way."""
        if not WARM_UP or TRACE.hypers is not None or type(self)._update is Optimizer._update:
            return
        if any("step" in c.__dict__ for c in type(self).__mro__[:type(self).__mro__.index(Optimizer)]):
            return  # a step of its own (LBFGS, the optax bridge, a user's subclass) may not call the update
        try:
            calls = [self._first_update(g) for g in self.param_groups]
        except Exception:  # noqa: BLE001 - a state or hyperparameter that only the step can make
            return
        if not calls or None in calls:
            return
        # A parameter array that something else holds too (a state_dict deep-copied before training shares the
        # immutable arrays) is not donated: the first step then runs the update that keeps its inputs, and the
        # later ones, on the update's own outputs, the in-place one. Both compile here, in the loop's order.
        shared = not all(_own(p) for g in self.param_groups for p in g["params"] if p.requires_grad)
        jobs = [(fn, c) for fn in ((_apply_eager, _apply_in_place) if shared else (_apply_in_place,)) for c in calls]
        done = (type(self), shared, *((c[1], jax.tree_util.tree_structure(c[2]), *c[3]) for c in calls))
        if done not in _WARMED:  # an optimizer like one made before (a sweep, a test suite): compiled already
            if len(_WARMED) > 1024:
                _WARMED.clear()
            _WARMED.add(done)
            thread = threading.Thread(target=_compile, args=(jobs,), name="facade optimizer warm-up")
            thread.start()
            _WARMING[self] = thread
            _metrics.background(thread)

    def _first_update(self, group):
        """The group's eager update arguments at an ordinary loop's first step, arrays as shapes: every parameter
        that requires grad has a gradient of its own shape, the state is fresh, the buffers are donated. None
        where a parameter is a view, traced or abstract, a DTensor, or on several devices."""
        params = [p for p in group["params"] if p.requires_grad]
        if not params or any(p._base is not None or type(p._data) is not _ARRAY or getattr(
                type(p), "_lay_out_state", None) or type(p._data.sharding) is not jax.sharding.SingleDeviceSharding
                for p in params):
            return None
        grads, statics, states = [_spec(p._data) for p in params], self._step_statics(group), []
        for p, spec in zip(params, grads):
            key = (type(self), statics, spec, p._device)
            st = _STATE_SPECS.get(key)
            if st is None:
                if len(_STATE_SPECS) > 1024:
                    _STATE_SPECS.clear()
                st = _STATE_SPECS[key] = jax.eval_shape(lambda x, d=p._device: {
                    k: v._data for k, v in self._init_state(Tensor._from_array(x, d), group).items()
                    if isinstance(v, Tensor)}, spec)
            states.append(st)
        return type(self)._update, statics, _eager_hypers(self._hypers(group), params[0]._data), grads, grads, states

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)` runs before step()."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs) -> None` runs after step()."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False):
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend=prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False):
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend=prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False):
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend=prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False):
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend=prepend)

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict[str, Any]:
        """`{'state': {index: {name: tensor}}, 'param_groups': [{..., 'params': [index, ...]}]}` (torch's layout)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param, value, key, fused_or_capturable):
        if not isinstance(value, Tensor):
            return value
        if key == "step":
            return value.to(dtype=_dtype.float32, device=param.device) if fused_or_capturable else value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load optimizer state saved by `state_dict()` (here or in torch)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        flags = {i: g.get("fused", False) or g.get("capturable", False)
                 for g in state_dict["param_groups"] for i in g["params"]}

        def cast(param, value, key=None, flag=False):
            if isinstance(value, dict):
                return {k: cast(param, v, k, flag) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, None, flag) for v in value)
            return self._cast_state(param, value, key, flag)

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, flag=flags.get(k, False))
            else:
                state[k] = v
        new_groups = []
        for g, ng in zip(groups, saved_groups):
            ng["params"] = g["params"]
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]
            new_groups.append(ng)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for k, v in self.defaults.items():
                if k not in ("lr", "params"):
                    group.setdefault(k, v)
            for p in group["params"]:
                st = self.state.get(p)
                if st and "step" in st and not isinstance(st["step"], Tensor):
                    st["step"] = _scalar_tensor(p, float(st["step"]))

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"


Optimizer.step.hooked = False
Optimizer.step = _hooked(Optimizer.step)


def _elementwise(fn, keys):
    """An `_update` that applies the per-tensor `fn(p, g, *state[keys], step, **hp, **static) -> (p, *state)`
    of functional.optim to each parameter of the group (and counts `step`)."""

    def update(params, grads, states, hp, static):
        out_p, out_s = [], []
        for p, g, s in zip(params, grads, states):
            step = s["step"] + 1
            p, *vals = fn(p, g, *[s[k] for k in keys], step, **hp, **static)
            out_p.append(p)
            out_s.append({"step": step, **dict(zip(keys, vals))})
        return out_p, out_s

    return staticmethod(update)


def _check(cond, msg):
    if not cond:
        raise ValueError(msg)


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    _check(0.0 <= lr, f"Invalid learning rate: {lr}")


def _check_betas(betas):
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
