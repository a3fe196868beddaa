"""torch.backends.mha: the fast-path switch of nn.MultiheadAttention (recorded; one path here)."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    return _fastpath[0]


def set_fastpath_enabled(value: bool) -> None:
    _fastpath[0] = bool(value)
