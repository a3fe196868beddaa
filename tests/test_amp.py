"""torch.amp against real torch: autocast's per-op dtypes and values on CPU (bfloat16 and float16), a
small model's forward and backward under autocast, the autocast state functions and their warnings
and errors, custom_fwd/custom_bwd, and GradScaler's training trajectory with float16 overflow.
CUDA's op list cannot run here (no GPU for torch); it is checked against torch's documented dtypes."""

import inspect
import pickle
import threading
import warnings

import numpy as np
import pytest
import torch

import facade
from facade.amp import _policy

from ._compare import assert_same


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def T(lib, *shape, seed=0, dtype=None):
    t = lib.tensor(rand(*shape, seed=seed))
    return t if dtype is None else t.to(dtype)


TOL = {"torch.bfloat16": 2e-2, "torch.float16": 4e-3, "torch.float32": 1e-5, "torch.float64": 1e-10}


def compare(fn, lo):
    """fn(lib) run by torch and facade: results agree in dtype and shape, and in value to `lo`'s precision
    (or the result's, if finer: a float32 result computed from lower-precision inputs carries their error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, f = fn(torch), fn(facade)
    tol = min(TOL[f"torch.{lo}"], TOL[str(t.dtype)]) if t.dtype == torch.float64 else TOL[f"torch.{lo}"]
    assert_same(t, f, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------- CPU op policy

def _lo(L, lo, *shape, seed=0):
    return T(L, *shape, seed=seed, dtype=getattr(L, lo))


CPU_OPS = {  # name -> fn(lib, F, lo): run inside autocast('cpu', dtype=lo)
    # lower precision
    "mm": lambda L, F, lo: L.mm(T(L, 4, 8), T(L, 8, 5, seed=1)),
    "matmul": lambda L, F, lo: T(L, 4, 8) @ T(L, 8, 5, seed=1),
    "matmul_1d": lambda L, F, lo: L.matmul(T(L, 8), T(L, 8, 5, seed=1)),
    "linear": lambda L, F, lo: F.linear(T(L, 3, 8), T(L, 5, 8, seed=1), T(L, 5, seed=2)),
    "bmm": lambda L, F, lo: L.bmm(T(L, 2, 3, 4), T(L, 2, 4, 5, seed=1)),
    "baddbmm": lambda L, F, lo: L.baddbmm(T(L, 2, 3, 5, seed=2), T(L, 2, 3, 4), T(L, 2, 4, 5, seed=1)),
    "addmm": lambda L, F, lo: L.addmm(T(L, 3, 5, seed=2), T(L, 3, 4), T(L, 4, 5, seed=1)),
    "addbmm": lambda L, F, lo: L.addbmm(T(L, 3, 5, seed=2), T(L, 2, 3, 4), T(L, 2, 4, 5, seed=1)),
    "conv1d": lambda L, F, lo: F.conv1d(T(L, 1, 2, 8), T(L, 3, 2, 3, seed=1), T(L, 3, seed=2)),
    "conv2d": lambda L, F, lo: F.conv2d(T(L, 1, 2, 5, 5), T(L, 3, 2, 3, 3, seed=1), padding=1),
    "conv_transpose2d": lambda L, F, lo: F.conv_transpose2d(T(L, 1, 2, 4, 4), T(L, 2, 3, 3, 3, seed=1)),
    "prelu": lambda L, F, lo: F.prelu(T(L, 2, 3), L.tensor([0.25])),
    "sdpa": lambda L, F, lo: F.scaled_dot_product_attention(*[T(L, 1, 4, 8, seed=s) for s in range(3)]),
    "einsum": lambda L, F, lo: L.einsum("ij,jk->ik", T(L, 3, 4), T(L, 4, 5, seed=1)),
    "chain_matmul": lambda L, F, lo: L.linalg.multi_dot([T(L, 3, 4), T(L, 4, 5, seed=1), T(L, 5, 2, seed=2)]),
    "tensordot": lambda L, F, lo: L.tensordot(T(L, 3, 4), T(L, 4, 5, seed=1), dims=1),
    "f64_mm": lambda L, F, lo: L.mm(T(L, 3, 4).double(), T(L, 4, 5, seed=1).double()),
    "int_mm": lambda L, F, lo: L.mm(L.arange(12).view(3, 4), L.arange(20).view(4, 5)),
    "addmm_inplace": lambda L, F, lo: T(L, 3, 5, seed=2).addmm_(T(L, 3, 4), T(L, 4, 5, seed=1)),
    # not on CPU's lists: run in the input dtype
    "mv": lambda L, F, lo: L.mv(T(L, 3, 4), T(L, 4, seed=1)),
    "addmv": lambda L, F, lo: L.addmv(T(L, 3, seed=2), T(L, 3, 4), T(L, 4, seed=1)),
    "dot": lambda L, F, lo: L.dot(T(L, 4), T(L, 4, seed=1)),
    "exp_low": lambda L, F, lo: L.exp(_lo(L, lo, 3, 4)),
    "softmax_low": lambda L, F, lo: L.softmax(_lo(L, lo, 3, 4), -1),
    "log_softmax_low": lambda L, F, lo: F.log_softmax(_lo(L, lo, 3, 4), -1),
    "sum_low": lambda L, F, lo: _lo(L, lo, 3, 4).sum(),
    "cumsum_low": lambda L, F, lo: _lo(L, lo, 3, 4).cumsum(0),
    "layer_norm_low": lambda L, F, lo: F.layer_norm(_lo(L, lo, 3, 4), (4,), T(L, 4, seed=1), T(L, 4, seed=2)),
    "group_norm_low": lambda L, F, lo: F.group_norm(_lo(L, lo, 2, 4, 3), 2),
    "gelu_low": lambda L, F, lo: F.gelu(_lo(L, lo, 3, 4)),
    "relu": lambda L, F, lo: F.relu(T(L, 3, 4)),
    "norm_low": lambda L, F, lo: L.norm(_lo(L, lo, 3, 4)),
    "add_mixed": lambda L, F, lo: T(L, 3, 4) + _lo(L, lo, 3, 4, seed=1),
    "where_mixed": lambda L, F, lo: L.where(T(L, 3, 4) > 0, T(L, 3, 4), _lo(L, lo, 3, 4, seed=1)),
    # float32
    "prod": lambda L, F, lo: _lo(L, lo, 3, 4).prod(1),
    "cross_entropy": lambda L, F, lo: F.cross_entropy(_lo(L, lo, 4, 5), L.tensor([0, 1, 2, 4])),
    "nll_loss": lambda L, F, lo: F.nll_loss(_lo(L, lo, 4, 5), L.tensor([0, 1, 2, 4])),
    "mse_loss": lambda L, F, lo: F.mse_loss(_lo(L, lo, 3, 4), T(L, 3, 4, seed=1)),
    "l1_loss": lambda L, F, lo: F.l1_loss(_lo(L, lo, 3, 4), _lo(L, lo, 3, 4, seed=1)),
    "smooth_l1_loss": lambda L, F, lo: F.smooth_l1_loss(_lo(L, lo, 3, 4), _lo(L, lo, 3, 4, seed=1)),
    "kl_div": lambda L, F, lo: F.kl_div(_lo(L, lo, 3, 4), T(L, 3, 4, seed=1).softmax(-1), reduction="batchmean"),
    "bce_logits": lambda L, F, lo: F.binary_cross_entropy_with_logits(_lo(L, lo, 3, 4), T(L, 3, 4, seed=1).sigmoid()),
    "bce": lambda L, F, lo: F.binary_cross_entropy(_lo(L, lo, 3, 4).sigmoid(), T(L, 3, 4, seed=1).sigmoid()),
    "trace": lambda L, F, lo: L.trace(_lo(L, lo, 4, 4)),
    "cdist": lambda L, F, lo: L.cdist(_lo(L, lo, 3, 4), _lo(L, lo, 2, 4, seed=1)),
    "inverse": lambda L, F, lo: L.inverse(_lo(L, lo, 3, 3) + 3 * L.eye(3)),
    "rfft": lambda L, F, lo: L.fft.rfft(_lo(L, lo, 3, 8)),
    "pad_reflect": lambda L, F, lo: F.pad(_lo(L, lo, 1, 2, 5), (2, 1), mode="reflect"),
    "pad_constant": lambda L, F, lo: F.pad(_lo(L, lo, 1, 2, 5), (2, 1)),
    "f64_mse": lambda L, F, lo: F.mse_loss(T(L, 3, 4).double(), T(L, 3, 4, seed=1).double()),
    # promote to the widest input
    "cat_mixed": lambda L, F, lo: L.cat([T(L, 2, 3), _lo(L, lo, 2, 3, seed=1)]),
    "cat_low": lambda L, F, lo: L.cat([_lo(L, lo, 2, 3), _lo(L, lo, 2, 3, seed=1)]),
    "stack_mixed": lambda L, F, lo: L.stack([_lo(L, lo, 2, 3), T(L, 2, 3, seed=1)]),
    "index_copy": lambda L, F, lo: T(L, 3, 2).index_copy(0, L.tensor([2, 0]), _lo(L, lo, 2, 2, seed=1)),
    "index_copy_": lambda L, F, lo: _lo(L, lo, 3, 2).index_copy_(0, L.tensor([2, 0]), _lo(L, lo, 2, 2, seed=1)),
    "setitem": lambda L, F, lo: _setitem(_lo(L, lo, 3, 2), 0, T(L, 2)),
}


@pytest.mark.parametrize("lo", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", CPU_OPS)
def test_cpu_op_policy(name, lo):
    def run(L):
        with L.autocast("cpu", dtype=getattr(L, lo)):
            return CPU_OPS[name](L, L.nn.functional, lo)

    compare(run, lo)


def test_autocast_off_costs_no_cast():
    x, w = facade.ones(2, 3), facade.ones(3, 2)
    assert facade.mm(x, w).dtype is facade.float32
    with facade.autocast("cpu", enabled=False):
        assert facade.mm(x, w).dtype is facade.float32
    with facade.autocast("cpu"):
        with facade.autocast("cpu", enabled=False):
            assert facade.mm(x, w).dtype is facade.float32
        assert facade.mm(x, w).dtype is facade.bfloat16


# ---------------------------------------------------------------------------- a model under autocast

@pytest.mark.parametrize("lo", ["bfloat16", "float16"])
def test_model_forward_backward(lo):
    """Linear+ReLU+LayerNorm+Linear (the first Linear used twice: the cast weight is cached) +cross_entropy."""
    def run(L):
        L.manual_seed(0)
        fc1, norm, fc2 = L.nn.Linear(6, 6), L.nn.LayerNorm(6), L.nn.Linear(6, 3)
        with L.no_grad():
            for p, seed in zip([*fc1.parameters(), *fc2.parameters()], range(4)):
                p.copy_(L.tensor(rand(*p.shape, seed=seed)) * 0.5)
        x, y = T(L, 5, 6, seed=9), L.tensor([0, 1, 2, 1, 0])
        with L.autocast("cpu", dtype=getattr(L, lo)):
            h = L.relu(fc1(x))
            h = norm(fc1(h))
            out = fc2(h)
            loss = L.nn.functional.cross_entropy(out, y)
        loss.backward()
        grads = [p.grad for p in (*fc1.parameters(), *norm.parameters(), *fc2.parameters())]
        return (h, out, loss, *grads)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, f = run(torch), run(facade)
    for i, (a, b) in enumerate(zip(t, f)):
        assert str(b.dtype) == str(a.dtype), f"output {i}: {b.dtype} vs torch {a.dtype}"
        scale = float(np.abs(a.detach().float().numpy()).max())
        np.testing.assert_allclose(b.detach().float().numpy(), a.detach().float().numpy(), rtol=0.05,
                                   atol=0.05 * scale, err_msg=f"output {i}")


MODULES = {  # name -> (make(nn), call(module, x)): modules whose torch ops decompose into listed ones
    "lstm": (lambda nn: nn.LSTM(8, 4, num_layers=2, batch_first=True), lambda m, x: m(x)),
    "gru": (lambda nn: nn.GRU(8, 4, batch_first=True), lambda m, x: m(x)),
    "lstm_cell": (lambda nn: nn.LSTMCell(8, 4), lambda m, x: m(x[:, 0])),
    "mha": (lambda nn: nn.MultiheadAttention(8, 2, batch_first=True), lambda m, x: m(x, x, x)),
    "encoder": (lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), lambda m, x: m(x)),
    "conv_bn": (lambda nn: nn.Sequential(nn.Conv1d(5, 3, 3), nn.BatchNorm1d(3)), lambda m, x: m(x)),
}


def _flat(out):
    return [t for o in (out if isinstance(out, tuple) else (out,)) for t in (o if isinstance(o, tuple) else (o,))]


@pytest.mark.parametrize("name", MODULES)
def test_modules_under_autocast(name):
    make, run = MODULES[name]
    torch.manual_seed(0)
    tm, fm = make(torch.nn), make(facade.nn)
    fm.load_state_dict({k: facade.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    outs = []
    for lib, m in ((torch, tm), (facade, fm)):
        with lib.autocast("cpu"):
            try:
                outs.append(_flat(run(m, T(lib, 2, 5, 8))))
            except RuntimeError as e:  # the oracle cannot run here: no result to compare with
                if lib is torch and "could not create a primitive descriptor" in str(e):
                    pytest.xfail("torch's bfloat16 LSTM needs a oneDNN kernel this CPU lacks (seen on an AVX2-only "
                                 "AMD EPYC), and without oneDNN torch computes another dtype")
                raise
    for i, (a, b) in enumerate(zip(*outs)):
        assert str(b.dtype) == str(a.dtype), f"output {i}: {b.dtype} vs torch {a.dtype}"
        scale = float(np.abs(a.detach().float().numpy()).max())
        np.testing.assert_allclose(b.detach().float().numpy(), a.detach().float().numpy(), rtol=0.05,
                                   atol=0.05 * scale, err_msg=f"output {i}")


@pytest.mark.parametrize("lib", [torch, facade], ids=["torch", "facade"])
def test_weight_cast_is_cached_until_the_region_ends(lib):
    def cast_node(out):
        return [n for n, _ in out.grad_fn.next_functions if n is not None][0]

    w = lib.ones(3, 3, requires_grad=True)
    with lib.autocast("cpu"):
        a, b = lib.mm(lib.ones(2, 3), w), lib.mm(lib.ones(2, 3), w)
        assert cast_node(a) is cast_node(b)
        with lib.autocast("cpu", cache_enabled=False):
            assert cast_node(lib.mm(lib.ones(2, 3), w)) is not cast_node(a)
    c = lib.mm(lib.ones(2, 3), w)
    with lib.autocast("cpu"):
        assert cast_node(lib.mm(lib.ones(2, 3), w)) is not cast_node(a)  # the region's end cleared the cache
    (a.sum() + b.sum() + c.sum()).backward()
    assert w.grad.dtype is lib.float32 and float(w.grad.sum()) == 54.0
    if lib is facade:
        assert not facade.amp._state.STATE.cache


def test_state_is_thread_local():
    seen = []
    with facade.autocast("cpu", dtype=facade.float16):
        t = threading.Thread(target=lambda: seen.append((facade.is_autocast_enabled("cpu"),
                                                         facade.get_autocast_dtype("cpu"),
                                                         facade.mm(facade.ones(2, 2), facade.ones(2, 2)).dtype)))
        t.start()
        t.join()
        assert facade.is_autocast_enabled("cpu")
    assert seen == [(False, facade.bfloat16, facade.float32)]


# ---------------------------------------------------------------------------- CUDA's op list (documented dtypes)

@pytest.fixture
def cuda_autocast(monkeypatch):
    """CUDA autocast as on a GPU, with facade's CPU tensors standing in for CUDA ones."""
    monkeypatch.setitem(_policy.ON, "cuda", ("cpu",))
    facade.set_autocast_enabled("cuda", True)
    try:
        yield
    finally:
        facade.set_autocast_enabled("cuda", False)


