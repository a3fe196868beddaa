"""torch.backends.cpu: the vector instruction set the CPU offers (XLA compiles for the host CPU)."""

__all__ = ["get_cpu_capability"]


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def get_cpu_capability() -> str:
    """torch's names: 'AVX512', 'AVX2' or 'DEFAULT' on x86; 'DEFAULT' elsewhere."""
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"
