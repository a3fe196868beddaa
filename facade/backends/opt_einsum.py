"""torch.backends.opt_einsum: jnp.einsum always optimises the contraction order (with opt_einsum)."""

from __future__ import annotations

import importlib.util

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy"]

enabled = True
strategy = "auto"


def is_available() -> bool:
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    import opt_einsum

    return opt_einsum
