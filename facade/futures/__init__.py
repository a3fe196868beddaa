"""torch.futures: a Future of one value, completed once with a result or an exception, over Python threads."""

from __future__ import annotations

import threading
import traceback
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
_PENDING = object()


class Future(Generic[T]):
    """torch.futures.Future(*, devices=None): `wait`/`value` for the result, `then`/`add_done_callback` to chain,
    `set_result`/`set_exception` to complete it (once). `devices` is accepted; nothing here is asynchronous on a
    device stream."""

    def __init__(self, *, devices=None):
        self._cond = threading.Condition()
        self._result, self._error, self._callbacks = _PENDING, None, []

    def done(self) -> bool:
        return self._result is not _PENDING or self._error is not None

    def wait(self) -> T:
        """Block until the future completes; its value, or raise its exception."""
        with self._cond:
            self._cond.wait_for(self.done)
        return self.value()

    def value(self) -> T:
        if not self.done():
            raise RuntimeError("Future.value(): the future is not completed yet (call wait() first)")
        if self._error is not None:
            raise self._error
        return self._result

    def then(self, callback) -> Future:
        """A new Future holding `callback(self)` once this one completes (or the error the callback raised)."""
        child = Future()

        def run(fut):
            try:
                out = callback(fut)
            except Exception as e:  # torch wraps the callback's error in a RuntimeError naming it
                tb = "".join(traceback.format_exception(e)).rstrip()
                child.set_exception(RuntimeError(f"Got the following error when running the callback: "
                                                 f"{type(e).__name__}: {e}\n\n{tb}"))
            else:
                child.set_result(out)

        self.add_done_callback(run)
        return child

    def add_done_callback(self, callback) -> None:
        """Run `callback(self)` when the future completes (now, if it has)."""
        with self._cond:
            if not self.done():
                self._callbacks.append(callback)
                return
        callback(self)

    def _complete(self, result, error):
        with self._cond:
            if self.done():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._result, self._error = result, error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def set_result(self, result: T) -> None:
        self._complete(result, None)

    def set_exception(self, result) -> None:
        """Complete with an exception: `wait()` and `value()` raise it."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(_PENDING, result)


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    """A Future completing, with the list of `futures`, once all of them have; it holds the first error met."""
    out, lock = Future(), threading.Lock()
    remaining = [len(futures)]
    if not futures:
        out.set_result([])

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            err = next((f._error for f in futures if f._error is not None), None)
            out.set_exception(err) if err is not None else out.set_result(list(futures))

    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures: list[Future]) -> list:
    """Wait for every future; their values (raises the first error)."""
    return [f.wait() for f in collect_all(futures).wait()]
