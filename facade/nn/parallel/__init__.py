"""torch.nn.parallel: importable; DataParallel and DistributedDataParallel are the distributed issue's
and raise NotImplementedError when constructed (isinstance checks against them work)."""

from __future__ import annotations

from ..._unsupported import unsupported, unsupported_class
from ..modules.module import Module

_OWNER = "multi-device data parallelism is the distributed issue"

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "replicate", "scatter", "gather",
           "parallel_apply"]

DataParallel = unsupported_class("torch.nn.parallel.DataParallel", _OWNER, (Module,))
DistributedDataParallel = unsupported_class("torch.nn.parallel.DistributedDataParallel", _OWNER, (Module,))
globals().update({n: unsupported(f"torch.nn.parallel.{n}", _OWNER)
                  for n in ("data_parallel", "replicate", "scatter", "gather", "parallel_apply")})
