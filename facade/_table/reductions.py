"""Table rows for reductions."""

import functional as F  # noqa: F401

from .._dispatch import Op  # noqa: F401

OPS = []
