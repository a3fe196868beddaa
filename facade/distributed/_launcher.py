"""The process supervisor behind facade.distributed.run (torchrun): start one group of workers, watch them,
forward signals, stop the group when one fails and report the failures the way torchelastic does.

It only sets environment variables and starts processes; the workers' `init_process_group` does the rest.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from string import Template

__all__ = ["LaunchSpec", "ProcessFailure", "ChildFailedError", "SignalException", "launch", "LOCAL_RANK_MACRO"]

logger = logging.getLogger("facade.distributed.run")

LOCAL_RANK_MACRO = "${local_rank}"  # torch.distributed.elastic's macros.local_rank, replaced per worker
_TAIL_BYTES = 64 * 1024  # how much of each worker's stderr is kept for the failure summary
_NOT_AVAILABLE = "<N/A>"
_NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


@dataclass
class LaunchSpec:
    """What `torchrun` options resolve to for one node."""

    cmd: list[str]  # the worker command line; LOCAL_RANK_MACRO is replaced in each worker's copy
    name: str  # the entrypoint as the failure summary names it ("train.py FAILED")
    nproc_per_node: int
    nnodes: int = 1
    node_rank: int = 0
    master_addr: str = "localhost"
    master_port: int | None = None  # None: a free port, picked per attempt
    run_id: str = "none"
    role: str = "default"
    max_restarts: int = 0
    monitor_interval: float = 0.1
    signals: tuple[str, ...] = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT")
    shutdown_timeout: float = 30.0
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))  # the environment workers start from


@dataclass
class ProcessFailure:
    """One worker that ended badly: torchelastic's ProcessFailure, with the stderr traceback when no error file."""

    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    message: str
    timestamp: float

    def signal_name(self) -> str:
        try:
            return signal.Signals(-self.exitcode).name if self.exitcode < 0 else _NOT_AVAILABLE
        except ValueError:
            return _NOT_AVAILABLE


_FAILURE_FORMAT = """[${idx}]:
  time      : ${time}
  host      : ${hostname}
  rank      : ${rank} (local_rank: ${local_rank})
  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}
  error_file: ${error_file}
  traceback : ${message}"""

_MSG_FORMAT = """
${border}
${title}
${section}
Failures:
${other_failures}
${section}
Root Cause (first observed failure):
${root_failure}
${border}"""


class ChildFailedError(Exception):
    """A worker failed: `failures` maps global rank -> ProcessFailure; the message is torchelastic's summary."""

    def __init__(self, name: str, failures: dict[int, ProcessFailure]):
        if not failures:
            raise ValueError("ChildFailedError needs at least one failure")
        self.name, self.failures = name, failures
        super().__init__(self.format_msg())

    def get_first_failure(self) -> tuple[int, ProcessFailure]:
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim: str = "=", section_delim: str = "-") -> str:
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            sig = failure.signal_name()
            fmt = Template(_FAILURE_FORMAT).substitute(
                idx=idx, time=datetime.fromtimestamp(int(failure.timestamp)).isoformat(sep="_"),
                hostname=socket.getfqdn(), rank=rank, local_rank=failure.local_rank, exitcode=failure.exitcode,
                pid=failure.pid, signal_name=f" ({sig})" if sig != _NOT_AVAILABLE else "",
                error_file=failure.error_file, message=failure.message.replace("\n", "\n  "))
            width = max(width, *(len(line) for line in fmt.split("\n")))
            if rank == root_rank:
                root = fmt
            else:
                others.append(fmt)
        width = min(width, 60)
        return Template(_MSG_FORMAT).substitute(border=boarder_delim * width, title=title,
                                                section=section_delim * width, root_failure=root,
                                                other_failures="\n".join(others or ["  <NO_OTHER_FAILURES>"]))


class SignalException(Exception):
    """The launcher received one of the handled signals; it was forwarded to the workers before this is raised."""

    def __init__(self, msg: str, sigval: signal.Signals):
        super().__init__(msg)
        self.sigval = sigval


