"""Eager programs that a later process loads by facade's own key, without tracing or lowering them.

JAX's persistent compilation cache (facade/_cache.py) keys a program by its lowered module, so even a hit
pays the trace and the lowering: on the README's main job with a warm cache, 86 programs cost trace 0.46 s
+ lower 0.67 s + load 0.32 s. An eager op's program is already fixed by what facade keys it on in the
process (the op and its static arguments) plus the abstract values and devices of its arrays; add the JAX
and jaxlib versions, the backend, JAX's trace-time configuration and a stamp of facade's own source, and
the serialized executable can be loaded under that key directly (~2 ms).

Kept only where that key is complete: ops whose function (and what a closure captured) is facade's,
functional's, jax's or numpy's (`function_identity`), static arguments
that are plain data (numbers, strings, dtypes, tuples of them), arrays on the first device of a
single-process run, a tracing that raised no warning (so a warning shows in every process), and
JAX's cache directory set (off with FACADE_CACHE=0, as JAX's is). Files sit in `<JAX cache dir>/facade-exe`.
An executable that JAX's own cache served is not written: XLA's CPU client serializes a loaded executable
without its kernels ("Function ... not found" when the copy runs), so only fresh compiles are kept.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import tempfile
import threading
import time
import warnings

import jax
import jaxlib
import numpy as np
from jax import monitoring
from jax._src.array import ArrayImpl as _ArrayImpl  # concrete arrays (naming the class starts no backend)
from jax._src.config import disable_jit as _disable_jit
from jax._src.config import trace_context as _trace_context  # what jax.jit's own cache keys tracing on
from jax.experimental import serialize_executable as _se

from .compiler import _metrics

__all__ = ["PersistentJit", "function_identity", "persistable"]

_PLAIN = (int, float, bool, complex, str, type(None), type(Ellipsis), np.dtype, type)
_stamp = None
_served = threading.local()  # .hit: JAX's own cache served the compile this thread just ran
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # the (empty, outside transforms) axis environment prints its address


def persistable(value) -> bool:
    """Whether a static value is plain data whose repr names it across processes."""
    if isinstance(value, tuple):
        return all(persistable(v) for v in value)
    return isinstance(value, _PLAIN) and (not isinstance(value, type) or value in (int, float, bool, complex))


_OWN = {"functional", "facade", "jax", "jaxlib", "numpy"}  # packages the source stamp and the versions cover


def function_identity(fn, depth=0):
    """What names `fn` across processes, given facade's source: its module and qualified name, and for a closure
    (a function made by a factory) the values it closed over; None where that is not plain data or `fn` is not
    facade's, functional's or jax's (a user's function may change without facade's stamp changing)."""
    module = getattr(fn, "__module__", None) or ""
    if module.partition(".")[0] not in _OWN or not hasattr(fn, "__qualname__") or depth > 3:
        return None
    cells = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            return None
        v = function_identity(v, depth + 1) if callable(v) and not isinstance(v, type) else v
        if v is None and cell.cell_contents is not None or not persistable(v):
            return None
        cells.append(v)
    return (module, fn.__qualname__, tuple(cells))


def _source_stamp():
    """A digest of facade's and functional's sources (path, size, mtime) and of the stack under them."""
    global _stamp
    if _stamp is None:
        h = hashlib.sha256(repr((jax.__version__, jaxlib.__version__, np.__version__)).encode())
        here = os.path.dirname(os.path.abspath(__file__))
        for top in (here, os.path.join(os.path.dirname(here), "functional")):
            for root, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for f in sorted(files):
                    if f.endswith(".py"):
                        path = os.path.join(root, f)
                        st = os.stat(path)
                        h.update(f"{os.path.relpath(path, here)}:{st.st_size}:{st.st_mtime_ns};".encode())
        _stamp = h.hexdigest()
    return _stamp


def _directory():
    base = jax.config.jax_compilation_cache_dir
    return None if not base else os.path.join(base, "facade-exe")


def _first_device_only(args):
    dev = jax.devices()[0]
    return jax.process_count() == 1 and all(a.sharding.device_set == {dev} for a in args)


class PersistentJit:
    """`jax.jit(fn)` whose executables are also written to disk and loaded there by `key` + argument avals.

    Calls with anything but concrete jax arrays (tracers under torch.compile, Python numbers), and calls under
    `jax.disable_jit()`, take the plain jit path; so does every call when the cache directory is unset."""

    __slots__ = ("jit", "key", "name", "exes")

    def __init__(self, fn, key, name):
        self.jit, self.key, self.name, self.exes = jax.jit(fn), key, name, {}

    def __getattr__(self, attr):  # .lower, .eval_shape, .trace ... are jax.jit's
        return getattr(self.jit, attr)

    def __call__(self, *args):
        if _disable_jit.value:  # jax.disable_jit(): run op by op, as jax.jit would
            return self.jit(*args)
        for a in args:
            if type(a) is not _ArrayImpl:
                return self.jit(*args)
        sig = tuple([(a.aval, a.sharding) for a in args])
        exe = self.exes.get(sig)
        if exe is None:
            exe = self.exes[sig] = self._load_or_compile(args)
        return exe(*args)

    def _load_or_compile(self, args):
        folder = _directory()
        if folder is None or not _first_device_only(args):
            return self.jit
        dev = jax.devices()[0]
        avals = tuple((a.aval.shape, a.aval.dtype.name, a.aval.weak_type) for a in args)
        context = _ADDRESS.sub("", repr(_trace_context()))
        ident = repr((_source_stamp(), dev.platform, dev.device_kind, context, self.key, avals))
        path = os.path.join(folder, hashlib.sha256(ident.encode()).hexdigest())
        start = time.perf_counter()
        try:
            with open(path, "rb") as f:
                stored_ident, payload = pickle.load(f)
            if stored_ident == ident:
                exe = _se.deserialize_and_load(*payload)
                _metrics.record_load(self.name, time.perf_counter() - start)
                return exe
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
            pass  # absent, or written by another version: compile it
        _served.hit = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exe = self.jit.trace(*args).lower().compile()
        for w in caught:  # shown as the plain jit would have shown them, and then never stored
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        if not caught and not _served.hit:  # XLA's CPU client cannot serialize again what it loaded from a file
            _store(folder, path, ident, exe)
        return exe


def _on_event(event, **_):
    if event == "/jax/compilation_cache/cache_hits":
        _served.hit = True


monitoring.register_event_listener(_on_event)


def _store(folder, path, ident, exe):
    try:
        blob = pickle.dumps((ident, _se.serialize(exe)))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the whole file or none
    except (OSError, TypeError, ValueError, pickle.PicklingError):
        pass  # an executable that does not serialize (host callbacks ...) stays in this process only
