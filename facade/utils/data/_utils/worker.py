"""The loop a DataLoader worker process runs, and what the dataset sees of it (get_worker_info).

A worker never starts JAX: it switches to host mode (facade._host) before it unpickles anything,
so the dataset's tensors, and those its `__getitem__` and the collate_fn make, hold numpy arrays.
Batches go back pickled and become device tensors in the main process.
"""

from __future__ import annotations

import contextlib
import multiprocessing.queues
import os
import pickle
import queue
import random
import sys
from dataclasses import dataclass

import numpy as np

from .... import _host
from . import ExceptionWrapper

__all__ = ["WorkerInfo", "get_worker_info"]


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive (its parent pid changes)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info: WorkerInfo | None = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What `get_worker_info()` returns in a worker: its id, the number of workers, its seed (set
    into `random`, torch and numpy before `worker_init_fn` runs) and its copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object | None = None
    worker_method: str | None = "multiprocessing"


def get_worker_info() -> WorkerInfo | None:
    """The WorkerInfo of this DataLoader worker process; None in the main process.

    An IterableDataset uses it to shard itself: worker `info.id` of `info.num_workers` yields its share.
    """
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch (they acknowledge it)."""


class _ResultQueue(multiprocessing.queues.Queue):
    """The workers' result queue. multiprocessing pickles what a worker puts on a background thread
    and, should that fail, prints the error and drops the item: the main process would wait forever
    for that batch. Here the batch's task gets the error instead."""

    def __init__(self, ctx):
        super().__init__(ctx=ctx)

    def _on_queue_feeder_error(self, e, obj):
        where = "in DataLoader worker process" + ("" if _worker_info is None else f" {_worker_info.id}")
        self.put((obj[0], ExceptionWrapper((type(e), e, e.__traceback__), where=where)))


class _HostPickled:
    """Objects for a worker that unpickle in host mode (spawn and forkserver workers unpickle their
    arguments before the worker loop runs: the dataset's tensors must not reach JAX there).

    What plain pickle refuses (a lambda collate_fn, a dataset class defined in a function: fine
    for torch's forked workers) goes by value with cloudpickle, where it is installed.
    """

    by_value = False  # set while workers start with __main__ hidden (main_not_reimported)

    def __init__(self, *objs):
        self.objs = objs

    def __reduce__(self):
        from multiprocessing.reduction import ForkingPickler

        try:
            if self.by_value:
                import cloudpickle

                return _host_loads, (cloudpickle.dumps(self.objs),)
            return _host_loads, (bytes(ForkingPickler.dumps(self.objs)),)
        except (pickle.PicklingError, AttributeError, TypeError, ImportError) as e:
            try:
                import cloudpickle
            except ImportError:
                raise pickle.PicklingError(
                    f"{e}: DataLoader workers started with the 'forkserver' or 'spawn' method receive the dataset, "
                    "collate_fn and worker_init_fn pickled; define them at module level, install cloudpickle, or "
                    "pass multiprocessing_context='fork'.") from e
            return _host_loads, (cloudpickle.dumps(self.objs),)


@contextlib.contextmanager
def main_not_reimported(payload):
    """While workers start, hide the script's path from multiprocessing, which would have each forkserver or
    spawn worker run the script again as `__mp_main__`: a script without an `if __name__ == "__main__":` guard
    would train (and start workers) again in every worker, and hang. torch's forked workers never re-run it.
    The payload then carries what `__main__` defines (the dataset class ...) by value, with cloudpickle."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None:  # `python -m pkg`, or interactive
        yield
        return
    del main.__file__
    payload.by_value = True
    try:
        yield
    finally:
        main.__file__ = path
        payload.by_value = False


def _host_loads(data):
    _host.enter()
    return _HostPickled(*pickle.loads(data))


def _generate_state(base_seed, worker_id):
    """numpy's seed of a worker: torch's SeedSequence-like mix of (base_seed, worker_id) into 4 words."""
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value):
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = (((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)) & MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(len(pool)):
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))
    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = (pool[i_dst] ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


# How often an idle worker checks the done event. The main process also sends None on shutdown, but
# a shutdown run by the garbage collector can lose it: the collector may finalize the index queue's
# feeder thread before the DataLoader iterator that puts the None.
_DONE_CHECK_INTERVAL = 0.25


def _worker_loop(dataset_kind, payload, index_queue, data_queue, done_event, auto_collation, drop_last, base_seed,
                 worker_id, num_workers):
    """Fetch and collate the batches whose indices arrive on `index_queue`, put them on `data_queue`.

    `payload` holds (dataset, collate_fn, worker_init_fn). Messages in: (task idx, indices), a
    _ResumeIteration (new epoch), or None (exit). Messages out: (task idx, batch or ExceptionWrapper
    or _IterableDatasetStopIteration), or (_ResumeIteration, None).
    """
    _host.enter()
    from .... import manual_seed
    from ..dataloader import _DatasetKind

    dataset, collate_fn, init_fn = payload.objs
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # After an iterable dataset ends, this worker ignores index messages until a resume or exit
        # message: the main process may still send a few before it learns of the end.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=_DONE_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set():  # shutting down, but the None that says so was lost (see above)
                    break
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r  # free the batch before waiting for the next task
    except KeyboardInterrupt:
        pass  # the main process handles it
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
