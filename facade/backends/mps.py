"""torch.backends.mps: JAX does not drive Apple's Metal backend here."""

__all__ = ["is_available", "is_built", "is_macos13_or_newer"]


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def is_macos13_or_newer(minor: int = 0) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


is_macos_or_newer = is_macos13_or_newer
