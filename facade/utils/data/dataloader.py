"""DataLoader (torch/utils/data/dataloader.py): batches from a dataset, in the main process or in
worker processes, with torch's arguments, order and errors.

Workers (`num_workers > 0`) never start JAX (see facade._host): they fetch and collate host (numpy)
tensors and send the batches back pickled; the batches become device tensors when the main process
unpickles them. Scripts whose entry point is guarded by `if __name__ == '__main__':` work with every
start method.

The start method, unless `multiprocessing_context` names one, is 'fork' while this process has not
started JAX's runtime and 'forkserver' once it has, since forking a process whose runtime threads
run can deadlock. By the time workers start, drawing their base seed from the generator has started
JAX, so in practice it is the forkserver: a clean process, started once (about 1.5 s: it imports
facade), that forks each worker (then as fast as 'fork'). 'spawn' re-imports everything in every
worker, every epoch without persistent_workers.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ... import cuda, empty, int64
from ..._device import device as _devcls
from . import _utils
from ._utils import ExceptionWrapper
from ._utils.worker import _HostPickled
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

_T_co = TypeVar("_T_co", covariant=True)

default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None forever (the dataset decides when it ends)."""

    def __iter__(self):
        while True:
            yield None


# ---------------------------------------------------------------------------- start methods

def _jax_started():
    from jax._src import xla_bridge

    return xla_bridge.backends_are_initialized()


def _torch_alias_active():
    """Whether this process runs under `python -m facade` (`import torch` resolves to facade). The
    finder's class is that of the runner's `__main__` module, not of `facade.__main__`: match by role."""
    return any(getattr(f, "alias", None) == "torch" and getattr(f, "target", None) == "facade" for f in sys.meta_path)


