"""torch.torch_version.TorchVersion: a version string that compares as a version (`>= "2.1"`,
`> (1, 13)`, against packaging's Version), falling back to string comparison where it cannot parse."""

from __future__ import annotations

from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

__all__ = ["TorchVersion"]


class TorchVersion(str):
    __slots__ = ()

    @staticmethod
    def _as_version(other):
        if isinstance(other, Version):
            return other
        if isinstance(other, str):
            return Version(other)
        if isinstance(other, Iterable):
            return Version(".".join(str(item) for item in other))
        raise InvalidVersion(other)

    def _compare(self, other, method):
        try:
            return getattr(Version(self), method)(self._as_version(other))
        except InvalidVersion:
            return getattr(str, method)(self, other)

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__
