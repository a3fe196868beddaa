"""Table rows for shape and view ops. `view=True` rows return views: writes through
the result reach the input (see facade/_tensor.py)."""

import functional as F

from .._dispatch import Op

OPS = [
    Op("transpose", F.transpose, view=True, saves=(), inplace=False, aliases=("swapaxes", "swapdims")),
    Op("permute", F.permute, view=True, saves=(), varargs="dims"),
    Op("view", F.reshape, view=True, saves=(), varargs="shape", function=False, grad_name="ViewBackward0"),
    Op("reshape", F.reshape, view=True, saves=(), varargs="shape", grad_name="ViewBackward0"),
]
