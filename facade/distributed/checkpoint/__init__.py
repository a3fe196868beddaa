"""torch.distributed.checkpoint: importable, with its submodules; saving and loading sharded state to a
directory is not built yet, so every function and class raises NotImplementedError naming the torch API.
(A full state dict, `model.state_dict()` of an FSDP model, saves with torch.save as usual.)"""

from ..._unsupported import unsupported, unsupported_class

OWNER = "sharded checkpoints (torch.distributed.checkpoint) are not built yet"
_FUNCTIONS = ("save", "load", "async_save", "save_state_dict", "load_state_dict")
_CLASSES = ("BytesStorageMetadata", "CheckpointException", "ChunkStorageMetadata", "DefaultLoadPlanner",
            "DefaultSavePlanner", "FileSystemReader", "FileSystemWriter", "HuggingFaceStorageReader",
            "HuggingFaceStorageWriter", "LoadPlan", "LoadPlanner", "Metadata", "ReadItem", "SavePlan", "SavePlanner",
            "StorageReader", "StorageWriter", "TensorStorageMetadata", "WriteItem")
__all__ = [*_FUNCTIONS, *_CLASSES]
globals().update({n: unsupported(f"torch.distributed.checkpoint.{n}", OWNER) for n in _FUNCTIONS})
globals().update({n: unsupported_class(f"torch.distributed.checkpoint.{n}", OWNER) for n in _CLASSES})

from . import _consolidate_hf_safetensors, default_planner, hf_storage, state_dict  # noqa: E402,F401
