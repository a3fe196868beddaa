"""torch.distributed.fsdp.FullyShardedDataParallel, in one process over a mesh of its local devices.

`FSDP(module)` shards every parameter of `module` over the mesh (`device_mesh`, or every local device; see
facade.distributed._spmd.fsdp_spec), replicates its buffers, and shards the root's tensor inputs along dim 0.
The forward, backward and optimizer step are then SPMD programs: XLA all-gathers a sharded weight where an op
needs it and reduces gradients across the batch shards; gradients and optimizer state come out laid out by
XLA's sharding propagation (optimizer state follows its parameter). One process drives all devices, so there
is no launch.

Across processes (an initialised process group of more than one rank) a wrapper instead keeps torch's flat
parameter, rank by rank, and gathers and reduce-scatters it with facade.distributed's collectives: see
_process.py. The options below describe the one-process mesh; across processes FULL_SHARD and SHARD_GRAD_OP
shard, mixed_precision casts the gathered parameters, sync_module_states broadcasts rank 0's values, no_sync
keeps the full gradients until the next synchronised backward, and full, sharded and local state dicts are built
(the optimizer's: full and sharded).

torch's options, and what they do here:

- sharding_strategy: NO_SHARD replicates the parameters (DDP's layout); every other strategy shards them.
- use_orig_params: both values keep the original parameters (no flat parameters), so `named_parameters()`
  gives torch's use_orig_params=True names (`_fsdp_wrapped_module.0.weight`) and `state_dict()` the module's own
  keys (`0.weight`) as torch's does.
- state_dict_type: FULL_STATE_DICT (the default) gives full tensors gathered onto the default device;
  SHARDED_STATE_DICT and LOCAL_STATE_DICT give the tensors as laid out on the mesh (one logical tensor each: in
  one process every shard is local). `load_state_dict` takes either and lays the parameters out again.
- mixed_precision: param_dtype casts the managed floating-point parameters for the forward (a differentiable
  cast: the gradients reach the full-precision parameters in their own dtype, which the optimizer updates);
  the root casts floating-point inputs to it (cast_root_forward_inputs; every wrapper with
  cast_forward_inputs); modules of `_module_classes_to_ignore` (BatchNorm) keep full precision. buffer_dtype
  casts the buffers in place at wrap time (as torch's lazy init does). reduce_dtype is accepted: the gradient
  reduction is inside XLA's program and runs in the dtype the backward computes (param_dtype).
  keep_low_precision_grads=True raises NotImplementedError.
- auto_wrap_policy, backward_prefetch, forward_prefetch, limit_all_gathers, sync_module_states: accepted; they
  schedule torch's communication, which XLA schedules here (every parameter is laid out on its own, so nested
  wrapping changes nothing; one process holds the only copy of the initial values, so there is nothing to sync).
- no_sync(): accepted; gradients accumulate over the global batch, which is what torch's next synchronised
  backward produces.
- ignored_modules / ignored_states: their parameters are left as they are (not laid out).
- cpu_offload with offload_params=True: accepted on a CPU mesh (the parameters already live in host memory),
  NotImplementedError on an accelerator.
"""

from __future__ import annotations

import contextlib

import jax

from ...nn.modules.module import Module
from .. import _pg, _spmd
from . import _common, _process
from .api import (
    FullOptimStateDictConfig,
    FullStateDictConfig,
    LocalOptimStateDictConfig,
    LocalStateDictConfig,
    MixedPrecision,
    ShardedOptimStateDictConfig,
    ShardedStateDictConfig,
    ShardingStrategy,
    StateDictSettings,
    StateDictType,
)

__all__ = ["FullyShardedDataParallel"]

_CONFIGS = {StateDictType.FULL_STATE_DICT: (FullStateDictConfig, FullOptimStateDictConfig),
            StateDictType.SHARDED_STATE_DICT: (ShardedStateDictConfig, ShardedOptimStateDictConfig),
            StateDictType.LOCAL_STATE_DICT: (LocalStateDictConfig, LocalOptimStateDictConfig)}
_PREFIX = "_fsdp_wrapped_module."


