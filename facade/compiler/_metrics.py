"""Count what compiles: every XLA program this process builds, from JAX's own monitoring events.

A program is named by the function it compiles: a facade op's name (`add`, `conv2d` ...),
`<op>_backward` for its pullback, and JAX's or the library's own names for the rest (`fused` for a
fused backward graph, `_pure_update` for an optimizer step, a primitive such as `broadcast_in_dim`
for a `jnp` call made eagerly). Its time is tracing + lowering + XLA compiling (or loading it from
the persistent compilation cache, which is counted as a hit). Listening costs nothing per op call:
JAX reports only when it builds a program.

`FACADE_COMPILE_SUMMARY=1` prints `summary()` to stderr at interpreter exit.
"""

from __future__ import annotations

import atexit
import os
import re
import sys
import threading
from dataclasses import dataclass, field

import jax
from jax import monitoring

__all__ = ["OpMetrics", "Metrics", "metrics", "reset_metrics", "summary"]

_TRACE = "/jax/core/compile/jaxpr_trace_duration"
_LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
_COMPILE = "/jax/core/compile/backend_compile_duration"  # XLA compile, or a persistent-cache load
_PHASES = {_TRACE: "trace_seconds", _LOWER: "lower_seconds", _COMPILE: "xla_seconds"}
_REQUEST = "/jax/compilation_cache/compile_requests_use_cache"
_HIT = "/jax/compilation_cache/cache_hits"
_WRAPPED = re.compile(r"^\w+\((.*)\)$")  # JAX reports lowering and compiling as `jit(add)`


@dataclass
class OpMetrics:
    """One program name's share: programs built, their seconds, and how many the persistent cache served."""

    compiles: int = 0
    seconds: float = 0.0
    cache_hits: int = 0


@dataclass
class Metrics:
    """What compiled since start (or `reset_metrics()`). `compile_seconds` is the sum of the three phases;
    `cache_misses` counts programs the persistent cache was asked for and did not have (0 when it is off)."""

    compiles: int = 0
    compile_seconds: float = 0.0
    trace_seconds: float = 0.0
    lower_seconds: float = 0.0
    xla_seconds: float = 0.0
    cache_hits: int = 0
    cache_misses: int = 0
    ops: dict[str, OpMetrics] = field(default_factory=dict)

    def __str__(self):
        return _format(self)

    def _repr_pretty_(self, p, cycle):  # IPython/Jupyter shows the table, not the one-line dataclass repr
        p.text(_format(self))


_lock = threading.Lock()
_state = Metrics()
_requests = [0]
_pending = threading.local()  # a cache hit is reported just before the compile event it belongs to
_background: list = []  # threads compiling ahead of a call (an optimizer's first update): waited for when read


def background(thread: threading.Thread) -> None:
    """Count `thread`'s compiles as the calls' own: metrics() and reset_metrics() wait for it first."""
    _background[:] = [t for t in _background if t.is_alive()] + [thread]


def _settle():
    while _background:
        _background.pop().join()


def _name(fun_name):
    m = _WRAPPED.match(fun_name or "?")
    return m.group(1) if m else (fun_name or "?")


def _on_duration(event, secs, fun_name=None, **_):
    phase = _PHASES.get(event)
    if phase is None:
        return
    name = _name(fun_name)
    with _lock:
        setattr(_state, phase, getattr(_state, phase) + secs)
        _state.compile_seconds += secs
        row = _state.ops.get(name)
        if row is None:
            row = _state.ops[name] = OpMetrics()
        row.seconds += secs
        if event == _COMPILE:
            _state.compiles += 1
            row.compiles += 1
            if getattr(_pending, "hit", False):
                _pending.hit = False
                row.cache_hits += 1


def _on_event(event, **_):
    if event == _REQUEST:
        with _lock:
            _requests[0] += 1
    elif event == _HIT:
        with _lock:
            _state.cache_hits += 1
        _pending.hit = True


def metrics() -> Metrics:
    """A snapshot of the compile counters: `facade.compiler.metrics().compiles`, `.ops['add'].seconds` ...
    (after any compile started ahead in the background has finished)."""
    _settle()
    with _lock:
        ops = {k: OpMetrics(v.compiles, v.seconds, v.cache_hits) for k, v in _state.ops.items()}
        snap = Metrics(**{**vars(_state), "ops": ops})
        # JAX asks its cache even when no directory is set; then there is no cache to miss
        snap.cache_misses = _requests[0] - _state.cache_hits if jax.config.jax_compilation_cache_dir else 0
    return snap


def reset_metrics() -> None:
    """Start counting from zero (compiled programs stay compiled: only the counters are reset)."""
    global _state
    _settle()
    with _lock:
        _state, _requests[0] = Metrics(), 0


def summary(top: int = 10) -> str:
    """A few lines: totals, then the `top` program names by compile seconds."""
    return _format(metrics(), top)


def _format(m: Metrics, top: int = 10) -> str:
    lines = [f"facade: {m.compiles} XLA programs built in {m.compile_seconds:.2f} s (trace {m.trace_seconds:.2f} s, "
             f"lower {m.lower_seconds:.2f} s, XLA compile or cache load {m.xla_seconds:.2f} s); "
             + (f"persistent cache: {m.cache_hits} hits, {m.cache_misses} misses"
                if jax.config.jax_compilation_cache_dir else "persistent cache off")]
    rows = sorted(m.ops.items(), key=lambda kv: (-kv[1].seconds, kv[0]))[:top]
    if rows:
        width = max(len(k) for k, _ in rows)
        lines.append(f"  {'program':<{width}}  compiles  seconds  cache hits")
        lines += [f"  {k:<{width}}  {v.compiles:>8}  {v.seconds:>7.2f}  {v.cache_hits:>10}" for k, v in rows]
    return "\n".join(lines)


def _print_summary():
    print(summary(), file=sys.stderr)


monitoring.register_event_duration_secs_listener(_on_duration)
monitoring.register_event_listener(_on_event)
if os.environ.get("FACADE_COMPILE_SUMMARY", "").strip() not in ("", "0"):
    atexit.register(_print_summary)