F16, F32 = "float16", "float32"
CUDA_OPS = {  # name -> (fn(F), the dtype torch's autocast op reference documents)
    "mm": (lambda F: facade.mm(T(facade, 3, 4), T(facade, 4, 2)), F16),
    "__matmul__": (lambda F: T(facade, 3, 4) @ T(facade, 4, 2), F16),
    "mv": (lambda F: facade.mv(T(facade, 3, 4), T(facade, 4)), F16),
    "addmv": (lambda F: facade.addmv(T(facade, 3), T(facade, 3, 4), T(facade, 4)), F16),
    "addr": (lambda F: facade.addr(T(facade, 3, 4), T(facade, 3), T(facade, 4)), F16),
    "linear": (lambda F: F.linear(T(facade, 3, 4), T(facade, 2, 4)), F16),
    "conv1d": (lambda F: F.conv1d(T(facade, 1, 2, 6), T(facade, 3, 2, 3)), F16),
    "multi_dot": (lambda F: facade.linalg.multi_dot([T(facade, 3, 4), T(facade, 4, 2), T(facade, 2, 2)]), F16),
    "lstm_cell": (lambda F: facade.lstm_cell(T(facade, 2, 3), (T(facade, 2, 4), T(facade, 2, 4)),
                                             T(facade, 16, 3), T(facade, 16, 4))[0], F16),
    "exp": (lambda F: facade.exp(_lo(facade, F16, 3)), F32),
    "log": (lambda F: facade.log(_lo(facade, F16, 3).abs()), F32),
    "pow": (lambda F: _lo(facade, F16, 3) ** 2, F32),
    "rsqrt": (lambda F: facade.rsqrt(_lo(facade, F16, 3).abs()), F32),
    "softplus": (lambda F: F.softplus(_lo(facade, F16, 3)), F32),
    "softmax": (lambda F: facade.softmax(_lo(facade, F16, 3), 0), F32),
    "softmax_dtype": (lambda F: facade.softmax(_lo(facade, F16, 3), 0, dtype=facade.float16), F16),
    "log_softmax": (lambda F: F.log_softmax(_lo(facade, F16, 2, 3), 1), F32),
    "sum": (lambda F: _lo(facade, F16, 3).sum(), F32),
    "cumsum": (lambda F: _lo(facade, F16, 3).cumsum(0), F32),
    "prod": (lambda F: _lo(facade, F16, 3).prod(), F32),
    "norm": (lambda F: facade.norm(_lo(facade, F16, 3)), F32),
    "layer_norm": (lambda F: F.layer_norm(_lo(facade, F16, 2, 3), (3,)), F32),
    "group_norm": (lambda F: F.group_norm(_lo(facade, F16, 2, 4, 3), 2), F32),
    "cross_entropy": (lambda F: F.cross_entropy(_lo(facade, F16, 2, 3), facade.tensor([0, 2])), F32),
    "mse_loss": (lambda F: F.mse_loss(_lo(facade, F16, 3), _lo(facade, F16, 3, seed=1)), F32),
    "cosine_similarity": (lambda F: F.cosine_similarity(_lo(facade, F16, 2, 3), _lo(facade, F16, 2, 3)), F32),
    "normalize": (lambda F: F.normalize(_lo(facade, F16, 2, 3)), F32),
    "logsumexp": (lambda F: facade.logsumexp(_lo(facade, F16, 2, 3), 1), F32),
    "addcmul_mixed": (lambda F: facade.addcmul(T(facade, 3), _lo(facade, F16, 3), _lo(facade, F16, 3)), F32),
    "addcmul_low": (lambda F: facade.addcmul(*[_lo(facade, F16, 3, seed=s) for s in range(3)]), F16),
    "atan2_mixed": (lambda F: facade.atan2(_lo(facade, F16, 3), T(facade, 3, seed=1)), F32),
    "cat_low": (lambda F: facade.cat([_lo(facade, F16, 3), _lo(facade, F16, 3)]), F16),
    "relu_low": (lambda F: F.relu(_lo(facade, F16, 3)), F16),
    "interpolate": (lambda F: F.interpolate(_lo(facade, F16, 1, 1, 3), scale_factor=2.0), F32),
    "interpolate_area": (lambda F: F.interpolate(_lo(facade, F16, 1, 1, 4), size=2, mode="area"), F16),
    "inplace_exp_": (lambda F: _lo(facade, F16, 3).exp_(), F16),
    "setitem": (lambda F: _setitem(_lo(facade, F16, 3), 0, T(facade, 1)), F16),
    "f64_exp": (lambda F: facade.exp(T(facade, 3).double()), "float64"),
}


