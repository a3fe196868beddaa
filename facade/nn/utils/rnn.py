"""torch.nn.utils.rnn: PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence ...

A PackedSequence holds the time-major concatenation of the valid steps of a batch of sequences
sorted by decreasing length: `data` (sum(lengths), *) and `batch_sizes` (a CPU int64 tensor, the
number of sequences still running at each step). The index arithmetic runs on the host (lengths
are CPU values in torch too); moving data is one differentiable gather.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

import facade

from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """torch.nn.utils.rnn.PackedSequence: (data, batch_sizes, sorted_indices, unsorted_indices).
    Made by pack_padded_sequence / pack_sequence, not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Moves/casts `data` like Tensor.to; the indices follow data's device, batch_sizes stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kw = {"non_blocking": kwargs["non_blocking"]} if "non_blocking" in kwargs else {}

        def move(t):
            return t.to(data.device, **kw)

        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, move), _bind(self.unsorted_indices, move))

    def cuda(self, *args, **kwargs):
        if self.data.is_cuda and not args and "device" not in kwargs:
            return self.to(*args, **kwargs)
        kwargs.setdefault("device", args[0] if args else "cuda")
        return self.to(*args[1:], **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, _bind(self.sorted_indices, Tensor.pin_memory),
                          _bind(self.unsorted_indices, Tensor.pin_memory))

    def double(self):
        return self.to(dtype=facade.double)

    def float(self):
        return self.to(dtype=facade.float)

    def half(self):
        return self.to(dtype=facade.half)

    def long(self):
        return self.to(dtype=facade.long)

    def int(self):
        return self.to(dtype=facade.int)

    def short(self):
        return self.to(dtype=facade.short)

    def char(self):
        return self.to(dtype=facade.int8)

    def byte(self):
        return self.to(dtype=facade.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None for None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation.cpu().tolist(), dtype=np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size)
    return facade.as_tensor(inv, device=permutation.device)


def _host_ints(t):
    return np.asarray(t.tolist() if isinstance(t, Tensor) else t, dtype=np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) [or (B, T, *) with batch_first] of sequences of `lengths`.
    With enforce_sorted=False the batch is sorted by decreasing length first (sorted_indices records it)."""
    if isinstance(lengths, Tensor) and lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                           f"{lengths.device} Long tensor")
    ln = _host_ints(lengths)  # lengths are host values in torch too: the index arithmetic stays in numpy
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-ln, kind="stable")
        ln = ln[order]
        sorted_indices = facade.as_tensor(order, device=input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    batch = input.size(0 if batch_first else 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if ln.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {ln.size} (batch_size={batch})")
    if ln[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                           "<= 0")
    if np.any(ln[:-1] < ln[1:]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                           "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    batch_sizes = (ln[None, :] > np.arange(ln[0])[:, None]).sum(1)
    t_idx = np.repeat(np.arange(ln[0]), batch_sizes)
    b_idx = np.concatenate([np.arange(n) for n in batch_sizes])
    data = input[b_idx, t_idx] if batch_first else input[t_idx, b_idx]
    return PackedSequence(data, facade.as_tensor(batch_sizes, dtype=facade.int64, device="cpu"), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: (padded (T, B, *) [(B, T, *) with batch_first], lengths (B,) on the CPU),
    in the batch order before packing; T is the longest length, or `total_length`."""
    bs = _host_ints(sequence.batch_sizes)
    steps = bs.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    data = sequence.data
    n, batch = data.size(0), int(bs[0])
    lengths = (bs[None, :] > np.arange(batch)[:, None]).sum(1)
    col = np.arange(batch)
    offsets = np.zeros(steps, np.int64)
    offsets[:bs.size] = np.cumsum(bs) - bs
    running = np.zeros(steps, np.int64)
    running[:bs.size] = bs
    idx = np.where(col[None, :] < running[:, None], offsets[:, None] + col[None, :], n)  # n: the padding row
    if sequence.unsorted_indices is not None:
        order = _host_ints(sequence.unsorted_indices)
        idx, lengths = idx[:, order], lengths[order]
    pad = facade.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = facade.cat([data, pad])[idx.T if batch_first else idx]
    return padded, facade.as_tensor(lengths, dtype=facade.int64, device="cpu")


def _size_mismatch(a, b):
    for i in range(len(a) - 1, -1, -1):
        if a[i] != b[i] and b[i] != 1:
            return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                f"non-singleton dimension {i}")
    return None


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes (L_i, *) into (max L_i, B, *) [(B, max L_i, *) with batch_first], padding
    each with `padding_value` on the right (or left) and taking the first sequence's dtype."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    trailing, dtype = tuple(first.shape[1:]), first.dtype
    longest = max(s.size(0) for s in sequences)
    rows = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            err = _size_mismatch((s.size(0), *trailing), tuple(s.shape)) if s.ndim == first.ndim else None
            raise err or RuntimeError(f"pad_sequence: expected sequences of shape (L, *{trailing}), got "
                                      f"{tuple(s.shape)}")
        s = s.to(dtype)
        extra = longest - s.size(0)
        if extra:
            pad = facade.full((extra, *trailing), padding_value, dtype=dtype, device=s.device)
            s = facade.cat([s, pad] if padding_side == "right" else [pad, s])
        rows.append(s)
    return facade.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of the B sequences of a padded batch, each cut to its length (torch transposes a
    time-major `padded_sequences` in place, and so does this)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _host_ints(lengths).tolist(), strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i, *) (sorted by decreasing length unless enforce_sorted=False)."""
    lengths = facade.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
