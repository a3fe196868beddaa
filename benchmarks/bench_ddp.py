"""DDP's and FSDP's per-step overhead on loopback processes: facade (eager and torch.compile'd step) vs real
torch (gloo).

    python benchmarks/bench_ddp.py [--nproc 2] [--steps 50]

One script, run under real torch (`torch.distributed.run`) and under facade's launcher with --nproc processes.
Each rank times, in the same process, an MLP 64-256-256-10 training step (zero_grad, forward, cross-entropy,
backward, SGD step; batch 32 per rank) four ways: the plain model (no DDP, no communication), the model
wrapped in DistributedDataParallel, in FullyShardedDataParallel, with fully_shard on each Linear and the whole
(FSDP2: DTensor parameters), and under facade also
`torch.compile` of the whole DDP step (one SPMD program per rank with the gradient all_reduce inside,
facade/_compile/_spmd.py). The median ms per step of rank 0 is printed, with the overhead over the plain step.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import json, statistics, sys, time
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, steps, facade = dist.get_rank(), int(sys.argv[2]), not hasattr(torch, "_C")
torch.manual_seed(0)
x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))


def timed(model, compiled):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    fn = torch.compile(step) if compiled else step
    out = []
    for i in range(steps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        fn().item()
        if i >= 3:
            out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def mlp():
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def fsdp2():
    m = mlp()
    for layer in m[::2]:
        fully_shard(layer)
    return fully_shard(m)


res = {"plain": timed(mlp(), False), "ddp": timed(DDP(mlp()), False),
       "fsdp": timed(FSDP(mlp(), device_id=torch.device("cpu")), False), "fully_shard": timed(fsdp2(), False)}
if facade:
    res["plain compiled"] = timed(mlp(), True)
    res["ddp compiled"] = timed(DDP(mlp()), True)
if rank == 0:
    json.dump(res, open(sys.argv[1], "w"))
dist.destroy_process_group()
"""


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(lib, nproc, steps, folder):
    script, out = folder / "ddp_step.py", folder / f"{lib}.json"
    script.write_text(SCRIPT)
    launcher = "torch.distributed.run" if lib == "torch" else "facade.distributed.run"
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", launcher, "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.1",
           "--master-port", str(_port()), str(script), str(out), str(steps)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode and not out.exists():  # real torch's gloo now and then aborts at exit, after its report
        raise SystemExit(f"{lib} run failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return json.loads(out.read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nproc", type=int, default=2)
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        rows = {lib: run(lib, args.nproc, args.steps, Path(d)) for lib in ("torch", "facade")}
    print(f"ms per step, median of {args.steps}, rank 0 of {args.nproc} loopback processes (MLP 64-256-256-10, "
          "batch 32 per rank, SGD)")
    print(f"{'library':8} {'variant':16} {'ms/step':>8} {'overhead ms':>12}")
    for lib, res in rows.items():
        for compiled in ("", " compiled"):
            if f"plain{compiled}" in res:
                plain = res[f"plain{compiled}"]
                print(f"{lib:8} {'plain' + compiled:16} {plain:8.3f}")
                for wrapper in ("ddp", "fsdp", "fully_shard"):
                    if wrapper + compiled in res:
                        t = res[wrapper + compiled]
                        print(f"{lib:8} {wrapper + compiled:16} {t:8.3f} {t - plain:12.3f}")


if __name__ == "__main__":
    main()
