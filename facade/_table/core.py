"""Table rows for copies and fills."""

import functional as F

from .._dispatch import Op

OPS = [
    Op("clone", F.clone, grad_name="CloneBackward0", saves=()),
    Op("copy", F.copy, arrays=("input", "src"), function=False, method=False, inplace=True,
       grad_name="CopyBackwards", saves=()),
    Op("fill", F.fill, arrays=("input", "value"), function=False, method=False, inplace=True, saves=()),
]
