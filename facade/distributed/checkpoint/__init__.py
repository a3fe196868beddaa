"""torch.distributed.checkpoint (DCP): save and load state dicts, sharded or not, to a checkpoint directory in
torch's on-disk format (`.metadata` + `__<rank>_0.distcp`), so checkpoints move both ways between facade and
torch. state_dict_saver.py and state_dict_loader.py say how; state_dict.py gives model and optimizer state
dicts under canonical keys (no DDP `module.` prefix), sharded or full.

Custom planners and storage layers (the SavePlanner / LoadPlanner / StorageWriter / StorageReader protocols
and their plan items) and the Hugging Face storage raise NotImplementedError naming the torch API.
"""

from ..._unsupported import unsupported, unsupported_class
from .api import CheckpointException
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner
from .filesystem import FileSystemReader, FileSystemWriter
from .metadata import (
    BytesStorageMetadata,
    ChunkStorageMetadata,
    Metadata,
    MetadataIndex,
    StorageMeta,
    TensorProperties,
    TensorStorageMetadata,
)
from .state_dict_loader import load, load_state_dict
from .state_dict_saver import AsyncCheckpointerType, async_save, save, save_state_dict

OWNER = "facade plans checkpoints itself; custom planners and storage layers are not built"
_CLASSES = ("HuggingFaceStorageReader", "HuggingFaceStorageWriter", "QuantizedHuggingFaceStorageReader", "LoadPlan",
            "LoadPlanner", "ReadItem", "SavePlan", "SavePlanner", "StorageReader", "StorageWriter", "WriteItem")
globals().update({n: unsupported_class(f"torch.distributed.checkpoint.{n}", OWNER) for n in _CLASSES})
load_sharded_optimizer_state_dict = unsupported("torch.distributed.checkpoint.load_sharded_optimizer_state_dict",
                                                "it loads FSDP's ShardedTensor optimizer state, which facade does not "
                                                "have; use get_optimizer_state_dict with load")

__all__ = ["save", "load", "async_save", "save_state_dict", "load_state_dict", "AsyncCheckpointerType",
           "CheckpointException", "DefaultLoadPlanner", "DefaultSavePlanner", "FileSystemReader", "FileSystemWriter",
           "BytesStorageMetadata", "ChunkStorageMetadata", "Metadata", "MetadataIndex", "StorageMeta",
           "TensorProperties", "TensorStorageMetadata", *_CLASSES, "load_sharded_optimizer_state_dict"]

from . import _consolidate_hf_safetensors, hf_storage, state_dict, stateful  # noqa: E402,F401
