"""torch.distributed.fsdp: FullyShardedDataParallel and fully_shard over the local devices of one process.

Sharding is the layout of each parameter's jax array on a `jax.sharding.Mesh` (facade.distributed._spmd);
fully_sharded_data_parallel.py and _fully_shard.py say what each torch option does here.
"""

from __future__ import annotations

from . import wrap  # noqa: F401
from ._fully_shard import (
                           CPUOffloadPolicy,
                           FSDPModule,
                           MixedPrecisionPolicy,
                           OffloadPolicy,
                           UnshardHandle,
                           fully_shard,
                           register_fsdp_forward_method,
)
from .api import (
                           BackwardPrefetch,
                           CPUOffload,
                           FullOptimStateDictConfig,
                           FullStateDictConfig,
                           LocalOptimStateDictConfig,
                           LocalStateDictConfig,
                           MixedPrecision,
                           OptimStateDictConfig,
                           OptimStateKeyType,
                           ShardedOptimStateDictConfig,
                           ShardedStateDictConfig,
                           ShardingStrategy,
                           StateDictConfig,
                           StateDictSettings,
                           StateDictType,
)
from .fully_sharded_data_parallel import FullyShardedDataParallel

__all__ = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig", "FullStateDictConfig",
           "FullyShardedDataParallel", "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision",
           "OptimStateDictConfig", "OptimStateKeyType", "ShardedOptimStateDictConfig", "ShardedStateDictConfig",
           "ShardingStrategy", "StateDictConfig", "StateDictSettings", "StateDictType", "CPUOffloadPolicy",
           "FSDPModule", "fully_shard", "MixedPrecisionPolicy", "OffloadPolicy", "register_fsdp_forward_method",
           "UnshardHandle"]
