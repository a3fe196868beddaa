"""torch.save / torch.load throughput: facade against real PyTorch on the same 100 MB state dict.

    python benchmarks/bench_serialization.py [--tensors 25] [--numel 1000000] [--repeat 5]

Both libraries save the same values (25 float32 tensors of 1M elements = 100 MB by default) to files in one
temporary directory and load them back; the best of `--repeat` runs is reported in MB/s (1 MB = 1e6 bytes).
facade's save to a file includes its atomic write's fsync (torch does not fsync); its loads include the CRC-32
check of every record (torch checks none). The BytesIO rows leave the disk out.
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import tempfile
import time

import numpy as np


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensors", type=int, default=25)
    ap.add_argument("--numel", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    import torch

    import facade

    rng = np.random.default_rng(0)
    values = [rng.standard_normal(args.numel, dtype=np.float32) for _ in range(args.tensors)]
    sd_facade = collections.OrderedDict((f"layer{i}.weight", facade.tensor(v)) for i, v in enumerate(values))
    sd_torch = collections.OrderedDict((f"layer{i}.weight", torch.from_numpy(v.copy())) for i, v in enumerate(values))
    mb = sum(v.nbytes for v in values) / 1e6

    rows = []
    with tempfile.TemporaryDirectory() as d:
        pf, pt = os.path.join(d, "facade.pt"), os.path.join(d, "torch.pt")
        save_f = _best(lambda: facade.save(sd_facade, pf), args.repeat)
        save_t = _best(lambda: torch.save(sd_torch, pt), args.repeat)

        def load_f():
            out = facade.load(pf)
            for t in out.values():
                t._arr().block_until_ready()

        load_t = _best(lambda: torch.load(pt), args.repeat)
        load_f_s = _best(load_f, args.repeat)
        mmap_f = _best(lambda: facade.load(pf, mmap=True), args.repeat)
        mmap_t = _best(lambda: torch.load(pt, mmap=True), args.repeat)
        cross = facade.load(pt)
        assert all(np.array_equal(cross[k].numpy(), sd_torch[k].numpy()) for k in sd_torch)
        back = torch.load(pf)
        assert all(torch.equal(back[k], sd_torch[k]) for k in sd_torch)
        mem_f, mem_t = io.BytesIO(), io.BytesIO()
        facade.save(sd_facade, mem_f)
        torch.save(sd_torch, mem_t)
        bsave_f = _best(lambda: facade.save(sd_facade, io.BytesIO()), args.repeat)
        bsave_t = _best(lambda: torch.save(sd_torch, io.BytesIO()), args.repeat)
        bload_f = _best(lambda: [t._arr().block_until_ready() for t in
                                 facade.load(io.BytesIO(mem_f.getvalue())).values()], args.repeat)
        bload_t = _best(lambda: torch.load(io.BytesIO(mem_t.getvalue())), args.repeat)
        rows += [("save file", save_f, save_t), ("load file", load_f_s, load_t), ("load mmap=True", mmap_f, mmap_t),
                 ("save BytesIO", bsave_f, bsave_t), ("load BytesIO", bload_f, bload_t)]

    print(f"state dict: {args.tensors} float32 tensors x {args.numel} elements = {mb:.0f} MB "
          f"(best of {args.repeat})")
    print(f"{'':16s}{'facade MB/s':>14s}{'torch MB/s':>14s}{'facade/torch':>14s}")
    for name, tf, tt in rows:
        print(f"{name:16s}{mb / tf:14.0f}{mb / tt:14.0f}{tt / tf:14.2f}")


if __name__ == "__main__":
    main()
