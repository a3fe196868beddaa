"""One Adam.step() over a ~10M-parameter model: facade vs real PyTorch vs pure optax (jitted).

    python benchmarks/bench_optim.py [--reps 20] [--warmup 3]

The parameters have the shapes of a small transformer (token embedding, 8 blocks of attention +
MLP + layer norms, output head: ~10.4M float32 values in 100 tensors); every parameter has a
gradient. facade: `facade.optim.Adam.step()` (one jitted update per group, written back in place).
torch: `torch.optim.Adam.step()` with its default implementation choice (on CPU that is the
per-tensor loop) and with foreach=True. optax: `optax.adam` update + `apply_updates` under one
`jax.jit` over the same list of arrays, the floor for a JAX implementation. Each number is the
median over `reps` steps after `warmup` steps, synchronised.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import jax  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402

import facade  # noqa: E402

try:
    import torch
except ImportError:  # the benchmark still runs, without the torch columns
    torch = None


def shapes(vocab=8000, d=256, layers=8, ff=1024):
    out = [(vocab, d)]
    for _ in range(layers):
        out += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (ff, d), (ff,), (d, ff), (d,)]
    return out + [(d,), (d,), (vocab, d)]


def median_ms(step, sync, warmup, reps):
    for _ in range(warmup):
        step()
        sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes()]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes()]
    n = sum(a.size for a in init)
    print(f"Adam.step() over {n / 1e6:.1f}M float32 parameters in {len(init)} tensors "
          f"(median of {args.reps}, {jax.default_backend()})")

    ps = [facade.tensor(a, requires_grad=True) for a in init]
    for p, g in zip(ps, grads):
        p.grad = facade.tensor(g)
    opt = facade.optim.Adam(ps, lr=1e-3)
    results = {"facade": median_ms(opt.step, lambda: jax.block_until_ready([p._arr() for p in ps]),
                                   args.warmup, args.reps)}

    params, gs = [jax.numpy.asarray(a) for a in init], [jax.numpy.asarray(g) for g in grads]
    tx = optax.adam(1e-3)
    state = [tx.init(params)]

    @jax.jit
    def optax_step(params, grads, state):
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    def run_optax():
        params[:], state[0] = optax_step(params, gs, state[0])

    results["optax (jit)"] = median_ms(run_optax, lambda: jax.block_until_ready(params), args.warmup, args.reps)

    if torch is not None:
        for label, kw in (("torch (default)", {}), ("torch foreach=True", {"foreach": True})):
            tp = [torch.tensor(a, requires_grad=True) for a in init]
            for p, g in zip(tp, grads):
                p.grad = torch.tensor(g)
            topt = torch.optim.Adam(tp, lr=1e-3, **kw)
            results[label] = median_ms(topt.step, lambda: None, args.warmup, args.reps)

    base = results.get("torch (default)")
    for k, v in results.items():
        ratio = f"  {v / base:5.2f}x torch default" if base else ""
        print(f"  {k:20s} {v:8.2f} ms{ratio}")


if __name__ == "__main__":
    main()
