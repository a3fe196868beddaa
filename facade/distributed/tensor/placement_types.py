"""torch.distributed.tensor.placement_types: how a DTensor's dimension lies on a mesh dimension.

The placements are plain descriptions (torch's reprs, equality and predicates), so code that builds or
inspects them at import time works; DTensor itself is not built here (see facade.distributed.tensor).
"""

from __future__ import annotations

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """The base of Shard, Replicate and Partial."""

    def is_shard(self, dim=None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op=None) -> bool:
        return False

    def _key(self):
        return ()

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))


class Shard(Placement):
    """Split along tensor dimension `dim` over a mesh dimension."""

    def __init__(self, dim: int):
        self.dim = dim

    def is_shard(self, dim=None) -> bool:
        return dim is None or dim == self.dim

    def _key(self):
        return (self.dim,)

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class _StridedShard(Placement):
    """A shard whose pieces interleave with `split_factor` (torch's FSDP2 + TP layout; not a Shard, as in torch)."""

    def __init__(self, dim: int, split_factor: int):
        self.dim, self.split_factor = dim, split_factor

    def _key(self):
        return (self.dim, self.split_factor)

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """The whole tensor on every device of a mesh dimension."""

    def is_replicate(self) -> bool:
        return True

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Each device holds a partial value; `reduce_op` over the mesh dimension gives the tensor."""

    def __init__(self, reduce_op: str = "sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op=None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def _key(self):
        return (self.reduce_op,)

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