class FullyShardedDataParallel(Module):
    """FSDP(module, ...): see the module docstring for what each option does in one process."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=None, mixed_precision=None, ignored_modules=None, param_init_fn=None,
                 device_id=None, sync_module_states=False, forward_prefetch=False, limit_all_gathers=True,
                 use_orig_params=False, ignored_states=None, device_mesh=None):
        across = _pg.spans_processes(process_group)
        if not across:
            _spmd.check_single_process("torch.distributed.fsdp.FullyShardedDataParallel")
        if not isinstance(module, Module):
            raise TypeError(f"FullyShardedDataParallel expects an nn.Module to wrap, got {type(module).__name__}")
        if process_group is not None and not across:
            raise NotImplementedError("FullyShardedDataParallel(process_group=...): facade's FSDP shards over the "
                                      "local devices of one process; pass device_mesh=init_device_mesh(...)")
        super().__init__()
        mp = mixed_precision
        if mp is not None and not isinstance(mp, MixedPrecision):
            raise TypeError(f"mixed_precision must be a MixedPrecision, got {type(mp).__name__}")
        if mp is not None and mp.keep_low_precision_grads:
            raise NotImplementedError("FullyShardedDataParallel: MixedPrecision(keep_low_precision_grads=True) is not "
                                      "supported by facade (gradients stay in the parameters' dtype)")
        for field in ("param_dtype", "reduce_dtype", "buffer_dtype"):
            _common.dtype_or_none(getattr(mp, field, None), f"MixedPrecision.{field}")
        device_type = getattr(device_id, "type", None) if device_id is not None and not isinstance(device_id, int) \
            else ("cuda" if isinstance(device_id, int) else None)
        mesh = None if across else (_spmd.as_mesh(device_mesh) if device_mesh is not None
                                    else _spmd.local_mesh(device_type=device_type))
        platform = jax.devices()[0].platform if across else mesh.devices.flat[0].platform
        if cpu_offload is not None and cpu_offload.offload_params and platform != "cpu":
            raise NotImplementedError("FullyShardedDataParallel: CPUOffload(offload_params=True) on an accelerator is "
                                      "not supported by facade")
        if any(p.is_meta for p in module.parameters()):
            if param_init_fn is not None:
                param_init_fn(module)
            else:
                module.to_empty(device="cpu")
                for m in module.modules():
                    if hasattr(m, "reset_parameters"):
                        m.reset_parameters()
        self._fsdp_wrapped_module = module
        ignored = {id(p) for m in (ignored_modules or ()) for p in m.parameters()}
        ignored |= {id(p) for s in (ignored_states or ()) for p in (s.parameters() if isinstance(s, Module) else (s,))}
        self.sharding_strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        self.mixed_precision, self.use_orig_params = mp, use_orig_params
        if mp is not None and mp.buffer_dtype is not None:
            for m in module.modules():
                for name, b in m._buffers.items():
                    if b is not None and b.is_floating_point():
                        m._buffers[name] = b.to(mp.buffer_dtype)
        self._fsdp_sync, self._fsdp_layout, self._fsdp_shards = True, None, None
        if across:
            _check_across(module, self.sharding_strategy, device_mesh)
            self._fsdp_shards = _process.ProcessShards(self, module, process_group, use_orig_params, ignored,
                                                       sync_module_states, mp and mp.param_dtype)
        else:
            self._fsdp_layout = _common.Layout(module, mesh,
                                               shard=self.sharding_strategy is not ShardingStrategy.NO_SHARD,
                                               ignored=[p for p in module.parameters() if id(p) in ignored])
        self._state_dict_settings = StateDictSettings(StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                                                      FullOptimStateDictConfig())

    @property
    def module(self) -> Module:
        """The wrapped module."""
        return self._fsdp_wrapped_module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_fsdp_wrapped_module":
                raise
            return getattr(self._fsdp_wrapped_module, name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    def forward(self, *args, **kwargs):
        mp = self.mixed_precision
        if self._fsdp_shards is not None:
            dtype = mp and mp.param_dtype
            if dtype is not None and (mp.cast_forward_inputs or mp.cast_root_forward_inputs):
                args, kwargs = _common._cast((args, kwargs), dtype)
            return self._fsdp_shards.forward(self._fsdp_wrapped_module, args, kwargs, dtype,
                                             tuple(mp._module_classes_to_ignore) if mp else ())
        return _common.forward(self, self._fsdp_wrapped_module, self._fsdp_wrapped_module, args, kwargs,
                               param_dtype=mp and mp.param_dtype, cast_inputs=bool(mp and mp.cast_forward_inputs),
                               cast_root_inputs=bool(mp and mp.cast_root_forward_inputs),
                               ignore_classes=tuple(mp._module_classes_to_ignore) if mp else ())

    # ------------------------------------------------------------------ state dicts
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The wrapped module's state dict under its own keys: full tensors (FULL_STATE_DICT) or the tensors as
        laid out on the mesh (SHARDED_STATE_DICT, LOCAL_STATE_DICT)."""
        if self._fsdp_shards is not None:
            settings = self._state_dict_settings
            sd = self._fsdp_wrapped_module.state_dict(prefix=prefix, keep_vars=keep_vars)
            sd = self._fsdp_shards.state_dict(sd, prefix, settings.state_dict_type,
                                              getattr(settings.state_dict_config, "rank0_only", False))
            if destination is not None:
                destination.update(sd)
                return destination
            return sd
        sd = self._fsdp_wrapped_module.state_dict(*args, destination=destination, prefix=prefix, keep_vars=keep_vars)
        if self._state_dict_settings.state_dict_type is StateDictType.FULL_STATE_DICT:
            for k, v in sd.items():
                if k.startswith(prefix) and hasattr(v, "_arr"):
                    sd[k] = _spmd.gather(v)
        return sd

    def load_state_dict(self, state_dict, strict=True, assign=False):
        state_dict = {(k[len(_PREFIX):] if k.startswith(_PREFIX) else k): v for k, v in state_dict.items()}
        if self._fsdp_shards is not None:
            return self._fsdp_shards.load_state_dict(state_dict, self._state_dict_settings.state_dict_type, strict)
        out = self._fsdp_wrapped_module.load_state_dict(state_dict, strict=strict, assign=assign)
        for m in FullyShardedDataParallel.fsdp_modules(self):
            m._fsdp_layout.apply()
        return out

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """The FSDP instances in `module`'s tree (itself included), outermost first."""
        mods = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if root_only:
            inner = {id(x) for m in mods for x in m._fsdp_wrapped_module.modules() if x is not m}
            mods = [m for m in mods if id(m) not in inner]
        return mods

    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Set the state-dict type of every FSDP module in `module`'s tree; returns the previous settings."""
        if not isinstance(state_dict_type, StateDictType):
            raise ValueError(f"state_dict_type must be a StateDictType, got {state_dict_type!r}")
        cfg, ocfg = _CONFIGS[state_dict_type]
        state_dict_config = state_dict_config or cfg()
        optim_state_dict_config = optim_state_dict_config or ocfg()
        if type(state_dict_config) is not cfg:
            raise RuntimeError(f"Expected state_dict_config of type {cfg} but got {type(state_dict_config)}")
        if type(optim_state_dict_config) is not ocfg:
            raise RuntimeError(f"Expected optim_state_dict_config of type {ocfg} but got "
                               f"{type(optim_state_dict_config)}")
        mods = FullyShardedDataParallel.fsdp_modules(module)
        if not mods:
            raise ValueError("No FSDP modules found in the given module.")
        prev = mods[0]._state_dict_settings
        for m in mods:
            m._state_dict_settings = StateDictSettings(state_dict_type, state_dict_config, optim_state_dict_config)
        return prev

    @staticmethod
    def get_state_dict_type(module):
        mods = FullyShardedDataParallel.fsdp_modules(module)
        if not mods:
            raise ValueError("No FSDP modules found in the given module.")
        return mods[0]._state_dict_settings

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Within the context, `state_dict()` of the FSDP modules in `module` gives `state_dict_type`."""
        prev = FullyShardedDataParallel.set_state_dict_type(module, state_dict_type, state_dict_config,
                                                            optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, prev.state_dict_type, prev.state_dict_config,
                                                         prev.optim_state_dict_config)

    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state dict keyed by parameter names (the model's state-dict keys), as torch's FSDP
        gives it; full tensors under FULL_STATE_DICT."""
        shards = _shards(model)
        if shards:
            return _process_optim_state_dict(model, optim, shards)
        osd = optim.state_dict() if optim_state_dict is None else optim_state_dict
        names = _param_names(model, optim)
        full = FullyShardedDataParallel.get_state_dict_type(model).state_dict_type is StateDictType.FULL_STATE_DICT
        state = {names[i]: {k: (_spmd.gather(v) if full and hasattr(v, "_arr") else v) for k, v in st.items()}
                 for i, st in sorted(osd["state"].items(), key=lambda kv: names[kv[0]])}  # torch's order
        groups = [{**g, "params": [names[i] for i in g["params"]]} for g in osd["param_groups"]]
        return {"state": state, "param_groups": groups}

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False, load_directly=False,
                                 group=None):
        """The inverse of `optim_state_dict`: a state dict `optim.load_state_dict` takes."""
        shards = _shards(model)
        if shards:
            out = _process_optim_state_dict_to_load(optim, optim_state_dict, shards)
            if load_directly:
                optim.load_state_dict(out)
            return out
        index = {n: i for i, n in _param_names(model, optim).items()}
        out = {"state": {index[n]: dict(st) for n, st in optim_state_dict["state"].items()},
               "param_groups": [{**g, "params": [index[n] for n in g["params"]]}
                                for g in optim_state_dict["param_groups"]]}
        if load_directly:
            optim.load_state_dict(out)
            _spmd.place_optimizer_state(optim)
        return out

    # ------------------------------------------------------------------ the rest of torch's API
    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False, offload_to_cpu=False,
                           with_grads=False):
        """The parameters are full tensors already (sharding is their layout); on exit, parameters written in
        the context are laid out again. Across processes: each wrapper's parameters are gathered into whole
        tensors for the context and, with writeback, laid out again from them on exit."""
        shards = _shards(module)
        if shards:
            if with_grads:
                raise NotImplementedError("FullyShardedDataParallel.summon_full_params(with_grads=True) across "
                                          "processes is not supported by facade")
            with contextlib.ExitStack() as stack:
                fulls = []
                for sh in shards:
                    fulls.append(sh.full_params())
                    stack.enter_context(_process._reparametrize(sh.module, {p: fulls[-1][i] for p, i in sh.paths},
                                                                False, False))
                yield
            if writeback:
                for sh, full in zip(shards, fulls):
                    sh.set_full(full)
            return
        try:
            yield
        finally:
            for m in FullyShardedDataParallel.fsdp_modules(module):
                m._fsdp_layout.apply()

    @contextlib.contextmanager
    def no_sync(self):
        """Across processes: backward keeps the full gradients on each rank (no reduce-scatter) until the next
        synchronised backward adds them in, as torch's."""
        mods = FullyShardedDataParallel.fsdp_modules(self)
        prev = [m._fsdp_sync for m in mods]
        for m in mods:
            m._fsdp_sync = False
        try:
            yield
        finally:
            for m, v in zip(mods, prev):
                m._fsdp_sync = v

    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        from ...nn.utils import clip_grad_norm_

        if self._fsdp_shards is not None:
            return self._fsdp_shards.clip_grad_norm_(max_norm, norm_type)
        return clip_grad_norm_(self.parameters(), max_norm, norm_type)


