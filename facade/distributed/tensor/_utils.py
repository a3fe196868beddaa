"""torch.distributed.tensor._utils: names libraries import next to DTensor (raise when called)."""

from ..._unsupported import unsupported

compute_local_shape_and_global_offset = unsupported(
    "torch.distributed.tensor._utils.compute_local_shape_and_global_offset",
    "DTensor is not built on facade; shard over a mesh with facade.distributed.fsdp")