def _last_traceback(text: str) -> str:
    """The final Python traceback in a stderr tail, with the exceptions chained to it ('' when there is none)."""
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return ""
    while True:  # walk back over "During handling of the above exception ..." links of the chain
        earlier = text.rfind("Traceback (most recent call last):", 0, start)
        between = text[earlier:start] if earlier >= 0 else ""
        if earlier < 0 or not ("During handling of the above exception" in between
                               or "The above exception was the direct cause" in between):
            return text[start:].rstrip()
        start = earlier


class _Worker:
    """One worker process; threads stream its stderr through (keeping a tail) and wait for its exit."""

    def __init__(self, cmd: list[str], env: dict[str, str], rank: int, local_rank: int, error_file: str,
                 exited: threading.Event):
        self.rank, self.local_rank, self.error_file = rank, local_rank, error_file
        self.returncode: int | None = None
        self.exit_time = 0.0
        self._tail = b""
        # a session of its own, as torchelastic does: a terminal's Ctrl-C reaches the launcher, which forwards it
        self.proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, start_new_session=True)
        self._pump = threading.Thread(target=self._stream_stderr, daemon=True)
        self._waiter = threading.Thread(target=self._wait, args=(exited,), daemon=True)
        self._pump.start()
        self._waiter.start()

    def _stream_stderr(self):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        fd = self.proc.stderr.fileno()
        while chunk := os.read(fd, 65536):
            self._tail = (self._tail + chunk)[-_TAIL_BYTES:]
            sys.stderr.write(decoder.decode(chunk))
            sys.stderr.flush()
        self.proc.stderr.close()

    def _wait(self, exited: threading.Event):
        code = self.proc.wait()
        self.exit_time = time.time()
        self.returncode = code
        exited.set()

    def send(self, sig: int):
        try:
            os.killpg(self.proc.pid, sig)  # the worker and what it started (DataLoader workers ...)
        except (ProcessLookupError, PermissionError):
            pass

    def join(self, timeout: float):
        self._waiter.join(timeout)

    def failure(self) -> ProcessFailure:
        self._pump.join(2.0)  # the rest of its stderr, so the traceback is whole
        error_file, message, stamp = self.error_file, "", self.exit_time
        if os.path.isfile(self.error_file):  # written by torch's @record (ErrorHandler) format
            with open(self.error_file) as f:
                data = json.load(f)["message"]
            if isinstance(data, dict):
                message = data.get("extraInfo", {}).get("py_callstack", data.get("message", _NOT_AVAILABLE))
                stamp = int(data.get("extraInfo", {}).get("timestamp", stamp))
            else:
                message = str(data)
        else:
            error_file = _NOT_AVAILABLE
        failure = ProcessFailure(self.local_rank, self.proc.pid, self.returncode, error_file, message, stamp)
        if not failure.message and failure.exitcode < 0:  # killed: signals leave no traceback
            failure.message = f"Signal {-failure.exitcode} ({failure.signal_name()}) received by PID {failure.pid}"
        if not failure.message:  # torchelastic has nothing here without @record; the stderr tail has the traceback
            tail = self._tail.decode("utf-8", "replace")
            failure.message = _last_traceback(tail) or "\n".join(tail.rstrip().splitlines()[-20:]) or _NO_TRACEBACK
        return failure


class _SignalCatcher:
    """Handlers that only record the signal (the monitor loop acts on it), restored on exit."""

    def __init__(self, names: tuple[str, ...]):
        self.received: int | None = None
        self._old = {}
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be installed from the main thread
        for name in names:
            sig = getattr(signal, name)
            self._old[sig] = signal.signal(sig, self._record)

    def _record(self, signum, frame):
        self.received = signum

    def restore(self):
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


def _free_port() -> int:
    family = socket.AF_INET6 if socket.has_dualstack_ipv6() else socket.AF_INET
    with socket.create_server(("", 0), family=family, dualstack_ipv6=family == socket.AF_INET6) as s:
        return s.getsockname()[1]


