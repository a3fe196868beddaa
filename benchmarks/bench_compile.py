"""torch.compile of three training steps: facade vs hand-written pure JAX + optax vs real PyTorch, in one run.

    python benchmarks/bench_compile.py [--models mlp,cnn,gpt] [--steps 30] [--no-torch-compile] [--overhead-steps 500]

Models (one source, benchmarks/compile_models.py, run with `torch` and with `facade`; the pure JAX version is the
same math written by hand):

    mlp   784-512-512-10, ReLU, batch 64, Adam(lr=1e-3)
    cnn   (conv3x3 stride 2, BatchNorm, ReLU) x3 for 1->16->32->64 channels, global average pool, linear to 10;
          28x28 inputs, batch 64, SGD(lr=0.01, momentum=0.9); BatchNorm statistics are updated every step
    gpt   4 layers, 4 heads, 128 dims, context 64, vocab 65, batch 16, AdamW(lr=1e-3), dropout 0.1 (embeddings,
          attention weights, residuals); LayerNorm, causal self-attention by explicit softmax, MLP 4x with GELU

Variants, each a full training step (zero_grad, forward, cross-entropy, backward, optimizer step) on one batch:

    facade eager          the plain loop
    facade compile(model) `torch.compile(model)` in the same loop: one jitted forward, one jitted VJP, eager optimizer
    facade compile(step)  `torch.compile(step)` of the whole step function: one XLA program per call; its 1st call
                          runs eagerly (it creates the optimizer's lazy state) and the 2nd traces and compiles
    pure JAX + optax      one `jax.jit` of the whole step, params/optimizer state/buffers as pytrees, donated
    torch eager           real PyTorch
    torch compile(model)  real `torch.compile(model)` (inductor) in the eager loop; --no-torch-compile skips it

`ms/step` is the median over --steps synchronised steps (the loss read back to the host every step) after three
warm-up calls, on one batch copied to the device once; the variants take turns in rounds so that a change of
machine load hits them alike, each round of a variant after one untimed call (the first step after another
variant ran can pay for what that one left behind). `1st s` and `2nd s` are the first two calls (compile
times); `state` counts the tensors a step carries (torch: parameters, grads, optimizer state, buffers; JAX: the
leaves of its pytrees).
Then, on tiny versions of the same models (the same state, almost no arithmetic), the Python overhead of one
compiled-step call: facade compile(step) minus the pure JAX step, against issue 12's goal of 50 us + 1 us per
state tensor; last, each goal of issue 12 this run can check, met or MISSED. Facade's persistent
compilation cache is off (FACADE_CACHE=0) and inductor gets a fresh cache directory, so first calls compile cold.
Device: cuda when available (torch: torch.cuda; facade: facade.cuda), else the CPU; pure JAX uses JAX's default.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# torch's OpenMP threads spin-wait by default: on a machine whose cores are busy with other work a step then takes
# 100x longer. Passive waiting costs torch nothing measurable here and keeps its numbers meaningful.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("FACADE_CACHE", "0")  # first calls compile cold, as torch.compile's do with a fresh cache
_INDUCTOR_DIR = os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="bench_compile_inductor_"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402

import facade  # noqa: E402
from benchmarks.compile_models import MODELS, batch, train_step  # noqa: E402  (the models, their data, the step)
from functional.core import RBG  # noqa: E402

try:
    import torch
except ImportError:  # the benchmark still runs, without the torch rows
    torch = None

F32 = jnp.float32  # facade turns on jax_enable_x64: every pure JAX creation names its dtype
FULL = {
    "mlp": dict(dims=(784, 512, 512, 10), batch=64),
    "cnn": dict(chans=(1, 16, 32, 64), size=28, classes=10, batch=64),
    "gpt": dict(layers=4, heads=4, dim=128, block=64, vocab=65, batch=16, p=0.1),
}
TINY = {  # the same modules and state tensors, almost no arithmetic: what is left is the per-call overhead
    "mlp": dict(dims=(4, 4, 4, 2), batch=2),
    "cnn": dict(chans=(1, 2, 2, 2), size=8, classes=2, batch=2),
    "gpt": dict(layers=4, heads=4, dim=8, block=4, vocab=5, batch=2, p=0.1),
}


# ---- the same math in pure JAX --------------------------------------------------------------------------------------

def _linear_init(key, n_in, n_out, bias=True):
    bound, (kw, kb) = n_in ** -0.5, jax.random.split(key)
    p = {"w": jax.random.uniform(kw, (n_out, n_in), F32, -bound, bound)}
    if bias:
        p["b"] = jax.random.uniform(kb, (n_out,), F32, -bound, bound)
    return p


def _linear(p, x):
    return x @ p["w"].T + p["b"] if "b" in p else x @ p["w"].T


def _layer_norm(p, x, eps=1e-5):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * p["w"] + p["b"]


def _dropout(key, x, p):
    keep = jax.random.bernoulli(key, F32(1 - p), x.shape)  # float32 draws, as JAX makes them without x64
    return x * (keep.astype(x.dtype) / F32(1 - p))  # on XLA:CPU ~15% faster for the GPT step than jnp.where


def jax_mlp(key, dims, batch):
    params = [_linear_init(k, a, b) for k, a, b in zip(jax.random.split(key, len(dims) - 1), dims, dims[1:])]

    def apply(params, buffers, x, key):
        for i, p in enumerate(params):
            x = _linear(p, x)
            x = jax.nn.relu(x) if i < len(params) - 1 else x
        return x, buffers

    return params, {}, apply, optax.adam(1e-3)


def jax_cnn(key, chans, size, classes, batch):
    keys = jax.random.split(key, len(chans))
    params = {"conv": [jax.random.uniform(k, (b, a, 3, 3), F32, -(9 * a) ** -0.5, (9 * a) ** -0.5)
                       for k, a, b in zip(keys, chans, chans[1:])],
              "bn": [{"w": jnp.ones(c, F32), "b": jnp.zeros(c, F32)} for c in chans[1:]],
              "fc": _linear_init(keys[-1], chans[-1], classes)}
    buffers = [{"mean": jnp.zeros(c, F32), "var": jnp.ones(c, F32), "n": jnp.zeros((), jnp.int32)} for c in chans[1:]]

    def apply(params, buffers, x, key, eps=1e-5, momentum=0.1):
        new = []
        for w, bn, buf in zip(params["conv"], params["bn"], buffers):
            x = jax.lax.conv_general_dilated(x, w, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"))
            mean, var, n = x.mean((0, 2, 3)), x.var((0, 2, 3)), x.size // x.shape[1]
            new.append({"mean": (1 - momentum) * buf["mean"] + momentum * mean,
                        "var": (1 - momentum) * buf["var"] + momentum * var * n / (n - 1), "n": buf["n"] + 1})
            scale = (jax.lax.rsqrt(var + eps) * bn["w"])[:, None, None]
            x = jax.nn.relu((x - mean[:, None, None]) * scale + bn["b"][:, None, None])
        return _linear(params["fc"], x.mean((2, 3))), new

    return params, buffers, apply, optax.sgd(0.01, momentum=0.9)


def jax_gpt(key, layers, heads, dim, block, vocab, batch, p):
    keys = iter(jax.random.split(key, 3 + 4 * layers))
    ln = lambda: {"w": jnp.ones(dim, F32), "b": jnp.zeros(dim, F32)}  # noqa: E731
    params = {"tok": jax.random.normal(next(keys), (vocab, dim), F32),
              "pos": jax.random.normal(next(keys), (block, dim), F32),
              "blocks": [{"ln1": ln(), "ln2": ln(), "attn": _linear_init(next(keys), dim, 3 * dim),
                          "proj": _linear_init(next(keys), dim, dim), "fc": _linear_init(next(keys), dim, 4 * dim),
                          "fc2": _linear_init(next(keys), 4 * dim, dim)} for _ in range(layers)],
              "ln_f": ln(), "head": _linear_init(next(keys), dim, vocab, bias=False)}
    mask = jnp.tril(jnp.ones((block, block), bool))

    def apply(params, buffers, idx, key):
        (B, T), C = idx.shape, dim
        keys = iter(jax.random.split(key, 1 + 3 * layers))
        x = _dropout(next(keys), params["tok"][idx] + params["pos"][:T], p)
        for blk in params["blocks"]:
            q, k, v = jnp.split(_linear(blk["attn"], _layer_norm(blk["ln1"], x)), 3, axis=2)
            q, k, v = (t.reshape(B, T, heads, C // heads).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, nh, T, hs)
            att = (q @ k.swapaxes(-2, -1)) * (C // heads) ** -0.5
            att = _dropout(next(keys), jax.nn.softmax(jnp.where(mask[:T, :T], att, -jnp.inf), axis=-1), p)
            y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
            x = x + _dropout(next(keys), _linear(blk["proj"], y), p)
            h = _linear(blk["fc2"], jax.nn.gelu(_linear(blk["fc"], _layer_norm(blk["ln2"], x)), approximate=False))
            x = x + _dropout(next(keys), h, p)
        return _linear(params["head"], _layer_norm(params["ln_f"], x)), buffers

    return params, {}, apply, optax.adamw(1e-3, weight_decay=0.01)  # torch.optim.AdamW's default weight decay


JAX_MODELS = {"mlp": jax_mlp, "cnn": jax_cnn, "gpt": jax_gpt}


def jax_variant(name, cfg, x, y):
    params, buffers, apply, tx = JAX_MODELS[name](jax.random.PRNGKey(0), **cfg)

    def loss_fn(params, buffers, x, y, key):
        logits, buffers = apply(params, buffers, x, key)
        logp = jax.nn.log_softmax(logits.reshape(-1, logits.shape[-1]))
        return -jnp.take_along_axis(logp, y.reshape(-1, 1), axis=1).mean(), buffers

    # compiled as in a plain JAX process: facade's XLA_FLAGS (loop emitters for small eager programs, set at its
    # import) would slow this donated step by up to 35% (the MLP: 2.7 vs 2.0 ms)
    @functools.partial(jax.jit, donate_argnums=(0, 1, 2, 3), compiler_options=facade._xla.xla_defaults())
    def train_step(params, opt_state, buffers, key, x, y):
        key, sub = jax.random.split(key)
        (loss, buffers), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, buffers, x, y, sub)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, buffers, key, loss

    # dropout keys of facade's generator (XLA's RngBitGenerator with threefry, functional.core.RBG), not JAX's
    # default threefry2x32, which compiles 5-10x slower and draws 2-3x slower on this CPU: the same math
    state = [params, tx.init(params), buffers, jax.random.key(1, impl=RBG)]
    x, y = jax.device_put(x), jax.device_put(y)  # int64 targets, as torch's

    def step():
        *state[:], loss = train_step(*state, x, y)  # the donated state is replaced by the new
        return float(loss)

    return step, lambda: len(jax.tree_util.tree_leaves(state[:3]))


# ---- the torch / facade variants ------------------------------------------------------------------------------------

def _device(lib):
    return "cuda" if lib.cuda.is_available() else "cpu"


def lib_variant(lib, name, cfg, x, y, how):
    """how: 'eager', 'model' (compile the module) or 'step' (compile the whole step function)."""
    lib.manual_seed(0)
    device = _device(lib)
    model, make_opt = MODELS[name](lib, **cfg)
    model = model.to(device)
    opt = make_opt(model.parameters())
    net = lib.compile(model) if how == "model" else model
    x, y = lib.tensor(x, device=device), lib.tensor(y, dtype=lib.long, device=device)  # copies: on the device

    step_fn = train_step(lib, net, opt)
    run = lib.compile(step_fn) if how == "step" else step_fn

    def step():
        return run(x, y).item()

    def count():  # after a step: parameters, their grads, optimizer state tensors, buffers
        params = list(model.parameters())
        return (len(params) + sum(p.grad is not None for p in params) + len(list(model.buffers()))
                + sum(isinstance(v, lib.Tensor) for s in opt.state.values() for v in s.values()))

    return step, count


# ---- the harness ----------------------------------------------------------------------------------------------------

VARIANTS = {  # label: how to build it from (model name, config, x, y)
    "facade eager": lambda *a: lib_variant(facade, *a, "eager"),
    "facade compile(model)": lambda *a: lib_variant(facade, *a, "model"),
    "facade compile(step)": lambda *a: lib_variant(facade, *a, "step"),
    "pure JAX + optax": jax_variant,
    "torch eager": lambda *a: lib_variant(torch, *a, "eager"),
    "torch compile(model)": lambda *a: lib_variant(torch, *a, "model"),
}
WARMUP = 3  # calls before timing; the first two are reported (compile(step) compiles on its second)


class Result:
    def __init__(self, label):
        self.label, self.first, self.times, self.note, self.compiles, self.state = label, [], [], "", 0, None

    @property
    def ms(self):
        return statistics.median(self.times) * 1e3 if self.times else None


def _timed(step):
    t0 = time.perf_counter()
    step()
    return time.perf_counter() - t0


def _why(e):
    return f"n/a: {type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:100]}"


def measure(name, cfg, labels, steps, rounds=5):
    """Build and warm each variant, then time them in turns: `rounds` rounds of steps/rounds calls each."""
    x, y = batch(name, cfg)
    results, live = [Result(label) for label in labels], []
    for r in results:
        try:
            step, count = VARIANTS[r.label](name, cfg, x, y)
            r.first = [_timed(step) for _ in range(WARMUP)][:2]
            r.state = count()
            live.append((r, step))
        except Exception as e:  # torch.compile without a working C++ toolchain, and the like
            r.note = _why(e)
        print(f"# {name}: {r.label} warm", file=sys.stderr, flush=True)
    for chunk in (steps // rounds + (i < steps % rounds) for i in range(min(rounds, steps))):
        for r, step in live:
            if r.note:
                continue
            c0 = facade.compiler.metrics().compiles
            try:
                step()  # untimed: the other variants' steps just ran
                r.times += [_timed(step) for _ in range(chunk)]
            except Exception as e:
                r.note, r.times = _why(e), []
            r.compiles += facade.compiler.metrics().compiles - c0
    for r in results:
        if r.label.startswith("facade") and r.compiles:
            r.note += f"{r.compiles} programs compiled while timed; "
    return results


def _fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}g}" if abs(v) < 10 ** digits else f"{v:.0f}"


def _ratio(a, b):
    return a / b if a is not None and b else None


def print_table(columns, rows):
    cells = [columns, *rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(columns) - 1)]
    for c in cells:
        print("  ".join([c[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(c[1:-1], widths[1:])), c[-1]]).rstrip())


NOTES = {"facade compile(step)": "1st call eager (creates optimizer state), 2nd compiles; ",
         "pure JAX + optax": "1st call compiles; "}


def main_rows(name, results):
    by = {r.label: r for r in results}
    jax_ms, torch_ms = (by[k].ms if k in by else None for k in ("pure JAX + optax", "torch eager"))
    rows = []
    for r in results:
        first = [*r.first, None, None][:2]
        rows.append((name, r.label, _fmt(r.ms), _fmt(_ratio(r.ms, jax_ms)), _fmt(_ratio(r.ms, torch_ms)),
                     _fmt(first[0]), _fmt(first[1]), _fmt(r.state), (NOTES.get(r.label, "") + r.note).rstrip("; ")))
    return rows


def goals(name, results, overhead):
    """One line per goal of issue 12 that this model can be checked against."""
    by = {r.label: r for r in results if r.ms is not None}
    get = lambda k: by[k].ms if k in by else None  # noqa: E731
    step, model, pj = get("facade compile(step)"), get("facade compile(model)"), get("pure JAX + optax")
    out = []

    def check(what, value, limit, unit="x"):
        if value is not None and limit is not None:
            out.append(f"{name}: {what} {_fmt(value)}{unit} (goal <= {_fmt(limit)}{unit}): "
                       f"{'met' if value <= limit else 'MISSED'}")

    check("compile(step) / pure JAX", _ratio(step, pj), 1.05)
    check("compile(model) / pure JAX", _ratio(model, pj), 1.3)
    for other in ("torch eager", "torch compile(model)"):
        if get(other) is not None and pj is not None and pj < get(other):  # only where pure JAX itself is faster
            check(f"compile(step) / {other}", _ratio(step, get(other)), 1.0)
    if "torch compile(model)" in by:
        tc = by["torch compile(model)"].first[0]
        for k, i in (("facade compile(model)", 0), ("facade compile(step)", 1)):
            if k in by:
                check(f"{k} compile call / torch compile(model)'s first call", _ratio(by[k].first[i], tc), 1.0)
    if overhead:
        us, n = overhead
        check(f"compile(step) Python overhead ({n} state tensors)", us, 50 + n, " us")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="mlp,cnn,gpt", help="comma-separated: " + ", ".join(MODELS))
    parser.add_argument("--steps", type=int, default=30, help="timed steps per variant (median reported)")
    parser.add_argument("--overhead-steps", type=int, default=500,
                        help="timed calls per variant on the tiny models (0: skip the overhead table)")
    parser.add_argument("--no-torch-compile", action="store_true", help="skip real torch.compile (slow to compile)")
    args = parser.parse_args()
    names = args.models.split(",")
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; choose from {list(MODELS)}")
    labels = [k for k in VARIANTS if (torch or not k.startswith("torch"))
              and not (args.no_torch_compile and k == "torch compile(model)")]
    rows, over_rows, lines = [], [], []
    try:
        for name in names:
            results = measure(name, FULL[name], labels, args.steps)
            rows += main_rows(name, results)
            overhead = None
            if args.overhead_steps:
                tiny = measure(name, TINY[name], ["pure JAX + optax", "facade compile(step)"], args.overhead_steps,
                               rounds=max(5, args.overhead_steps // 20))  # short turns: a load change hits both
                pj, fs = (r.ms for r in tiny)
                if pj is not None and fs is not None:
                    overhead = ((fs - pj) * 1e3, tiny[1].state)
                    over_rows.append((f"{name} (tiny)", str(tiny[1].state), _fmt(pj * 1e3), _fmt(fs * 1e3),
                                      _fmt(overhead[0]), _fmt(50 + overhead[1]), tiny[1].note.rstrip("; ")))
            lines += goals(name, results, overhead)
    finally:
        if "bench_compile_inductor_" in _INDUCTOR_DIR:  # ours, not a directory the caller named
            shutil.rmtree(_INDUCTOR_DIR, ignore_errors=True)
    where = (f"facade on {_device(facade)}, torch on {_device(torch) if torch else '-'}, "
             f"JAX on {jax.devices()[0].platform}")
    print(f"ms per training step, median of {args.steps} ({where}); 1st/2nd s: the first two calls")
    print_table(("model", "variant", "ms/step", "vs JAX", "vs torch", "1st s", "2nd s", "state", "note"), rows)
    if over_rows:
        print(f"\nPython overhead of a compiled step call: tiny models, median of {args.overhead_steps} calls")
        print_table(("model", "state", "JAX us", "facade us", "overhead us", "goal us", "note"), over_rows)
    if lines:
        print("\ngoals (issue 12)")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
