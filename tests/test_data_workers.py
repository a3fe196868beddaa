"""DataLoader with worker processes: batches and order against real torch, worker seeding and
init, persistent workers, sharded iterable datasets, what tensors can do inside a worker (host
tensors, never JAX), and faults: worker exceptions, killed workers, timeouts, no process left over.

Worker processes import this module to unpickle its datasets, so it imports real torch only inside
the tests (a module-level `import torch` would cost every worker seconds).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter, namedtuple
from pathlib import Path

import numpy as np
import psutil
import pytest

import facade
from facade.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore:This DataLoader will create")  # 3 or 4 workers on 2 cores
Pair = namedtuple("Pair", ["x", "y"])


def plain(x):
    """A batch (of torch or facade tensors, nested in dicts, lists, tuples and namedtuples) as plain
    comparable Python: a tensor is (dtype, shape, values)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return ("numpy", x.dtype.str, x.tolist())
    if hasattr(x, "dtype") and hasattr(x, "tolist"):
        return ("tensor", str(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):  # namedtuples (and torch.return_types) by their type name
        return (type(x).__name__, [plain(v) for v in x])
    return x


@pytest.fixture(scope="module")
def torch():
    import torch

    return torch


@pytest.fixture(autouse=True)
def _no_leftover_workers():
    """Every test ends with no worker process of ours alive."""
    yield
    gc.collect()  # a test's own loaders, if it kept them in locals until now
    assert multiprocessing.active_children() == []


# ---------------------------------------------------------------------------- datasets (used in workers)

def _lib(name):
    import importlib

    return importlib.import_module(name)


class Samples(Dataset):
    """Samples built with creation ops, numpy and tensor arithmetic: what a worker's tensors can do."""

    def __init__(self, n=11, lib="facade"):
        self.n, self.lib = n, lib

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t = _lib(self.lib)
        x = t.tensor([i, i + 0.5, -i], dtype=t.float32) * 2 - 1
        img = t.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3) + i)
        img = (img / 4).clamp(max=2.0)[:, 1:]  # (/ 5 would differ: XLA divides by a scalar as * (1 / 5))
        return {"x": x, "img": img, "label": i % 3, "w": float(i) / 4, "name": f"s{i}",
                "pair": Pair(t.arange(i % 4 + 1).sum(), np.full(2, i, np.int32))}


