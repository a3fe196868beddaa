"""benchmarks/bench_scripts.py runs (one tiny script) and facade/_bucket.py's row bucketing changes no bit."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch as real

import facade as torch
from facade import _bucket
from facade.compiler import metrics

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scripts.py"


def test_quick_char_lstm_prints_the_table():
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--cold-only", "--only", "char_lstm"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", header.strip())[:6] == ["script", "run", "wall s", "work s", "wall ratio", "work ratio"]
    cells = [re.split(r"\s{2,}", r.strip()) for r in rows]
    assert [c[1] for c in cells] == ["torch", "facade, cold cache"]
    cold = cells[1]
    assert int(cold[6]) >= 1 and cold[8] == "0"  # a fresh cache: every program compiled, none loaded
    assert abs(float(cells[0][9]) - float(cold[9])) < 0.5  # both ran the same training (losses near each other)


def _calls(torch, n):
    """The bucketed ops at length n, on the shapes a growing-context GPT sees: name -> (fn, args)."""
    rng = np.random.RandomState(n)
    x, y = (torch.tensor(rng.randn(1, n, 8).astype(np.float32)) for _ in range(2))
    w, b = torch.tensor(rng.randn(5, 8).astype(np.float32)), torch.tensor(rng.randn(5).astype(np.float32))
    idx = torch.tensor(rng.randint(0, 5, (1, n)))
    sq = torch.tensor(rng.randn(1, n, n).astype(np.float32))
    mask = torch.tensor(rng.rand(n, n) > 0.5)
    return {"linear": (torch.nn.functional.linear, (x, w, b)), "embedding": (torch.nn.functional.embedding, (idx, w)),
            "cat": (lambda a, c: torch.cat([a, c], dim=-1), (x, y)), "add": (torch.add, (x, y[0])),
            "sub": (torch.sub, (x, y)), "mul": (torch.mul, (sq, 0.25)), "relu": (torch.relu, (x,)),
            "eq": (torch.eq, (sq, 0)), "ne": (torch.ne, (mask, True)),
            "masked_fill": (lambda a, m: a.masked_fill(m, float("-inf")), (sq, mask))}


@pytest.mark.parametrize("n", [1, 3, 5, 8, 13, 31, 33, 40])
def test_bucketed_ops_equal_exact_ones(n, monkeypatch):
    names = set(_bucket.RULES)
    with torch.no_grad():
        bucketed = {k: f(*a) for k, (f, a) in _calls(torch, n).items()}
    monkeypatch.setattr(_bucket, "RULES", {})
    with torch.no_grad():
        exact = {k: f(*a) for k, (f, a) in _calls(torch, n).items()}
    oracle = {k: f(*a) for k, (f, a) in _calls(real, n).items()}
    assert set(bucketed) == names
    for k in bucketed:
        assert bucketed[k].shape == exact[k].shape and bucketed[k].dtype == exact[k].dtype, k
        assert torch.equal(bucketed[k], exact[k]), k
        got, want = np.asarray(bucketed[k]).astype(float), oracle[k].numpy().astype(float)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=k)


def test_a_new_length_reuses_the_bucketed_programs():
    w = torch.randn(4, 8)
    with torch.no_grad():
        torch.nn.functional.linear(torch.randn(1, 17, 8), w)  # compiles (or finds) the 32-row program
        before = metrics().ops["linear"].compiles if "linear" in metrics().ops else 0
        for n in range(18, 33):
            torch.nn.functional.linear(torch.randn(1, n, 8), w)
    assert (metrics().ops["linear"].compiles if "linear" in metrics().ops else 0) == before


def test_grad_recording_calls_run_exactly():
    w = torch.randn(4, 8, requires_grad=True)
    x = torch.randn(1, 6, 8)
    y = torch.nn.functional.linear(x, w)
    assert y.grad_fn is not None and y.shape == (1, 6, 4)
    y.sum().backward()
    assert torch.allclose(w.grad, x[0].sum(0).expand(4, 8))


def test_a_shape_used_often_switches_to_its_exact_program_with_the_same_bits():
    x, w = torch.randn(1, 11, 8), torch.randn(4, 8)
    with torch.no_grad():
        outs = [torch.nn.functional.linear(x, w) for _ in range(_bucket._REPEATS + 2)]
    assert all(torch.equal(o, outs[0]) for o in outs)
