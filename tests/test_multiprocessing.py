"""torch.multiprocessing: Python's multiprocessing plus torch's spawn; a child's exception reaches the parent as
ProcessRaisedException with its traceback, under `import facade as torch` and under `python -m facade`."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import facade.multiprocessing as mp

ROOT = Path(__file__).resolve().parents[1]


def _write_rank(rank, folder):
    import facade

    Path(folder, f"{rank}.txt").write_text(str(facade.tensor([rank]).add(10).item()))


def _fail_on_one(rank):
    if rank == 1:
        raise ValueError("boom in rank 1")


def test_spawn_two_processes(tmp_path):
    assert mp.spawn(_write_rank, args=(str(tmp_path),), nprocs=2) is None
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == ["10", "11"]


def test_spawn_error_in_a_child():
    with pytest.raises(mp.ProcessRaisedException, match="-- Process 1 terminated with the following error:") as e:
        mp.spawn(_fail_on_one, nprocs=2)
    assert "ValueError: boom in rank 1" in str(e.value) and e.value.error_index == 1


def test_python_multiprocessing_names():
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "cpu_count", "get_context", "get_start_method",
                 "set_start_method", "Event", "Lock", "Manager"):
        assert getattr(mp, name) == getattr(multiprocessing, name), name
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError, match="invalid sharing strategy 'x'"):
        mp.set_sharing_strategy("x")


SCRIPT = """
import sys
import torch
import torch.multiprocessing as mp


def work(rank, folder):
    open(f"{folder}/{rank}.txt", "w").write(str(int(torch.tensor([rank]).mul(3).sum().item())))


def fail(rank):
    if rank == 0:
        raise KeyError("missing key")


if __name__ == "__main__":
    folder = sys.argv[1]
    mp.spawn(work, args=(folder,), nprocs=2)
    print(sorted(open(f"{folder}/{r}.txt").read() for r in range(2)))
    try:
        mp.spawn(fail, nprocs=2)
    except mp.ProcessRaisedException as e:
        print(type(e).__name__, e.error_index, "KeyError: 'missing key'" in str(e), str(e).splitlines()[2])
"""


def test_spawn_script_under_torch_and_the_runner(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    outs = []
    for runner in ([], ["-m", "facade"]):
        folder = tmp_path / ("facade" if runner else "torch")
        folder.mkdir()
        run = subprocess.run([sys.executable, *runner, str(script), str(folder)], capture_output=True, text=True,
                             timeout=240, env=env, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout)
    assert outs[1] == outs[0]