class Info(Dataset):
    """Each sample reports the worker that made it (and what worker_init_fn set up there)."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "seed": info.seed, "pid": os.getpid(),
                "init": getattr(info.dataset, "init_by", -1), "np": int(np.random.randint(1 << 30)),
                "torch": facade.randint(0, 1 << 30, ()).item()}


def set_init_by(worker_id):
    get_worker_info().dataset.init_by = worker_id


class Stream(IterableDataset):
    """range(start, end), sharded over the workers with get_worker_info when `shard`."""

    def __init__(self, start, end, shard=True):
        self.start, self.end, self.shard = start, end, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class Faulty(Dataset):
    """Raises `kind` at index `bad` ('kill': the worker kills itself; 'sleep': takes `delay` seconds)."""

    def __init__(self, kind, bad=3, n=8, delay=1.0):
        self.kind, self.bad, self.n, self.delay = kind, bad, n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            if self.kind == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif self.kind == "sleep":
                time.sleep(self.delay)
            elif self.kind == "ragged":
                return facade.zeros(4)
            else:
                raise self.kind(f"bad sample {i}")
        return facade.zeros(3) + i


def _alias(t):
    a = np.zeros(3, np.float32)
    x = t.from_numpy(a)
    x.add_(1)
    x[1] = 5
    return t.tensor(a)


def _writes(t):
    y = t.arange(12).view(3, 4).clone()
    y[0, 1] = 100
    y[y > 8] = 0
    y[1].add_(5)
    y[:, 3].fill_(-1)
    return y


# What a dataset's __getitem__ may do with tensors inside a worker; each entry runs there on host
# tensors and, in the main process, on real torch's.
OPS = [
    lambda t: t.tensor([[1, 2], [3, 4]]) + 1,
    lambda t: t.tensor([[1, 2], [3, 4]]) * 2.5 - t.tensor([0.5, 1.0]),
    lambda t: t.tensor([7, -7]) / 2,
    lambda t: (t.tensor([7, -7]) // 2, t.tensor([7, -7]) % 3, t.tensor([7.0, -7.0]).div(2, rounding_mode="trunc")),
    lambda t: (t.tensor([1.0, 4.0]) ** 2, -t.tensor([1, -2]), t.tensor([-1.5, 2.0]).abs()),
    lambda t: (t.tensor([1, 2, 3]) > 2, t.tensor([1, 2, 3]) == 2, t.tensor([1.0, 2.0]) <= 1.5),
    lambda t: (t.tensor([1.7, -1.7]).long(), t.tensor([1, 0]).float(), t.tensor([2, 0]).bool(),
               t.tensor([1, 2], dtype=t.uint8).to(t.float64), t.tensor([1.5]).to(t.int32)),
    lambda t: (t.arange(12).view(3, 4)[0], t.arange(12).view(3, 4)[:, 1], t.arange(12).view(3, 4)[1:, ::2],
               t.arange(12).view(3, 4)[None, 1:, -1]),
    lambda t: (t.arange(12).view(3, 4)[t.arange(12).view(3, 4) > 6], t.arange(12).view(3, 4)[[0, 2], [1, 3]],
               t.arange(12).view(3, 4)[t.tensor([2, 0])]),
    _writes,
    _alias,
    lambda t: (t.arange(6).reshape(2, 3).t(), t.arange(6).view(1, 2, 3).squeeze(0).unsqueeze(-1).shape,
               t.arange(24).view(2, 3, 4).permute(2, 0, 1).flatten(1), t.arange(6).view(2, 3).transpose(0, 1)),
    lambda t: (t.cat([t.ones(2, 2), t.zeros(1, 2)]), t.stack([t.arange(3), t.arange(3)], 1)),
    lambda t: (t.arange(6.0).view(2, 3).sum(), t.arange(6.0).view(2, 3).mean(0), tuple(t.arange(6).view(2, 3).max(1)),
               t.arange(6.0).view(2, 3).std(1), t.arange(6).view(2, 3).argmax()),
    lambda t: (t.where(t.arange(4) > 1, t.arange(4), t.zeros(4, dtype=t.int64)), t.arange(5.0).clamp(1, 3),
               t.arange(1.0, 4.0).sqrt(), t.arange(3.0).exp(), t.arange(1.0, 3.0).log()),
    lambda t: (t.zeros(2, 3), t.ones(3, dtype=t.int32), t.arange(0.0, 1.0, 0.25), t.full((2,), 7), t.eye(2),
               t.zeros_like(t.ones(2, dtype=t.int16)), t.linspace(0, 1, 5)),
    lambda t: (t.ones(2, 3) @ t.ones(3, 2), t.arange(6).view(2, 3).unbind(1), t.arange(7).split(3),
               t.arange(7).chunk(3)),
    lambda t: t.tensor(np.arange(4.0)) * t.from_numpy(np.array([1, 2, 3, 4], np.int32)),
    lambda t: (t.tensor(t.arange(3).detach()), t.tensor(t.ones(2), dtype=t.int64), t.as_tensor([1, 2.5]),
               t.logspace(0, 2, 3), t.full_like(t.ones(2), 7), t.empty(0)),
]


class Ops(Dataset):
    def __len__(self):
        return len(OPS)

    def __getitem__(self, i):
        return OPS[i](facade)


class JaxState(Dataset):
    """Whether JAX's runtime has started in the worker, after everything `Ops` and `Samples` do."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        from jax._src import xla_bridge

        [Ops()[k] for k in range(len(OPS))]
        Samples()[1]
        facade.rand(3), facade.randn(2, 2), facade.randperm(5), facade.zeros(3).uniform_().bernoulli_(0.5)
        facade.randint(0, 5, (2,)), facade.normal(facade.zeros(2), facade.ones(2)), facade.bernoulli(facade.rand(3))
        return xla_bridge.backends_are_initialized()


