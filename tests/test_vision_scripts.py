"""Ordinary torchvision scripts run unchanged under `python -m facade`: an MNIST CNN on a locally written MNIST
folder, ResNet-18 on FakeData, a DCGAN that saves an image grid. Each runs under real torch (+ torchvision) too;
the two runs print the same lines, the same integers (sizes, shapes, parameter counts) and the same flags, and
the MNIST CNN learns its (learnable) digits to the same standard."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "vision_scripts"
_FLOAT = re.compile(r"^[-+]?\d*\.\d+(e[-+]?\d+)?$")
# real torchvision under real torch: its C++ operators cannot load here, tests/_torchvision.py skips them
_REAL = ("import sys, runpy, tests._torchvision; sys.argv = sys.argv[1:]; "
         "runpy.run_path(sys.argv[0], run_name='__main__')")


def _run(script, args, facade):
    cmd = [sys.executable, *(["-m", "facade"] if facade else ["-c", _REAL]), str(SCRIPTS / script), *map(str, args)]
    env = {"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", "PATH": "", "FACADE_CACHE": "0"}
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=400, env=env)
    assert run.returncode == 0, f"{'facade' if facade else 'torch'}: {run.stderr[-3000:]}"
    return run.stdout.splitlines()


def _same_lines(ours, theirs):
    """Equal lines, word by word, except floats (losses differ with the random streams)."""
    assert len(ours) == len(theirs), (ours, theirs)
    for a, b in zip(ours, theirs):
        wa, wb = a.split(), b.split()
        assert len(wa) == len(wb), (a, b)
        for x, y in zip(wa, wb):
            assert (_FLOAT.match(x) and _FLOAT.match(y)) or x == y, (a, b)


def _write_idx(path, array):
    dims = array.shape
    header = bytes([0, 0, 0x08, len(dims)]) + b"".join(d.to_bytes(4, "big") for d in dims)
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def _mnist(root, n_train=320, n_test=96):
    """MNIST's raw idx files with learnable digits: label k is a bright bar at rows 2k+4 .. 2k+6, plus noise."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n)
        images = rng.integers(0, 60, (n, 28, 28))
        for i, k in enumerate(labels):
            images[i, 2 * k + 4:2 * k + 7, 4:24] = 255
        _write_idx(raw / f"{prefix}-images-idx3-ubyte", images)
        _write_idx(raw / f"{prefix}-labels-idx1-ubyte", labels)


def test_mnist_cnn(tmp_path):
    _mnist(tmp_path)
    ours, theirs = _run("mnist_cnn.py", [tmp_path], True), _run("mnist_cnn.py", [tmp_path], False)
    _same_lines(ours, theirs)
    for out in (ours, theirs):
        assert float(out[-1].split()[-1]) >= 0.9, out  # both learn the bars
        assert float(out[1].split()[-1]) < float(out[0].split()[-1]), out  # the loss falls


def test_resnet18_on_fakedata():
    ours, theirs = _run("resnet_fakedata.py", [], True), _run("resnet_fakedata.py", [], False)
    _same_lines(ours, theirs)
    assert ours[0] == "parameters 11181642" and all("loss_finite True" in line for line in ours[1:-1])


@pytest.mark.parametrize("facade", [True, False], ids=["facade", "torch"])
def test_dcgan_saves_a_grid(tmp_path, facade):
    grid = tmp_path / "fake.png"
    out = _run("dcgan.py", [grid], facade)
    assert out[-1] == "grid (3, 74, 74)" and all("losses_finite True" in line for line in out[:-1]), out
    image = np.asarray(Image.open(grid))
    assert image.shape == (74, 74, 3) and image.dtype == np.uint8 and image.std() > 0