def _prepare_forkserver():
    """Before the forkserver starts, have it preload facade, and under `python -m facade` the torch
    alias, instead of `__main__`: the server then never runs the script's top-level code, which may
    start JAX, and the workers it forks resolve `import torch` as this process does."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    if server is not None and getattr(server, "_forkserver_pid", 0) is None:
        preload = "facade.utils.data._utils._torch_alias" if _torch_alias_active() else "facade.utils.data"
        modules = [m for m in server._preload_modules if m != "__main__"]
        forkserver.set_forkserver_preload([*modules, preload])


def _default_context():
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and not _jax_started():
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


# ---------------------------------------------------------------------------- DataLoader

class DataLoader(Generic[_T_co]):
    """Iterate over `dataset` in batches. torch's arguments:

    batch_size (1; None: no batching), shuffle, sampler, batch_sampler (exclusive with batch_size,
    shuffle, sampler, drop_last), num_workers (0: load in this process), collate_fn (default_collate,
    or default_convert without batching), pin_memory, drop_last, timeout (seconds to wait for a
    worker's batch), worker_init_fn(worker_id), multiprocessing_context ('fork', 'forkserver',
    'spawn' or a context; default: see the module docstring), generator (seeds shuffling and the
    workers' base seed), prefetch_factor (batches in flight per worker, default 2),
    persistent_workers (keep the workers between epochs), pin_memory_device (with pin_memory: the
    device, say "cuda", a background thread moves each batch to ahead of use), in_order (False:
    batches as workers finish them).
    """

    _DataLoader__initialized = False

    def __init__(self, dataset: Dataset[_T_co], batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | None = None, batch_sampler: Sampler | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None  # len(self) of an IterableDataset, to warn when it is exceeded
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid_start_methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                         f"{valid_start_methods!r}, but got multiprocessing_context="
                                         f"{multiprocessing_context!r}")
                    multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                    raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                    f"specifying the start method, but got multiprocessing_context="
                                    f"{multiprocessing_context}")
            else:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn, as torch does, when more workers are asked for than this process has CPUs."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        suggest = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if suggest is None or self.num_workers > suggest:
            if suggest is not None:
                msg = (f"Our suggested max number of worker in current system is {suggest}"
                       f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which is smaller than "
                       "what this DataLoader is going to create.")
            else:
                msg = "DataLoader is not able to compute a suggested max number of worker in current system."
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {msg} Please be "
                          "aware that excessive worker creation might get DataLoader running slow or even freeze, "
                          "lower the worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)


# ---------------------------------------------------------------------------- iterators

class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._pin_memory, self._pin_memory_device = False, None
        if loader.pin_memory:
            if loader.pin_memory_device:
                self._pin_memory, self._pin_memory_device = True, _devcls(loader.pin_memory_device)
            elif not cuda.is_available():
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                              "memory won't be used.", stacklevel=2)
            else:
                self._pin_memory = True  # nothing to pin under JAX: the batch stays on the CPU, as in torch
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                                            self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
        return data


def _worker_failure(w):
    """torch's words for how worker process `w` ended."""
    code = w.exitcode
    if code is not None and code < 0:
        try:
            name = signal.strsignal(-code)
        except ValueError:
            name = f"signal {-code}"
        return f"DataLoader worker (pid {w.pid}) is killed by signal: {name}. "
    return (f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code {code}. Details are lost due to "
            "multiprocessing. Rerunning with num_workers=0 may give better error trace.")


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers fetch batches whose indices they receive on their own index queue and put them on one
    result queue. Task `idx` goes to the next active worker in turn; with in_order, a batch that
    arrives early waits in `_task_info` until those before it are returned. Each worker has at most
    `prefetch_factor` tasks outstanding. An IterableDataset's worker that ran out is marked
    unavailable; iteration ends when no task is left.
    """

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context or _default_context()
        if ctx.get_start_method() == "forkserver":
            _prepare_forkserver()
        if ctx.get_start_method() == "spawn" and _torch_alias_active():
            raise RuntimeError("DataLoader workers cannot be spawned under `python -m facade`: a spawned process "
                               "imports the script where `import torch` is not facade. Use "
                               "multiprocessing_context='forkserver' (the default) or 'fork'.")
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = _utils.worker._ResultQueue(ctx)
        self._shutdown = False
        self._workers_done_event = ctx.Event()

        payload = _HostPickled(self._dataset, self._collate_fn, self._worker_init_fn)
        self._index_queues, self._workers = [], []
        self._workers_status = [True] * self._num_workers
        with contextlib.ExitStack() as starting:
            if ctx.get_start_method() != "fork":
                starting.enter_context(_utils.worker.main_not_reimported(payload))
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # the worker may be gone: never block on flushing its queue
                w = ctx.Process(target=_utils.worker._worker_loop,
                                args=(self._dataset_kind, payload, index_queue, self._worker_result_queue,
                                      self._workers_done_event, self._auto_collation, self._drop_last,
                                      self._base_seed, i, self._num_workers))
                w.daemon = True
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)

        if self._pin_memory:
            self._pin_memory_thread_done_event = threading.Event()
            self._data_queue = queue.Queue()
            pin_memory_thread = threading.Thread(
                target=_utils.pin_memory._pin_memory_loop,
                args=(self._worker_result_queue, self._data_queue, self._pin_memory_thread_done_event,
                      self._pin_memory_device), daemon=True)
            pin_memory_thread.start()
            self._pin_memory_thread = pin_memory_thread
        else:
            self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # idx of the next task to be sent to workers
        self._rcvd_idx = 0  # idx of the next task to be returned in __next__
        # task idx -> (worker_id,) while outstanding, (worker_id, data) once it arrived out of order
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True for _ in range(self._num_workers)]
        self._workers_num_tasks = [0 for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # a new epoch with persistent workers: every worker acknowledges the resume
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_utils.worker._ResumeIteration())
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    resume_iteration_cnt -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _wait_for_data(self, timeout):
        """Wait up to `timeout` seconds until the result queue has data or an active worker has ended."""
        if self._pin_memory:  # a thread reads the result queue: poll it, checking the workers in between
            return timeout
        alive = [w.sentinel for w, up in zip(self._workers, self._workers_status) if up]
        # the queue's read end (private, but what mp.Queue.get polls itself) and the active workers
        multiprocessing.connection.wait([self._worker_result_queue._reader, *alive], timeout)
        return 0

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """(True, data) from the data queue, or (False, None) after `timeout` seconds; raises when an
        active worker has ended."""
        try:
            return True, self._data_queue.get(timeout=self._wait_for_data(timeout))
        except Exception as e:
            failed = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed.append(w)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                cause = RuntimeError("".join(_worker_failure(w) for w in failed))
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from cause
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            if self._pin_memory and not self._pin_memory_thread.is_alive():
                raise RuntimeError("Pin memory thread exited unexpectedly")
            success, data = self._try_get_data(0.1 if self._pin_memory else _utils.MP_STATUS_CHECK_INTERVAL)
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip the tasks of workers that have ended (an IterableDataset's worker that ran out).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx, None)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:  # has data or is still active
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # it arrived earlier
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(
                    data, _utils.worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue

            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # find the next active worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id):
        # The worker exits when it reads None (at once after a shutdown: it skips queued tasks then).
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        """Stop the workers (and the prefetch thread): ask them to exit, wait a little, then terminate
        any still running. Safe to call more than once; a no-op while the interpreter exits."""
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return
        if self._shutdown:
            return
        self._shutdown = True
        try:
            if hasattr(self, "_pin_memory_thread"):
                self._pin_memory_thread_done_event.set()
                self._worker_result_queue.put((None, None))  # wake the thread up
                self._pin_memory_thread.join()
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        if getattr(self, "_workers", None) is not None:
            self._shutdown_workers()
