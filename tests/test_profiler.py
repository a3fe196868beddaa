"""torch.profiler and torch.autograd.profiler against real torch's profiler."""

import glob
import json
import os
import re
import warnings

import pytest
import torch

import facade
import facade.autograd.profiler
import facade.profiler as fprof
from facade import _dispatch

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2),
             dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3), dict(wait=3, warmup=1, active=1, skip_first=2,
                                                                          skip_first_wait=1)]


@pytest.mark.parametrize("kw", SCHEDULES)
def test_schedule_actions_match_torch(kw):
    ours, theirs = fprof.schedule(**kw), torch.profiler.schedule(**kw)
    assert [ours(s).name for s in range(25)] == [theirs(s).name for s in range(25)]
    assert [a.name for a in fprof.ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction]


@pytest.mark.parametrize("kw", [dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0),
                                dict(wait=0, warmup=1, active=1, repeat=-2)])
def test_schedule_bad_arguments(kw):
    with pytest.raises(AssertionError) as theirs:
        torch.profiler.schedule(**kw)
    with pytest.raises(AssertionError) as ours:
        fprof.schedule(**kw)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError, match="Step must be non-negative. Got -1."):
        fprof.schedule(wait=0, warmup=1, active=1)(-1)


def test_schedule_without_warmup_warns():
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        fprof.schedule(wait=1, warmup=0, active=1)


def test_activities():
    assert [a.name for a in fprof.ProfilerActivity] == sorted(torch.profiler.ProfilerActivity.__members__,
                                                              key=[a.name for a in fprof.ProfilerActivity].index)
    assert set(torch.profiler.ProfilerActivity.__members__) == {a.name for a in fprof.ProfilerActivity}
    assert fprof.ProfilerActivity.CPU in fprof.supported_activities()


def _run_cycles(lib, steps=9):
    """A scheduled profile over `steps` steps; per on_trace_ready call, the user regions it recorded."""
    cycles = []

    def ready(prof):
        regions = sorted(e.name for e in prof.events() if e.is_user_annotation)
        cycles.append((prof.step_num, regions, sorted(e.key for e in prof.key_averages() if e.is_user_annotation)))

    x = lib.ones(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], schedule=sched,
                                  on_trace_ready=ready) as prof:
            for _ in range(steps):
                with lib.profiler.record_function("work"):
                    (x + 1) * 2
                prof.step()
    return cycles


def test_scheduled_cycles_match_torch():
    assert _run_cycles(facade) == _run_cycles(torch)


def _workload(lib, prof_kwargs):
    x = lib.ones(8, 8)
    with lib.profiler.profile(**prof_kwargs) as prof:
        for _ in range(3):
            with lib.profiler.record_function("step"):
                y = lib.relu(x @ x + 1)
                with lib.profiler.record_function("inner"):
                    y.sum()
    return prof


def test_key_averages_counts_match_torch():
    ours = {e.key: e for e in _workload(facade, {}).key_averages()}
    theirs = {e.key: e for e in _workload(torch, {}).key_averages()}
    assert set(ours) == {"step", "inner", "aten::matmul", "aten::add", "aten::relu", "aten::sum"}
    for k, e in ours.items():
        assert e.count == theirs[k].count, k
        assert e.is_user_annotation == theirs[k].is_user_annotation
    step, inner = ours["step"], ours["inner"]
    assert step.cpu_time_total >= inner.cpu_time_total + ours["aten::matmul"].cpu_time_total
    assert step.self_cpu_time_total == pytest.approx(
        step.cpu_time_total - sum(ours[k].cpu_time_total for k in ("inner", "aten::matmul", "aten::add", "aten::relu")))


