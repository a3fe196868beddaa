"""torch.nn.DataParallel over the local devices of one process, through JAX sharding.

torch copies the module to every device, runs the copies on chunks of the batch in threads and
gathers the outputs. Here the batch is one array sharded along `dim` over a mesh of the devices,
the parameters and buffers are replicated over it, and the module runs once: every op is a JAX
program, so XLA runs it on all devices at once (SPMD) and the gradients of the replicated
parameters come back summed onto the module's own device, as torch's Broadcast backward does.

Differences from torch, by construction: a module that reduces over the batch (BatchNorm's
statistics, a loss computed inside forward) sees the whole batch rather than one chunk per
device, so a 0-dim output stays 0-dim (torch returns one value per device); buffers updated in
forward (running statistics) keep the update computed over the whole batch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from itertools import chain
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

from ... import _device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module

__all__ = ["DataParallel"]


def _local_devices():
    """(torch device type, JAX devices) that DataParallel spreads over: the GPUs, else the CPU devices."""
    gpus = _device.gpus()
    if gpus:
        return "cuda", gpus
    return "cpu", jax.local_devices(backend="cpu")


def _index(d) -> int:
    if isinstance(d, int):
        return d
    d = _device.device(d)
    return d.index or 0


def _put(t: Tensor, sharding, dev: _device.device) -> Tensor:
    """`t` laid out by `sharding`, as a differentiable copy (ToCopyBackward0) on torch device `dev`."""
    from ...distributed._spmd import distribute  # facade.distributed imports facade.nn

    out = distribute(t, sharding)
    out._device = dev
    return out


@functools.lru_cache(None)
def _mesh(devices: tuple) -> Mesh:
    return Mesh(np.array(devices), ("batch",))


class DataParallel(Module):
    """torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0).

    With fewer than two local devices (and no GPU) it only runs `module`, like torch without CUDA.
    The batch is split over the largest number of the devices that divides every input's size
    along `dim` (torch splits unevenly; a sharded array needs equal parts).
    """

    def __init__(self, module: Module, device_ids: Sequence[int | _device.device] | None = None,
                 output_device: int | _device.device | None = None, dim: int = 0) -> None:
        super().__init__()
        kind, devices = _local_devices()
        self.module = module
        if kind == "cpu" and len(devices) < 2:
            self.device_ids = []
            return
        ids = list(range(len(devices))) if device_ids is None else [_index(d) for d in device_ids]
        if not ids:
            raise RuntimeError("no available devices were found")
        bad = [i for i in ids if not 0 <= i < len(devices)]
        if bad:
            raise RuntimeError(f"DataParallel: device_ids {bad} are not among the {len(devices)} {kind} devices")
        self.dim = dim
        self.device_ids = ids
        self.output_device = _index(ids[0] if output_device is None else output_device)
        self.src_device_obj = _device.device(kind, ids[0]) if kind == "cuda" else _device.CPU
        self._out_device = _device.device(kind, self.output_device) if kind == "cuda" else _device.CPU
        self._jax_devices = tuple(devices[i] for i in ids)
        if len(ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        from ...func import functional_call  # facade.func and facade.utils import facade.nn
        from ...utils._pytree import tree_map_only

        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        n = self._parts((inputs, kwargs))
        if n == 1:
            return self.module(*inputs, **kwargs)
        mesh, src = _mesh(self._jax_devices[:n]), self.src_device_obj
        spec = PartitionSpec(*([None] * self.dim), "batch")
        inputs, kwargs = tree_map_only(Tensor, lambda t: _put(t, NamedSharding(mesh, spec), src), (inputs, kwargs))
        everywhere = NamedSharding(mesh, PartitionSpec())
        buffers = dict(self.module.named_buffers())
        copies = {name: _put(t, everywhere, src) for name, t in chain(self.module.named_parameters(), buffers.items())}
        versions = {name: copies[name]._version for name in buffers}
        out = functional_call(self.module, copies, inputs, kwargs)
        with no_grad():  # in-place buffer updates made in forward (running statistics) land on the module's own
            for name, t in buffers.items():
                if copies[name]._version != versions[name]:
                    t.copy_(_put(copies[name], SingleDeviceSharding(_device.jax_device(src)), src))
        here = SingleDeviceSharding(_device.jax_device(self._out_device))
        return tree_map_only(Tensor, lambda t: _put(t, here, self._out_device), out)

    def _parts(self, tree) -> int:
        """How many devices the batch is split over: the most (up to len(device_ids)) dividing every size."""
        from ...utils._pytree import tree_leaves

        sizes = [t.shape[self.dim] for t in tree_leaves(tree) if isinstance(t, Tensor)]
        if not sizes:
            return 1
        g = math.gcd(*sizes)
        return max(k for k in range(1, min(len(self.device_ids), g or 1) + 1) if g % k == 0)