class Unsupported(Dataset):
    def __len__(self):
        return 1

    def __getitem__(self, i):
        return facade.erf(facade.ones(2))


class Unpicklable(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"lock": __import__("threading").Lock(), "i": i}


def _close(a, b):
    """plain() results equal, floats to 1e-6 (numpy's exp or sqrt may differ from torch's in the last bit)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_close, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def _batches(loader):
    return [plain(b) for b in loader]


# ---------------------------------------------------------------------------- batches and order

def test_workers_give_torchs_batches_in_order(torch):
    """0, 1, 2 and 4 workers (in_order): the batches and order of real torch's DataLoader, collated
    from dicts, namedtuples, numbers, strings and numpy arrays made by tensor ops in the workers."""
    expected = _batches(torch.utils.data.DataLoader(Samples(lib="torch"), batch_size=3))
    for workers in (0, 1, 2, 4):
        got = list(DataLoader(Samples(), batch_size=3, num_workers=workers))
        assert [plain(b) for b in got] == expected, f"num_workers={workers}"
    # batches from workers are device tensors here, not numpy-backed host tensors
    assert isinstance(got[0]["x"]._arr(), facade._tensor.jax.Array) and got[0]["x"].device == facade.device("cpu")


def test_shuffle_with_generator_is_reproducible_across_worker_counts(torch):
    ref = _batches(torch.utils.data.DataLoader(Samples(lib="torch"), batch_size=4, shuffle=True))
    runs = [_batches(DataLoader(Samples(), batch_size=4, shuffle=True, num_workers=w,
                                generator=facade.Generator().manual_seed(7))) for w in (0, 2)]
    assert runs[0] == runs[1]
    assert [len(b["label"][3]) for b in runs[0]] == [len(b["label"][3]) for b in ref]

    def samples(batches):  # each sample's x, as a multiset
        return Counter(tuple(row) for b in batches for row in b["x"][3])

    assert samples(runs[0]) == samples(ref)


def test_in_order_false_and_drop_last_and_prefetch(torch):
    ref = _batches(torch.utils.data.DataLoader(Samples(lib="torch"), batch_size=2, drop_last=True))
    got = _batches(DataLoader(Samples(), batch_size=2, drop_last=True, num_workers=2, in_order=False,
                              prefetch_factor=1))
    assert sorted(map(repr, got)) == sorted(map(repr, ref)) and len(got) == len(ref) == 5


def test_pin_memory_device_prefetch_thread(torch):
    """pin_memory_device: a thread moves each batch to that device while the current one is used."""
    expected = _batches(torch.utils.data.DataLoader(Samples(lib="torch"), batch_size=4))
    loader = DataLoader(Samples(), batch_size=4, num_workers=2, pin_memory=True, pin_memory_device="cpu")
    assert _batches(loader) == expected
    assert _batches(DataLoader(Samples(), batch_size=4, pin_memory=True, pin_memory_device="cpu")) == expected


# ---------------------------------------------------------------------------- workers: seeds, init, reuse

def test_worker_info_seeds_and_init_fn():
    """worker_init_fn runs once in each worker; each worker's seed is base_seed + id, and seeds torch's
    and numpy's generators there (a different stream per worker, the same for the same generator)."""
    def run():
        loader = DataLoader(Info(), batch_size=2, num_workers=3, worker_init_fn=set_init_by,
                            generator=facade.Generator().manual_seed(3))
        return [dict(zip(b, v)) for b in loader for v in zip(*[b[k].tolist() for k in b])]

    rows = run()
    assert [r["i"] for r in rows] == list(range(12))
    assert [r["id"] for r in rows] == [0, 0, 1, 1, 2, 2] * 2  # batches go to the workers in turn
    assert all(r["init"] == r["id"] and r["num_workers"] == 3 for r in rows)
    seeds = {r["id"]: r["seed"] for r in rows}
    assert seeds[1] - seeds[0] == 1 and seeds[2] - seeds[0] == 2
    assert len({r["pid"] for r in rows}) == 3 and os.getpid() not in {r["pid"] for r in rows}
    first = {r["id"]: (r["np"], r["torch"]) for r in rows if r["i"] in (0, 2, 4)}
    assert len(set(first.values())) == 3  # workers draw different numbers
    again = run()
    assert [(r["np"], r["torch"]) for r in again] == [(r["np"], r["torch"]) for r in rows]