def test_table_matches_torch_layout():
    ka = _workload(facade, {"record_shapes": True}).key_averages()
    theirs = _workload(torch, {}).key_averages().table(sort_by="cpu_time_total", row_limit=3).splitlines()
    lines = ka.table(sort_by="cpu_time_total", row_limit=3).splitlines()
    assert re.split(r"\s{2,}", lines[1].strip()) == re.split(r"\s{2,}", theirs[1].strip())
    rows = lines[3:-2]
    assert [r.split()[0] for r in rows] == [e.key for e in sorted(ka, key=lambda e: -e.cpu_time_total)][:3]
    assert rows[0].split()[0] == "step"  # the outermost region has the largest total
    assert lines[-1].startswith("Self CPU time total: ") and theirs[-1].startswith("Self CPU time total: ")
    assert [len(c) for c in lines[0].split("  ")[1:]] == [len(c) for c in theirs[0].split("  ")[1:]]
    counts = [int(r.split()[-1]) for r in ka.table(sort_by="count").splitlines()[3:-2]]
    assert counts == sorted(counts, reverse=True)
    shaped = _workload(facade, {"record_shapes": True}).key_averages(group_by_input_shape=True)
    assert "[[8, 8], [8, 8]]" in shaped.table()
    for lib_ka in (ka, _workload(torch, {}).key_averages()):
        with pytest.raises(AttributeError, match="'FunctionEventAvg' object has no attribute 'bogus'"):
            lib_ka.table(sort_by="bogus")


def test_export_chrome_trace(tmp_path):
    prof = _workload(facade, {"record_shapes": True})
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    ours = json.loads(path.read_text())["traceEvents"]
    tprof = _workload(torch, {})
    tprof.export_chrome_trace(str(tmp_path / "torch.json"))
    theirs = json.loads((tmp_path / "torch.json").read_text())["traceEvents"]
    names = lambda evs, cat: sorted(e["name"] for e in evs if e.get("cat") == cat)  # noqa: E731
    assert names(ours, "user_annotation") == names(theirs, "user_annotation")
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in ours)
    steps = [e for e in ours if e["name"] == "step"]
    mm = [e for e in ours if e["name"] == "aten::matmul"]
    for s, m in zip(steps, mm):  # each op lies inside its region
        assert s["ts"] <= m["ts"] and m["ts"] + m["dur"] <= s["ts"] + s["dur"]
    assert mm[0]["args"]["Input Dims"] == [[8, 8], [8, 8]]


def test_tensorboard_trace_handler(tmp_path):
    d = str(tmp_path / "tb")
    x = facade.ones(4)
    with fprof.profile(schedule=fprof.schedule(wait=0, warmup=1, active=1),
                       on_trace_ready=fprof.tensorboard_trace_handler(d, worker_name="w0")) as prof:
        for _ in range(2):
            with fprof.record_function("fwd"):
                x * 3
            prof.step()
    traces = glob.glob(os.path.join(d, "*.pt.trace.json"))
    assert len(traces) == 1 and re.fullmatch(r"w0\.\d+\.pt\.trace\.json", os.path.basename(traces[0]))
    names = {e["name"] for e in json.load(open(traces[0]))["traceEvents"]}
    assert {"fwd", "ProfilerStep#1", "aten::mul"} <= names and "ProfilerStep#0" not in names
    assert glob.glob(os.path.join(d, "plugins", "profile", "*", "*.xplane.pb"))  # jax.profiler's device trace


def test_record_function_decorator_and_outside_profiler():
    @fprof.record_function("decorated")
    def f(x):
        return x + 1

    f(facade.ones(2))  # outside a profiler: nothing recorded, no error
    with fprof.profile() as prof:
        f(f(facade.ones(2)))
    keys = {e.key: e.count for e in prof.key_averages()}
    assert keys["decorated"] == 2 and keys["aten::add"] == 2
    assert _dispatch.run is fprof._hook._REAL_RUN  # the op hook is gone after the profile


def test_autograd_profiler_aliases():
    assert facade.autograd.profiler.record_function is fprof.record_function
    x = facade.ones(3)
    with facade.autograd.profiler.profile(record_shapes=True) as prof:
        with facade.autograd.profiler.record_function("legacy"):
            x - 1
    assert {e.key for e in prof.function_events} == {"legacy", "aten::sub"}
    assert "legacy" in prof.table(sort_by="self_cpu_time_total")
    with facade.autograd.profiler.profile(enabled=False) as off:
        x - 1
    assert len(off.function_events) == 0
