"""torch.distributed.fsdp.api: the enums and configuration dataclasses FSDP takes (torch's names, fields and
defaults). What each one does in facade's single-process FSDP is said in fully_sharded_data_parallel.py."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["ShardingStrategy", "BackwardPrefetch", "MixedPrecision", "CPUOffload", "StateDictType",
           "StateDictConfig", "FullStateDictConfig", "LocalStateDictConfig", "ShardedStateDictConfig",
           "OptimStateDictConfig", "FullOptimStateDictConfig", "LocalOptimStateDictConfig",
           "ShardedOptimStateDictConfig", "StateDictSettings", "OptimStateKeyType"]


class ShardingStrategy(enum.Enum):
    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4
    _HYBRID_SHARD_ZERO2 = 5


class BackwardPrefetch(enum.Enum):
    BACKWARD_PRE = 1
    BACKWARD_POST = 2


class StateDictType(enum.Enum):
    FULL_STATE_DICT = 1
    LOCAL_STATE_DICT = 2
    SHARDED_STATE_DICT = 3


class OptimStateKeyType(enum.Enum):
    PARAM_NAME = 1
    PARAM_ID = 2


def _batchnorm():
    from ...nn.modules.batchnorm import _BatchNorm

    return (_BatchNorm,)


@dataclass
class MixedPrecision:
    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = None

    def __post_init__(self):
        if self._module_classes_to_ignore is None:
            self._module_classes_to_ignore = _batchnorm()


@dataclass
class CPUOffload:
    offload_params: bool = False


@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
