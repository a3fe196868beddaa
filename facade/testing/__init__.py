"""torch.testing: `assert_close` (torch's tolerances and messages) and `make_tensor`."""

from __future__ import annotations

import warnings

from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12: assert_close with the old tolerances and no dtype check."""
    from .. import _creation
    from .._tensor import Tensor

    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
                  "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, Tensor) else _creation.tensor(actual)
    expected = expected if isinstance(expected, Tensor) else _creation.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        old = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
        rtol = max(old.get(t.dtype.name, (0.0, 0.0))[0] for t in (actual, expected))
        atol = max(old.get(t.dtype.name, (0.0, 0.0))[1] for t in (actual, expected))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
