"""Run a child process on XLA's simulated CPU devices (--xla_force_host_platform_device_count), retrying the
one failure that is XLA's and not ours.

XLA's CPU runtime runs each simulated device's part of a program on a pool with one thread per device, and
does not order the programs of one device. With two programs that hold collectives in flight at once (eager
ops are dispatched asynchronously), each can take part of the pool and wait at its rendezvous for threads the
other holds: a deadlock, which XLA ends by aborting the process after its collective timeout ("Expected 8
threads to join the rendezvous, but only 6 of them arrived on time"). It shows on a loaded machine (two of
five full suite runs hit it). Such an abort is retried; any other failure, and
a wrong result, fails at once.
"""

from __future__ import annotations

import subprocess

ATTEMPTS = 3
FLAGS = "--xla_cpu_collective_call_terminate_timeout_seconds=60"  # XLA's 40 s, with room for a loaded machine


def _xla_rendezvous_abort(proc, err):
    return proc.returncode in (-6, 134) and "threads to join the rendezvous" in err


def run(args, *, env, timeout, **kwargs):
    """(returncode, stdout, stderr) of `args`, retrying XLA's rendezvous abort up to ATTEMPTS times."""
    env = {**env, "XLA_FLAGS": f"{env.get('XLA_FLAGS', '')} {FLAGS}".strip()}
    for attempt in range(ATTEMPTS):
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        if not _xla_rendezvous_abort(proc, err) or attempt == ATTEMPTS - 1:
            return proc.returncode, out, err
    raise AssertionError("unreachable")
