"""Devices and backends against real torch (its CPU build; JAX sees no GPU here): torch.accelerator, torch.cuda,
torch.mps/xpu/cpu, torch.backends flags and their coupling to the float32 matmul precision, torch-level settings,
torch.version, constants, layouts and memory formats."""

from __future__ import annotations

import functools
import pickle
import warnings

import jax
import jax.numpy as jnp
import pytest
import torch

import facade


def outcome(fn):
    """What a call gives: ('ok', value) or ('raise', type name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn())
    except Exception as e:
        return ("raise", type(e).__name__, str(e))


def same(call):
    ref, got = outcome(lambda: call(torch)), outcome(lambda: call(facade))
    assert got == ref


def _get(lib, path):
    for part in path.split("."):
        lib = getattr(lib, part)
    return lib


# ---------------------------------------------------------------------------- accelerator

ACCELERATOR = {
    "is_available": (), "current_accelerator": (), "device_count": (), "current_device_index": (),
    "current_device_idx": (), "synchronize": (), "set_device_index": (0,), "empty_cache": (), "memory_allocated": (),
    "max_memory_allocated": (), "memory_reserved": (), "memory_stats": (), "reset_peak_memory_stats": (),
    "get_memory_info": (), "current_stream": (),
}


@pytest.mark.parametrize("name", ACCELERATOR)
def test_accelerator(name):
    same(lambda t: getattr(t.accelerator, name)(*ACCELERATOR[name]))


@pytest.mark.parametrize("index", [0, None])
def test_accelerator_device_index(index):
    def run(t):
        with t.accelerator.device_index(index):
            return "inside"

    same(run)


# ---------------------------------------------------------------------------- torch.cuda without a GPU

CUDA = {
    "is_available": (), "device_count": (), "current_device": (), "get_device_name": (),
    "get_device_properties": (0,), "get_device_capability": (), "is_bf16_supported": (), "is_tf32_supported": (),
    "manual_seed": (1,), "manual_seed_all": (1,), "seed": (), "seed_all": (), "initial_seed": (),
    "get_rng_state": (), "get_rng_state_all": (), "synchronize": (), "empty_cache": (), "memory_allocated": (),
    "max_memory_allocated": (), "memory_reserved": (), "max_memory_reserved": (), "memory_cached": (),
    "max_memory_cached": (), "mem_get_info": (), "memory_stats": (), "is_initialized": (), "init": (),
    "current_stream": (), "default_stream": (), "get_arch_list": (), "ipc_collect": (), "set_stream": (None,),
}


@pytest.mark.parametrize("name", CUDA)
def test_cuda_without_gpu(name):
    assert facade.cuda.is_available() is bool(jax.devices()[0].platform == "gpu")
    same(lambda t: getattr(t.cuda, name)(*CUDA[name]))


@pytest.mark.parametrize("name", ["set_device", "reset_peak_memory_stats", "memory_summary"])
def test_cuda_calls_needing_a_gpu_raise_torchs_assertion(name):
    # torch's CPU build fails these with internal errors (missing torch._C._cuda_* bindings, a KeyError);
    # facade gives the error of its other GPU-only calls.
    args = (0,) if name == "set_device" else ()
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        getattr(facade.cuda, name)(*args)


def test_cuda_streams_events_and_device_contexts():
    same(lambda t: t.cuda.Stream())

    def contexts(t):
        with t.cuda.stream(None), t.cuda.device(-1), t.cuda.device_of(t.zeros(2)):
            return "inside"

    same(contexts)

    def device0(t):
        with t.cuda.device(0):
            return "inside"

    same(device0)
    assert outcome(lambda: facade.cuda.Event())[1] == outcome(lambda: torch.cuda.Event())[1] == "RuntimeError"
    assert facade.cuda.OutOfMemoryError is facade.OutOfMemoryError and issubclass(facade.OutOfMemoryError, RuntimeError)


TO_CUDA = {
    "cuda()": lambda t: t.zeros(2).cuda(), "cuda(0)": lambda t: t.zeros(2).cuda(0),
    "to('cuda')": lambda t: t.zeros(2).to("cuda"), "zeros(device='cuda')": lambda t: t.zeros(2, device="cuda"),
    "xpu()": lambda t: t.zeros(2).xpu(), "ipu()": lambda t: t.zeros(2).ipu(),
    "mtia()": lambda t: outcome(lambda: t.zeros(2).mtia())[:2],
}


@pytest.mark.parametrize("name", TO_CUDA)
def test_moving_to_an_absent_device_raises_torchs_error(name):
    same(TO_CUDA[name])


def test_tensor_device_flags():
    flags = [n for n in dir(torch.zeros(1)) if n.startswith("is_") and not callable(getattr(torch.zeros(1), n))]
    assert {"is_xpu", "is_ipu", "is_mtia", "is_maia", "is_xla", "is_vulkan", "is_mkldnn"} <= set(flags)
    same(lambda t: {n: getattr(t.zeros(1), n) for n in flags})
    with pytest.raises(AttributeError):
        facade.zeros(1).is_xpu = True


# ---------------------------------------------------------------------------- mps, xpu, cpu

OTHER_DEVICES = [
    ("mps", "is_available", ()), ("mps", "device_count", ()), ("mps", "synchronize", ()), ("mps", "empty_cache", ()),
    ("mps", "manual_seed", (1,)), ("mps", "seed", ()), ("mps", "current_allocated_memory", ()),
    ("xpu", "is_available", ()), ("xpu", "device_count", ()), ("xpu", "is_initialized", ()),
    ("xpu", "synchronize", ()), ("xpu", "current_device", ()), ("xpu", "is_bf16_supported", ()),
    ("xpu", "memory_allocated", ()), ("xpu", "empty_cache", ()), ("xpu", "get_device_name", ()),
    ("cpu", "is_available", ()), ("cpu", "device_count", ()), ("cpu", "synchronize", ()),
    ("cpu", "current_device", ()), ("cpu", "is_initialized", ()), ("cpu", "set_device", (0,)),
]


@pytest.mark.parametrize("module,name,args", OTHER_DEVICES)
def test_other_device_modules(module, name, args):
    same(lambda t: getattr(getattr(t, module), name)(*args))


def test_cpu_streams():
    def run(t):
        s = t.cpu.Stream()
        with t.cpu.stream(s):
            inside = t.cpu.current_stream() is s
        e = t.cpu.Event()
        return inside, t.cpu.current_stream() is s, e.query(), e.record(), s.wait_stream(s)

    same(run)


# ---------------------------------------------------------------------------- torch.backends

FLAGS = ["cudnn.enabled", "cudnn.benchmark", "cudnn.deterministic", "cudnn.allow_tf32", "cudnn.benchmark_limit",
         "cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
         "cuda.matmul.allow_bf16_reduced_precision_reduction", "mkldnn.enabled", "mkldnn.deterministic",
         "opt_einsum.enabled", "opt_einsum.strategy"]


def test_backend_flag_defaults():
    same(lambda t: {f: _get(t.backends, f) for f in FLAGS})


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", [True, "x", 1])
def test_backend_flags_settable_with_torchs_checks(flag, value):
    def run(t):
        head, _, last = flag.rpartition(".")
        module, old = _get(t.backends, head), _get(t.backends, flag)
        try:
            setattr(module, last, value)
            return _get(t.backends, flag), t.get_float32_matmul_precision()
        finally:
            setattr(module, last, old)

    same(run)


def test_backend_unknown_matmul_attribute():
    same(lambda t: t.backends.cuda.matmul.no_such_flag)
    same(lambda t: setattr(t.backends.cuda.matmul, "no_such_flag", True))


STEPS = [("precision", "high"), ("precision", "medium"), ("precision", "highest"), ("tf32", True), ("tf32", False),
         ("precision", "medium"), ("precision", "highest"), ("tf32", True), ("precision", "high")]


def test_allow_tf32_is_the_float32_matmul_precision():
    def apply(t, kind, value):
        if kind == "precision":
            t.set_float32_matmul_precision(value)
        else:
            t.backends.cuda.matmul.allow_tf32 = value
        return t.get_float32_matmul_precision(), t.backends.cuda.matmul.allow_tf32, t.backends.cudnn.allow_tf32

    jax_default = jax.config.jax_default_matmul_precision
    try:
        for kind, value in STEPS:
            assert apply(facade, kind, value) == apply(torch, kind, value), (kind, value)
            if kind == "precision":
                want = {"highest": jax_default, "high": "tensorfloat32", "medium": "bfloat16"}[value]
                assert jax.config.jax_default_matmul_precision == want
    finally:
        for t in (torch, facade):
            t.set_float32_matmul_precision("highest")
    assert jax.config.jax_default_matmul_precision == jax_default


@pytest.mark.parametrize("fn", ["linalg.matmul", "nn.conv.conv2d", "nn.attention.scaled_dot_product_attention"])
def test_float32_matmul_precision_reaches_the_products(fn):
    """Full float32 (HIGHEST) by default; 'high' leaves the products at JAX's default, which it set to TF32."""
    import functional

    f = functools.reduce(getattr, fn.split("."), functional)
    args = [jnp.ones((1, 2, 4, 4), jnp.float32)] * (3 if "attention" in fn else 2)

    def precisions():
        eqns = jax.make_jaxpr(f)(*args).jaxpr.eqns
        return {str(e.params["precision"]) for e in eqns if "precision" in e.params}

    assert precisions() == {"(Precision.HIGHEST, Precision.HIGHEST)"}
    try:
        facade.set_float32_matmul_precision("high")
        assert precisions() == {"(Precision.HIGH, Precision.HIGH)"}  # tensorfloat32
    finally:
        facade.set_float32_matmul_precision("highest")


