"""torch.distributed.checkpoint.state_dict: model and optimizer state dicts under canonical keys, as torch's.

Keys are the parameters' names in the user's model: without DistributedDataParallel's `module.`, FSDP's
`_fsdp_wrapped_module.` or torch.compile's `_orig_mod.`; an optimizer's state and param_groups are keyed by
those names instead of positions. By default a tensor laid out on a mesh (FSDP, fully_shard) stays as laid out
(the sharded state dict torch gives as DTensors); `full_state_dict=True` gives full tensors, `cpu_offload=True`
CPU tensors (and, with both, an empty dict on ranks other than 0, as torch). Setting goes the other way and
lays every value out like its target.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...nn.modules.module import _IncompatibleKeys
from .. import _spmd
from ..tensor._dtensor import DTensor

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]

_CHECKPOINT_PREFIX = "_checkpoint_wrapped_module."


@dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _options(options):
    options = options or StateDictOptions()
    for name in ("broadcast_from_rank0", "flatten_optimizer_state_dict"):
        if getattr(options, name):
            raise NotImplementedError(f"StateDictOptions({name}=True) is not supported by facade")
    return options


def _wrappers():
    from ..._compile._module import OptimizedModule
    from ...nn.parallel import DistributedDataParallel
    from ..fsdp import FullyShardedDataParallel

    return DistributedDataParallel, OptimizedModule, FullyShardedDataParallel


def _fqn(model, name: str) -> str:
    """The canonical key of state-dict key `name`: the wrappers' own attribute names dropped (torch's _get_fqns)."""
    ddp, compiled, fsdp = _wrappers()
    name = name.replace(_CHECKPOINT_PREFIX, "")
    out, obj = [], model
    for part in name.split("."):
        if isinstance(obj, (ddp, compiled)):
            obj = obj.module if isinstance(obj, ddp) else obj._orig_mod
            continue
        if isinstance(obj, fsdp):
            obj = obj._fsdp_wrapped_module
            if part == "_fsdp_wrapped_module":
                continue
        out.append(part)
        obj = getattr(obj, part, None)
    return ".".join(out)


@contextlib.contextmanager
def _sharded(model):
    """FSDP modules give their tensors as laid out (torch's SHARDED_STATE_DICT); gathering is done here."""
    from ..fsdp import FullyShardedDataParallel as FSDP
    from ..fsdp import StateDictType

    if not FSDP.fsdp_modules(model):
        yield
        return
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        yield


def _map_tensors(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, dict):
        return type(obj)((k, _map_tensors(v, fn)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_map_tensors(v, fn) for v in obj)
    return obj


def _full_or_cpu(state_dict, info):
    from ... import distributed as dist

    def convert(t):
        if info.full_state_dict and isinstance(t, DTensor):
            t = t.full_tensor()  # collective: every rank gathers, even where the result is dropped below
        elif info.full_state_dict and _spmd.is_sharded(t):
            t = _spmd.gather(t)
        return t.cpu() if info.cpu_offload else t

    out = _map_tensors(state_dict, convert) if info.full_state_dict or info.cpu_offload else state_dict
    if info.full_state_dict and info.cpu_offload and dist.is_initialized() and dist.get_rank() != 0:
        return {}
    return out


def _optimizers(optimizers):
    from ...optim import Optimizer

    optims = (optimizers,) if isinstance(optimizers, Optimizer) else tuple(optimizers)
    if not optims:
        raise RuntimeError("Optimizers are not passed in but optim_only is set to True.")
    return optims


def _init_optim_state(optim):
    """A fresh optimizer's state made by one step with zero gradients and learning rate 0, as torch does, so
    that its state dict has every entry a checkpoint will load into."""
    from ... import tensor, zeros_like

    if optim.state or any(p.grad is not None for g in optim.param_groups for p in g["params"]):
        return
    for g in optim.param_groups:
        for p in g["params"]:
            if p.requires_grad:  # laid out like p
                p.grad = p._like(zeros_like(p._local)) if isinstance(p, DTensor) else zeros_like(p)
    lrs = [g["lr"] for g in optim.param_groups if "lr" in g]
    for g in optim.param_groups:
        if "lr" in g:
            g["lr"] = tensor(0.0) if isinstance(g["lr"], Tensor) else 0.0
    optim.step(closure=None)
    for g in optim.param_groups:
        if "lr" in g:
            g["lr"] = lrs.pop(0)
    optim.zero_grad(set_to_none=True)


def _param_fqns(model):
    return {id(p): _fqn(model, name) for name, p in model.named_parameters()}


def get_model_state_dict(model, *, submodules=None, options=None) -> dict:
    """The model's state dict under canonical keys (see the module docstring)."""
    info = _options(options)
    with _sharded(model):
        sd = {_fqn(model, k): v for k, v in model.state_dict().items()}
    if submodules:
        prefixes = [_fqn(model, n) + "." for n, m in model.named_modules() if any(m is s for s in submodules)]
        sd = {(k if info.keep_submodule_prefixes else k[len(p):]): v
              for k, v in sd.items() for p in prefixes if k.startswith(p)}
    if info.ignore_frozen_params:
        for name, p in model.named_parameters():
            if not p.requires_grad:
                sd.pop(_fqn(model, name), None)
    return _full_or_cpu(sd, info)


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None) -> dict:
    """The optimizers' state dicts merged, their parameters named by canonical keys (see the module docstring)."""
    info = _options(options)
    fqns = _param_fqns(model)
    out = {"state": {}, "param_groups": []}
    from ..fsdp import FullyShardedDataParallel as FSDP

    for optim in _optimizers(optimizers):
        _init_optim_state(optim)
        osd = optim.state_dict()
        if FSDP.fsdp_modules(model):  # as torch: FSDP's own naming, which orders the state by name
            with _sharded(model):
                osd = FSDP.optim_state_dict(model, optim, osd)
        else:
            names = [fqns[id(p)] for g in optim.param_groups for p in g["params"]]
            osd = {"state": {names[i]: st for i, st in osd["state"].items()},
                   "param_groups": [{**g, "params": [names[i] for i in g["params"]]} for g in osd["param_groups"]]}
        out["state"].update(osd["state"])
        out["param_groups"].extend(osd["param_groups"])
    return _full_or_cpu(out, info)


def get_state_dict(model, optimizers, *, submodules=None, options=None) -> tuple[dict, dict]:
    """(get_model_state_dict(...), get_optimizer_state_dict(...))."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


@no_grad()
def set_model_state_dict(model, model_state_dict, *, options=None) -> _IncompatibleKeys:
    """Load a state dict keyed canonically (as get_model_state_dict gives it) into `model`; values are laid out
    like the model's tensors. Returns the missing and unexpected keys, as Module.load_state_dict."""
    info = _options(options)
    if not model_state_dict:
        return _IncompatibleKeys([], [])
    sd = dict(model_state_dict)
    with _sharded(model):
        keys = list(model.state_dict())
    for key in keys:
        fqn = _fqn(model, key)
        if fqn != key:
            value = sd.pop(fqn, None)
            if value is not None:
                sd[key] = value
            elif info.strict:
                raise RuntimeError(f"Missing key: {fqn}.")
    with _sharded(model):
        return model.load_state_dict(sd, strict=info.strict)


def _split(model, optim, osd, info):
    """The part of a merged, name-keyed optimizer state dict that belongs to `optim` (torch's
    _split_optim_state_dict); an index-keyed one is `optim`'s own."""
    if all(isinstance(k, int) for k in osd["state"]):
        return osd
    fqns = _param_fqns(model)
    state, groups = {}, []
    for group in optim.param_groups:
        names = [fqns[id(p)] for p in group["params"]]
        new = {"params": names}
        for name, p in zip(names, group["params"]):
            if name in osd["state"] and p.requires_grad:
                state[name] = osd["state"][name]
            elif p.requires_grad and info.strict:
                raise RuntimeError(f"Missing optimizer state for parameter '{name}' in checkpoint. The parameter "
                                   "requires gradients but has no saved optimizer state. To load anyway, use "
                                   "StateDictOptions(strict=False).")
        for loaded in osd["param_groups"]:
            if set(names) & set(loaded["params"]) or (not names and not loaded["params"]):
                new.update((k, v) for k, v in loaded.items() if k != "params")
        groups.append(new)
    return {"state": state, "param_groups": groups}


@no_grad()
def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None) -> None:
    """Load a merged optimizer state dict (as get_optimizer_state_dict gives it) into each optimizer; state
    tensors are laid out like their parameters."""
    info = _options(options)
    for optim in _optimizers(optimizers):
        _init_optim_state(optim)
        if optim_state_dict:
            optim.load_state_dict(_split(model, optim, optim_state_dict, info))
        if any(_spmd.is_sharded(p) for g in optim.param_groups for p in g["params"] if not isinstance(p, DTensor)):
            _spmd.place_optimizer_state(optim)
        for p in [p for g in optim.param_groups for p in g["params"] if isinstance(p, DTensor)]:
            st = optim.state.get(p, {})  # whole values (a full state dict) -> this rank's parts
            for k, v in st.items():
                if isinstance(v, Tensor) and not isinstance(v, DTensor) and tuple(v.shape) == tuple(p.shape) \
                        and v.ndim:
                    st[k] = p._like(p._part(v).clone())


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None) -> _IncompatibleKeys:
    """set_optimizer_state_dict(...) then set_model_state_dict(...), as torch; returns the latter's keys."""
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return set_model_state_dict(model, model_state_dict, options=options)
