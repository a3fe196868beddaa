"""torch.distributed.tensor: importable (libraries such as transformers import DTensor and the placements
whenever torch.distributed is available). The placements are real descriptions. DTensor is what fully_shard
makes of a parameter across processes (see _dtensor); the functions that build one raise NotImplementedError
naming the torch API: facade shards a model over a jax Mesh through facade.distributed.fsdp / device_mesh, and
across processes through fully_shard."""

from __future__ import annotations

from ..._unsupported import unsupported
from . import _utils, placement_types  # noqa: F401
from ._dtensor import DTensor
from .placement_types import Partial, Placement, Replicate, Shard

_OWNER = "facade builds DTensors only through fully_shard; shard over a mesh with facade.distributed.fsdp"

__all__ = ["DTensor", "distribute_tensor", "distribute_module", "Shard", "Replicate", "Partial", "Placement",
           "ones", "empty", "full", "rand", "randn", "zeros"]

globals().update({n: unsupported(f"torch.distributed.tensor.{n}", _OWNER)
                  for n in ("distribute_tensor", "distribute_module", "ones", "empty", "full", "rand", "randn",
                            "zeros")})
