"""Every public name of torch's main namespaces exists in facade or is in the MISSING table (tests/api_missing.py,
and tests/test_nn_api.py's for torch.nn) with a one-line reason; a listed name that exists now is a stale entry.
Regenerate the table with `python tools/api_coverage.py --write-missing`."""

from __future__ import annotations

import importlib.util
import pathlib
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "tools" / "api_coverage.py")
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)
TABLE = coverage.table()


@pytest.mark.parametrize("label", coverage.NAMESPACES)
def test_missing_names_are_listed(label):
    theirs, lack = coverage.missing(label)
    listed = TABLE[label]
    unlisted = sorted(set(lack) - set(listed))
    stale = sorted(set(listed) - set(lack))
    fix = f"; update the table with `{coverage.COMMAND}`"
    assert not unlisted, f"{label}: missing and not in tests/api_missing.py: {unlisted}{fix}"
    assert not stale, f"{label}: listed as missing but present now (or no longer torch's): {stale}{fix}"
    bad = sorted(n for n, r in listed.items() if not isinstance(r, str) or not r.strip() or "\n" in r)
    assert not bad, f"{label}: entries without a one-line reason: {bad}"
    todo = sum(r.startswith("TODO") for r in listed.values())
    if todo:
        warnings.warn(f"{label}: {todo} MISSING entries still marked TODO", UserWarning, stacklevel=1)


def test_report_counts():
    """The report's numbers are the table's: here + missing = torch's count, per namespace."""
    text = coverage.report()
    for label in coverage.NAMESPACES:
        theirs, lack = coverage.missing(label)
        row = next(line for line in text.splitlines() if line.split()[:1] == [label])
        assert row.split()[1:4] == [str(len(theirs) - len(lack)), "/", str(len(theirs))], row
