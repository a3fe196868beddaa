"""torch.__config__: how this build runs (JAX and XLA instead of torch's C++ libraries)."""

from __future__ import annotations

__all__ = ["show", "parallel_info"]


def show() -> str:
    import jax
    import jaxlib

    from . import version

    return (f"facade {version.__version__} (the PyTorch API over JAX) built with:\n"
            f"  - JAX {jax.__version__}\n  - jaxlib {jaxlib.__version__}\n"
            f"  - XLA backend: {jax.default_backend()}\n")


def parallel_info() -> str:
    import os

    from . import _config

    env = "".join(f"\t{k} : {os.environ.get(k, '[not set]')}\n" for k in ("OMP_NUM_THREADS", "XLA_FLAGS"))
    return (f"ATen/Parallel:\n\tat::get_num_threads() : {_config.get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {_config.get_num_interop_threads()}\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count()}\nEnvironment variables:\n{env}"
            "ATen parallel backend: XLA's CPU thread pool\n")
