"""JAX's persistent compilation cache, on by default, so a second run of a script loads its programs
instead of compiling them again.

    FACADE_CACHE=0          off (JAX's own settings are left as they are)
    FACADE_CACHE_DIR=path   where; default $XDG_CACHE_HOME/facade/jax, else ~/.cache/facade/jax
    JAX_COMPILATION_CACHE_DIR, or any JAX_PERSISTENT_CACHE_* variable, set by the user: theirs wins

Eager programs are small, far below JAX's default threshold of 1 s of compile time, and all of them
gain from the cache, so every program is written. Measured on the README's main job (138 programs, a
loaded 2-core machine): an XLA compile took 16 / 74 / 525 ms (10th percentile / median / 90th), a load
from the cache 1 / 4 / 15 ms, and an entry holds a few KB. Setting the config starts no backend: JAX
opens the cache at the first compile.
"""

from __future__ import annotations

import os

import jax

__all__ = ["settings", "configure"]

_OFF = ("0", "false", "no", "off")


def _default_dir(environ):
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "facade", "jax")


def settings(environ=os.environ) -> dict:
    """The jax.config values that `configure` sets for this environment (empty when off or the user's)."""
    if environ.get("FACADE_CACHE", "1").strip().lower() in _OFF or environ.get("JAX_COMPILATION_CACHE_DIR"):
        return {}
    out = {"jax_compilation_cache_dir": environ.get("FACADE_CACHE_DIR") or _default_dir(environ)}
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in environ:
        out["jax_persistent_cache_min_compile_time_secs"] = 0.0
    return out


def configure(environ=os.environ) -> None:
    """Apply `settings` (once, at facade import: before any program compiles). A default directory that
    cannot be made (a read-only home) leaves the cache off rather than warning in every script."""
    values = settings(environ)
    if values and not environ.get("FACADE_CACHE_DIR"):
        try:
            os.makedirs(values["jax_compilation_cache_dir"], exist_ok=True)
        except OSError:
            return
    for k, v in values.items():
        jax.config.update(k, v)
