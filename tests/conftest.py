"""Test-wide setup, and the guard that keeps the suite order-independent.

Every test starts from the same global state and must leave it as it found it: the autouse
`_global_state_guard` snapshots the process-wide settings below before each test and, after it,
restores any that changed and fails the test, naming what changed. Global random generators are
not checked but reset: every test starts from the generators' state at session start, so a draw
never depends on which tests ran before it in the same worker.
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import random  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch._dynamo  # noqa: E402,F401  (imported lazily by torch.optim; its import sets an env var and a warnings filter)
from torch.utils.serialization import config as _torch_serialization  # noqa: E402

import facade  # noqa: E402

try:  # flax.nnx (imported by jax2onnx) imports IPython where installed, whose import adds a warnings filter
    import IPython.core.completer  # noqa: E402,F401
except ImportError:
    pass
try:  # tensorboardX (torch.utils.tensorboard's writer) imports urllib3 and more, whose imports add warnings filters
    import tensorboardX  # noqa: E402,F401
except ImportError:
    pass
import tests._torchvision  # noqa: E402,F401  (real torchvision, importable here only through its shim)


def _attr(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _set_attr(obj, path, value):
    head, _, last = path.rpartition(".")
    setattr(_attr(obj, head) if head else obj, last, value)


def _flags(module, prefix, paths):
    """(name, get, set) rows for plain attributes such as `torch.backends.cudnn.benchmark`."""
    return [(f"{prefix}.{p}", lambda p=p: _attr(module, p), lambda v, p=p: _set_attr(module, p, v))
            for p in paths if _has(module, p)]


def _has(obj, path):
    try:
        _attr(obj, path)
    except AttributeError:
        return False
    return True


def _getter_setter(module, prefix, pairs):
    """(name, get, set) rows for `get_x()` / `set_x(v)` pairs that the module has."""
    return [(f"{prefix}.{get}()", getattr(module, get), getattr(module, set_))
            for get, set_ in pairs if hasattr(module, get) and hasattr(module, set_)]


def _replace_list(target, value):
    target[:] = value


def _environ():
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # pytest's own, per phase


def _set_environ(values):
    for k in _environ().keys() - values.keys():
        del os.environ[k]
    os.environ.update(values)


def _torch_aliases():
    """sys.modules entries that make `torch` mean facade (left by the runner or facade.install())."""
    return sorted(k for k, v in sys.modules.items()
                  if (k in ("torch", "torchvision") or k.startswith(("torch.", "torchvision.", "safetensors.torch")))
                  and getattr(v, "__name__", "").startswith("facade"))


def _drop_aliases(names):
    for k in _torch_aliases():
        if k not in names:
            del sys.modules[k]


def _alias_finders():
    return [f for f in sys.meta_path if type(f).__module__ == "facade.__main__"]


def _drop_finders(finders):
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "facade.__main__" or f in finders]


_GRAD_MODES = [("is_grad_enabled", "set_grad_enabled")]
_DEFAULTS = [("get_default_dtype", "set_default_dtype"), ("get_default_device", "set_default_device"),
             ("get_float32_matmul_precision", "set_float32_matmul_precision"),
             ("get_num_threads", "set_num_threads"), ("get_num_interop_threads", "set_num_interop_threads"),
             ("is_warn_always_enabled", "set_warn_always"),
             ("get_deterministic_debug_mode", "set_deterministic_debug_mode"),
             ("is_anomaly_enabled", "set_anomaly_enabled")]
_SDP = [(f"{k}_sdp_enabled", f"enable_{k}_sdp") for k in ("flash", "mem_efficient", "math", "cudnn")]
_BACKEND_FLAGS = ["backends.cudnn.enabled", "backends.cudnn.benchmark", "backends.cudnn.deterministic",
                  "backends.cudnn.allow_tf32", "backends.cuda.matmul.allow_tf32",
                  "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
                  "backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
                  "backends.mkldnn.enabled", "backends.opt_einsum.enabled", "backends.opt_einsum.strategy"]


def _deterministic(lib):
    return [(f"{lib.__name__}.are_deterministic_algorithms_enabled()",
             lambda: (lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled()),
             lambda v: lib.use_deterministic_algorithms(v[0], warn_only=v[1]))
            ] if hasattr(lib, "use_deterministic_algorithms") else []


def _preferred_libraries(lib):
    """backends.cuda.preferred_linalg_library() / preferred_blas_library(): getters that set when given a value."""
    cuda = getattr(getattr(lib, "backends", None), "cuda", None)
    return [(f"{lib.__name__}.backends.cuda.{name}()", getattr(cuda, name), getattr(cuda, name))
            for name in ("preferred_linalg_library", "preferred_blas_library") if hasattr(cuda, name)]


def _print_options(lib, opts):
    return [(f"{lib.__name__} print options", lambda: dict(vars(opts)), lambda v: vars(opts).update(v))]


def _autocast(lib):
    if not hasattr(lib, "is_autocast_enabled"):
        return []
    devices = ("cpu", "cuda")
    return [(f"{lib.__name__} autocast", lambda: tuple(
        (lib.is_autocast_enabled(d), lib.get_autocast_dtype(d)) for d in devices),
        lambda v: [(lib.set_autocast_enabled(d, e), lib.set_autocast_dtype(d, t)) for d, (e, t) in zip(devices, v)])]


def _jax_config():
    return dict(jax.config.values)


def _set_jax_config(values):
    for k, v in values.items():
        if jax.config.values.get(k) != v:
            jax.config.update(k, v)


def _state_rows():
    import torch._tensor_str

    import facade.hub
    from facade import _tensor_str

    rows = [("os.environ", _environ, _set_environ),
            ("current directory", os.getcwd, os.chdir),
            ("sys.argv", lambda: list(sys.argv), lambda v: _replace_list(sys.argv, v)),
            ("sys.path", lambda: list(sys.path), lambda v: _replace_list(sys.path, v)),
            ("sys.modules torch alias", _torch_aliases, _drop_aliases),
            ("sys.meta_path torch alias", _alias_finders, _drop_finders),
            ("warnings filters", lambda: list(warnings.filters), lambda v: _replace_list(warnings.filters, v)),
            ("jax.config", _jax_config, _set_jax_config),
            ("torch serialization config", _torch_serialization.get_config_copy,
             lambda v: _torch_serialization.load_config(v)),
            ("facade.hub.get_dir()", facade.hub.get_dir, facade.hub.set_dir)]
    for lib in (torch, facade):
        rows += _getter_setter(lib, lib.__name__, _GRAD_MODES + _DEFAULTS)
        rows += _deterministic(lib) + _autocast(lib) + _flags(lib, lib.__name__, _BACKEND_FLAGS)
        rows += _preferred_libraries(lib)
        backends = getattr(lib, "backends", None)
        if backends is not None:
            rows += _getter_setter(backends.cuda, f"{lib.__name__}.backends.cuda", _SDP)
            rows += _getter_setter(backends.mha, f"{lib.__name__}.backends.mha",
                                   [("get_fastpath_enabled", "set_fastpath_enabled")])
    rows += _print_options(torch, torch._tensor_str.PRINT_OPTS) + _print_options(facade, _tensor_str.PRINT_OPTS)
    return rows


def _snapshot(rows):
    return {name: get() for name, get, _ in rows}


def _differs(a, b):
    try:
        return bool(a != b)
    except Exception:  # e.g. arrays: compare what they show
        return repr(a) != repr(b)


_RNG = {}


@pytest.fixture(scope="session", autouse=True)
def _initial_rng_state():
    _RNG.update(torch=torch.get_rng_state(), facade=facade.get_rng_state(), numpy=np.random.get_state(),
                python=random.getstate())


def _reset_rng():
    torch.set_rng_state(_RNG["torch"])
    facade.set_rng_state(_RNG["facade"])
    np.random.set_state(_RNG["numpy"])
    random.setstate(_RNG["python"])


@pytest.fixture(autouse=True)
def _global_state_guard(_initial_rng_state):
    rows = _state_rows()
    before = _snapshot(rows)
    _reset_rng()
    yield
    changed = []
    for name, get, set_ in rows:
        now = get()
        if _differs(before[name], now):
            changed.append(f"{name}: {_short(before[name], now)}")
            set_(before[name])
    if changed:
        pytest.fail("this test changed global state and did not restore it (restored now):\n  "
                    + "\n  ".join(changed), pytrace=False)


def _short(before, now):
    """What changed, briefly: for dicts/lists only the differing entries."""
    if isinstance(before, dict) and isinstance(now, dict):
        keys = sorted(k for k in before.keys() | now.keys() if _differs(before.get(k), now.get(k)))
        return ", ".join(f"{k}: {before.get(k, '<unset>')!r} -> {now.get(k, '<unset>')!r}" for k in keys)
    if isinstance(before, list) and isinstance(now, list):
        return f"added {[x for x in now if x not in before]!r}, removed {[x for x in before if x not in now]!r}"
    return f"{before!r} -> {now!r}"


def pytest_terminal_summary(terminalreporter, config):
    """pytest-randomly shuffles the order; -q hides its header, so say how to replay this order."""
    option = vars(config.option)
    if config.pluginmanager.hasplugin("randomly") and not option.get("randomly_dont_reorganize"):
        terminalreporter.write_line(f"test order shuffled with --randomly-seed={config.option.randomly_seed} "
                                    "(pass it to replay; -p no:randomly keeps file order)")