def test_cudnn_allow_tf32_leaves_matmul_precision():
    try:
        facade.backends.cudnn.allow_tf32 = False
        assert facade.get_float32_matmul_precision() == "highest" and not facade.backends.cuda.matmul.allow_tf32
    finally:
        facade.backends.cudnn.allow_tf32 = True


@pytest.mark.parametrize("value", ["foo", "HIGH", 1])
def test_bad_float32_matmul_precision(value):
    def run(t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t.set_float32_matmul_precision(value)
        return [str(x.message).split(" (Triggered internally")[0] for x in w], t.get_float32_matmul_precision()

    same(run)


def test_backend_queries():
    same(lambda t: repr((t.backends.cudnn.is_available(), t.backends.cudnn.version(), t.backends.cuda.is_built(),
                         t.backends.mps.is_available(), t.backends.mps.is_built(), t.backends.cpu.get_cpu_capability(),
                         t.backends.opt_einsum.is_available(), t.backends.cudnn.is_acceptable(t.zeros(1)),
                         t.backends.cuda.preferred_linalg_library(), t.backends.cuda.preferred_blas_library())))
    same(lambda t: t.backends.mps.is_macos13_or_newer())
    # what facade links differs from torch's CPU build: MKL, oneDNN and OpenMP are not in XLA
    assert facade.backends.mkl.is_available() is facade.has_mkl is False
    assert facade.backends.openmp.is_available() is facade.has_openmp is False
    assert facade.backends.mkldnn.is_available() is False


@pytest.mark.parametrize("backend", ["cusolver", "foo", 1, "default"])
def test_preferred_linalg_library(backend):
    try:
        same(lambda t: repr(t.backends.cuda.preferred_linalg_library(backend)))
    finally:
        for t in (torch, facade):
            t.backends.cuda.preferred_linalg_library("default")


def test_sdp_toggles_and_contexts():
    def run(t):
        c = t.backends.cuda
        seen = []
        for kind in ("flash", "mem_efficient", "math", "cudnn"):
            getattr(c, f"enable_{kind}_sdp")(False)
            seen.append(getattr(c, f"{kind}_sdp_enabled")())
            getattr(c, f"enable_{kind}_sdp")(True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with c.sdp_kernel(enable_flash=False, enable_math=True):
                seen.append((c.flash_sdp_enabled(), c.math_sdp_enabled()))
        seen.append(c.flash_sdp_enabled())
        with t.backends.cudnn.flags(enabled=False, benchmark=True):
            seen.append((t.backends.cudnn.enabled, t.backends.cudnn.benchmark))
        seen.append((t.backends.cudnn.enabled, t.backends.cudnn.benchmark))
        seen.append((t.backends.mha.get_fastpath_enabled(), t.backends.mha.set_fastpath_enabled(False),
                     t.backends.mha.get_fastpath_enabled(), t.backends.mha.set_fastpath_enabled(True)))
        return seen

    same(run)
    for kind in ("flash", "mem_efficient", "math", "cudnn"):  # torch's messages name the wrong setter: compare types
        ours = outcome(lambda k=kind: getattr(facade.backends.cuda, f"enable_{k}_sdp")(1))[:2]
        assert ours == outcome(lambda k=kind: getattr(torch.backends.cuda, f"enable_{k}_sdp")(1))[:2] == (
            "raise", "RuntimeError")


# ---------------------------------------------------------------------------- torch-level settings

@pytest.mark.parametrize("setter", ["set_num_threads", "set_num_interop_threads"])
@pytest.mark.parametrize("value", [0, -1, 1.5])
def test_thread_count_errors(setter, value):
    same(lambda t: getattr(t, setter)(value))


def test_thread_counts():
    same(lambda t: (t.get_num_threads(), t.get_num_interop_threads(), t.init_num_threads()))

    def run(t):
        old = t.get_num_threads()
        try:
            t.set_num_threads(1)
            return t.get_num_threads()
        finally:
            t.set_num_threads(old)

    same(run)
    assert "get_num_threads() : " in facade.__config__.parallel_info()
    assert facade.__version__[:4] in facade.__config__.show() or "facade" in facade.__config__.show()


DETERMINISM = [
    lambda t: (t.use_deterministic_algorithms(True), t.get_deterministic_debug_mode()),
    lambda t: (t.use_deterministic_algorithms(True, warn_only=True), t.get_deterministic_debug_mode(),
               t.is_deterministic_algorithms_warn_only_enabled()),
    lambda t: t.use_deterministic_algorithms("yes"),
    lambda t: (t.set_deterministic_debug_mode("warn"), t.are_deterministic_algorithms_enabled(),
               t.is_deterministic_algorithms_warn_only_enabled()),
    lambda t: (t.set_deterministic_debug_mode(2), t.get_deterministic_debug_mode()),
    lambda t: t.set_deterministic_debug_mode("foo"),
    lambda t: t.set_deterministic_debug_mode(3),
    lambda t: t.set_deterministic_debug_mode(1.0),
    lambda t: (t.set_warn_always(True), t.is_warn_always_enabled()),
]


@pytest.mark.parametrize("i", range(len(DETERMINISM)))
def test_determinism_and_warn_always(i):
    def run(t):
        try:
            return DETERMINISM[i](t)
        finally:
            t.use_deterministic_algorithms(False)
            t.set_warn_always(False)

    same(run)
    same(lambda t: (t.are_deterministic_algorithms_enabled(), t.get_deterministic_debug_mode()))


def test_flush_denormal_reports_it_changed_nothing():
    assert facade.set_flush_denormal(True) is False  # torch: True where it could set the CPU flag; XLA has no switch


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "cuda:1", "mps", "xpu", "meta", "foo", 1, "device"])
def test_get_device_module(device):
    def run(t):
        d = t.device("cpu") if device == "device" else device
        return t.get_device_module(d).__name__.split(".", 1)[1]

    same(run)


