"""Table rows for sorting, selection, uniqueness, binary search and counting."""

import functional as F

from .._dispatch import Op

_VI = ("values", "indices")

OPS = [
    Op("sort", F.sort, out=("sort", _VI), saves=()),
    Op("argsort", F.argsort),
    Op("msort", F.msort, grad_name="SortBackward0", saves=()),
    Op("topk", F.topk, out=("topk", _VI), saves=()),
    Op("kthvalue", F.kthvalue, out=("kthvalue", _VI), saves=()),
    # data-dependent output lengths: run eagerly (jit=False); torch has no gradient for these
    Op("unique", F.unique, jit=False, differentiable=False),
    Op("unique_consecutive", F.unique_consecutive, jit=False, differentiable=False),
    Op("bincount", F.bincount, arrays=("input", "weights"), jit=False, differentiable=False),
    Op("searchsorted", F.searchsorted, arrays=("sorted_sequence", "input", "sorter"), method=False),
    Op("bucketize", F.bucketize, arrays=("input", "boundaries"), method=False),
    Op("histc", F.histc, differentiable=False),
    Op("histogram", F.histogram, arrays=("input", "weight"), out=("histogram", ("hist", "bin_edges")),
       differentiable=False),
]