def _setitem(x, i, v):
    x[i] = v
    return x


@pytest.mark.parametrize("name", CUDA_OPS)
def test_cuda_op_policy(name, cuda_autocast):
    fn, dtype = CUDA_OPS[name]
    assert fn(facade.nn.functional).dtype is getattr(facade, dtype)


def test_cuda_values_run_in_policy_dtype(cuda_autocast):
    x = T(facade, 3, 4)
    assert_same(torch.exp(torch.tensor(rand(3, 4)).half().float()), facade.exp(x.half()), rtol=1e-6, atol=1e-6)
    assert_same(torch.mm(torch.tensor(rand(3, 4)).half(), torch.tensor(rand(4, 2, seed=1)).half()).float(),
                facade.mm(x, T(facade, 4, 2, seed=1)).float(), rtol=4e-3, atol=4e-3)


def test_cuda_bce_is_banned(cuda_autocast):
    with pytest.raises(RuntimeError, match="^torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe"):
        facade.nn.functional.binary_cross_entropy(facade.rand(3), facade.rand(3))


# ---------------------------------------------------------------------------- autocast API, warnings, errors

def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:
            out = (type(e).__name__, str(e))
    return out, [(x.category.__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]


def _same_warnings(fn):
    t, f = _warnings(lambda: fn(torch)), _warnings(lambda: fn(facade))
    assert str(f) == str(t)


CALLS = {
    "is_enabled": lambda L: (L.is_autocast_enabled(), L.is_autocast_enabled("cpu"),
                             L.is_autocast_enabled(device_type="cuda")),
    "dtypes": lambda L: [L.get_autocast_dtype(d) for d in ("cpu", "cuda", "xla", "ipu", "mps", "xpu", "hpu")],
    "inside": lambda L: _inside(L, L.autocast("cpu", dtype=L.float16)),
    "inside_nested": lambda L: _inside(L, L.autocast("cpu", cache_enabled=False), L.autocast("cpu", enabled=False)),
    "decorator": lambda L: L.autocast("cpu")(lambda: (L.is_autocast_enabled("cpu"), L.get_autocast_dtype("cpu")))(),
    "cuda_unavailable": lambda L: _inside(L, L.autocast("cuda")),
    "cuda_amp_autocast": lambda L: _inside(L, L.cuda.amp.autocast()),
    "cpu_amp_autocast": lambda L: _inside(L, L.cpu.amp.autocast(dtype=L.float16)),
    "cuda_amp_helpers": lambda L: (callable(L.cuda.amp.custom_fwd(lambda ctx: 1)),
                                   callable(L.cuda.amp.custom_bwd(lambda ctx: 1)),
                                   L.cuda.amp.amp_definitely_not_available()),
    "cpu_float32": lambda L: _inside(L, L.autocast("cpu", dtype=L.float32)),
    "cpu_float64": lambda L: _inside(L, L.autocast("cpu", dtype=L.float64)),
    "xpu": lambda L: L.autocast("xpu")._enabled,
    "available": lambda L: [L.amp.is_autocast_available(d) for d in ("cpu", "cuda", "xla", "mps", "meta", "cuda:0")],
    "nesting": lambda L: (L.autocast_increment_nesting(), L.autocast_increment_nesting(),
                          L.autocast_decrement_nesting(), L.autocast_decrement_nesting()),
    "cache_flag": lambda L: (L.is_autocast_cache_enabled(), L.clear_autocast_cache()),
    "deprecated_get": lambda L: (L.is_autocast_cpu_enabled(), L.get_autocast_cpu_dtype(), L.get_autocast_gpu_dtype(),
                                 L.is_autocast_ipu_enabled(), L.get_autocast_ipu_dtype(),
                                 L.is_autocast_xla_enabled(), L.get_autocast_xla_dtype()),
    "deprecated_set": lambda L: (L.set_autocast_cpu_enabled(False), L.set_autocast_cpu_dtype(L.bfloat16),
                                 L.set_autocast_gpu_dtype(L.float16), L.set_autocast_ipu_enabled(False),
                                 L.set_autocast_ipu_dtype(L.float16), L.set_autocast_xla_enabled(False),
                                 L.set_autocast_xla_dtype(L.bfloat16)),
    "legacy_set_enabled": lambda L: (L.set_autocast_enabled(False), L.is_autocast_enabled()),
    # errors
    "not_str": lambda L: L.autocast(1),
    "unknown_device": lambda L: L.autocast("foo"),
    "meta": lambda L: L.autocast("meta"),
    "not_callable": lambda L: L.autocast("cpu")(3),
    "is_enabled_unknown": lambda L: L.is_autocast_enabled("foo"),
    "is_enabled_meta": lambda L: L.is_autocast_enabled("meta"),
    "set_enabled_not_bool": lambda L: L.set_autocast_enabled("cpu", 1),
    "set_dtype_not_dtype": lambda L: L.set_autocast_dtype("cpu", 3),
    "custom_fwd_not_str": lambda L: L.amp.custom_fwd(device_type=1),
}


def _inside(L, *modes):
    states = []
    for m in modes:
        m.__enter__()
        states.append((L.is_autocast_enabled("cpu"), L.is_autocast_enabled("cuda"), L.get_autocast_dtype("cpu"),
                       L.is_autocast_cache_enabled(), L.mm(L.ones(2, 2), L.ones(2, 2)).dtype))
    for m in reversed(modes):
        m.__exit__(None, None, None)
    states.append((L.is_autocast_enabled("cpu"), L.get_autocast_dtype("cpu"), L.is_autocast_cache_enabled()))
    return states


@pytest.mark.parametrize("name", CALLS)
def test_autocast_api(name):
    _same_warnings(CALLS[name])


def test_public_names():
    assert [n for n in torch.__all__ if ("autocast" in n or n == "GradScaler") and not hasattr(facade, n)] == []
    assert facade.autocast is facade.amp.autocast and facade.GradScaler is facade.amp.GradScaler
    for mod in ("amp", "cuda.amp", "cpu.amp"):
        t, f = torch, facade
        for part in mod.split("."):
            t, f = getattr(t, part), getattr(f, part)
        public = [n for n in dir(t) if not n.startswith("_") and not inspect.ismodule(getattr(t, n))]
        assert [n for n in public if not hasattr(f, n)] == [], mod


class _Scale:
    """A custom Function under custom_fwd(cast_inputs=float32)/custom_bwd: what dtypes it sees."""

    @staticmethod
    def make(L):
        seen = []

        class Mul(L.autograd.Function):
            @staticmethod
            @L.amp.custom_fwd(device_type="cpu", cast_inputs=L.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                seen.append(("fwd", a.dtype, b.dtype, L.is_autocast_enabled("cpu")))
                return L.mm(a, b)

            @staticmethod
            @L.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                seen.append(("bwd", g.dtype, L.is_autocast_enabled("cpu")))
                return L.mm(g, b.t()), L.mm(a.t(), g)

        class Plain(L.autograd.Function):
            @staticmethod
            @L.amp.custom_fwd(device_type="cpu")
            def forward(ctx, a):
                seen.append(("plain", a.dtype, L.is_autocast_enabled("cpu")))
                return a * 2

            @staticmethod
            @L.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                seen.append(("plain_bwd", L.is_autocast_enabled("cpu"), L.get_autocast_dtype("cpu")))
                return g * 2

        return Mul, Plain, seen


def test_custom_fwd_bwd():
    def run(L):
        Mul, Plain, seen = _Scale.make(L)
        a = T(L, 2, 3).requires_grad_()
        b = T(L, 3, 2, seed=1).requires_grad_()
        with L.autocast("cpu", dtype=L.float16):
            out = Mul.apply(a, b)
            p = Plain.apply(L.mm(a, b))
        (out.sum() + p.float().sum()).backward()
        return out, p, a.grad, b.grad, seen

    t, f = run(torch), run(facade)
    for a, b in zip(t[:4], f[:4]):
        assert_same(a.detach(), b.detach(), rtol=4e-3, atol=4e-3)
    assert str(f[4]) == str(t[4])


def test_custom_fwd_cast():
    def run(L):
        x = T(L, 2)
        value = {"a": [x, x.half(), x.double(), L.arange(2)], "b": (x, "s", np.zeros(1))}
        out = L.amp.autocast_mode._cast(value, "cpu", L.bfloat16)
        return [out["a"], list(out["b"][:2])]

    t, f = run(torch), run(facade)
    assert_same(t[0], f[0])
    assert_same(t[1][0], f[1][0]) and t[1][1] == f[1][1]


# ---------------------------------------------------------------------------- GradScaler

def _train(L, steps=10, **kw):
    """A tiny model trained under CPU float16 autocast with a scale large enough to overflow float16."""
    model = L.nn.Linear(4, 3)
    with L.no_grad():
        model.weight.copy_(L.tensor(rand(3, 4)))
        model.bias.copy_(L.tensor(rand(3, seed=1)))
    opt = L.optim.SGD(model.parameters(), lr=0.1)
    scaler = L.amp.GradScaler("cpu", **kw)
    x, y = T(L, 8, 4, seed=2), L.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    trace = []
    for _ in range(steps):
        opt.zero_grad()
        with L.autocast("cpu", dtype=L.float16):
            loss = L.nn.functional.cross_entropy(model(x) * 50, y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        found = [float(v) for v in scaler._found_inf_per_device(opt).values()]
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), found, model.weight.detach().clone(),
                      model.bias.detach().clone(), scaler.state_dict()))
    return trace


