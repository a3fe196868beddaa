"""Per-op cost of facade eager vs raw jax.numpy eager vs real PyTorch eager.

    python benchmarks/bench_ops.py [--reps 300] [--warmup 30]

Cases: (a) a small add (4x4 float32), where the per-call overhead dominates; (b) a 512x512
float32 matmul, where the kernel dominates; (c) forward + backward of a 20-op elementwise chain
on a (256,) tensor: facade autograd vs torch autograd vs `jax.grad` run eagerly, with the jitted
`jax.grad` as a reference for what one XLA program costs. Each number is the median of `reps`
timed calls after `warmup` calls; results are synced (`block_until_ready`) inside the timing.
Real torch is imported here only, as a reference.
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
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import facade  # noqa: E402

try:
    import torch
except ImportError:  # the benchmark still runs, without the torch column
    torch = None


def median_us(fn, sync, warmup, reps):
    for _ in range(warmup):
        sync(fn())
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        sync(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _sync_jax(a):
    jax.block_until_ready(a)


def _sync_facade(t):
    jax.block_until_ready(t.__jax_array__())


def _sync_none(_):
    pass


# The same 20-op chain for every library: 4 blocks of (tanh, mul, sigmoid, add, sin).
def chain(x, tanh, sigmoid, sin):
    for _ in range(4):
        x = sin(sigmoid(tanh(x) * 1.5) + 0.1)
    return x


def cases(n_chain=256, n_mm=512):
    rng = np.random.default_rng(0)
    small = [rng.standard_normal((4, 4), dtype=np.float32) for _ in range(2)]
    big = [rng.standard_normal((n_mm, n_mm), dtype=np.float32) for _ in range(2)]
    vec = rng.standard_normal(n_chain, dtype=np.float32)

    # facade
    fa, fb = (facade.tensor(a) for a in small)
    fA, fB = (facade.tensor(a) for a in big)
    fx = facade.tensor(vec, requires_grad=True)

    def facade_chain():
        fx.grad = None
        chain(fx, facade.tanh, facade.sigmoid, facade.sin).sum().backward()
        return fx.grad

    # jax.numpy
    ja, jb = (jnp.asarray(a) for a in small)
    jA, jB = (jnp.asarray(a) for a in big)
    jx = jnp.asarray(vec)
    jgrad = jax.grad(lambda x: chain(x, jnp.tanh, jax.nn.sigmoid, jnp.sin).sum())
    jadd, jmm, jgrad_jit = jax.jit(jnp.add), jax.jit(jnp.matmul), jax.jit(jgrad)

    rows = {
        "add 4x4": {"facade": (lambda: fa + fb, _sync_facade), "jnp": (lambda: ja + jb, _sync_jax),
                    "jax.jit": (lambda: jadd(ja, jb), _sync_jax)},
        f"matmul {n_mm}x{n_mm}": {"facade": (lambda: fA @ fB, _sync_facade), "jnp": (lambda: jA @ jB, _sync_jax),
                                  "jax.jit": (lambda: jmm(jA, jB), _sync_jax)},
        f"20-op chain fwd+bwd ({n_chain},)": {"facade": (facade_chain, _sync_facade),
                                              "jnp": (lambda: jgrad(jx), _sync_jax),
                                              "jax.jit": (lambda: jgrad_jit(jx), _sync_jax)},
    }
    if torch is not None:
        ta, tb = (torch.from_numpy(a) for a in small)
        tA, tB = (torch.from_numpy(a) for a in big)
        tx = torch.tensor(vec, requires_grad=True)

        def torch_chain():
            tx.grad = None
            chain(tx, torch.tanh, torch.sigmoid, torch.sin).sum().backward()
            return tx.grad

        for row, fn in zip(rows.values(), (lambda: ta + tb, lambda: tA @ tB, torch_chain)):
            row["torch"] = (fn, _sync_none)  # torch CPU ops are synchronous
    return rows


def main():
    parser = argparse.ArgumentParser(description="facade vs jax.numpy vs torch, per-op eager cost")
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()

    cols = ["facade", "jnp", "torch", "jax.jit"]
    print(f"jax {jax.__version__} ({jax.default_backend()}), torch {torch.__version__ if torch else 'absent'}"
          f" ({torch.get_num_threads() if torch else 0} threads); median of {args.reps} calls, in us")
    header = f"{'case':<28}" + "".join(f"{c:>11}" for c in cols) + f"{'facade/jnp':>12}{'facade/torch':>14}"
    print(header)
    print("-" * len(header))
    for name, row in cases().items():
        us = {c: median_us(*row[c], args.warmup, args.reps) if c in row else float("nan") for c in cols}
        print(f"{name:<28}" + "".join(f"{us[c]:>11.1f}" for c in cols)
              + f"{us['facade'] / us['jnp']:>12.2f}{us['facade'] / us['torch']:>14.2f}")
    print("jax.jit: the same computation as one compiled XLA call, for reference "
          "(for the chain row, jnp is jax.grad run eagerly, op by op).")


if __name__ == "__main__":
    main()
