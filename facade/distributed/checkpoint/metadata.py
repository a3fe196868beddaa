"""torch.distributed.checkpoint.metadata: what a checkpoint's `.metadata` file holds.

The classes have torch's names, fields and pickled form (facade's pickler writes them under torch's module
paths), so a `.metadata` written here unpickles in real torch and one written by real torch unpickles here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ... import _dtype as D
from ..._layout import LAYOUTS, MEMORY_FORMATS
from ..._tensor import Size

__all__ = ["ChunkStorageMetadata", "TensorStorageMetadata", "BytesStorageMetadata", "Metadata", "MetadataIndex",
           "TensorProperties", "StorageMeta"]


@dataclass
class ChunkStorageMetadata:
    """One saved piece of a tensor: where it starts (`offsets`) and its shape (`sizes`)."""

    offsets: Size
    sizes: Size


class _MEM_FORMAT_ENCODING(Enum):
    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


def _memory_formats():
    return {_MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT: MEMORY_FORMATS["contiguous_format"],
            _MEM_FORMAT_ENCODING.TORCH_CHANNELS_LAST: MEMORY_FORMATS["channels_last"],
            _MEM_FORMAT_ENCODING.TORCH_PRESERVE_FORMAT: MEMORY_FORMATS["preserve_format"]}


@dataclass
class TensorProperties:
    """The properties a saved tensor is rebuilt with (only `dtype` matters; torch deprecated the others)."""

    dtype: Any = field(default_factory=lambda: D.get_default_dtype())
    layout: Any = field(default_factory=lambda: LAYOUTS["strided"])
    requires_grad: bool = False
    memory_format: Any = None
    pin_memory: bool = False

    def __post_init__(self):
        if self.memory_format is None:
            self.memory_format = _memory_formats()[_MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT]

    def __getstate__(self):  # torch's pickled form: a memory format travels as its encoding
        code = {v: k for k, v in _memory_formats().items()}.get(self.memory_format)
        if code is None:
            raise RuntimeError(f"Invalid torch.memory_format: {self.memory_format}")
        return self.dtype, self.layout, self.requires_grad, code, self.pin_memory

    def __setstate__(self, state):
        self.dtype, self.layout, self.requires_grad, code, self.pin_memory = state
        if code not in _memory_formats():
            raise RuntimeError(f"Invalid torch.memory_format encoding: {code}")
        self.memory_format = _memory_formats()[code]

    @staticmethod
    def create_from_tensor(tensor) -> TensorProperties:
        return TensorProperties(dtype=tensor.dtype, layout=tensor.layout, requires_grad=tensor.requires_grad)


@dataclass
class TensorStorageMetadata:
    properties: TensorProperties
    size: Size
    chunks: list[ChunkStorageMetadata]


@dataclass
class BytesStorageMetadata:
    pass


@dataclass
class StorageMeta:
    checkpoint_id: str | os.PathLike | None = None
    save_id: str | None = None
    load_id: str | None = None
    modules: list[str] = field(default_factory=list)


@dataclass
class Metadata:
    """The checkpoint's index: each flattened key's storage metadata, the planner's key paths and where each
    item's bytes are (`storage_data`: {MetadataIndex: filesystem._StorageInfo})."""

    state_dict_metadata: dict[str, TensorStorageMetadata | BytesStorageMetadata]
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: StorageMeta | None = None
    version: str | None = None


@dataclass(frozen=True)
class MetadataIndex:
    """A key into `Metadata.storage_data`: the flattened key and, for a tensor chunk, its offsets (`index` is a
    lookup hint, not part of equality)."""

    fqn: str
    offset: Size | None = None
    index: int | None = field(hash=False, compare=False, default=None)

    def __init__(self, fqn: str, offset=None, index: int | None = None):
        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "offset", None if offset is None else Size(offset))