def test_grad_scaler_trajectory():
    t = _train(torch, init_scale=2.0**14, growth_interval=2)
    f = _train(facade, init_scale=2.0**14, growth_interval=2)
    assert any(s[2] == [1.0] for s in t) and any(s[2] == [0.0] for s in t)  # steps skipped and steps taken
    for i, (a, b) in enumerate(zip(t, f)):
        assert b[:3] == a[:3], f"step {i}: scale/growth tracker/found_inf {b[:3]} vs torch {a[:3]}"
        for pa, pb in zip(a[3:5], b[3:5]):
            assert_same(pa, pb, rtol=1e-4, atol=1e-5)
        assert b[5] == a[5]


def _scaler_calls(L):
    s = L.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=1)
    w = L.ones(2, requires_grad=True)
    opt = L.optim.SGD([w], lr=1.0)
    out = [s.get_scale(), s.state_dict()]
    scaled = s.scale([w.sum(), (w * 2).sum(), {"a": w}.values()])
    out.append([type(v).__name__ for v in scaled])
    scaled[0].backward()
    s.unscale_(opt)
    out.append(_warnings(lambda: s.unscale_(opt))[0])
    s.step(opt)
    out.append(_warnings(lambda: s.step(opt))[0])
    out.append(_warnings(lambda: s.unscale_(opt))[0])
    s.update()
    out += [s.get_scale(), s._get_growth_tracker(), w.detach().clone(), s.state_dict()]
    s.update(10.0)
    out.append(s.get_scale())
    s2 = L.amp.GradScaler("cpu")
    s2.load_state_dict(s.state_dict())
    out.append(s2.state_dict())
    out.append(pickle.loads(pickle.dumps(s)).state_dict())
    out.append(_warnings(lambda: s.step(opt, closure=lambda: 0))[0])
    h = L.ones(2, dtype=L.float16, requires_grad=True)
    opt16 = L.optim.SGD([h], lr=1.0)
    s.scale(h.sum()).backward()
    out.append(_warnings(lambda: s.unscale_(opt16))[0])
    return out


