"""torch.backends: the flags scripts set (`cudnn.benchmark = True`, `cuda.matmul.allow_tf32 = True`)
and the availability questions they ask, answered for JAX's backends.

Flags are settable and read back with torch's type checks. Honoured where they mean something
here: `cuda.matmul.allow_tf32` is `torch.get_float32_matmul_precision() != 'highest'`, as in torch.
The others (cudnn.benchmark, deterministic, ...) choose kernels XLA picks itself, so they are recorded.
"""

from __future__ import annotations

import contextlib
import sys
import types

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]


class Flag:
    """A settable module attribute; with `setter` (torch's C++ setter name) only bools are accepted."""

    def __init__(self, default, setter=None):
        self.value, self.setter = default, setter

    def __get__(self, obj, objtype=None):
        return self if obj is None else self.value

    def __set__(self, obj, value):
        if self.setter is not None and not isinstance(value, bool):
            raise RuntimeError(f"{self.setter} expects a bool, but got {type(value).__name__}")
        self.value = value


def install_flags(module_name: str, **flags) -> None:
    """Give module `module_name` the data descriptors `flags` (a module class of its own, as torch does)."""
    module = sys.modules[module_name]
    module.__class__ = type(f"_{module_name.rpartition('.')[2]}_module", (types.ModuleType,), flags)


def flags_context(module_name: str):
    """The `flags(**values)` context manager of a flags module: set, then restore on exit."""
    module = sys.modules[module_name]

    @contextlib.contextmanager
    def flags(**values):
        old = {k: getattr(module, k) for k in values}
        try:
            for k, v in values.items():
                setattr(module, k, v)
            yield
        finally:
            for k, v in old.items():
                setattr(module, k, v)

    return flags


from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: E402
