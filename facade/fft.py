"""torch.fft: the transforms are installed from the op table (module="torch.fft"); the
frequency factories are creation functions over functional.fft."""

import functional.fft as _F

from . import _creation as _C
from ._tensor import Tensor  # noqa: F401  (torch.fft.Tensor)


def _freq(fn):
    def factory(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
        dt = _C._dt(dtype)
        return _C._to_out(_C._made(lambda: fn(n, d, dtype=dt.np), dt, device, requires_grad), out)

    factory.__name__ = factory.__qualname__ = fn.__name__
    factory.__doc__ = f"torch.fft.{fn.__name__}: see functional.fft.{fn.__name__}.\n\n{fn.__doc__}"
    return factory


fftfreq = _freq(_F.fftfreq)
rfftfreq = _freq(_F.rfftfreq)
