"""torch.multiprocessing: Python's multiprocessing (its start methods and defaults, as in torch) plus
torch's spawn/start_processes and sharing-strategy settings.

Tensors cross processes pickled (their data copied): JAX arrays have no shared-memory storage, so
`Tensor.share_memory_()` cannot make writes in one process visible in another.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F403
from multiprocessing import __all__ as _MP_ALL

from .spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "multiprocessing",
           *_MP_ALL]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_STRATEGIES}")
    _strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    return _strategy[0]


def get_all_sharing_strategies() -> set[str]:
    return set(_STRATEGIES)
