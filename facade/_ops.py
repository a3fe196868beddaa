"""torch.ops: the namespaces of operators registered with `torch.library.custom_op`.

`torch.ops.mylib.f` (and `torch.ops.mylib.f.default`) is the op registered as "mylib::f". facade has no
C++ dispatcher, so there is no `torch.ops.aten`: only custom ops live here.
"""

from __future__ import annotations

__all__ = ["ops"]


class _OpNamespace:
    def __init__(self, name: str):
        self.name = name
        self._ops = {}

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        try:
            return self._ops[op_name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'") from None

    def __repr__(self):
        return f"_OpNamespace(name='{self.name}')"


class _Ops:
    """`torch.ops`: one namespace per library name, created on first use as in torch."""

    def __init__(self):
        self._namespaces = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._namespaces.setdefault(name, _OpNamespace(name))


ops = _Ops()
