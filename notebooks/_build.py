"""Execute the notebooks and store them executed, keeping only what does not churn between runs.

    python notebooks/_build.py                       # every notebooks/*.ipynb
    python notebooks/_build.py 02_training.ipynb     # some of them

Each notebook runs top to bottom in a fresh `python3` kernel of this interpreter, from notebooks/ (so its
relative paths work), with this checkout first on PYTHONPATH and JAX on the CPU. What is stored: the
outputs, execution counts 1, 2, 3 ... and the kernel's name; no cell metadata, timestamps or versions, and
stream text as a terminal shows it (a progress bar's carriage-return redraws collapse to their last state).
tests/test_notebooks.py runs the same `execute`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def notebooks() -> list[Path]:
    return sorted(HERE.glob("[0-9]*.ipynb"))


def kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["JAX_PLATFORMS"] = "cpu"
    env.pop("TORCH_LOGS", None)  # a notebook that shows a log sets it itself
    env.pop("MPLBACKEND", None)  # the kernel's inline backend draws the figures
    return env


def execute(path: Path, timeout: int = 300) -> nbformat.NotebookNode:
    """The notebook at `path`, run from scratch in a new kernel (raises CellExecutionError on a failing cell)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    # "python" in the kernelspec's argv is this interpreter (jupyter_client substitutes sys.executable)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False, coalesce_streams=True,
                            resources={"metadata": {"path": str(HERE)}})
    client.execute(env=kernel_env())
    return nb


def _as_terminal(text: str) -> str:
    """Each line as a terminal leaves it: only what follows its last carriage return."""
    return "\n".join(re.sub(r"^.*\r(?!$)", "", line).rstrip("\r") for line in text.split("\n"))


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata = {}
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                out.text = _as_terminal(out.text)
            elif "metadata" in out:
                out.metadata = {}
    return nb


def main(names: list[str]) -> int:
    paths = [HERE / n for n in names] if names else notebooks()
    for path in paths:
        print(f"executing {path.name} ...", flush=True)
        nbformat.write(clean(execute(path)), path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
