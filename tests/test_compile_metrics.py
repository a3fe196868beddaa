"""What compiles is counted (`facade.compiler.metrics()`, FACADE_COMPILE_SUMMARY=1), and JAX's persistent
compilation cache is on by default: a second process loads its programs, and they give the same bits."""

import json
import os
import subprocess
import sys

import numpy as np

import facade
from facade import _cache, _xla


def test_a_loop_compiles_once_and_a_new_shape_adds_one():
    x, wider = facade.randn(2, 3, 5, 7, 13), facade.randn(2, 3, 5, 7, 17)  # shapes no other test uses
    facade.compiler.reset_metrics()
    for _ in range(50):
        facade.sin(x)
    once = facade.compiler.metrics()
    facade.sin(wider)
    twice = facade.compiler.metrics()
    assert (once.compiles, once.ops["sin"].compiles) == (1, 1), facade.compiler.summary()
    assert (twice.compiles, twice.ops["sin"].compiles) == (2, 2), facade.compiler.summary()
    assert 0 < once.compile_seconds < twice.compile_seconds
    assert twice.compile_seconds >= twice.trace_seconds + twice.lower_seconds + twice.xla_seconds - 1e-9


def test_backward_programs_are_named_by_their_op_and_reset_clears():
    x = facade.randn(3, 5, 7, 13, requires_grad=True)
    facade.compiler.reset_metrics()
    facade.sin(x).backward(facade.ones(3, 5, 7, 13))  # a whole graph's backward is one program: "fused"
    m = facade.compiler.metrics()  # a forward that records a node also returns its pullback's residuals
    assert m.ops["sin_with_residuals"].compiles == 1 and m.ops["fused"].compiles == 1, facade.compiler.summary()
    y = facade.sin(x)
    y.register_hook(lambda g: g)  # a hook runs the graph node by node: each node's VJP is its own program
    y.backward(facade.ones(3, 5, 7, 13))
    m = facade.compiler.metrics()
    assert m.ops["sin_backward"].compiles == 1 and "sin_backward" in facade.compiler.summary()
    facade.compiler.reset_metrics()
    m = facade.compiler.metrics()
    assert (m.compiles, m.compile_seconds, m.ops) == (0, 0.0, {})


