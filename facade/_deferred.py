"""Value checks that never stall an accelerator (DESIGN.md, "No hidden host syncs").

Some of torch's errors depend on a tensor's values: an index out of range, a class target out of
bounds, a BCE input outside [0, 1], an integer division by zero. Reading the values to check them
is free where they already are in host memory, and a device-to-host copy plus a pipeline stall on
every call where they are not. So `check_range` looks where the values live:

- **host** (checked now, the error raised at the call, as on torch's CPU): a numpy-backed tensor
  (`torch.tensor(...)`, `from_numpy`, DataLoader batches, host mode) or a jax array on a CPU device,
  whose buffer *is* host memory (reading it is zero-copy: no transfer, only waiting for the op
  that makes it, on the same processor);
- **device** (a GPU/TPU array): the check runs on the device as one small jitted reduction, and
  its (flag, first bad value) pair waits in a queue that is read at the next point where the
  program syncs anyway (`.item()`, `.tolist()`, `.numpy()`, `print`, `torch.cuda.synchronize()`),
  like CUDA's device-side asserts; the error raised there is torch's (same type and message), with
  a note naming the op whose check failed. The queue is read early once it holds `_LIMIT` checks;
- **traced** (torch.compile / jax.jit) or meta: not checked (the value is not known).

`as_accelerator()` treats CPU arrays as device arrays (tests run the accelerator path on CPU).
"""

from __future__ import annotations

import contextlib
import functools

import jax
import jax.numpy as jnp
import numpy as np

from . import _multidevice as _md
from . import _ragged

__all__ = ["check_range", "check_all", "flush", "as_accelerator", "host_memory"]

_LIMIT = 256
_PENDING = []  # (flag, value, error, op name): device scalars waiting for the next sync point
_AS_DEVICE = [False]


@contextlib.contextmanager
def as_accelerator():
    """Within: every jax array counts as accelerator memory (its checks are deferred)."""
    _AS_DEVICE.append(True)
    try:
        yield
    finally:
        _AS_DEVICE.pop()


def host_memory(device):
    """Whether a torch device's arrays live in host memory (cpu; not within `as_accelerator()`)."""
    return device.type == "cpu" and not _AS_DEVICE[-1]


def _where(t):
    """('host', numpy values), ('device', jax array) or (None, None) for traced / meta tensors."""
    if t._np is not None:
        return "host", t._np
    if t._device.type == "meta":
        return None, None
    if t._rg is not None:  # bucketed (facade/_ragged.py): its logical values, the tensor left bucketed
        a = _ragged.values(t, host=not _AS_DEVICE[-1])
        return ("host", a) if isinstance(a, np.ndarray) else ("device", a)
    a = t._arr()
    if isinstance(a, jax.core.Tracer):
        return None, None
    if not isinstance(a, jax.Array):  # host mode: numpy arrays
        return "host", np.asarray(a)
    platform = getattr(a.device, "platform", None) or next(iter(a.devices())).platform  # sharded: on a Mesh
    if platform == "cpu" and not _AS_DEVICE[-1]:
        return "host", np.asarray(a)  # zero-copy: a CPU buffer is host memory
    return "device", a


def _first_bad(xp, v, lo, hi, skip, use_skip, inside):
    """(any value is bad, the first bad value): bad means outside [lo, hi] (inside it, if `inside`;
    NaN is outside every range), values equal to `skip` excepted when `use_skip`."""
    v = v.reshape(-1)
    if xp.issubdtype(v.dtype, xp.integer):  # the bounds may not fit v's dtype (uint8 >= -5)
        v = v.astype(xp.int64)
    within = (v >= lo) & (v <= hi)
    bad = xp.where(inside, within, ~within) & ~(use_skip & (v == skip))
    i = xp.argmax(bad)
    return bad[i], v[i]


_first_bad_device = _md.serialised(jax.jit(lambda *a: _first_bad(jnp, *a)))  # a sharded tensor: see _multidevice


def _base_passes(t, host_ok):
    """Whether the base of view `t` (`y.reshape(-1)`, `x.t()`: as many values as the view) has host values that
    all pass `host_ok`. Then so do the view's, since each of its values is one of its base's, and the check
    reads the base's ready buffer instead of waiting for the program that makes the view, queued behind the
    programs in flight (a training step's forward: the loss's target check would stall the step)."""
    base = t._base
    if base is None or base.numel() != t.numel():
        return False
    kind, v = _where(base)
    return kind == "host" and bool(host_ok(v))


def check_range(t, lo, hi, error, *, op="a value check", skip=None, inside=False):
    """Raise `error(v)` (an exception) for the first value v of Tensor `t` outside [lo, hi] (inside it,
    when `inside`), values equal to `skip` excepted: now for host values, at the next sync point for
    device values (see the module docstring), never for traced ones. `op` names the checking op."""
    if not t.numel():
        return
    args = (lo, hi, 0 if skip is None else skip, skip is not None, inside)

    def host_ok(v):  # all in range, the common case, by two reductions (no value is then bad, `skip` or not)
        if not inside and v.dtype.kind in "biu" and lo <= v.min() and v.max() <= hi:
            return True
        return not _first_bad(np, v, *args)[0]

    if _base_passes(t, host_ok):
        return
    kind, v = _where(t)
    if kind is None:
        return
    if kind == "host":
        if host_ok(v):
            return
        bad, value = _first_bad(np, v, *args)
        if bad:
            raise error(value.item())
        return
    _PENDING.append((*_first_bad_device(v, *args), error, op))
    if len(_PENDING) >= _LIMIT:
        flush()


@_md.serialised
@functools.partial(jax.jit, static_argnums=0)
def _none_bad(pred, v):
    return ~jnp.all(pred(jnp, v)), jnp.zeros((), jnp.int32)


def check_all(t, pred, error, *, op="a value check"):
    """Raise `error(None)` unless `pred(xp, values)` holds for every value of Tensor `t`, with `check_range`'s timing
    (now on the host, at the next sync point on a device). `pred` is a module-level function (a static argument of
    the device check's jit) given numpy and host values, or jax.numpy and device values, as `_first_bad` is."""
    if _base_passes(t, lambda v: np.all(pred(np, v))):
        return
    kind, v = _where(t)
    if kind == "host":
        if not np.all(pred(np, v)):
            raise error(None)
    elif kind == "device":
        _PENDING.append((*_none_bad(pred, v), error, op))
        if len(_PENDING) >= _LIMIT:
            flush()


def flush():
    """Read the deferred checks (one transfer for all of them) and raise the first failure's error."""
    if not _PENDING:
        return
    pending = _PENDING[:]
    _PENDING.clear()
    flags = jax.device_get([(f, v) for f, v, _, _ in pending])  # obeys the transfer guard, as the caller's read does
    for (bad, value), (_, _, error, op) in zip(flags, pending):
        if bad:
            e = error(value.item())  # the first failure wins, as the first device-side assert does
            e.add_note(f"({op}, deferred on the device and raised at the next sync point; see facade/_deferred.py)")
            raise e