def _worker_env(spec: LaunchSpec, local_rank: int, restart: int, port: int, error_file: str) -> dict[str, str]:
    n, world = spec.nproc_per_node, spec.nproc_per_node * spec.nnodes
    rank = spec.node_rank * n + local_rank
    return {**spec.env, **{k: str(v) for k, v in {
        "LOCAL_RANK": local_rank, "RANK": rank, "GROUP_RANK": spec.node_rank, "ROLE_RANK": rank,
        "ROLE_NAME": spec.role, "LOCAL_WORLD_SIZE": n, "WORLD_SIZE": world, "GROUP_WORLD_SIZE": spec.nnodes,
        "ROLE_WORLD_SIZE": world, "MASTER_ADDR": spec.master_addr, "MASTER_PORT": port,
        "TORCHELASTIC_RESTART_COUNT": restart, "TORCHELASTIC_MAX_RESTARTS": spec.max_restarts,
        "TORCHELASTIC_RUN_ID": spec.run_id, "TORCHELASTIC_ERROR_FILE": error_file,
        # No agent-side TCPStore here: rank 0's process itself serves MASTER_ADDR:MASTER_PORT.
        "TORCHELASTIC_USE_AGENT_STORE": False, "TORCHELASTIC_SIGNALS_TO_HANDLE": ",".join(spec.signals),
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": 1}.items()}}


def _stop(workers: list[_Worker], sig: int, timeout: float):
    """Send `sig` to the live workers, give them `timeout` seconds, then SIGKILL what is left."""
    alive = [w for w in workers if w.returncode is None]
    for w in alive:
        logger.warning("Sending process %s closing signal %s", w.proc.pid, signal.Signals(sig).name)
        w.send(sig)
    deadline = time.monotonic() + timeout
    for w in alive:
        w.join(max(0.0, deadline - time.monotonic()))
    for w in alive:
        if w.returncode is None:
            logger.warning("Unable to shutdown process %s via %s, forcefully exiting via SIGKILL", w.proc.pid,
                           signal.Signals(sig).name)
            w.send(signal.SIGKILL)
            w.join(5.0)


def _run_group(spec: LaunchSpec, restart: int, logdir: str, catcher: _SignalCatcher) -> dict[int, ProcessFailure]:
    """One attempt: start every local worker and watch until all succeed ({}) or one fails (the failures)."""
    port = spec.master_port or _free_port()
    exited = threading.Event()
    workers: list[_Worker] = []
    try:
        for local_rank in range(spec.nproc_per_node):
            error_file = os.path.join(logdir, f"attempt_{restart}", str(local_rank), "error.json")
            os.makedirs(os.path.dirname(error_file), exist_ok=True)
            cmd = [arg.replace(LOCAL_RANK_MACRO, str(local_rank)) for arg in spec.cmd]
            workers.append(_Worker(cmd, _worker_env(spec, local_rank, restart, port, error_file),
                                   spec.node_rank * spec.nproc_per_node + local_rank, local_rank, error_file, exited))
        while True:
            if catcher.received is not None:
                sig = signal.Signals(catcher.received)
                logger.warning("Received %s death signal, shutting down workers", int(sig))
                _stop(workers, sig, spec.shutdown_timeout)
                raise SignalException(f"Process {os.getpid()} got signal: {int(sig)}", sigval=sig)
            exited.wait(spec.monitor_interval)
            exited.clear()
            failed = [w for w in workers if w.returncode not in (None, 0)]
            if failed:
                break
            if all(w.returncode == 0 for w in workers):
                return {}
        for w in failed:
            logger.error("failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s", w.returncode, w.local_rank,
                         w.proc.pid, spec.cmd[0])
        _stop(workers, signal.SIGTERM, spec.shutdown_timeout)
        return {w.rank: w.failure() for w in workers if w.returncode != 0}
    finally:
        _stop(workers, signal.SIGKILL, 5.0)  # only does anything when an exception cut the attempt short


def launch(spec: LaunchSpec) -> None:
    """Run the worker group, restarting it up to `spec.max_restarts` times; raise ChildFailedError if it fails."""
    logdir = tempfile.mkdtemp(prefix="torchelastic_")
    catcher = _SignalCatcher(spec.signals)
    try:
        for restart in range(spec.max_restarts + 1):
            failures = _run_group(spec, restart, logdir, catcher)
            if not failures:
                return
            if restart < spec.max_restarts:
                logger.warning("[%s] Worker group FAILED. %s/%s attempts left; will restart worker group", spec.role,
                               spec.max_restarts - restart, spec.max_restarts)
        raise ChildFailedError(spec.name, failures)
    finally:
        catcher.restore()
        shutil.rmtree(logdir, ignore_errors=True)
