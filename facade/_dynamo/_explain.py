"""torch._dynamo.explain: trace a function once and say what became programs and what broke them."""

from __future__ import annotations

import dataclasses
import functools

import jax


@dataclasses.dataclass
class GraphCompileReason:
    reason: str
    user_stack: list
    graph_break: bool = True


@dataclasses.dataclass
class ExplainOutput:
    """torch's ExplainOutput: programs, graph breaks (with where and why), ops per program, guards."""

    graphs: list
    graph_count: int
    graph_break_count: int
    break_reasons: list
    op_count: int
    ops_per_graph: list
    out_guards: list
    compile_times: str = ""

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, r in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {r.reason}", "    User Stack:",
                      *(f"      {s}" for s in r.user_stack)]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines += [f"  Ops {i}:", *(f"    {op}" for op in ops)]
        lines.append("Out Guards:")
        lines += [f"  Guard {i}: {g}" for i, g in enumerate(self.out_guards, 1)]
        return "\n".join(lines) + "\n"

    def _repr_pretty_(self, p, cycle):  # IPython/Jupyter shows the report, not the dataclass repr with its jaxprs
        p.text(str(self))


def explain(fn, *extra_args, **extra_kwargs):
    """`explain(fn)(*args, **kwargs)`: run `fn` compiled once (a fresh cache) and report."""
    from .._compile._function import CompiledFunction

    def inner(*args, **kwargs):
        compiled = CompiledFunction(fn)
        compiled._calls, compiled._keep_arrays = 1, True  # no eager warm-up: explain the trace itself
        reasons = []
        with _catch_breaks(reasons):
            compiled(*args, **kwargs)
        graphs, ops = [], []
        for entry in compiled._entries.values():
            if entry.comp is not None and entry.arrays is not None:
                jaxpr = jax.make_jaxpr(entry.comp.raw)(*entry.arrays)
                graphs.append(jaxpr)
                ops.append([e.params.get("name", str(e.primitive)) for e in jaxpr.jaxpr.eqns])  # facade's op names
        guards = [f"input structure and shapes; {len(e.tensors)} state tensors (identity, shape, dtype, grad); "
                  f"module training flags; optimizer options; grad mode" for e in compiled._entries.values()]
        return ExplainOutput(graphs, len(graphs), len(reasons), reasons, sum(map(len, ops)), ops, guards)

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return functools.wraps(fn)(inner)


class _catch_breaks:
    """Collect the graph breaks of one call as GraphCompileReasons (instead of warning)."""

    def __init__(self, reasons):
        self.reasons = reasons

    def __enter__(self):
        from .._compile import _function

        self._orig = _function.CompiledFunction._report_break
        reasons = self.reasons

        def report(compiled, where, msg):
            reasons.append(GraphCompileReason(msg, [where]))

        _function.CompiledFunction._report_break = report

    def __exit__(self, *exc):
        from .._compile import _function

        _function.CompiledFunction._report_break = self._orig
