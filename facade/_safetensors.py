"""safetensors files for facade tensors, with `safetensors.torch`'s API (save, save_file, load, load_file,
safe_open), written here in a few lines of numpy so that no extra package is needed.

The format: an 8-byte little-endian header length N, N bytes of JSON ({name: {"dtype": "F32", "shape": [...],
"data_offsets": [begin, end]}, "__metadata__": {str: str}}, padded with spaces to a multiple of 8), then the
tensors' bytes, row-major, little-endian, back to back.
"""

from __future__ import annotations

import json
import os
import struct
import sys

import numpy as np

from . import _dtype as D
from ._device import device as _device
from ._tensor import Tensor
from ._zipformat import aligned_empty

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "save_model", "load_model", "storage_ptr",
           "storage_size"]

_CODES = {"F64": D.float64, "F32": D.float32, "F16": D.float16, "BF16": D.bfloat16, "I64": D.int64, "I32": D.int32,
          "I16": D.int16, "I8": D.int8, "U8": D.uint8, "BOOL": D.bool, "C64": D.complex64}
_CODE_OF = {d: c for c, d in _CODES.items()}
_MAX_HEADER = 100_000_000  # the reference implementation's limit


class SafetensorError(Exception):
    """A malformed safetensors file (the `safetensors` package's exception name)."""


def _check(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
    failing = [set(names) for names in _shared(tensors) if len(names) > 1]
    if failing:
        raise RuntimeError(
            "\n            Some tensors share memory, this will lead to duplicate memory on disk and potential "
            f"differences when loading them again: {failing}.\n            A potential way to correctly save your "
            "model is to use `save_model`.\n            More information at "
            "https://huggingface.co/docs/safetensors/torch_shared_tensors\n            ")
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It either means you are "
                "trying to save tensors which are reference of each other in which case it's recommended to save only "
                "the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to pack it "
                "before saving.")
        if v.dtype not in _CODE_OF:
            raise ValueError(f"safetensors: dtype {v.dtype} of `{k}` has no safetensors code")


def storage_ptr(tensor) -> int:
    """The address of `tensor`'s storage (what `safetensors.torch.storage_ptr` returns)."""
    return tensor.untyped_storage().data_ptr()


def storage_size(tensor) -> int:
    """The size in bytes of `tensor`'s storage."""
    return tensor.untyped_storage().nbytes()


def _shared(tensors):
    """Groups of names whose (non-empty) tensors share memory: the same tensor (tied weights) or views of one base."""
    roots = {}
    for k, v in tensors.items():
        if v.numel():
            roots.setdefault(id(v._base if v._base is not None else v), []).append(k)
    return list(roots.values())


def _covers_storage(t):
    root = t if t._base is None else t._base
    return t.numel() == root.numel() and t.storage_offset() == 0


def _duplicates(state_dict, preferred=()):
    """{kept name: [names dropped]} for tied tensors, as `safetensors.torch._remove_duplicate_names`: keep the
    first name in sorted order among those covering the whole storage, preferring names in `preferred`."""
    out = {}
    for names in _shared(state_dict):
        if len(names) < 2:
            continue
        complete = sorted(n for n in names if _covers_storage(state_dict[n]))
        if not complete:
            raise RuntimeError(f"Error while trying to find names to remove to save state dict, but found no suitable "
                               f"name to keep for saving amongst: {set(names)}. None is covering the entire storage.")
        keep = ([n for n in complete if n in preferred] or complete)[0]
        out[keep] = [n for n in sorted(names) if n != keep]
    return out


def save_model(model, filename, metadata=None, force_contiguous=True):
    """Save `model.state_dict()`, dropping all but one name of each tied tensor (recorded in the metadata)."""
    state_dict = model.state_dict()
    for kept, dropped in _duplicates(state_dict).items():
        for name in dropped:
            metadata = {} if metadata is None else metadata
            metadata.setdefault(name, kept)
            del state_dict[name]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    save_file(state_dict, filename, metadata=metadata)


