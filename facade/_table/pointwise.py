"""Table rows for pointwise math."""

import functional as F

from .._dispatch import Op

OPS = [
    Op("add", F.add, arrays=("input", "other", "alpha"), promote=("input", "other"), scalars=("alpha",),
       dunders=("__add__",), rdunders=("__radd__",), inplace=True, inplace_dunders=("__iadd__",), saves=()),
    Op("sub", F.sub, arrays=("input", "other", "alpha"), promote=("input", "other"), scalars=("alpha",),
       dunders=("__sub__",), rdunders=("__rsub__",), inplace=True, inplace_dunders=("__isub__",), saves=()),
    Op("mul", F.mul, arrays=("input", "other"), promote="all", dunders=("__mul__",), rdunders=("__rmul__",),
       inplace=True, inplace_dunders=("__imul__",)),
    Op("div", F.div, arrays=("input", "other"), promote="all", to_float=True, dunders=("__truediv__",),
       rdunders=("__rtruediv__",), inplace=True, inplace_dunders=("__itruediv__",)),
    Op("neg", F.neg, promote="all", dunders=("__neg__",), inplace=True, saves=()),
    Op("exp", F.exp, promote="all", to_float=True, inplace=True, saves="result"),
    Op("sin", F.sin, promote="all", to_float=True, inplace=True),
    Op("tanh", F.tanh, promote="all", to_float=True, inplace=True, saves="result"),
    Op("sigmoid", F.sigmoid, promote="all", to_float=True, inplace=True, saves="result"),
    Op("pow", F.pow, arrays=("input", "exponent"), promote="all", dunders=("__pow__",), rdunders=("__rpow__",),
       inplace=True),
    Op("matmul", F.matmul, arrays=("input", "other"), promote="all", dunders=("__matmul__",),
       rdunders=("__rmatmul__",), grad_name="MmBackward0"),
    Op("sum", F.sum, saves=()),
    Op("mean", F.mean),
]
