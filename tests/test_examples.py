"""The example scripts print the same numbers under real torch and under `python -m facade`.

Each test runs one script of examples/ unchanged, with its default (small) arguments, in two subprocesses
side by side, and compares every number printed (rtol 1e-3: the runs agree far closer, the margin is for
float32 reductions summed in another order over about a hundred steps).
"""

import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from .test_runner import ROOT, _env, _finish, _run_both, assert_same_numbers

EXAMPLES = ROOT / "examples"


@pytest.fixture(autouse=True)
def _one_torch_thread(monkeypatch):
    """Real torch's intra-op threads fight the other process for 2 shared cores: its runs took 3 times the CPU
    and 5 times the wall time. One thread each, as torchrun sets for its workers."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def _both_ok(script, tmp_path, *args):
    ref, got = _run_both([str(EXAMPLES / script), *args], tmp_path)
    assert ref.returncode == 0, f"real torch failed:\n{ref.stderr}"
    assert got.returncode == 0, f"facade failed:\n{got.stderr}"
    assert_same_numbers(ref.stdout, got.stdout, rtol=1e-3, atol=1e-5)
    return ref.stdout, got.stdout


def _numbers(out, pattern):
    return [float(m.group(1)) for m in re.finditer(pattern, out)]


def test_char_gpt(tmp_path):
    """Real torch.compile (inductor, C++ codegen) costs about 15 s more CPU than the whole eager run on 2 cores,
    so torch and facade are compared eagerly (--no-compile on both), and a third run, facade with the
    script's default torch.compile(model), must print the eager losses to rtol 1e-4 and the same sample."""
    script = str(EXAMPLES / "char_gpt.py")
    compiled = subprocess.Popen([sys.executable, "-m", "facade", script], cwd=tmp_path, text=True,
                                env=dict(_env(), FACADE_COMPILE_SUMMARY="1"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    try:
        ref, eager = _run_both([script, "--no-compile"], tmp_path)
    finally:
        compiled = _finish(compiled)  # waits (bounded), then kills
    for run in (ref, eager, compiled):
        assert run.returncode == 0, run.stderr
    assert_same_numbers(ref.stdout, eager.stdout, rtol=1e-3, atol=1e-5)
    assert_same_numbers(eager.stdout, compiled.stdout, rtol=1e-4, atol=1e-6)
    sample = [line for line in ref.stdout.splitlines() if line.startswith("sample: ")]
    assert len(sample) == 1 and sample[0] in eager.stdout and sample[0] in compiled.stdout
    losses = _numbers(ref.stdout, r"train loss ([\d.]+)")
    assert losses[-1] < losses[0] - 1.0, ref.stdout  # it learned something
    # the summary's table of programs: the model's forward ran as one compiled program
    assert re.search(r"^  compiled_\S+ +1 ", compiled.stderr, re.M), compiled.stderr


def test_lstm(tmp_path):
    ref, _ = _both_ok("lstm.py", tmp_path)
    assert _numbers(ref, r"test acc ([\d.]+)")[-1] > 0.6, ref


def test_vae(tmp_path):
    ref, _ = _both_ok("vae.py", tmp_path)
    losses = _numbers(ref, r"epoch \d+: loss ([\d.]+)")
    kl = _numbers(ref, r"kl ([\d.]+)")
    assert losses[-1] < losses[0] and kl[-1] > 0.1, ref  # trains, and the posterior is not the prior


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ddp_one_process_and_under_the_launcher(tmp_path):
    """One process under both; then 2 processes under facade's launcher print the same numbers again."""
    script = str(EXAMPLES / "ddp_one_process.py")
    env = {k: v for k, v in _env().items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                        "MASTER_PORT", "XLA_FLAGS")}
    launcher = subprocess.Popen(
        [sys.executable, "-m", "facade.distributed.run", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
         "--master-port", str(_free_port()), script], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        ref, _ = _both_ok("ddp_one_process.py", tmp_path)
        out, err = launcher.communicate(timeout=240)
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)  # the launcher and its workers
            launcher.communicate()
    assert launcher.returncode == 0, err
    out = out[out.index("world size "):]  # the workers' gloo prints its connection lines to stdout first
    assert ref.startswith("world size 1,") and out.startswith("world size 2,"), (ref, out)
    assert_same_numbers(ref.replace("world size 1", "world size 2"), out, rtol=1e-4, atol=1e-6)
    last_epoch, restored = ref.splitlines()[-2:]
    assert restored.startswith("restored checkpoint:") and restored.endswith(last_epoch[last_epoch.index("test loss"):])
