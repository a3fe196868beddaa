"""DataLoader throughput (samples/s), facade against real torch, on one dataset doing light numpy
work per sample (a 3x32x32 "image": random draw, normalise, flip; about 30 us), 0, 2 and 4 workers.

    python benchmarks/bench_data.py [--samples 4096] [--batch-size 64] [--epochs 3]

Each batch is used once (summed; the two libraries' sums must agree). For each configuration it
reports the first epoch (worker start-up included: torch forks; facade
forks a forkserver's child, or starts the forkserver first) and the mean of the later epochs with
persistent workers (steady state). Real torch runs first, before this process starts JAX.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Images:
    """A map-style dataset: (image tensor, label) made with numpy, wrapped by torch.from_numpy."""

    def __init__(self, n, lib):
        self.n, self.lib = n, lib

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.random((3, 32, 32), dtype=np.float32)
        img = np.ascontiguousarray(((img - 0.5) / 0.25)[:, :, ::-1])
        return importlib.import_module(self.lib).from_numpy(img), i % 10


def _epoch(loader):
    """(samples, seconds, checksum): each batch is used once (summed), as a training step would."""
    start = time.perf_counter()
    n, checksum = 0, 0.0
    for images, labels in loader:
        n += len(labels)
        checksum += float(images.sum()) + float(labels.sum())
    return n, time.perf_counter() - start, checksum


def run(lib, workers, args):
    data = importlib.import_module(lib + ".utils.data")
    kwargs = {"persistent_workers": True} if workers else {}
    loader = data.DataLoader(Images(args.samples, lib), batch_size=args.batch_size, num_workers=workers, **kwargs)
    n, first, checksum = _epoch(loader)
    later = [_epoch(loader)[1] for _ in range(args.epochs - 1)]
    if workers:
        loader._iterator._shutdown_workers()
    return n / first, n / (sum(later) / len(later)) if later else float("nan"), checksum


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=4096)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--workers", type=int, nargs="+", default=[0, 2, 4])
    args = p.parse_args()
    warnings.filterwarnings("ignore", message="This DataLoader will create")  # more workers than CPUs
    warnings.filterwarnings("ignore", message="os.fork")  # JAX's warning when torch forks its workers

    import torch

    torch.set_num_threads(1)  # the sums are tiny: torch's thread pool would only add contention
    results = {}
    for lib in ("torch", "facade"):  # torch first: it forks before this process has started JAX
        for workers in args.workers:
            results[lib, workers] = run(lib, workers, args)
    print(f"DataLoader over {args.samples} samples, batch {args.batch_size}, {os.cpu_count()} CPUs "
          f"(samples/s; 'first' includes starting the workers)")
    print(f"{'workers':>7} | {'torch first':>11} {'torch steady':>12} | {'facade first':>12} {'facade steady':>13} "
          f"| {'steady ratio':>12}")
    for workers in args.workers:
        (tf, ts, tsum), (ff, fs, fsum) = results["torch", workers], results["facade", workers]
        assert abs(tsum - fsum) <= 1e-4 * abs(tsum), f"checksums differ: torch {tsum}, facade {fsum}"
        print(f"{workers:>7} | {tf:>11.0f} {ts:>12.0f} | {ff:>12.0f} {fs:>13.0f} | {fs / ts:>11.2f}x")


if __name__ == "__main__":
    main()