# ---------------------------------------------------------------------------- version, constants, layouts

@pytest.mark.parametrize("version", ["2.13.0", "2.13.0+cpu", "parrot"])
def test_version(version):
    def run(t):
        v = t.torch_version.TorchVersion(version)
        return (isinstance(v, str), v >= "2.9", v < "2.13.1", v > (2, 1), v == "2.13", v == "2.13.0", v <= (2, 13),
                v != "2.13.0", v < "parrot", str(v), hash(v) == hash(version))

    same(run)


def test_torch_version_module():
    same(lambda t: (t.version.cuda, t.version.hip, t.version.debug, type(t.__version__).__name__))
    assert facade.version.__version__ == facade.__version__ == torch.version.__version__.split("+")[0]


def test_constants_layouts_and_memory_formats():
    names = ["inf", "nan", "pi", "e", "newaxis"]
    same(lambda t: [repr(getattr(t, n)) for n in names])
    formats = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
    layouts = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"]
    same(lambda t: [repr(getattr(t, n)) for n in formats + layouts])
    same(lambda t: [type(getattr(t, n)).__name__ for n in formats + layouts])
    same(lambda t: repr((isinstance(t.channels_last, t.memory_format), isinstance(t.strided, t.layout),
                         t.zeros(2).layout, t.empty(2, layout=t.strided).layout == t.strided, str(t.strided))))
    same(lambda t: repr(pickle.loads(pickle.dumps(t.channels_last))))
    same(lambda t: pickle.loads(pickle.dumps(t.contiguous_format)) is t.contiguous_format)


def test_memory_format_accepted():
    same(lambda t: t.ones(1, 2, 3, 4).contiguous(memory_format=t.channels_last).shape)
    same(lambda t: t.ones(1, 2, 3, 4).to(memory_format=t.channels_last).sum().item())
    same(lambda t: t.ones(1, 2, 3, 4).contiguous(memory_format=t.preserve_format).shape)
