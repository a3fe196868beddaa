"""pin_memory: batches are moved (to the prefetch device) by a thread while the current step runs.

JAX manages host buffers itself, so there is nothing to pin: with `pin_memory=True` alone the batch
stays a CPU tensor, as in torch. With `pin_memory_device` (say "cuda") the thread puts each batch on
that device ahead of use: device prefetch, overlapping the transfer with the training step.
"""

import collections
import copy
import queue

from .... import Tensor
from . import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper


def _pin_memory_loop(in_queue, out_queue, done_event, device):
    """Move each (idx, batch) from `in_queue` to `device` and pass it on, until `done_event`."""

    def do_one_step():
        try:
            r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            return
        idx, data = r
        if not done_event.is_set() and not isinstance(data, ExceptionWrapper):
            try:
                data = pin_memory(data, device)
            except Exception:
                data = ExceptionWrapper(where=f"in pin memory thread for device {device}")
            r = (idx, data)
        while not done_event.is_set():
            try:
                out_queue.put(r, timeout=MP_STATUS_CHECK_INTERVAL)
                break
            except queue.Full:
                continue

    while not done_event.is_set():
        do_one_step()


def pin_memory(data, device=None):
    """`data` with every Tensor moved to `device` (None: left where it is); containers are rebuilt
    with their own types, objects with a `pin_memory()` method are asked to pin themselves."""
    if isinstance(data, Tensor):
        return data.pin_memory() if device is None else data.to(device, non_blocking=True)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: pin_memory(sample, device) for k, sample in data.items()})
                return clone
            return type(data)({k: pin_memory(sample, device) for k, sample in data.items()})
        except TypeError:
            return {k: pin_memory(sample, device) for k, sample in data.items()}
    if isinstance(data, tuple):
        if hasattr(data, "_fields"):  # namedtuple
            return type(data)(*(pin_memory(sample, device) for sample in data))
        return type(data)(pin_memory(sample, device) for sample in data)
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, item in enumerate(data):
                    clone[i] = pin_memory(item, device)
                return clone
            return type(data)([pin_memory(sample, device) for sample in data])
        except TypeError:
            return [pin_memory(sample, device) for sample in data]
    return data
