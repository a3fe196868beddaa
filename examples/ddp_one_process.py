"""Data-parallel training with DistributedDataParallel: one process by default, several under a launcher.

A plain PyTorch DDP script: init_process_group("gloo"), a DistributedSampler per split, the model wrapped
in DistributedDataParallel (gradients averaged across ranks in backward), metrics summed across ranks with
all_reduce, a checkpoint written by rank 0 and read back by every rank, destroy_process_group. Started on
its own it is a world of one process on loopback; under a launcher each process is one rank:

    python examples/ddp_one_process.py                      # real PyTorch, one process
    python -m facade examples/ddp_one_process.py            # the same script on facade (JAX)
    python -m facade.distributed.run --nproc-per-node 2 examples/ddp_one_process.py   # facade, 2 processes
    torchrun --nproc-per-node 2 examples/ddp_one_process.py                           # real PyTorch, 2 processes

The task is the embedded digits set (examples/data/digits.csv.gz) with an MLP. The global batch is fixed
and the training set is a whole number of global batches, so 1 and 2 processes print the same numbers.
Each rank starts from its own numpy-seeded weights; DDP's broadcast from rank 0 at construction is what
makes the replicas equal.
"""

import argparse
import os
import shutil
import socket
import tempfile

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from train_digits import load_digits  # examples/ is sys.path[0] when a script there runs


def init_process_group():
    """Join the launcher's rendezvous (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT); alone, a world of one."""
    if "RANK" not in os.environ:
        with socket.socket() as s:  # a free loopback port for the (one-member) rendezvous
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def make_model(rng):
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    with torch.no_grad():  # LeCun-normal weights and zero biases, drawn from numpy rather than torch's RNG
        for m in model:
            if isinstance(m, nn.Linear):
                m.weight.copy_(torch.from_numpy(rng.standard_normal(m.weight.shape).astype(np.float32)
                                                / np.sqrt(m.in_features, dtype=np.float32)))
                m.bias.zero_()
    return model


def all_sum(*values):
    """The sums over all ranks of some Python numbers: one all_reduce of a float64 tensor."""
    t = torch.tensor(values, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return t.tolist()


@torch.no_grad()
def evaluate(model, loader):
    """(mean loss, accuracy) over the whole split: each rank sees its shard, all_reduce adds them up."""
    model.eval()
    loss = correct = count = 0.0
    for xb, yb in loader:
        logits = model(xb)
        loss += nn.functional.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(1) == yb).sum().item()
        count += len(yb)
    model.train()
    loss, correct, count = all_sum(loss, correct, count)
    return loss / count, correct / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--global-batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rank, world = init_process_group()
    log = print if rank == 0 else (lambda *a, **k: None)
    if args.global_batch % world:
        raise SystemExit(f"--global-batch {args.global_batch} is not divisible by the world size {world}")

    # The split is shuffled once by numpy, the same on every rank; the samplers then do not shuffle, because
    # a seeded shuffle=True draws from torch's RNG, whose stream facade does not reproduce.
    x, y = load_digits()
    x = x.reshape(-1, 64)
    order = torch.from_numpy(np.random.default_rng(args.seed).permutation(len(y)))
    n_train = 1497 // args.global_batch * args.global_batch
    train_set = TensorDataset(x[order[:n_train]], y[order[:n_train]])
    test_set = TensorDataset(x[order[1497:]], y[order[1497:]])
    train_sampler = DistributedSampler(train_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.global_batch // world, sampler=train_sampler)
    test_loader = DataLoader(test_set, batch_size=100, sampler=DistributedSampler(test_set, shuffle=False))

    model = DDP(make_model(np.random.default_rng(args.seed + 1 + rank)))
    log(f"world size {world}, parameters {sum(p.numel() for p in model.parameters())}, "
        f"{len(train_loader)} steps per epoch")
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    for epoch in range(1, args.epochs + 1):
        train_sampler.set_epoch(epoch)
        loss_sum = 0.0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()  # DDP averages the gradients over the ranks here
            optimizer.step()
            loss_sum += loss.item() * len(yb)
        (train_loss,) = all_sum(loss_sum)
        test_loss, test_acc = evaluate(model, test_loader)
        log(f"epoch {epoch}: train loss {train_loss / n_train:.4f}  test loss {test_loss:.4f}  test acc {test_acc:.4f}")

    # Rank 0 writes the checkpoint into a folder it names to everyone; all ranks read it back.
    folder = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(folder, src=0)
    path = os.path.join(folder[0], "ddp_checkpoint.pt")
    if rank == 0:
        torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict()}, path)
    dist.barrier()
    restored = make_model(np.random.default_rng(args.seed + 100))
    restored.load_state_dict(torch.load(path, map_location="cpu")["model"])
    test_loss, test_acc = evaluate(restored, test_loader)
    log(f"restored checkpoint: test loss {test_loss:.4f}  test acc {test_acc:.4f}")
    dist.barrier()  # everyone has read it before rank 0 removes it
    if rank == 0:
        shutil.rmtree(folder[0])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
