"""torch.distributed._composable: the older home of fully_shard."""

from . import fsdp  # noqa: F401
