"""torch.distributed._composable.fsdp: the older home of fully_shard (facade.distributed.fsdp's)."""

from ..fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard  # noqa: F401

__all__ = ["FSDPModule", "MixedPrecisionPolicy", "fully_shard"]
