"""Smoke test of benchmarks/bench_eager.py: one cheap workload at its quick size, in a subprocess."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_eager.py"


def test_quick_write_loop_prints_the_table():
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--only", "write_loop"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", header.strip()) == [
        "workload", "torch s", "facade s", "jax s", "facade/torch", "compiles", "compile s", "note"]
    name, torch_s, facade_s, jax_s, ratio, compiles, compile_s, note = re.split(r"\s{2,}", row.strip(), maxsplit=7)
    assert name == "write_loop (20)"
    assert min(float(torch_s), float(facade_s), float(jax_s), float(ratio), float(compile_s)) > 0
    assert int(compiles) >= 1  # facade builds at least the write's program
    assert note.startswith("jax.numpy:") and "most:" in note