def test_cache_settings_from_the_environment():
    home = os.path.expanduser("~")
    assert _cache.settings({}) == {"jax_compilation_cache_dir": os.path.join(home, ".cache", "facade", "jax"),
                                   "jax_persistent_cache_min_compile_time_secs": 0.0}
    assert _cache.settings({"XDG_CACHE_HOME": "/x"})["jax_compilation_cache_dir"] == os.path.join("/x", "facade", "jax")
    assert _cache.settings({"FACADE_CACHE_DIR": "/y", "XDG_CACHE_HOME": "/x"})["jax_compilation_cache_dir"] == "/y"
    assert _cache.settings({"FACADE_CACHE": "0"}) == _cache.settings({"FACADE_CACHE": "off"}) == {}
    assert _cache.settings({"JAX_COMPILATION_CACHE_DIR": "/z"}) == {}  # the user's JAX setting wins
    assert "jax_persistent_cache_min_compile_time_secs" not in _cache.settings(
        {"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "2"})


def test_xla_flags_from_the_environment(monkeypatch):
    measured = _xla._jaxlib() == _xla.MEASURED_ON  # a new jaxlib gets XLA's defaults until measured again
    flag = {"xla_cpu_use_fusion_emitters": "false"} if measured else {}
    assert _xla.flags({}) == flag
    assert _xla.flags({"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}) == flag
    assert _xla.flags({"FACADE_FAST_COMPILE": "0"}) == _xla.flags({"FACADE_FAST_COMPILE": "off"}) == {}
    assert _xla.flags({"XLA_FLAGS": "--xla_cpu_use_fusion_emitters=true"}) == {}  # the user's value wins
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    monkeypatch.setattr(_xla, "_ADDED", dict(_xla._ADDED))  # configure records what it adds: not this process's
    _xla.configure(env)
    assert env["XLA_FLAGS"] == "--xla_force_host_platform_device_count=2" + (
        " --xla_cpu_use_fusion_emitters=false" if measured else "")
    assert _xla._ADDED == flag
    # a child process inherits the parent's XLA_FLAGS: facade's value there is facade's (its top-level programs then
    # ask for XLA's own values as the parent's do); the user's other value is not
    for given, want in ((env["XLA_FLAGS"], flag), ("--xla_cpu_use_fusion_emitters=true", {})):
        monkeypatch.setattr(_xla, "_ADDED", {})
        child = {"XLA_FLAGS": given}
        _xla.configure(child)
        assert child["XLA_FLAGS"] == given and _xla._ADDED == want
    monkeypatch.setattr(_xla, "_ADDED", {})
    _xla.configure({"XLA_FLAGS": env["XLA_FLAGS"], "FACADE_FAST_COMPILE": "0"})
    assert _xla._ADDED == {}


def test_xla_defaults_undo_only_what_facade_added(monkeypatch):
    monkeypatch.setattr(_xla, "_ADDED", {"xla_cpu_use_fusion_emitters": "false"})
    assert _xla.xla_defaults() == {"xla_cpu_use_fusion_emitters": True}
    monkeypatch.setattr(_xla, "_ADDED", {})
    assert _xla.xla_defaults() == {}



def test_a_program_compiles_with_xla_defaults_at_top_level_and_nests_in_a_trace(monkeypatch):
    """_xla.Program (a deferred graph): called outside any trace, its jit that asks for XLA's own flag values
    compiles and runs; inside a trace, the plain jit (a nested jit may not take compiler_options); same bits."""
    import jax
    import jax.numpy as jnp

    monkeypatch.setattr(_xla, "_ADDED", {"xla_cpu_use_fusion_emitters": "false"})
    prog = _xla.Program(lambda a, b: jax.nn.softmax(jnp.tanh(a) @ b, -1).sum(0))
    a = jnp.asarray(np.random.default_rng(0).standard_normal((33, 17)), jnp.float32)
    b = jnp.asarray(np.random.default_rng(1).standard_normal((17, 9)), jnp.float32)
    top = prog(a, b)
    assert prog.top is not prog.plain and prog.top._cache_size() == 1 and prog.plain._cache_size() == 0
    nested = jax.jit(lambda a, b: prog(a, b))(a, b)  # the top jit here would raise ValueError
    assert np.array_equal(top, nested)
    monkeypatch.setattr(_xla, "_ADDED", {})  # FACADE_FAST_COMPILE=0: nothing to ask back
    plain = _xla.Program(jnp.sin)
    assert plain.top is plain.plain


def test_a_compiled_step_with_xla_defaults_trains_as_eagerly(monkeypatch):
    """A whole step compiled with XLA's own flags (the fusion emitters, which facade's XLA_FLAGS turn off for
    eager programs) trains as the eager loop does."""
    asked = []

    def options():
        asked.append({"xla_cpu_use_fusion_emitters": True})
        return asked[-1]

    monkeypatch.setattr(_xla, "xla_defaults", options)
    eager, compiled = _train(compiled=False), _train(compiled=True)
    assert asked  # the compiled step asked for them
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _train(compiled):
    """Four steps of a small MLP with Adam: the losses, then the parameters."""
    facade.manual_seed(0)
    net = facade.nn.Sequential(facade.nn.Linear(5, 8), facade.nn.Tanh(), facade.nn.Linear(8, 3))
    opt = facade.optim.Adam(net.parameters(), lr=0.1)
    x = facade.randn(4, 5)

    def step():
        opt.zero_grad()
        loss = net(x).logsumexp(-1).mean()
        loss.backward()
        opt.step()
        return loss

    step = facade.compile(step) if compiled else step
    return [step().item() for _ in range(4)] + [p.detach().numpy() for p in net.parameters()]


_SCRIPT = """
import json, os, facade
facade.manual_seed(0)
net = facade.nn.Sequential(facade.nn.Linear(5, 8), facade.nn.Tanh(), facade.nn.Linear(8, 3))
loss = net(facade.randn(4, 5)).logsumexp(-1).mean()
loss.backward()
bits = [t.detach().numpy().tobytes().hex() for t in (loss, *(p.grad for p in net.parameters()))]
m = facade.compiler.metrics()
print(json.dumps({"bits": bits, "compiles": m.compiles, "hits": m.cache_hits, "misses": m.cache_misses,
                  "dir": __import__("jax").config.jax_compilation_cache_dir,
                  "xla_flags": os.environ.get("XLA_FLAGS", "")}))
"""


def _run(**env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("FACADE_", "JAX_COMPILATION_CACHE", "XDG_", "XLA_FLAGS"))}
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env={**base, "JAX_PLATFORMS": "cpu", **env},
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_persistent_cache_across_processes_gives_the_same_bits(tmp_path):
    cache = str(tmp_path / "facade" / "jax")
    cold, summary = _run(XDG_CACHE_HOME=str(tmp_path), FACADE_COMPILE_SUMMARY="1")  # the default directory
    warm, quiet = _run(FACADE_CACHE_DIR=cache)

    assert cold["dir"] == warm["dir"] == cache
    assert cold["compiles"] > 0 and (cold["hits"], cold["misses"]) == (0, cold["compiles"])
    assert (warm["compiles"], warm["hits"], warm["misses"]) == (cold["compiles"], cold["compiles"], 0)
    assert len(os.listdir(cache)) >= cold["compiles"]
    assert cold["bits"] == warm["bits"]  # same inputs, same bits: a program just compiled or loaded from the cache
    assert cold["xla_flags"] == " ".join(f"--{k}={v}" for k, v in _xla.flags({}).items())  # set at facade import

    assert f"facade: {cold['compiles']} XLA programs built" in summary and "fused" in summary, summary
    assert "XLA programs" not in quiet
