"""Run a child process on XLA's simulated CPU devices (--xla_force_host_platform_device_count), bounded in time.

XLA's CPU runtime can deadlock when two programs with collectives are in flight on the simulated devices at
once (each holds part of the one-thread-per-device pool and waits at its rendezvous for the other's threads;
XLA then aborts with "Expected 8 threads to join the rendezvous"). facade._multidevice keeps one such
program in flight at a time, so no retry is needed here: an abort fails the test like any other failure
(tests/test_distributed_p2p.py checks the loop that used to abort).
"""

from __future__ import annotations

import subprocess

FLAGS = "--xla_cpu_collective_call_terminate_timeout_seconds=60"  # XLA's 40 s, with room for a loaded machine


def run(args, *, env, timeout, **kwargs):
    """(returncode, stdout, stderr) of `args`; the child is killed when it runs past `timeout` seconds."""
    env = {**env, "XLA_FLAGS": f"{env.get('XLA_FLAGS', '')} {FLAGS}".strip()}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err
