"""facade's own executable cache (facade/_exe_cache.py): a second process loads an eager op's program by
facade's key without tracing it, and gets the same bits; what cannot be keyed completely is never kept."""

import json
import os
import subprocess
import sys

import pytest

import facade
from facade import _exe_cache

_SCRIPT = """
import json, sys, warnings, facade
warnings.simplefilter("always")
t = facade.arange(64 * 8, dtype=facade.float32).reshape(64, 8) / 7
outs = [t.softmax(-1), t @ t.T, t[3], t[:, 2:5].sum(0), facade.nn.functional.gelu(t), (t > 3).sum(), t.cumsum(0)]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    outs.append(facade.nn.functional.softmax(t))  # no dim: torch's (trace-time) UserWarning
m = facade.compiler.metrics()
print(json.dumps({"bits": [o.numpy().tobytes().hex() for o in outs], "compiles": m.compiles, "hits": m.cache_hits,
                  "loaded": m.loaded, "warned": [str(w.message) for w in caught]}))
"""


def _run(cache):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FACADE_", "JAX_COMPILATION_CACHE", "XDG_"))}
    env.update(JAX_PLATFORMS="cpu", FACADE_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_second_process_loads_programs_without_tracing_and_gets_the_same_bits(tmp_path):
    cache = str(tmp_path / "c")
    cold, warm = _run(cache), _run(cache)
    assert cold["loaded"] == 0 and warm["loaded"] >= 7, (cold, warm)
    assert warm["compiles"] == cold["compiles"] and warm["hits"] == cold["compiles"]
    assert warm["bits"] == cold["bits"]
    # the softmax whose tracing warned was not kept: it warns in every process
    assert cold["warned"] == warm["warned"] and "Implicit dimension choice for softmax" in warm["warned"][0]


def test_a_program_jax_cache_served_is_not_kept(tmp_path):
    """XLA's CPU client serializes an executable it loaded from a file without its kernels: a copy of one
    would fail when it runs. With facade's entries gone and JAX's kept, nothing is written, and a third
    process still runs (from JAX's cache) with the same bits."""
    cache = tmp_path / "c"
    first = _run(str(cache))
    for f in (cache / "facade-exe").iterdir():
        f.unlink()
    second = _run(str(cache))
    assert second["loaded"] == 0 and not any((cache / "facade-exe").iterdir())
    third = _run(str(cache))
    assert first["bits"] == second["bits"] == third["bits"] and third["loaded"] == 0


@pytest.mark.parametrize("value,ok", [
    ((1, "mean", None, 2.5, -0.0, True, ("U", (("T", None), 3))), True),
    ((facade.float32,), False),  # facade objects: their repr is not their identity
    ((lambda x: x,), False),
    ((object(),), False),
    ((float,), True), ((list,), False),
])
def test_only_plain_static_values_are_keys(value, ok):
    assert _exe_cache.persistable(value) is ok


def test_tracers_and_python_numbers_take_the_plain_jit_path():
    calls = []
    jitted = _exe_cache.PersistentJit(lambda x: calls.append(1) or x * 2, ("test", "double"), "double")
    assert float(jitted(3.0)) == 6.0  # a Python number: jax.jit's own path
    import jax

    assert float(jax.jit(lambda x: jitted(x))(jax.numpy.float32(2))) == 4.0  # a tracer
    assert not jitted.exes  # neither compiled through the persistent path


def _factory(scale, module=None):
    def scaled(x):
        return x * scale
    scaled.__module__ = module or scaled.__module__
    return scaled


def test_a_function_is_named_by_its_home_and_what_it_closed_over():
    """A closure's captured values are part of its name (one factory, two programs); a user's function, or a
    closure over an arbitrary object, has no name that survives a process."""
    import jax.numpy as jnp

    from facade._table import linalg

    name = _exe_cache.function_identity
    assert name(_factory(2)) is None  # tests/ is not facade's own code: it may change under the same stamp
    two, three = name(_factory(2, "facade.fake")), name(_factory(3, "facade.fake"))
    assert two != three and two == ("facade.fake", "_factory.<locals>.scaled", (2,))
    assert name(_factory(object(), "facade.fake")) is None
    assert name(_factory(jnp.sin, "facade.fake"))[2] == (("jax.numpy", "sin", ()),)
    assert name(_factory(2, "facadex.fake")) is None  # a package merely named like facade
    assert name(linalg.L.matrix_power)[:2] == ("functional.linalg", "matrix_power")