def _param_names(model, optim):
    """{index in the optimizer's state dict: the parameter's state-dict key}."""
    by_id = {id(p): n.replace(_PREFIX, "") for n, p in model.named_parameters()}
    ids = [id(p) for g in optim.param_groups for p in g["params"]]
    return {i: by_id[pid] for i, pid in enumerate(ids)}


def _check_across(module, strategy, device_mesh):
    what = None
    if strategy not in (ShardingStrategy.FULL_SHARD, ShardingStrategy.SHARD_GRAD_OP):
        what = f"sharding_strategy={strategy}"
    elif device_mesh is not None:
        what = "device_mesh="
    elif any(isinstance(m, FullyShardedDataParallel) for m in module.modules()):
        what = "a nested FullyShardedDataParallel"
    if what is not None:
        raise NotImplementedError(f"FullyShardedDataParallel with {what} across processes is not supported by facade "
                                  f"(one flat parameter per wrapper, fully sharded over the process group)")


def _no_local(kind, what):
    if kind is StateDictType.LOCAL_STATE_DICT:
        raise NotImplementedError(f"FullyShardedDataParallel.{what} with {kind} across processes is not supported "
                                  f"by facade: use StateDictType.FULL_STATE_DICT or SHARDED_STATE_DICT")


def _shards(module):
    return [m._fsdp_shards for m in FullyShardedDataParallel.fsdp_modules(module) if m._fsdp_shards is not None]


