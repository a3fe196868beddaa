"""torch.nn.attention: `sdpa_kernel` / `SDPBackend` (backend selection for scaled_dot_product_attention) and
`flex_attention`.

facade has one SDPA implementation (torch's math backend, compiled by XLA), so choosing backends changes
nothing about the result: `sdpa_kernel` validates its argument like torch and records the selection
(`_enabled_backends()`), restoring the previous one on exit."""

from __future__ import annotations

import contextlib
import enum

from . import flex_attention

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS", "flex_attention", "can_use_flash_attention",
           "can_use_efficient_attention"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The scaled_dot_product_attention backends torch names (values as torch's)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self):
        return f"SDPBackend.{self.name}"


SDPBackend.__module__ = "torch.nn.attention"
_ALL = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION,
        SDPBackend.OVERRIDEABLE]
_enabled = [list(_ALL)]


def _enabled_backends():
    """The backends the innermost sdpa_kernel selected (all of them outside one)."""
    return list(_enabled[-1])


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Select the SDPA backends for the block (a SDPBackend or a list of them)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    backends = list(dict.fromkeys([backends] if isinstance(backends, SDPBackend) else backends))
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise AssertionError(f"Backend must be an instance of SDPBackend, got {type(b).__name__}")
    _enabled.append(backends)
    try:
        yield {}
    finally:
        _enabled.pop()


def can_use_flash_attention(params, debug=False):
    """False: facade has no fused flash-attention kernel (its SDPA is the math backend, compiled by XLA)."""
    return False


def can_use_efficient_attention(params, debug=False):
    """False: facade has no memory-efficient attention kernel (its SDPA is the math backend, compiled by XLA)."""
    return False