def test_numpy_seed_of_a_worker_is_torchs(torch):
    from torch.utils.data._utils.worker import _generate_state as torch_state

    from facade.utils.data._utils.worker import _generate_state

    for base, worker in ((0, 0), (12345, 3), (2**63 - 1, 7), (987654321987654321, 1)):
        assert _generate_state(base, worker) == torch_state(base, worker)


def test_persistent_workers_are_reused_across_epochs():
    loader = DataLoader(Info(), batch_size=4, num_workers=2, persistent_workers=True)
    epochs = [[b["pid"].tolist() for b in loader] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2] and len({p for e in epochs[0] for p in e}) == 2
    assert [b["i"].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    fresh = DataLoader(Info(), batch_size=4, num_workers=2)
    assert {p for b in fresh for p in b["pid"].tolist()} != {p for b in loader for p in b["pid"].tolist()}
    loader._iterator._shutdown_workers()


@pytest.mark.parametrize("workers,batch_size,drop_last", [(2, 2, False), (3, 2, False), (3, 2, True), (2, None,
                                                                                                         False)])
def test_iterable_dataset_sharded_by_worker_info_yields_each_sample_once(torch, workers, batch_size, drop_last):
    def values(batches):
        return [v for b in batches for v in ([b] if isinstance(b, int) else b.tolist())]

    got = values(DataLoader(Stream(3, 14), batch_size=batch_size, num_workers=workers, drop_last=drop_last))
    # torch's rule: each worker batches its own shard; drop_last drops each worker's short tail
    ref = []
    for w in range(workers):
        shard = list(range(3, 14))[w * -(-11 // workers):(w + 1) * -(-11 // workers)]
        ref += list(torch.utils.data.DataLoader(shard, batch_size=batch_size, drop_last=drop_last))
    assert sorted(got) == sorted(values(ref))
    if not drop_last:
        assert sorted(got) == list(range(3, 14))


def test_iterable_dataset_with_persistent_workers_restarts_each_epoch():
    loader = DataLoader(Stream(0, 9), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert sorted(v for b in loader for v in b.tolist()) == list(range(9))
    loader._iterator._shutdown_workers()


def test_iterable_dataset_without_sharding_repeats_per_worker():
    got = list(DataLoader(Stream(0, 4, shard=False), batch_size=None, num_workers=2))
    assert got == [0, 0, 1, 1, 2, 2, 3, 3]  # as torch's documentation shows


def test_local_dataset_class_and_lambda_collate_fn():
    """What only forked workers could receive in torch (plain pickle refuses them) reaches forkserver
    workers by value (cloudpickle)."""
    class Local(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return facade.tensor([i]) * 3

    loader = DataLoader(Local(), batch_size=2, num_workers=1, collate_fn=lambda b: facade.cat(b).tolist(),
                        worker_init_fn=lambda i: None)
    assert list(loader) == [[0, 3], [6, 9], [12]]


# ---------------------------------------------------------------------------- tensors inside workers

@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")  # torch.tensor(tensor) in OPS, as torch warns
def test_tensor_ops_inside_workers_match_torch(torch):
    got = list(DataLoader(Ops(), batch_size=None, num_workers=1))
    for k, (fn, result) in enumerate(zip(OPS, got)):
        expected = plain(torch.utils.data.default_convert(fn(torch)))
        assert _close(plain(result), expected), f"OPS[{k}]: {plain(result)} vs torch {expected}"


def test_workers_never_start_jax():
    assert list(DataLoader(JaxState(), batch_size=None, num_workers=1)) == [False]


def test_random_inside_workers():
    class_ = Info()
    a = [b["torch"].tolist() for b in DataLoader(class_, batch_size=6, num_workers=2,
                                                 generator=facade.Generator().manual_seed(1))]
    b = [b["torch"].tolist() for b in DataLoader(class_, batch_size=6, num_workers=2,
                                                 generator=facade.Generator().manual_seed(2))]
    assert a != b and all(0 <= v < 1 << 30 for batch in a for v in batch)


def test_unsupported_op_in_worker_names_it():
    with pytest.raises(RuntimeError, match=r"(?s)Caught RuntimeError in DataLoader worker process 0.*torch\.erf is "
                                           r"not available in DataLoader worker processes.*Available in workers: "):
        list(DataLoader(Unsupported(), num_workers=1))


# ---------------------------------------------------------------------------- faults

def test_batch_that_cannot_be_pickled_raises_instead_of_hanging():
    """multiprocessing would print the pickling error in the worker and drop the batch (torch then
    waits forever); here the error reaches the main process."""
    with pytest.raises(TypeError, match=r"(?s)Caught TypeError in DataLoader worker process 0\..*cannot pickle "
                                        r"'_thread\.lock' object"):
        list(DataLoader(Unpicklable(), batch_size=None, num_workers=1))


def _gone(pids):
    return not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)


def _worker_pids(loader):
    it = iter(loader)
    return it, [w.pid for w in it._workers]


def test_worker_exception_reaches_main_process_with_its_traceback():
    it, pids = _worker_pids(DataLoader(Faulty(ValueError), batch_size=2, num_workers=2))
    with pytest.raises(ValueError) as e:
        list(it)
    msg = str(e.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback (most recent call "
                          "last):\n")
    assert "in __getitem__\n    raise self.kind(f\"bad sample {i}\")" in msg and msg.endswith("ValueError: bad "
                                                                                                  "sample 3\n")
    del it, e
    assert multiprocessing.active_children() == [] and _gone(pids)


def test_key_error_keeps_its_message_readable():
    with pytest.raises(KeyError, match=r"Caught KeyError in DataLoader worker process 0") as e:
        list(DataLoader(Faulty(KeyError, bad=0), num_workers=1))
    assert "\\n" not in str(e.value)  # KeyError's repr would escape the traceback's newlines


def test_ragged_batch_in_worker_raises_torchs_stack_message():
    with pytest.raises(RuntimeError, match=r"(?s)Caught RuntimeError in DataLoader worker process 0\..*stack expects "
                                           r"each tensor to be equal size, but got \[3\] at entry 0 and \[4\] at "
                                           r"entry 1"):
        list(DataLoader(Faulty("ragged", bad=1), batch_size=2, num_workers=1))
    assert multiprocessing.active_children() == []


def test_killed_worker_raises_instead_of_hanging():
    # index 7 is dispatched only after batches are consumed (2 workers x prefetch 2 hold indices 0-3 at first),
    # so the first batch always arrives before the kill
    it, pids = _worker_pids(DataLoader(Faulty("kill", bad=7), num_workers=2))
    next(it)  # the workers are up
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited unexpectedly$") as e:
        list(it)
    assert time.monotonic() - start < 4  # noticed when it happens, not at the next status check (5 s)
    assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed\. ", str(e.value.__cause__))
    del it, e
    assert multiprocessing.active_children() == [] and _gone(pids)


def test_iterator_freed_by_the_garbage_collector_stops_its_workers_at_once():
    """The collector may finalize the index queues' feeder threads before the iterator, losing the
    exit message: workers still notice the shutdown."""
    it = iter(DataLoader(Info(), num_workers=2))
    next(it)
    workers = list(it._workers)
    it.cycle = it  # only the garbage collector can free it
    del it
    gc.collect()
    # Each worker exited by itself (exit code 0) rather than being terminated after the join timed out
    # (-SIGTERM); a check of exit codes, not of time, so that a loaded machine cannot fail it.
    assert [w.exitcode for w in workers] == [0, 0] and multiprocessing.active_children() == []


def test_timeout_raises_and_leaves_no_worker():
    it, pids = _worker_pids(DataLoader(Faulty("sleep", bad=0, delay=1.5), num_workers=1, timeout=0.2))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0\.2 seconds$"):
        next(it)
    assert time.monotonic() - start < 1.4
    del it
    assert multiprocessing.active_children() == [] and _gone(pids)


# ---------------------------------------------------------------------------- start methods

_SCRIPT = """
import sys
import numpy as np
import {lib} as torch
from {lib}.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return torch.tensor([i, i * i]) * 2 + torch.from_numpy(np.ones(2, np.int64))


if __name__ == "__main__":
    from jax._src import xla_bridge
    print("jax started at import:", xla_bridge.backends_are_initialized())
    from facade.utils.data.dataloader import _default_context
    print("default while JAX is idle:", _default_context().get_start_method())
    for ctx in sys.argv[1:]:
        loader = DataLoader(Squares(), batch_size=4, num_workers=2,
                            multiprocessing_context=None if ctx == "default" else ctx)
        try:
            print(ctx, [b.sum(0).tolist() for b in loader])
        except RuntimeError as e:
            print(ctx, "error:", e)
"""


def _run_script(tmp_path, args, lib="facade", runner=False):
    script = tmp_path / "loader_script.py"
    script.write_text(textwrap.dedent(_SCRIPT.format(lib=lib)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, *(["-m", "facade"] if runner else []), str(script), *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


# the script's batch sums: sample i is [2 i + 1, 2 i^2 + 1], batches of 4 out of 10
_SUMS = [[sum(2 * i + 1 for i in b), sum(2 * i * i + 1 for i in b)] for b in ([0, 1, 2, 3], [4, 5, 6, 7], [8, 9])]


def test_guarded_script_works_with_every_start_method(tmp_path):
    lines = _run_script(tmp_path, ["default", "fork", "forkserver", "spawn"])
    assert lines[:2] == ["jax started at import: False", "default while JAX is idle: fork"]
    assert lines[2:] == [f"{ctx} {_SUMS}" for ctx in ("default", "fork", "forkserver", "spawn")]


def test_script_under_the_torch_alias_runner(tmp_path):
    """`python -m facade script.py`: workers forked by the forkserver resolve the script's `import
    torch` to facade too; spawn, which cannot, is refused with a clear error."""
    lines = _run_script(tmp_path, ["forkserver", "spawn"], lib="torch", runner=True)
    assert lines[2] == f"forkserver {_SUMS}"
    assert lines[3].startswith("spawn error: DataLoader workers cannot be spawned under `python -m facade`")


def test_default_start_method_once_jax_runs():
    facade.ones(1)  # JAX's runtime is running in this process
    from facade.utils.data.dataloader import _default_context

    assert _default_context().get_start_method() == "forkserver"


_NO_GUARD = """
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        return torch.tensor([float(i * i)]), i

x = torch.ones(3) * 2  # JAX runs in the main process: workers come from the forkserver, not a fork
print([b[0].sum().item() for b in DataLoader(Squares(), batch_size=4, num_workers=2)], (x * 2).tolist())
"""


@pytest.mark.parametrize("runner", ["facade", "torch"])
def test_a_script_without_a_main_guard_runs_its_workers_once(tmp_path, runner):
    """Many public scripts build their DataLoader at module level. torch's forked workers never run the script
    again; facade's forkserver workers must not either (each would train and start workers again, and hang)."""
    script = tmp_path / "noguard.py"
    script.write_text(_NO_GUARD)
    cmd = [sys.executable, *(["-m", "facade"] if runner == "facade" else []), str(script)]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[14.0, 126.0, 366.0] [4.0, 4.0, 4.0]"]
