"""torch.layout and torch.memory_format objects. Arrays here have one layout (strided) and no
user-visible memory format, so the formats are accepted where torch takes them and change nothing."""

from __future__ import annotations

__all__ = ["layout", "memory_format", "LAYOUTS", "MEMORY_FORMATS"]


class _Named:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name  # pickled as the module attribute facade.<name>


class layout(_Named):
    """torch.layout: torch.strided (every tensor here), torch.sparse_coo, ..."""

    __slots__ = ()


class memory_format(_Named):
    """torch.memory_format: torch.contiguous_format, channels_last, channels_last_3d, preserve_format."""

    __slots__ = ()


for _cls in (layout, memory_format):
    _cls.__module__ = "facade"

LAYOUTS = {n: layout(n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                                  "jagged", "_mkldnn")}
MEMORY_FORMATS = {n: memory_format(n) for n in ("contiguous_format", "channels_last", "channels_last_3d",
                                                "preserve_format")}
