"""Host-side events of the profiler: `record_function` regions and eager ops, their table and chrome trace.

Times are host wall times (`time.perf_counter_ns`). An eager op's time is its dispatch time: XLA runs
asynchronously, so device time is not in it (the `jax.profiler` trace written next to the chrome trace
has the device side).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import threading
import time

import jax

_SESSIONS: list = []  # the recording sessions; record_function writes its region into each


class FunctionEvent:
    """One region or op (count 1), or the average of several with one key (`key_averages()`)."""

    def __init__(self, name, start_ns=0, end_ns=0, thread=0, cat="cpu_op", input_shapes=None):
        self.trace_name = name  # the chrome trace keeps "ProfilerStep#3"; tables and events say "ProfilerStep*"
        self.key = self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.cat = cat
        self.is_user_annotation = cat == "user_annotation"
        self.input_shapes = input_shapes
        self.start_ns, self.end_ns = start_ns, end_ns
        self.count = 1
        self.cpu_time_total = (end_ns - start_ns) / 1000.0  # microseconds, as torch
        self.self_cpu_time_total = self.cpu_time_total
        self.cpu_children = []

    # torch's device and memory columns: this profiler measures neither, so they read 0
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = self_device_memory_usage = 0
    flops = 0

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def device_time(self):
        return 0.0

    cuda_time = device_time

    def add(self, other):
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __repr__(self):
        return (f"<FunctionEvent key={self.key} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us "
                f"self_cpu_time_total={self.self_cpu_time_total:.3f}us input_shapes={self.input_shapes}>")


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


_COLUMNS = [("Self CPU %", lambda e, t: f"{100 * e.self_cpu_time_total / t:.2f}%" if t else "0.00%"),
            ("Self CPU", lambda e, t: _format_time(e.self_cpu_time_total)),
            ("CPU total %", lambda e, t: f"{100 * e.cpu_time_total / t:.2f}%" if t else "0.00%"),
            ("CPU total", lambda e, t: _format_time(e.cpu_time_total)),
            ("CPU time avg", lambda e, t: _format_time(e.cpu_time)),
            ("# of Calls", lambda e, t: str(e.count))]


class FunctionEventAvg(FunctionEvent):
    """The sum of the FunctionEvents with one key (and input shapes, when grouped by them)."""


class EventList(list):
    """A list of FunctionEvents with torch's `key_averages()`, `table()` and `export_chrome_trace()`."""

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        stats = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            s = stats.get(key)
            if s is None:
                s = stats[key] = FunctionEventAvg(e.key, cat=e.cat, thread=e.thread,
                                               input_shapes=e.input_shapes if group_by_input_shape else None)
                s.count = 0
                s.cpu_time_total = s.self_cpu_time_total = 0.0
            s.add(e)
        out = EventList(stats.values())
        out._by_shape = group_by_input_shape
        return out

    def total_average(self):
        total = FunctionEventAvg("Total")
        total.count, total.cpu_time_total, total.self_cpu_time_total = 0, 0.0, 0.0
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """torch's table: one row per key, sorted by `sort_by` (an attribute, e.g. 'cpu_time_total')."""
        events = list(self)
        if sort_by is not None:
            attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace("gpu", "device")
            events.sort(key=lambda e: getattr(e, attr), reverse=True)
        total = self.self_cpu_time_total
        by_shape = getattr(self, "_by_shape", False)
        name_w = min(max([len(e.key) for e in self] + [4]) + 4, max_name_column_width)
        columns = [("Name", name_w, lambda e, t: e.key[:name_w - 3] + "..." if len(e.key) >= name_w else e.key)]
        columns += [(h, 12, f) for h, f in _COLUMNS]
        if by_shape:
            shape_w = min(max([len(str(e.input_shapes)) for e in self] + [12]) + 4, max_shapes_column_width)
            columns.append(("Input Shapes", shape_w, lambda e, t: str(e.input_shapes or [])))
        line = "  ".join("-" * w for _, w, _ in columns) + "  "

        def row(cells):
            return "  ".join(c.rjust(w) for c, (_, w, _) in zip(cells, columns)) + "  "

        rows = [line, row([h for h, _, _ in columns]), line]
        if header is not None:
            rows = ["=" * len(line), header] + rows
        for e in events[:row_limit] if row_limit is not None and row_limit > 0 else events:
            rows.append(row([f(e, total) for _, _, f in columns]))
        rows += [line, f"Self CPU time total: {_format_time(total)}", ""]
        return "\n".join(rows)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """The events as a Chrome/Perfetto trace (JSON, gzipped when `path` ends in .gz)."""
        pid = os.getpid()
        trace = []
        for e in self:
            ev = {"ph": "X", "cat": e.cat, "name": e.trace_name, "pid": pid, "tid": e.thread,
                  "ts": e.start_ns / 1000.0, "dur": (e.end_ns - e.start_ns) / 1000.0, "args": {}}
            if e.input_shapes is not None:
                ev["args"]["Input Dims"] = e.input_shapes
            trace.append(ev)
        doc = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "traceEvents": trace,
               "traceName": os.fspath(path)}
        opener = gzip.open if os.fspath(path).endswith(".gz") else open
        with opener(path, "wt") as f:
            json.dump(doc, f)


class _Session:
    """The events of one recording (one profiling cycle)."""

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.events = []
        self._stack = None

    def start(self):
        from ._hook import observe_ops

        self._stack = contextlib.ExitStack()
        self._stack.enter_context(observe_ops(self.op))
        _SESSIONS.append(self)

    def stop(self):
        if self._stack is not None:
            _SESSIONS.remove(self)
            self._stack.close()
            self._stack = None

    def op(self, name, dyn, result, t0, t1):
        shapes = [list(getattr(t, "shape", ())) for t in dyn] if self.record_shapes else None
        self.events.append(FunctionEvent(f"aten::{name}", t0, t1, threading.get_ident(), "cpu_op", shapes))

    def event_list(self):
        """The events with their self time (total minus the time of regions/ops nested in them)."""
        events = sorted(self.events, key=lambda e: (e.thread, e.start_ns, -e.end_ns))
        stack = []
        for e in events:
            e.cpu_children, e.self_cpu_time_total = [], e.cpu_time_total
            while stack and (stack[-1].thread != e.thread or stack[-1].end_ns <= e.start_ns):
                stack.pop()
            if stack:
                stack[-1].cpu_children.append(e)
                stack[-1].self_cpu_time_total -= e.cpu_time_total
            stack.append(e)
        return EventList(sorted(events, key=lambda e: e.start_ns))


class record_function(contextlib.ContextDecorator):
    """A named region: a `jax.profiler.TraceAnnotation` and, while a profiler records, a table row.

    Usable as a context manager or a decorator (`@record_function("loss")`).
    """

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._open = []

    def __enter__(self):
        ann = jax.profiler.TraceAnnotation(self.name)
        ann.__enter__()
        self._open.append((ann, time.perf_counter_ns()))
        return self

    def __exit__(self, *exc):
        ann, t0 = self._open.pop()
        t1 = time.perf_counter_ns()
        ann.__exit__(*exc)
        for s in tuple(_SESSIONS):
            s.events.append(FunctionEvent(self.name, t0, t1, threading.get_ident(), "user_annotation"))
        return False
