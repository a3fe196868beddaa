"""torch.distributed.checkpoint.hf_storage: the Hugging Face storage reader/writer (raise when built)."""

from . import HuggingFaceStorageReader, HuggingFaceStorageWriter  # noqa: F401

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]
