"""The storage a save or load uses: the given writer/reader (moved to `checkpoint_id` when both are given), or
a FileSystemWriter/FileSystemReader of the directory `checkpoint_id`."""

from __future__ import annotations

from .filesystem import FileSystemReader, FileSystemWriter


def setup(storage, checkpoint_id, reader: bool):
    cls = FileSystemReader if reader else FileSystemWriter
    if storage is not None:
        if not isinstance(storage, cls):
            raise NotImplementedError(f"{type(storage).__name__}: facade reads and writes checkpoints through "
                                      "FileSystemReader / FileSystemWriter only")
        return storage.reset(checkpoint_id) if checkpoint_id is not None else storage
    if not checkpoint_id:
        raise RuntimeError("`checkpoint_id` must be specified if storage_reader/storage_writer is None.")
    if not cls.validate_checkpoint_id(checkpoint_id):
        raise RuntimeError("Cannot detect which StorageReader or StorageWriter to use. Please specify the "
                           "storage_reader/storage_writer.")
    return cls(checkpoint_id)
