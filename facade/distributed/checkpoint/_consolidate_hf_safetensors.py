"""torch.distributed.checkpoint._consolidate_hf_safetensors (raises when called)."""

from ..._unsupported import unsupported
from . import OWNER

consolidate_safetensors_files = unsupported(
    "torch.distributed.checkpoint._consolidate_hf_safetensors.consolidate_safetensors_files", OWNER)
