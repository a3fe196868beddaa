"""The notebooks run from scratch without an error, in a python3 kernel of this interpreter as
notebooks/_build.py runs them, and their stored copies are current: executed in order, the same outputs
as the fresh run (all but the timings), no volatile metadata, no machine paths, small. What they show is
checked too: the quickstart cell by cell against what real torch prints for the same code (tensor and
module reprs included), the others on the values that do not depend on timing."""

import ast
import contextlib
import importlib.util
import io
import re
from pathlib import Path

import nbformat
import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("notebooks_build", ROOT / "notebooks" / "_build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*(?:e[-+]?\d+)?|\d+(?:e[-+]?\d+)?|\.\d+)(?![\w])")


def _code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _text(cell, stream="stdout"):
    """What a code cell showed on `stream`, and the text of its results, in order."""
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream" and out.name == stream:
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", "") + "\n")
    return "".join(parts)


def _same_numbers(got, expected, where, rtol=1e-4):
    """The same text around the numbers, and the numbers equal to within rtol."""
    assert _NUMBER.sub("#", got) == _NUMBER.sub("#", expected), f"{where}: got\n{got}\nexpected\n{expected}"
    np.testing.assert_allclose([float(v) for v in _NUMBER.findall(got)],
                               [float(v) for v in _NUMBER.findall(expected)], rtol=rtol, atol=1e-4, err_msg=where)


def _run(name, numbers=True, timed=()):
    """The fresh run of a notebook (cleaned as _build.py stores it), after checking its stored copy against it:
    the same outputs, numbers included where `numbers` (not after training: a last digit may differ on another
    CPU). Cells whose source contains one of the strings in `timed` print timings: only their kinds compare."""
    path = ROOT / "notebooks" / name
    raw = path.read_text()
    stored = nbformat.reads(raw, as_version=4)
    fresh = build.clean(build.execute(path))
    assert len(raw) < 100_000, f"{name} is {len(raw)} bytes: keep the stored outputs small"
    assert not re.search(r"/(tmp|home|work|usr|root)/|ipykernel_\d+", raw), f"a machine path stored in {name}"
    assert raw.rstrip("\n") == nbformat.writes(build.clean(stored)).rstrip("\n"), f"run notebooks/_build.py {name}"
    cells = _code(stored)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1)), f"run notebooks/_build.py {name}"
    for old, new in zip(cells, _code(fresh), strict=True):
        assert old.source == new.source
        where = f"{name} cell [{old.execution_count}], stored vs fresh"
        assert [o.output_type for o in old.outputs] == [o.output_type for o in new.outputs], where
        for stream in ("stdout", "stderr"):
            if any(t in old.source for t in timed):  # timings (and the compile cache's state) vary
                continue
            if numbers:
                _same_numbers(_text(old, stream), _text(new, stream), where)
            else:
                assert _NUMBER.sub("#", _text(old, stream)) == _NUMBER.sub("#", _text(new, stream)), where
    return _code(fresh)


def _torch_shows(source, namespace):
    """What a notebook cell shows when run with real torch: its stdout, and the repr of a final expression."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None:
                print(repr(value))
    return out.getvalue()


def test_quickstart_shows_what_torch_shows():
    cells = _run("01_quickstart.ipynb")
    setup = cells[0].source
    assert "import facade as torch" in setup
    namespace = {}
    _torch_shows(setup.replace("import facade as torch", "import torch"), namespace)
    assert namespace["torch"] is torch
    shown = ""
    for cell in cells[1:]:
        shown += _text(cell)
        _same_numbers(_text(cell), _torch_shows(cell.source, namespace), f"quickstart cell [{cell.execution_count}]")
    assert "grad_fn=<ReluBackward0>" in shown and "(hidden): Linear(in_features=3" in shown  # reprs were compared


def test_training_shows_progress_and_a_live_curve():
    cells = _run("02_training.ipynb", numbers=False)
    loop = next(c for c in cells if "tqdm(" in c.source)
    kinds = [o.output_type for o in loop.outputs]
    assert kinds.count("display_data") == 1 and "image/png" in loop.outputs[0].data  # one figure, updated in place
    text = _text(loop)
    bars = re.findall(r"epoch (\d): 100%\|[^|]+\| 23/23, loss=(\d\.\d+)", text)
    assert [int(e) for e, _ in bars] == [1, 2, 3, 4], text
    accuracy = [float(a) for a in re.findall(r"test accuracy ([\d.]+)%", text)]
    assert len(accuracy) == 4 and accuracy[-1] > 85, text


def test_eager_vs_compiled_shows_recompiles_breaks_and_metrics():
    cells = _run("03_eager_vs_compiled.ipynb", numbers=False, timed=("perf_counter", "train(", "metrics()"))
    shown = {c.execution_count: _text(c) for c in cells}
    both = next(n for n, t in shown.items() if "same losses" in t)
    assert "same losses: True" in shown[both] and "same weights: True" in shown[both]
    assert re.search(r"runs \d+\.\d times as fast", shown[both])
    recompile = next(c for c in cells if "TORCH_LOGS" in c.source)
    log = _text(recompile, "stderr")
    assert log.count("recompiling") == 1, log
    assert "input 0 changed from Tensor(shape=[128, 64]" in log and "to Tensor(shape=[261, 64]" in log
    assert "recompiles so far: 1" in _text(recompile)
    wrapped = next(c for c in cells if "torch.compile(compiled_model)" in c.source)
    architecture = re.search(r"model = (nn\.Sequential\(.*\))\n", cells[1].source).group(1)
    expected = repr(torch.compile(eval(architecture, {"nn": torch.nn})))  # torch's OptimizedModule, not compiled
    assert wrapped.outputs[-1].data["text/plain"] == expected
    explained = [t for t in shown.values() if t.startswith("Graph Count:")]  # ExplainOutput shown as its report
    assert len(explained) == 2 and "Graph Count: 1\nGraph Break Count: 0\nOp Count: 5" in explained[0]
    broken = next(c for c in cells if "history.append(loss.item())" in c.source)
    line = broken.source.splitlines().index("    history.append(loss.item())  # needs the value now: a graph break")
    where = f"Cell In[{broken.execution_count}], line {line + 1}"
    warned = _text(broken)
    assert warned.count("UserWarning: torch.compile: graph break at " + where) == 1, warned
    assert "Graph Break Count: 1" in explained[1] and where in explained[1]
    table = shown[max(shown)]  # facade.compiler.metrics() shown as its summary table
    assert re.search(r"^facade: \d+ XLA programs built in", table, re.M), table
    assert re.search(r"compiled_train_step +1 ", table), table


def test_porting_goes_to_jax_and_back():
    cells = _run("04_porting.ipynb", numbers=False)
    text = "".join(_text(c) for c in cells)
    assert "True <class 'facade.nn.parameter.Parameter'>" in text  # `import torch` was facade
    assert "jax.grad == backward(): True" in text
    jax_losses = [float(v) for v in re.findall(r"jax step +\d+: loss ([\d.]+)", text)]
    assert len(jax_losses) == 4 and jax_losses[-1] < jax_losses[0] / 5, text
    loaded = float(re.search(r"after loading: loss ([\d.]+)", text).group(1))
    np.testing.assert_allclose(loaded, jax_losses[-1], atol=5e-4)  # the module runs the parameters optax trained
