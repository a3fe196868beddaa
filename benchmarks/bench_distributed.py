"""Single-process SPMD scaling: steps/s of a compiled whole training step over 1, 2, 4, 8 devices, same global batch.

    python benchmarks/bench_distributed.py [--devices 1,2,4,8] [--models mlp,gpt] [--steps 20]

Each device count runs in its own process (XLA_FLAGS=--xla_force_host_platform_device_count=N on CPU; on a GPU
machine the first N GPUs). Per model, three variants of one `torch.compile`d step (zero_grad, forward,
cross-entropy, backward, optimizer step), all on the same global batch:

    single  the model as is, no layout (one device): the baseline
    dp      facade.distributed._spmd.data_parallel (parameters replicated) + shard_batch (batch split on dim 0)
    fsdp    FullyShardedDataParallel(model) (each parameter sharded along its largest divisible dimension)

Models (benchmarks/compile_models.py): mlp 784-1024-1024-10 batch 256, Adam; gpt 2 layers, 4 heads, 128 dims,
context 64, vocab 65, batch 32, AdamW, dropout 0.1. `steps/s` is the median of --steps synchronised steps (the
loss read back every step) after three warm-up calls. CPU-simulated devices share the machine's cores, so on
CPU the table measures the cost of partitioning and collectives, not a speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"mlp": dict(dims=[784, 1024, 1024, 10], batch=256),
           "gpt": dict(layers=2, heads=4, dim=128, block=64, vocab=65, batch=32, p=0.1)}


def _child(n, models, steps):
    sys.path.insert(0, str(ROOT))
    import jax

    import facade as torch
    from benchmarks.compile_models import MODELS, batch, train_step
    from facade.distributed import _spmd
    from facade.distributed.fsdp import FullyShardedDataParallel

    assert len(jax.devices()) >= n, f"{len(jax.devices())} devices, {n} wanted"
    mesh = _spmd.local_mesh((n,))
    for name in models:
        cfg = CONFIGS[name]
        xs, ys = batch(name, cfg)
        for variant in ("single", "dp", "fsdp"):
            torch.manual_seed(0)
            model, make_opt = MODELS[name](torch, **cfg)
            if variant == "dp":
                _spmd.data_parallel(model, mesh)
            elif variant == "fsdp":
                model = FullyShardedDataParallel(model, device_mesh=mesh)
            opt = make_opt(model.parameters())
            x, y = torch.tensor(xs), torch.tensor(ys)
            if variant == "dp":
                x, y = _spmd.shard_batch((x, y), mesh)

            step = train_step(torch, model, opt)
            fn = torch.compile(step)
            for _ in range(3):
                fn(x, y).item()
            times = []
            for _ in range(steps):
                t = time.perf_counter()
                fn(x, y).item()
                times.append(time.perf_counter() - t)
            print(json.dumps({"devices": n, "model": name, "variant": variant,
                              "steps_per_s": 1 / statistics.median(times)}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", default="1,2,4,8")
    ap.add_argument("--models", default="mlp,gpt")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    models = args.models.split(",")
    if args.child is not None:
        return _child(args.child, models, args.steps)
    rows = []
    for n in map(int, args.devices.split(",")):
        env = {**os.environ, "XLA_FLAGS": f"{os.environ.get('XLA_FLAGS', '')} "
               f"--xla_force_host_platform_device_count={n}".strip()}
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--models", args.models, "--steps",
                              str(args.steps)], env=env, capture_output=True, text=True, timeout=1800)
        if out.returncode:
            sys.exit(f"{n} devices failed:\n{out.stderr[-3000:]}")
        rows += [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    print(f"{'model':6} {'devices':>7} {'single steps/s':>15} {'dp steps/s':>11} {'fsdp steps/s':>13} "
          f"{'dp overhead':>12}")
    for name in models:
        for n in sorted({r["devices"] for r in rows}):
            got = {r["variant"]: r["steps_per_s"] for r in rows if r["model"] == name and r["devices"] == n}
            over = 1e3 / got["dp"] - 1e3 / got["single"]
            print(f"{name:6} {n:7d} {got['single']:15.1f} {got['dp']:11.1f} {got['fsdp']:13.1f} {over:+9.2f} ms")


if __name__ == "__main__":
    main()
