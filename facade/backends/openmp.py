"""torch.backends.openmp: XLA's CPU backend runs on its own thread pool, not OpenMP."""

__all__ = ["is_available"]


def is_available() -> bool:
    return False
