"""torch.distributed.checkpoint.api: CheckpointException, the error every failed save or load raises."""

from __future__ import annotations

import traceback as tb

__all__ = ["CheckpointException"]


def _wrap_exception(exc: BaseException):
    """(exception, its stack as a picklable StackSummary): what one rank reports of its failure."""
    return exc, tb.extract_tb(exc.__traceback__)


class CheckpointException(BaseException):
    """Raised on every rank when a save or load failed on any of them; `failures` maps each failed rank to its
    (exception, traceback). A BaseException, as torch's."""

    def __init__(self, msg: str, failures: dict):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self) -> dict:
        return self._failures

    def __str__(self) -> str:
        out = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, (exc, trace) in self._failures.items():
            out += f"Traceback (most recent call last): (RANK {rank})\n"
            if trace is not None:
                out += "".join(tb.format_list(trace))
            out += "".join(tb.format_exception_only(type(exc), value=exc))
        return out
