"""torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex, which transformers enters
around vmapped mask functions."""

from __future__ import annotations

import contextlib

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(contextlib.AbstractContextManager):
    """In torch, a mode making `tensor[i]` with 0-dim tensor (or int) indices index by tensor instead of
    calling `.item()`, so the indexing can run under vmap. facade always indexes with 0-dim tensors as
    traced data (never through `.item()`), so inside this context indexing already behaves as torch's
    mode makes it behave, and entering it changes nothing."""

    def __exit__(self, *exc):
        return None
