"""Observe every eager op that passes the dispatch chokepoint (for the profiler and `add_graph`).

`facade._dispatch.call` runs each op through the module-level `run(comp, dyn)`; while at least one
observer is registered, that name is bound to a wrapper that times the call and tells the observers
the op, its inputs and its result. With no observer the chokepoint is untouched (zero cost).
Ops run by DataLoader workers (`_host.run`) and the backward pass are not seen.
"""

from __future__ import annotations

import contextlib
import time

from .. import _dispatch

_OBSERVERS: list = []
_REAL_RUN = _dispatch.run


def _observed_run(comp, dyn):
    t0 = time.perf_counter_ns()
    result = _REAL_RUN(comp, dyn)
    t1 = time.perf_counter_ns()
    for fn in tuple(_OBSERVERS):
        fn(comp.op.name, dyn, result, t0, t1)
    return result


@contextlib.contextmanager
def observe_ops(fn):
    """Call `fn(op_name, inputs, result, start_ns, end_ns)` after each eager op inside the block."""
    _OBSERVERS.append(fn)
    _dispatch.run = _observed_run
    try:
        yield
    finally:
        _OBSERVERS.remove(fn)
        if not _OBSERVERS:
            _dispatch.run = _REAL_RUN
