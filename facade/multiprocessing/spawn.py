"""torch.multiprocessing.spawn / start_processes: run fn(i, *args) in nprocs processes; a child's
exception reaches the parent as ProcessRaisedException with the child's traceback.

Each child starts fresh ('spawn'): JAX must never be forked once its runtime threads run. Under
`python -m facade` the children come from the DataLoader's forkserver instead, preloaded with the
torch alias, so the script's `import torch` resolves to facade in them too.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import traceback
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "start_processes"]


class ProcessException(Exception):
    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child process raised an exception; the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A child process died from a signal or exited with a non-zero code."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent terminates the others after a failure
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None) -> bool:
        """Wait for a process to finish; True once all have. A failure stops the others and raises."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_all(grace_period)
        raise self._error(failed)

    def _stop_all(self, grace_period):
        for p in self.processes:
            if p.is_alive():
                p.join(grace_period or 0)
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(30 if grace_period is None else grace_period)
            if p.is_alive():
                p.kill()
                p.join()

    def _error(self, index):
        process, error_file = self.processes[index], self.error_files[index]
        if not os.access(error_file, os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                return ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid,
                                              code, name)
            return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid,
                                          code)
        with open(error_file, "rb") as fh:
            trace = pickle.load(fh)
        os.unlink(error_file)
        return ProcessRaisedException(f"\n\n-- Process {index:d} terminated with the following error:\n{trace}",
                                      index, process.pid)


def _context(start_method):
    from ..utils.data.dataloader import _prepare_forkserver, _torch_alias_active

    if start_method == "spawn" and _torch_alias_active() and "forkserver" in multiprocessing.get_all_start_methods():
        _prepare_forkserver()
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context(start_method)


def _error_file():
    fd, name = tempfile.mkstemp(prefix="pytorch-errorfile-", suffix=".pickle")
    os.close(fd)
    os.unlink(name)  # exists only once a child writes its traceback
    return name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = _context(start_method)
    error_files = [_error_file() for _ in range(nprocs)]
    processes = [ctx.Process(target=_wrap, args=(fn, i, args, error_files[i]), daemon=daemon) for i in range(nprocs)]
    for p in processes:
        p.start()
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run fn(i, *args) for i in range(nprocs) in fresh processes; None, or the ProcessContext if not join."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
