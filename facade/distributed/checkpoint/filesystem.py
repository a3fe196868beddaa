"""torch.distributed.checkpoint.filesystem: a checkpoint directory in torch's layout.

Each rank writes one file `__<rank>_0.distcp`: its items back to back, each one `torch.save` record (a
tensor chunk as a contiguous CPU tensor, any other value pickled whole). The coordinator writes `.metadata`,
a pickle of `Metadata` whose `storage_data` says where each item is (`_StorageInfo`: file, offset, length).
These are torch's names and pickled forms, so checkpoints move both ways between facade and torch.
"""

from __future__ import annotations

import io
import os
import pickle
import uuid
import warnings
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ... import _pickling as P
from ... import _unpickler as U
from .metadata import Metadata, StorageMeta

__all__ = ["FileSystemWriter", "FileSystemReader", "SerializationFormat"]

_METADATA = ".metadata"
_SUFFIX = ".distcp"
CURRENT_DCP_VERSION = "1.0.0"  # torch 2.13's
_PICKLE_PROTOCOL = 4  # what torch's pickle.dump writes on Python 3.8 to 3.13


@dataclass
class _StorageInfo:
    """Where one item's bytes are: a file of the checkpoint directory, an offset and a length."""

    relative_path: str
    offset: int
    length: int
    transform_descriptors: list | None = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if v is not None}


class SerializationFormat(Enum):
    TORCH_SAVE = "torch_save"
    SAFETENSORS = "safetensors"


class _Directory:
    def __init__(self, path):
        self.path = Path(path)

    def reset(self, checkpoint_id=None):
        if checkpoint_id:
            self.path = Path(checkpoint_id)
        return self

    @property
    def checkpoint_id(self):
        return self.path

    @classmethod
    def validate_checkpoint_id(cls, checkpoint_id) -> bool:
        return "://" not in str(checkpoint_id)


class FileSystemWriter(_Directory):
    """Writes a checkpoint into the directory `path` (created if missing)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False, overwrite=True, _extensions=None,
                 serialization_format=SerializationFormat.TORCH_SAVE):
        super().__init__(path)
        if _extensions:
            raise NotImplementedError("FileSystemWriter(_extensions=...): stream transforms (compression) are not "
                                      "supported by facade")
        if serialization_format is not SerializationFormat.TORCH_SAVE:
            raise NotImplementedError(f"FileSystemWriter(serialization_format={serialization_format}): facade writes "
                                      "SerializationFormat.TORCH_SAVE only")
        self.single_file_per_rank, self.sync_files, self.overwrite = single_file_per_rank, sync_files, overwrite
        self.save_id = str(uuid.uuid4())

    def reset(self, checkpoint_id=None):
        self.save_id = str(uuid.uuid4())
        return super().reset(checkpoint_id)

    def prepare(self):
        """Make the directory; an existing checkpoint is overwritten (with torch's warning) or refused."""
        self.path.mkdir(parents=True, exist_ok=True)
        if (self.path / _METADATA).exists():
            if not self.overwrite:
                raise RuntimeError(f"Checkpoint already exists and self.overwrite={self.overwrite}.")
            warnings.warn(f"Detected an existing checkpoint in {self.path}, overwriting since self.overwrite=True. "
                          "Past version 2.5 of PyTorch, `overwrite` will default to False. Set this variable to True "
                          "to maintain this functionality or False to raise when an existing checkpoint is found.",
                          stacklevel=4)

    def write_items(self, rank, items) -> list:
        """Write (key, record) items to this rank's file, `record()` giving the bytes of one torch.save record;
        [(key, _StorageInfo)] in the same order."""
        name = f"__{rank}_0{_SUFFIX}"
        out = []
        with open(self.path / name, "wb") as f:
            for key, record in items:
                start = f.tell()
                f.write(record())
                out.append((key, _StorageInfo(name, start, f.tell() - start)))
            self._sync(f)
        return out

    def finish(self, metadata: Metadata) -> None:
        """Write `.metadata` (through a temporary file, so a reader never sees half of it)."""
        metadata.version = CURRENT_DCP_VERSION
        metadata.storage_meta = StorageMeta(checkpoint_id=self.checkpoint_id, save_id=self.save_id)
        tmp = self.path / f"{_METADATA}.tmp"
        with open(tmp, "wb") as f:
            P.Pickler(f, _PICKLE_PROTOCOL).dump(metadata)  # facade's objects under torch's names
            self._sync(f)
        os.replace(tmp, self.path / _METADATA)

    def _sync(self, f):
        if self.sync_files:
            f.flush()
            os.fsync(f.fileno())


class FileSystemReader(_Directory):
    """Reads a checkpoint from the directory `path`."""

    def __init__(self, path, _extension_registry=None):
        super().__init__(path)
        self.load_id = str(uuid.uuid4())

    def reset(self, checkpoint_id=None):
        self.load_id = str(uuid.uuid4())
        return super().reset(checkpoint_id)

    def read_metadata(self, rank=None) -> Metadata:
        """The pickled Metadata (`.metadata`, or rank `rank`'s own `__<rank>.metadata`), torch's names mapped to
        facade's classes (a checkpoint is trusted, as in torch, which unpickles it with pickle.load)."""
        with open(self.path / (_METADATA if rank is None else f"__{rank}{_METADATA}"), "rb") as f:
            metadata = U.full_unpickler(pickle)(f).load()
        if getattr(metadata, "storage_meta", None) is None:
            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        return metadata

    def read_items(self, infos) -> list:
        """The values stored at each _StorageInfo (tensors on the CPU), reading each file once."""
        out = [None] * len(infos)
        order = sorted(range(len(infos)), key=lambda i: (infos[i].relative_path, infos[i].offset))
        handles = {}
        try:
            for i in order:
                info = infos[i]
                if info.transform_descriptors:
                    raise NotImplementedError(f"the checkpoint's item in {info.relative_path} was written with "
                                              f"stream transforms {info.transform_descriptors}, which facade cannot "
                                              "read")
                f = handles.get(info.relative_path)
                if f is None:
                    f = handles[info.relative_path] = open(self.path / info.relative_path, "rb")
                f.seek(info.offset)
                out[i] = io.BytesIO(f.read(info.length))
        finally:
            for f in handles.values():
                f.close()
        return out
