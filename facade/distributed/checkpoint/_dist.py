"""The ranks taking part in one save or load: each step runs on every rank, and a failure on any rank is
raised on all of them as one CheckpointException (as torch's _DistWrapper does), so no rank waits forever
for one that failed."""

from __future__ import annotations

import pickle

from .api import CheckpointException, _wrap_exception


def _picklable(failure):
    """A failure the other ranks can receive: an exception that does not pickle travels as its text (a rank
    failing to send its failure would leave the others waiting)."""
    try:
        pickle.dumps(failure)
        return failure
    except Exception:  # noqa: BLE001
        exc, trace = failure
        return RuntimeError(f"{type(exc).__name__}: {exc}"), trace


class Ranks:
    def __init__(self, process_group=None, no_dist=False):
        from ... import distributed as dist

        self.dist = dist
        self.distributed = not no_dist and dist.is_initialized()
        self.group = process_group
        self.rank = dist.get_rank(process_group) if self.distributed else 0
        self.world = dist.get_world_size(process_group) if self.distributed else 1
        self.is_coordinator = self.rank == 0

    def all_gather(self, obj) -> list:
        if not self.distributed:
            return [obj]
        out = [None] * self.world
        self.dist.all_gather_object(out, obj, group=self.group)
        return out

    def step(self, name, fn):
        """fn() on this rank; every rank gets every rank's result, or a CheckpointException naming the failed
        ranks."""
        try:
            result, failure = fn(), None
        except Exception as e:  # noqa: BLE001  (reported to every rank, raised below)
            result, failure = None, _picklable(_wrap_exception(e))
        if self.distributed:
            gathered = self.all_gather((result, failure))
        else:
            gathered = [(result, failure)]
        failures = {r: f for r, (_, f) in enumerate(gathered) if f is not None}
        if failures:
            raise CheckpointException(name, failures)
        return [r for r, _ in gathered]