def load_model(model, filename, strict=True, device="cpu"):
    """Load a file written by `save_model` into `model`; returns (missing, unexpected) names, raising on either
    when `strict`, in the words of `safetensors.torch.load_model`."""
    state_dict = load_file(filename, device=device)
    dropped = _duplicates(model.state_dict(), preferred=set(state_dict))
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing)
    for names in dropped.values():
        for name in names:
            if name in missing:
                missing.remove(name)
            else:
                unexpected.append(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {model.__class__.__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return missing, unexpected


def _serialize(tensors, metadata):
    """(header bytes, [arrays in file order]) for a dict of tensors."""
    _check(tensors)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise ValueError("metadata must be a Dict[str, str]")
    order = sorted(tensors, key=lambda k: (-tensors[k].dtype.itemsize, k))
    header, arrays, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for k in order:
        t = tensors[k]
        a = np.ascontiguousarray(t.detach().cpu()._host()).reshape(-1)
        if sys.byteorder == "big":
            a = a.byteswap()
        header[k] = {"dtype": _CODE_OF[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + a.nbytes]}
        arrays.append(a.view(np.uint8))
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, arrays


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of a dict of contiguous tensors that share no memory."""
    head, arrays = _serialize(tensors, metadata)
    return head + b"".join(a.tobytes() for a in arrays)


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write `save(tensors, metadata)` to `filename`, atomically (a temporary file then a rename)."""
    head, arrays = _serialize(tensors, metadata)
    from .serialization import _atomic_write

    with _atomic_write(os.fspath(filename)) as fh:
        fh.write(head)
        for a in arrays:
            fh.write(memoryview(a))


def _parse(buf, source):
    """{name: (dtype, shape, begin, end)} and metadata from the whole file's bytes (offsets absolute)."""
    n = len(buf)
    if n < 8:
        raise SafetensorError(f"Error while deserializing header: HeaderTooSmall ({source} has {n} bytes)")
    (hlen,) = struct.unpack("<Q", bytes(buf[:8]))
    if hlen > _MAX_HEADER:
        raise SafetensorError(f"Error while deserializing header: HeaderTooLarge ({hlen} bytes)")
    if 8 + hlen > n:
        raise SafetensorError(f"Error while deserializing header: InvalidHeaderLength ({source} is truncated)")
    try:
        header = json.loads(bytes(buf[8:8 + hlen]))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorError(f"Error while deserializing header: InvalidHeaderDeserialization ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorError("Error while deserializing header: InvalidHeaderDeserialization (not an object)")
    metadata = header.pop("__metadata__", None)
    start, entries, spans = 8 + hlen, {}, []
    for name, info in header.items():
        try:
            dtype = _CODES[info["dtype"]]
            shape = tuple(int(s) for s in info["shape"])
            b, e = (int(x) for x in info["data_offsets"])
        except KeyError as e:
            code = info.get("dtype") if isinstance(info, dict) else None
            raise SafetensorError(f"Error while deserializing header: tensor `{name}`: " + (
                f"dtype {code} is not supported by facade" if code and code not in _CODES else f"missing {e}")) \
                from None
        except (TypeError, ValueError, AttributeError):
            raise SafetensorError(f"Error while deserializing header: tensor `{name}` is malformed") from None
        if min(shape, default=0) < 0 or e - b != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize or b < 0:
            raise SafetensorError(f"Error while deserializing header: TensorInvalidInfo for `{name}`")
        spans.append((b, e))
        entries[name] = (dtype, shape, start + b, start + e)
    spans.sort()
    pos = 0
    for b, e in spans:
        if b != pos:
            raise SafetensorError("Error while deserializing header: InvalidOffset (tensors overlap or leave gaps)")
        pos = e
    if start + pos != n:
        raise SafetensorError(f"Error while deserializing header: MetadataIncompleteBuffer ({source} holds "
                              f"{n - start} data bytes, the header describes {pos})")
    return entries, metadata


def _tensor(buf, entry, device):
    dtype, shape, b, e = entry
    a = np.frombuffer(buf, np.uint8, e - b, b).view(dtype.np).reshape(shape)
    if sys.byteorder == "big":
        a = a.byteswap()
    import jax

    from ._device import jax_device

    dev = _device(device if not isinstance(device, int) else f"cuda:{device}")
    return Tensor._from_array(jax.device_put(a, jax_device(dev)), dev)


def load(data: bytes) -> dict:
    """The tensors (on the CPU) of safetensors bytes."""
    entries, _ = _parse(memoryview(data), "the data")
    return {k: _tensor(data, v, "cpu") for k, v in entries.items()}


class safe_open:
    """`with safe_open(path, framework="pt", device="cpu") as f: f.keys(), f.get_tensor(k), f.metadata()`."""

    def __init__(self, filename, framework="pt", device="cpu"):
        self.filename, self.device = os.fspath(filename), device
        size = os.path.getsize(self.filename)
        self._buf = np.memmap(self.filename, mode="r") if size else np.empty(0, np.uint8)
        self._entries, self._metadata = _parse(self._buf, repr(self.filename))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._buf = None

    def keys(self):
        return sorted(self._entries)

    def offset_keys(self):
        return sorted(self._entries, key=lambda k: self._entries[k][2])

    def metadata(self):
        return self._metadata

    def get_tensor(self, name):
        if name not in self._entries:
            raise SafetensorError(f"File does not contain tensor {name}")
        dtype, shape, b, e = self._entries[name]
        # copied out of the read-only mapping into a 64-byte aligned buffer, which JAX then adopts without a copy
        out = aligned_empty(e - b)
        out[:] = self._buf[b:e]
        return _tensor(out, (dtype, shape, 0, e - b), self.device)


def load_file(filename, device="cpu") -> dict:
    """The tensors of a safetensors file, placed on `device`."""
    with safe_open(filename, device=device) as f:
        return {k: f.get_tensor(k) for k in f.offset_keys()}
