"""torch.nn.parallel: DataParallel (one process, its local devices, through sharding) and
DistributedDataParallel (one process per rank, gradients averaged with facade.distributed). The
functional helpers (replicate, scatter, gather, parallel_apply, data_parallel) raise
NotImplementedError: DataParallel does not split the module into per-device copies."""

from __future__ import annotations

from ..._unsupported import unsupported
from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

_OWNER = "DataParallel runs one sharded program instead of per-device replicas"

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "replicate", "scatter", "gather",
           "parallel_apply"]

globals().update({n: unsupported(f"torch.nn.parallel.{n}", _OWNER)
                  for n in ("data_parallel", "replicate", "scatter", "gather", "parallel_apply")})