def _process_optim_state_dict(model, optim, shards):
    """torch's optimizer state dict of wrappers spanning processes, under parameter names: whole state
    (FULL_STATE_DICT) or this rank's rows of it (SHARDED_STATE_DICT)."""
    settings = FullyShardedDataParallel.get_state_dict_type(model)
    cfg = settings.optim_state_dict_config
    _no_local(settings.state_dict_type, "optim_state_dict")
    state, names = {}, {}
    for sh in shards:
        state.update(sh.optim_state(optim.state, sharded=settings.state_dict_type is StateDictType.SHARDED_STATE_DICT))
        for p in sh.held():
            names[id(p)] = list(sh.names.values()) if sh.flat_param is not None else \
                [sh.names[i] for i, q in enumerate(sh.params) if q is p]
    groups = [{**{k: v for k, v in g.items() if k != "params"},
               "params": [n for p in g["params"] for n in names.get(id(p), ())]} for g in optim.param_groups]
    if getattr(cfg, "rank0_only", False) and shards[0].rank != 0:
        return {}
    return {"state": {n: st for n, st in state.items() if st}, "param_groups": groups}


def _process_optim_state_dict_to_load(optim, osd, shards):
    held = [p for g in optim.param_groups for p in g["params"]]
    index = {id(p): i for i, p in enumerate(held)}
    state, by_name = {}, {}
    for sh in shards:
        for p, st in sh.optim_state_to_load(osd["state"]).items():
            if st:
                state[index[id(p)]] = st
        for i, n in sh.names.items():
            by_name[n] = index[id(sh.flat_param if sh.flat_param is not None else sh.params[i])]
    groups = [{**g, "params": list(dict.fromkeys(by_name[n] for n in g["params"]))} for g in osd["param_groups"]]
    return {"state": state, "param_groups": groups}
