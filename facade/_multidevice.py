"""One multi-device CPU program in flight at a time: the cure for XLA's simulated-device deadlock.

XLA's CPU runtime runs each device's part of a program on one shared pool (one thread per device) and does
not order the programs of a device. With two programs that hold collectives in flight at once (eager ops
are dispatched asynchronously), each can take part of the pool and wait at its rendezvous for threads the
other holds: a deadlock that XLA ends by aborting the process ("Expected 8 threads to join the rendezvous,
but only 7 of them arrived"). It needs several CPU devices in one process
(XLA_FLAGS=--xla_force_host_platform_device_count=N), and shows in pure JAX too.

The cure: before a program whose inputs span more than one CPU device is launched, the outputs of the
previous such program are waited for. Single-device programs are never waited for, and where the CPU has
one device (every ordinary run) the check is one attribute read: `ON` turns False at the first call.

Launch sites call `call(fn, *args)` (or wrap a jitted function once with `serialised`); `begin(arrays)` (True
when the program is multi-device; it then holds the lock) and `end(outs)` are its two halves.
"""

from __future__ import annotations

import functools
import threading

import jax
from jax.sharding import SingleDeviceSharding

__all__ = ["ON", "on", "begin", "end", "call", "serialised"]

ON = True  # until the first check: False for good when the CPU backend has at most one device
_lock = threading.RLock()  # a launch from another thread waits its turn too
_last = []  # the leaves of the previous multi-device CPU program's outputs


def _cpu_devices() -> int:
    try:
        return len(jax.local_devices(backend="cpu"))
    except RuntimeError:  # no CPU backend (JAX_PLATFORMS without cpu)
        return 0


def _spans_cpu_devices(leaf) -> bool:
    if not isinstance(leaf, jax.Array) or isinstance(leaf, jax.core.Tracer):
        return False
    s = leaf.sharding
    if type(s) is SingleDeviceSharding:
        return False
    devices = s.device_set
    return len(devices) > 1 and next(iter(devices)).platform == "cpu"


def on() -> bool:
    """`ON`, settled: False for good once the CPU backend is seen to have at most one device."""
    global ON
    if ON is True and _cpu_devices() <= 1:
        ON = False
    return ON


def begin(arrays) -> bool:
    """Whether a program on `arrays` (any pytree) runs on several CPU devices; if so, wait for the previous such
    program and take the lock (released by `end`)."""
    if not on() or not any(_spans_cpu_devices(a) for a in jax.tree_util.tree_leaves(arrays)):
        return False
    _lock.acquire()
    try:
        for a in _last:
            if not a.is_deleted():  # a buffer donated since can no longer be waited for (nor is it running)
                a.block_until_ready()
        _last.clear()
    except BaseException:
        _lock.release()
        raise
    return True


def end(outs) -> None:
    """After `begin` returned True: remember the launched program's outputs and release the lock."""
    _last[:] = [a for a in jax.tree_util.tree_leaves(outs) if isinstance(a, jax.Array)]
    _lock.release()


def call(fn, *args):
    """fn(*args), serialised by `begin`/`end` when its arguments span several CPU devices."""
    if not ON or not begin(args):
        return fn(*args)
    outs = None
    try:
        outs = fn(*args)
    finally:
        end(outs)
    return outs


def serialised(fn):
    """`fn` (a jitted function called with positional arguments) launched through `call`."""

    @functools.wraps(fn)
    def launch(*args):
        return call(fn, *args)

    return launch
