"""The conftest guard: a test that leaves global state changed fails, naming what changed, and the
state is restored for the next test; global generators start every test in the same state."""

import os
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
ROOT = Path(__file__).parent.parent

POLLUTERS = {
    "default_dtype": "facade.set_default_dtype(facade.float64)",
    "torch_default_dtype": "torch.set_default_dtype(torch.float64)",
    "grad_mode": "facade.set_grad_enabled(False)",
    "env": "os.environ['FACADE_GUARD_PROBE'] = '1'",
    "cwd": "os.chdir(tmp_path)",
    "warnings": "warnings.simplefilter('error')",
    "jax_config": "jax.config.update('jax_debug_nans', True)",
    "torch_alias": "sys.modules['torch.probe_alias'] = facade",
    "print_options": "facade.set_printoptions(precision=2)",
    "torch_serialization_config": "config.load.calculate_storage_offsets = True",
}
NAMES = {"default_dtype": "facade.get_default_dtype()", "torch_default_dtype": "torch.get_default_dtype()",
         "grad_mode": "facade.is_grad_enabled()", "env": "FACADE_GUARD_PROBE", "cwd": "current directory",
         "warnings": "warnings filters", "jax_config": "jax_debug_nans", "torch_alias": "sys.modules torch alias",
         "print_options": "facade print options", "torch_serialization_config": "torch serialization config"}


@pytest.fixture
def suite_pytester(pytester, monkeypatch):
    """A pytester directory holding the suite's conftest; its child pytest imports `tests` and facade from this
    checkout (an editable install elsewhere, or none, must not decide)."""
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return pytester


def test_guard_fails_polluters_names_the_state_and_restores_it(suite_pytester):
    pytester = suite_pytester
    body = "\n".join(f"def test_{k}(tmp_path):\n    {v}\n" for k, v in POLLUTERS.items())
    pytester.makepyfile(test_polluters=f"""
import os, sys, warnings
import jax, torch, facade
from torch.utils.serialization import config

{body}
def test_clean_after_all():  # runs last: every polluted setting is back
    assert facade.get_default_dtype() is facade.float32 and torch.get_default_dtype() is torch.float32
    assert facade.is_grad_enabled() and "FACADE_GUARD_PROBE" not in os.environ
    assert not jax.config.jax_debug_nans and "torch.probe_alias" not in sys.modules
    assert config.load.calculate_storage_offsets is False
""")
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(POLLUTERS) + 1, errors=len(POLLUTERS))
    out = result.stdout.str()
    for k, name in NAMES.items():
        assert f"ERROR at teardown of test_{k}" in out
        section = out.split(f"ERROR at teardown of test_{k}")[1].split("ERROR at teardown")[0]
        assert "changed global state" in section and name in section, section


def test_global_generators_start_each_test_alike(suite_pytester):
    pytester = suite_pytester
    pytester.makepyfile(test_draws="""
import random
import numpy as np, torch, facade

SEEN = []

def test_first():
    facade.manual_seed(123); torch.manual_seed(123)  # reseeding is fine: the guard resets generators
    SEEN.append(None)

def test_draw_a():
    SEEN.append((facade.rand(3).tolist(), torch.rand(3).tolist(), np.random.rand(), random.random()))

def test_draw_b():
    SEEN.append((facade.rand(3).tolist(), torch.rand(3).tolist(), np.random.rand(), random.random()))
    assert SEEN[1] == SEEN[2]
""")
    pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider"
                                  ).assert_outcomes(passed=3)
