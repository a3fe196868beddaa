"""XLA flags that make first-seen shapes cheaper. An eager program (one op, one pullback, one fused
backward, one sampler) is small and compiled the first time a shape is seen, so its compile time is
what a user feels. On CPU, XLA's loop emitters compile such programs faster than its newer fusion
emitters, and the programs run as fast (measured on jaxlib 0.10.2, this 2-core machine):

    a slice, softmax and sum (median of 8 programs)     42 -> 29 ms
    a threefry sampler, split + normal                  214 -> 135 ms
    the MNIST script's 66 programs, in all               5.5 -> 3.8 s
    run time: the MLP/CNN/GPT training steps of benchmarks/bench_compile.py, gelu, softmax and
    a*2+1 on 256x1024: equal within noise

A flag cannot be set per eager program: `jax.jit(compiler_options=...)` is refused on a jit nested in
another trace, and eager programs are nested in fused backwards and compiled steps. So it goes in
XLA_FLAGS, which XLA reads once, when JAX starts its first backend (this runs at facade import, before
anything compiles; child processes inherit it). It holds for every program of the process, JAX code of
the user's own too.

A compiled whole step is never nested, and it asks for XLA's own values back (`xla_defaults()`), as a plain
JAX step compiles: the loop emitters compile a large program slower (their compile time grows faster than
the program: bench_compile's GPT step with 1, 2, 4 layers, 1.8, 3.3, 6.4 s; with the fusion emitters 1.8,
2.0, 2.6 s), and a program that donates its buffers runs slower with them (bench_compile's MLP step, pure
JAX: 2.7 vs 2.0 ms; facade's compile(step): 2.99 vs 2.55 ms; the CNN's equal, its compile 0.6 -> 1.0 s,
as pure JAX's). facade's eager optimizer update (`optimizer.step()`, also top-level, also donating) asks for
them as well: bench_compile's MLP Adam update runs 1.46 -> 0.40 ms, the MLP's eager training step 3.25 ->
2.06 ms.

    FACADE_FAST_COMPILE=0   leave XLA_FLAGS as it is
    XLA_FLAGS naming the flag itself: the user's value wins; naming it with facade's own value (what a child
    process inherits from a facade parent: the launcher's ranks, a subprocess) counts as facade's, so that
    the child's top-level programs ask for XLA's values as the parent's do, and compute the same bits

XLA aborts the process on a flag it does not know, so the flag is added only on the jaxlib it was
measured on; a newer one gets XLA's defaults until it is measured again.
"""

from __future__ import annotations

import os

import jax
from jax._src.core import trace_state_clean

__all__ = ["FLAGS", "flags", "inherited", "configure", "xla_defaults", "Program"]

FLAGS = {"xla_cpu_use_fusion_emitters": "false"}
MEASURED_ON = (0, 10)  # jaxlib (major, minor) whose XLA has these flags
_ADDED: dict = {}  # what `configure` added to XLA_FLAGS in this process


def _jaxlib() -> tuple:
    from jaxlib import version
    return tuple(int(p) for p in version.__version__.split(".")[:2])


def flags(environ=os.environ) -> dict:
    """The flags `configure` adds to XLA_FLAGS in this environment."""
    if environ.get("FACADE_FAST_COMPILE", "1").strip().lower() in ("0", "false", "no", "off"):
        return {}
    if _jaxlib() != MEASURED_ON:
        return {}
    given = environ.get("XLA_FLAGS", "")
    return {k: v for k, v in FLAGS.items() if f"--{k}" not in given}


def inherited(environ=os.environ) -> dict:
    """The flags XLA_FLAGS already names with facade's own values (set by a facade parent process)."""
    if not flags({k: v for k, v in environ.items() if k != "XLA_FLAGS"}):
        return {}
    given = environ.get("XLA_FLAGS", "").split()
    return {k: v for k, v in FLAGS.items() if f"--{k}={v}" in given}


def configure(environ=os.environ) -> None:
    added = flags(environ)
    extra = " ".join(f"--{k}={v}" for k, v in added.items())
    _ADDED.update(inherited(environ))
    if extra:
        environ["XLA_FLAGS"] = f"{environ.get('XLA_FLAGS', '')} {extra}".strip()
        _ADDED.update(added)


def xla_defaults() -> dict:
    """`compiler_options` that give a top-level jit XLA's own values of the flags `configure` added (what a
    plain JAX process compiles with)."""
    return {"xla_cpu_use_fusion_emitters": True} if "xla_cpu_use_fusion_emitters" in _ADDED else {}


class Program:
    """A jitted program that, called outside any trace, compiles with XLA's own values of the flags
    (`xla_defaults()`); nested in a trace (where compiler_options are refused) it is the plain jit, compiled
    with the outer one. For a deferred generation step's graph (facade/_pending.py): the fusion emitters
    compile the sampling GPT's (139 kernels) in 0.29 s instead of 0.40 s in the loop's thread, and in 0.36 s
    instead of 0.88 s ahead in the background (so the loop no longer waits for the next bucket's), with the
    same bits and run time (its outputs `array_equal`, 670 us either way). Not for a fused backward: the MNIST
    CNN's compiles in 0.39 s instead of 0.20 s, the char LSTM's in 0.43 s instead of 0.31 s."""

    __slots__ = ("plain", "top")

    def __init__(self, fn):
        self.plain = jax.jit(fn)
        options = xla_defaults()
        self.top = jax.jit(fn, compiler_options=options) if options else self.plain

    def __call__(self, *args):
        return (self.top if trace_state_clean() else self.plain)(*args)
