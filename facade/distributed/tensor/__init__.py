"""torch.distributed.tensor: importable (libraries such as transformers import DTensor and the placements
whenever torch.distributed is available). The placements are real descriptions; DTensor and the functions
that build one raise NotImplementedError naming the torch API: facade shards a model over a jax Mesh
through facade.distributed.fsdp / device_mesh instead."""

from __future__ import annotations

from ..._unsupported import unsupported, unsupported_class
from . import _utils, placement_types  # noqa: F401
from .placement_types import Partial, Placement, Replicate, Shard

_OWNER = "DTensor is not built on facade; shard over a mesh with facade.distributed.fsdp"

__all__ = ["DTensor", "distribute_tensor", "distribute_module", "Shard", "Replicate", "Partial", "Placement",
           "ones", "empty", "full", "rand", "randn", "zeros"]

DTensor = unsupported_class("torch.distributed.tensor.DTensor", _OWNER)
globals().update({n: unsupported(f"torch.distributed.tensor.{n}", _OWNER)
                  for n in ("distribute_tensor", "distribute_module", "ones", "empty", "full", "rand", "randn",
                            "zeros")})
