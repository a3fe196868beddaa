"""torch.backends.mkldnn: XLA's CPU backend does not use oneDNN kernels torch-style; the flags are recorded."""

from __future__ import annotations

from . import Flag, flags_context, install_flags

__all__ = ["is_available", "flags"]


def is_available() -> bool:
    return False


install_flags(__name__, enabled=Flag(True, "set_enabled_mkldnn"),
              deterministic=Flag(False, "set_deterministic_mkldnn"), allow_tf32=Flag(True, "set_allow_tf32_mkldnn"))
flags = flags_context(__name__)
