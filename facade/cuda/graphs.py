"""torch.cuda.graphs: CUDA graph capture. Capturing is the compile issue's (XLA programs play that role
here), so capture raises NotImplementedError; the question eager code asks answers truthfully: no
stream is ever capturing."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]

_OWNER = "CUDA graph capture is the compile issue"
CUDAGraph = unsupported_class("torch.cuda.CUDAGraph", _OWNER)
graph = unsupported_class("torch.cuda.graph", _OWNER)
graph_pool_handle = unsupported("torch.cuda.graph_pool_handle", _OWNER)
make_graphed_callables = unsupported("torch.cuda.make_graphed_callables", _OWNER)


def is_current_stream_capturing() -> bool:
    """False: nothing captures CUDA graphs eagerly."""
    return False
