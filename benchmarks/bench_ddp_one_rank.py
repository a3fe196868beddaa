"""One rank of DDP / FSDP / fully_shard on the GPU (world size 1, for a machine with one GPU; the CPU without one),
timed against the plain step: the wrappers' own per-step cost on the device. Run it under real torch and under facade:

    python benchmarks/bench_ddp_one_rank.py 29533
    python -m facade benchmarks/bench_ddp_one_rank.py 29534

The argument is a free port for the process group's rendezvous. Prints ms/step (median of the last 30 of 40
steps), the first step's seconds and the first and last losses (each library's variants should agree).
"""
import os
import statistics
import sys
import time

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1], RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP  # noqa: E402
from torch.distributed.fsdp import fully_shard  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

dev = "cuda" if torch.cuda.is_available() else "cpu"
dist.init_process_group("nccl" if dev == "cuda" else "gloo")
torch.manual_seed(0)
x, y = torch.randn(256, 512, device=dev), torch.randint(0, 10, (256,), device=dev)


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)).to(dev)


def run(name, wrap):
    m = wrap(make())
    opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    times, losses = [], []
    for _ in range(40):
        t = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        times.append(time.perf_counter() - t)
    print(f"{torch.__name__:7s} {dev} {name:11s} {statistics.median(times[10:]) * 1e3:7.3f} ms/step  "
          f"first {times[0]:6.3f} s  loss[0] {losses[0]:.6f} loss[-1] {losses[-1]:.6f}", flush=True)


def fs(m):
    for layer in m:
        if isinstance(layer, nn.Linear):
            fully_shard(layer)
    return fully_shard(m)


run("plain", lambda m: m)
run("DDP", lambda m: DDP(m, device_ids=[0] if dev == "cuda" else None))
run("FSDP", lambda m: FSDP(m, device_id=torch.device(dev)))
run("fully_shard", fs)
dist.destroy_process_group()
