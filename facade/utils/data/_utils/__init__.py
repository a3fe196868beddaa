"""Helpers of the DataLoader, as torch.utils.data._utils has them: collation, fetching, the worker
loop, device prefetch, and ExceptionWrapper (torch keeps that in torch._utils)."""

import atexit
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds a worker waits on its index queue before checking that the main process is alive."""

python_exit_status = False
"""True once the interpreter is exiting: workers are then left to multiprocessing's own cleanup."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError repr()s its argument, which would mangle a traceback."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, to re-raise in another thread or process.

    Only the text of the traceback is kept: the traceback object would keep its frames alive.
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception type here, its message naming where it was caught and its traceback."""
        # No local name may hold the exception: its traceback holds this frame, and the cycle would keep
        # the caller (a DataLoader iterator, with its worker processes) alive until the next gc pass.
        raise self._exception()

    def _exception(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            return self.exc_type(message=msg)
        try:
            return self.exc_type(msg)
        except Exception:
            return RuntimeError(msg)


from . import collate, fetch, pin_memory, worker  # noqa: E402

__all__ = ["ExceptionWrapper", "MP_STATUS_CHECK_INTERVAL", "collate", "fetch", "pin_memory", "worker"]
