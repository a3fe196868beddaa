"""default_collate and default_convert, with torch's rules (torch/utils/data/_utils/collate.py).

`default_collate` turns a list of samples into a batch: Tensors are stacked, numpy arrays and
numbers become Tensors (floats as float64, ints as int64), strings stay a list, and mappings,
namedtuples and sequences are collated field by field. In a worker process the Tensors are host
(numpy) tensors, so stacking there is numpy's; the batch becomes device tensors in the main process.
"""

import collections
import copy
import re
from collections.abc import Callable

import numpy as np
from jax._src.array import ArrayImpl
from jax.sharding import SingleDeviceSharding

from .... import Tensor, _deferred, as_tensor, float64, from_numpy, stack, tensor
from ...._device import put

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")


def default_convert(data):
    """Convert numpy arrays and scalars in `data` (nested in mappings, namedtuples and sequences) to
    Tensors, leaving everything else as it is: the collate_fn of a DataLoader without batching."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        # arrays of strings or objects stay as they are
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)  # keeps the mapping's type and any attributes
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:  # the mapping type cannot be built from a dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch has always returned
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """Collate `batch` (a list of samples) by the first sample's type: an exact type match in
    `collate_fn_map` first, then an isinstance match, then mappings, namedtuples and sequences
    element-wise. Each map entry is called as fn(batch, collate_fn_map=collate_fn_map)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        def field(key):
            return collate([d[key] for d in batch], collate_fn_map=collate_fn_map)

        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: field(key) for key in elem})
                return clone
            return elem_type({key: field(key) for key in elem})
        except TypeError:
            return {key: field(key) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


_HOST_STACK_MAX = 1 << 21  # elements of a batch stacked on the host; a larger one is one XLA program, compiled once


def _host_arrays(batch):
    """The samples' arrays where they are concrete, alike (type, shape, dtype, device, committed), need no grad
    and live in host memory (a CPU device: a Dataset's `x[i]` there), and the batch is small: stacking them with
    numpy and one copy to the device gives stack's values without a program of batch-size arguments per batch
    size (70-120 ms to compile) and its dispatch; else None."""
    first = batch[0]
    if first.numel() * len(batch) > _HOST_STACK_MAX or not _deferred.host_memory(first._device):
        return None
    arrays = []
    for t in batch:
        if type(t) is not Tensor or t.requires_grad or t._rg is not None or t._device != first._device:
            return None
        a = t._arr()
        if type(a) is not ArrayImpl or type(a.sharding) is not SingleDeviceSharding or a.shape != first.shape:
            return None
        arrays.append(a)
    return arrays if len({(a.dtype, a.committed) for a in arrays}) == 1 else None


def collate_tensor_fn(batch, *, collate_fn_map=None):
    if all(t._np is not None for t in batch):  # from_numpy samples: stacked on the host, one transfer
        return from_numpy(np.stack([t._np for t in batch]))
    arrays = _host_arrays(batch)
    if arrays is not None:  # stacked on the host, one copy to the device (committed to it as the samples are)
        jd = next(iter(arrays[0].devices())) if arrays[0].committed else None
        return Tensor._from_array(put(np.stack([np.asarray(a) for a in arrays]), jd), batch[0]._device)
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:  # arrays of strings or objects
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch with torch's rules (see the module docstring):

    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    >>> default_collate([{"a": 0, "b": 1.5}, {"a": 1, "b": 2.5}])
    {'a': tensor([0, 1]), 'b': tensor([1.5000, 2.5000], dtype=torch.float64)}
    >>> default_collate([(1, "x"), (2, "y")])
    [tensor([1, 2]), ['x', 'y']]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
