"""torch.backends.mkl: XLA does not link Intel MKL."""

__all__ = ["is_available"]


def is_available() -> bool:
    return False
