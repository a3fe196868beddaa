"""torch.distributed.fsdp.fully_shard (FSDP2), in one process over a mesh of its local devices; across the
processes of an initialised process group, each parameter becomes a DTensor (see _fully_shard_process).

`fully_shard(module, mesh=...)` lays out, in place, the parameters of `module` that no inner `fully_shard`
already manages (see facade.distributed._spmd.fsdp_spec: the largest dimension that divides by the mesh size,
where torch shards dim 0 with padding; `shard_placement_fn` may name the dimension) and its buffers
(replicated), and makes `module` an `FSDPModule` (its class becomes `FSDP<Class>`, as torch's). Its
`state_dict()` keeps the module's own keys, with tensors as laid out on the mesh (torch gives DTensors there).
The outermost FSDPModule called shards its tensor inputs along dim 0 over the mesh.

MixedPrecisionPolicy: param_dtype casts the managed floating-point parameters for the forward (the gradients
reach the parameters in their own dtype), cast_forward_inputs casts floating-point inputs to it, output_dtype
casts the outputs; reduce_dtype is accepted (the reduction runs inside XLA's program in the compute dtype).
reshard_after_forward, the prefetch and unshard methods, and the gradient-sync switches are accepted: XLA
schedules the gathers and reductions here. `offload_policy=CPUOffloadPolicy()` is accepted on a CPU mesh only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..._unsupported import unsupported
from ...nn.modules.module import Module
from .. import _pg, _spmd
from . import _common

__all__ = ["fully_shard", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy",
           "UnshardHandle", "register_fsdp_forward_method"]

_OWNER = "facade's FSDP shards over the local devices of one process"


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    pass


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    pin_memory: bool = True


class UnshardHandle:
    """What `unshard(async_op=True)` returns; `wait()` returns at once (the parameters are always whole)."""

    def wait(self):
        return None


class FSDPModule:
    """The class every fully_shard'ed module also is (placed before its own class)."""

    def forward(self, *args, **kwargs):
        mp = self._fsdp_policy
        call = super().forward
        procs = self.__dict__.get("_fsdp_procs")
        if procs is not None:  # across processes: this rank's batch, its parameters gathered for the call
            if mp.param_dtype is not None and mp.cast_forward_inputs:
                args, kwargs = _common._cast((args, kwargs), mp.param_dtype)
            return _common._cast(procs.forward(call, args, kwargs, mp.param_dtype), mp.output_dtype)
        return _common.forward(self, self, call, args, kwargs, param_dtype=mp.param_dtype,
                               cast_inputs=mp.cast_forward_inputs, output_dtype=mp.output_dtype)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        out = super().load_state_dict(state_dict, strict=strict, assign=assign)
        for m in self.modules():
            if isinstance(m, FSDPModule) and m.__dict__.get("_fsdp_procs") is None:
                m._fsdp_layout.apply()
        return out

    def reshard(self):
        return None

    def unshard(self, async_op=False):
        return UnshardHandle() if async_op else None

    def _scheduling(self, *args, **kwargs):
        """Accepted: it schedules torch's gathers and reductions, which XLA schedules here."""
        return None

    set_reshard_after_forward = set_reshard_after_backward = set_requires_gradient_sync = _scheduling
    set_requires_all_reduce = set_is_last_backward = set_unshard_in_backward = _scheduling
    set_modules_to_forward_prefetch = set_modules_to_backward_prefetch = set_post_optim_event = _scheduling
    set_gradient_divide_factor = unsupported("torch.distributed.fsdp.FSDPModule.set_gradient_divide_factor", _OWNER)
    set_reduce_scatter_divide_factor = unsupported("torch.distributed.fsdp.FSDPModule.set_reduce_scatter_divide_factor",
                                                   _OWNER)
    set_all_reduce_hook = unsupported("torch.distributed.fsdp.FSDPModule.set_all_reduce_hook", _OWNER)
    set_custom_all_gather = unsupported("torch.distributed.fsdp.FSDPModule.set_custom_all_gather", _OWNER)
    set_custom_reduce_scatter = unsupported("torch.distributed.fsdp.FSDPModule.set_custom_reduce_scatter", _OWNER)


@functools.lru_cache(None)
def _fsdp_class(cls):
    return type(f"FSDP{cls.__name__}", (FSDPModule, cls), {"__module__": cls.__module__})


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None,
                mp_policy=MixedPrecisionPolicy(), offload_policy=OffloadPolicy(), ignored_params=None):
    """Shard `module` (or each module of a list) over `mesh` (a DeviceMesh; default: every local device) in
    place; returns it."""
    modules = list(module) if isinstance(module, (list, tuple)) else [module]
    for m in modules:
        if not isinstance(m, Module):
            raise ValueError(f"fully_shard does not support containers that do not implement forward: {m}")
    if not isinstance(mp_policy, MixedPrecisionPolicy):
        raise TypeError(f"mp_policy must be a MixedPrecisionPolicy, got {type(mp_policy).__name__}")
    for field in ("param_dtype", "reduce_dtype", "output_dtype"):
        _common.dtype_or_none(getattr(mp_policy, field), f"MixedPrecisionPolicy.{field}")
    if _pg.spans_processes():
        return _fully_shard_across(module, modules, mesh, mp_policy, offload_policy, ignored_params)
    _spmd.check_single_process("torch.distributed.fsdp.fully_shard")
    m_mesh = _spmd.as_mesh(mesh)
    if isinstance(offload_policy, CPUOffloadPolicy) and m_mesh.devices.flat[0].platform != "cpu":
        raise NotImplementedError("fully_shard: CPUOffloadPolicy on an accelerator is not supported by facade")
    for m in modules:
        m._fsdp_layout = _common.Layout(m, m_mesh, ignored=ignored_params or (), placement=shard_placement_fn)
        m._fsdp_policy = mp_policy
        if not isinstance(m, FSDPModule):
            m.__class__ = _fsdp_class(type(m))
    return module


def _fully_shard_across(module, modules, mesh, mp_policy, offload_policy, ignored_params):
    """fully_shard over the default process group's ranks (see _fully_shard_process)."""
    from ..device_mesh import ProcessMesh
    from ._fully_shard_process import ProcessShards

    if mesh is not None and not isinstance(mesh, ProcessMesh):
        raise NotImplementedError("fully_shard(mesh=...) across processes is not supported by facade except "
                                  "init_device_mesh's 1-D mesh of every rank (the default process group)")
    if isinstance(offload_policy, CPUOffloadPolicy):
        raise NotImplementedError("fully_shard(offload_policy=CPUOffloadPolicy()) across processes is not "
                                  "supported by facade")
    for m in modules:
        m.__dict__["_fsdp_procs"] = ProcessShards(m, None, ignored_params or (), mesh)
        m._fsdp_policy = mp_policy
        if not isinstance(m, FSDPModule):
            m.__class__ = _fsdp_class(type(m))
    return module


def register_fsdp_forward_method(module, method_name):
    """Accepted: a method other than forward needs no gathers registered here (parameters are always whole)."""
    if not isinstance(module, FSDPModule):
        return
    if not hasattr(module, method_name):
        raise ValueError(f"{type(module)} does not have a method {method_name}")
