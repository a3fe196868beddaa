"""Smoke test of benchmarks/bench_compile.py: the MLP at the smallest settings, in a subprocess."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_compile.py"
VARIANTS = ["facade eager", "facade compile(model)", "facade compile(step)", "pure JAX + optax", "torch eager"]


def _cells(line):
    return re.split(r"\s{2,}", line.strip())


def test_mlp_smallest_settings_print_the_tables():
    proc = subprocess.run([sys.executable, str(BENCH), "--steps", "2", "--models", "mlp", "--no-torch-compile",
                           "--overhead-steps", "2"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("ms per training step, median of 2 ")
    assert _cells(lines[1]) == ["model", "variant", "ms/step", "vs JAX", "vs torch", "1st s", "2nd s", "state", "note"]
    rows = [_cells(line) for line in lines[2:2 + len(VARIANTS)]]
    assert [r[1] for r in rows] == VARIANTS  # torch compile(model) is left out by --no-torch-compile
    for r in rows:
        assert r[0] == "mlp" and min(map(float, r[2:8])) > 0, r
        assert int(r[7]) >= 6  # state tensors: at least the six parameters
    ratios = {r[1]: (float(r[3]), float(r[4])) for r in rows}
    assert ratios["pure JAX + optax"][0] == 1 and ratios["torch eager"][1] == 1
    i = lines.index("Python overhead of a compiled step call: tiny models, median of 2 calls")
    assert _cells(lines[i + 1]) == ["model", "state", "JAX us", "facade us", "overhead us", "goal us", "note"]
    tiny = _cells(lines[i + 2])
    assert tiny[0] == "mlp (tiny)" and float(tiny[5]) == 50 + int(tiny[1])
    goals = lines[lines.index("goals (issue 12)") + 1:]
    assert any(g.startswith("mlp: compile(step) / pure JAX ") for g in goals), goals
    assert all(g.endswith(("met", "MISSED")) for g in goals), goals