def test_grad_scaler_api():
    t, f = _scaler_calls(torch), _scaler_calls(facade)
    assert len(t) == len(f)
    for a, b in zip(t, f):
        if isinstance(a, torch.Tensor):
            assert_same(a, b)
        else:
            assert str(b) == str(a)


SCALER_CALLS = {
    "default_cuda": lambda L: L.amp.GradScaler().is_enabled(),
    "top_level": lambda L: L.GradScaler("cpu").state_dict(),
    "cuda_amp": lambda L: L.cuda.amp.GradScaler().state_dict(),
    "cpu_amp": lambda L: L.cpu.amp.GradScaler(init_scale=8.0).state_dict(),
    "disabled": lambda L: _disabled(L),
    "growth_factor": lambda L: L.amp.GradScaler("cpu", growth_factor=1.0),
    "backoff_factor": lambda L: L.amp.GradScaler("cpu", backoff_factor=1.0),
    "update_before_scale": lambda L: L.amp.GradScaler("cpu").update(),
    "step_before_scale": lambda L: L.amp.GradScaler("cpu").step(None),
    "load_empty": lambda L: L.amp.GradScaler("cpu").load_state_dict({}),
}


def _disabled(L):
    s = L.amp.GradScaler("cpu", enabled=False)
    w = L.ones(2, requires_grad=True)
    opt = L.optim.SGD([w], lr=1.0)
    loss = w.sum()
    same_obj = s.scale(loss) is loss
    loss.backward()
    s.unscale_(opt)
    s.step(opt)
    s.update()
    return same_obj, s.get_scale(), s.state_dict(), s.is_enabled(), w.tolist(), s._get_growth_tracker()


@pytest.mark.parametrize("name", SCALER_CALLS)
def test_grad_scaler_calls(name):
    _same_warnings(SCALER_CALLS[name])
