"""Remaining torch.* helpers: anomaly flags, backend probes, torch.Stream/Event, fork/wait, sym_constrain_range,
the legacy norm entry points (frobenius_norm, nuclear_norm, norm_except_dim ...), combinations and a few
Tensor methods (is_inference, as_subclass, module_load, volatile, reinforce). Ops here are compositions of
table ops, so they go through the dispatch chokepoint."""

from __future__ import annotations

import itertools
import warnings

import jax

from . import _creation as C
from . import _dtype as D
from . import linalg as _LA
from ._device import device as _device
from ._device import gpus
from ._tensor import Tensor
from .autograd import graph as _graph
from .jit import fork, wait  # torch.fork / torch.wait are torch.jit's

__all__ = ["is_anomaly_enabled", "set_anomaly_enabled", "is_anomaly_check_nan_enabled", "cudnn_is_acceptable",
           "is_vulkan_available", "Stream", "Event", "fork", "wait", "sym_constrain_range",
           "sym_constrain_range_for_size", "slice_inverse", "frobenius_norm", "nuclear_norm", "native_norm",
           "norm_except_dim", "combinations", "is_inference", "cond"]

_INT64_MAX = 2**63 - 1


def _need(fn, name, pos, value, types, tname):
    if not isinstance(value, types):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be {tname}, not {type(value).__name__}")


# ---------------------------------------------------------------------------- flags and probes

def is_anomaly_enabled() -> bool:
    return _graph._anomaly[0]


def is_anomaly_check_nan_enabled() -> bool:
    return _graph._anomaly[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off (torch.autograd.set_detect_anomaly without the context)."""
    _need("set_anomaly_enabled", "enabled", 1, enabled, bool, "bool")
    _need("set_anomaly_enabled", "check_nan", 2, check_nan, bool, "bool")
    _graph._anomaly[:] = [enabled, check_nan]


def cudnn_is_acceptable(input) -> bool:
    """False: there is no cuDNN here (XLA picks its own kernels), as on torch's CPU build."""
    _need("cudnn_is_acceptable", "input", 1, input, Tensor, "Tensor")
    return False


def is_vulkan_available() -> bool:
    return False


def is_inference(input) -> bool:
    _need("is_inference", "input", 1, input, Tensor, "Tensor")
    return input.is_inference()


def sym_constrain_range(size, *, min=None, max=None) -> None:
    """On a plain int: check min <= size <= max (unbounded sides default to the int64 range)."""
    lo, hi = -_INT64_MAX - 1 if min is None else min, _INT64_MAX if max is None else max
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:
    """Like sym_constrain_range, for a size: the lower bound defaults to 0."""
    sym_constrain_range(size, min=0 if min is None else min, max=max)


# ---------------------------------------------------------------------------- device-generic Stream / Event

def _stream_device(device):
    d = _device("cpu" if device is None else device)
    if d.type == "cuda" and not gpus():
        raise RuntimeError("PyTorch is not linked with support for cuda devices")
    return d


_DEVICE_TYPE = {"cpu": 0, "cuda": 1, "meta": 14}  # c10::DeviceType, which Stream.device_type reports


class Stream:
    """torch.Stream: a device-generic stream handle. XLA orders each device's work itself, so waiting is implied;
    like torch, a cpu stream has no events."""

    def __init__(self, device=None, *, priority=0, **kwargs):
        if kwargs:
            raise TypeError(f"Stream() got an unexpected keyword argument '{next(iter(kwargs))}'")
        self.device = _stream_device(device)
        self.device_index = -1 if self.device.index is None else self.device.index
        self.device_type, self.stream_id = _DEVICE_TYPE[self.device.type], 0

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        _synchronize(self.device)

    def is_capturing(self) -> bool:
        return False

    def record_event(self, event=None):
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def wait_event(self, event) -> None:
        event.wait(self)

    def wait_stream(self, stream) -> None:
        self.wait_event(stream.record_event())

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self):
        return hash((self.device, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


def _synchronize(device):
    if device.type == "cuda":
        from . import cuda

        cuda.synchronize(device)


def _no_events(device):
    if device.type != "cuda":
        raise RuntimeError(f"{device.type} backend doesn't support events.")


class Event:
    """torch.Event: device-generic event; `record` is refused on cpu as torch does, timing works on cuda."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self.device = _stream_device(device)
        self.enable_timing, self.event_id, self._time = enable_timing, 0, None
        self._flag = int(bool(enable_timing))

    def record(self, stream=None) -> None:
        _no_events(self.device)
        import time

        _synchronize(self.device)
        self._time = time.perf_counter()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        _synchronize(self.device)

    def wait(self, stream=None) -> None:
        pass

    def elapsed_time(self, end_event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need this!")

    def __repr__(self):
        idx = self.device.index if self.device.index is not None else -1
        return (f"torch.Event device_type={self.device.type}, device_index={idx}, event_flag={self._flag}, "
                f"event_id={self.event_id}")


# ---------------------------------------------------------------------------- legacy norms, combinations

def _deprecated(name, use):
    warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  f"future PyTorch release. Please use `{use}` instead", UserWarning, stacklevel=3)


def frobenius_norm(input, dim, keepdim=False):
    """torch.frobenius_norm: the 2-norm over (at most two) `dim`s; deprecated in torch for linalg.vector_norm."""
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if input.dtype._cat < 2:
        raise RuntimeError("norm(): input dtype should be either floating point or complex. Got "
                           f"{C._legacy_name(input.dtype)} instead.")
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return _LA.vector_norm(input, 2.0, dim or None, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """torch.nuclear_norm: the sum of singular values over `dim` (the last two by default)."""
    if isinstance(dim, bool):  # nuclear_norm(x, keepdim) overload
        dim, keepdim = None, dim
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    return _LA.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """torch.native_norm exists for sparse tensors only, so a dense tensor is refused as torch refuses it."""
    raise NotImplementedError(
        f"Could not run 'aten::native_norm' with arguments from the '{input.device.type.upper()}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the selective/custom build "
        "process (if using custom build). 'aten::native_norm' is only available for sparse tensors.")


def norm_except_dim(v, pow=2, dim=0):
    """torch.norm_except_dim (weight norm): the `pow`-norm over every dim but `dim`, kept as size-1 dims;
    dim=-1: the norm of the whole tensor."""
    if dim == -1:
        return _LA.vector_norm(v, pow)
    return _LA.vector_norm(v, pow, tuple(d for d in range(v.ndim) if d != dim), keepdim=True)


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_inverse: the inverse view of `input = src[start:end:step]` along `dim`, a view of input's
    storage with src's sizes, strides and offset (functionalization's view replay)."""
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


def cond(pred, true_fn, false_fn, operands=()):
    """torch.cond, eagerly: the branch `pred` picks, called on `operands` (traced cond is the compile issue's)."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        leaves = jax.tree_util.tree_leaves(operands, is_leaf=lambda v: isinstance(v, Tensor))
        if not all(isinstance(v, Tensor) for v in leaves):
            raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists "
                               f"of tensor leaves, but got {operands}.")
        pred = bool(pred.item())
    return (true_fn if pred else false_fn)(*operands)


def combinations(input, r=2, with_replacement=False):
    """torch.combinations: the length-r combinations of a 1-D tensor's elements, as rows (itertools order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(pick(range(input.shape[0]), r))
    return input[_index(idx, r, input.device)]


def _index(idx, r, device):
    return C.tensor(idx, dtype=D.int64, device=device).reshape(len(idx), r)


# ---------------------------------------------------------------------------- Tensor methods

def _as_subclass(self, cls):
    """The same tensor (shared storage and autograd history) as an instance of Tensor subclass `cls`."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    t = object.__new__(cls)
    t._become(self)
    return t


def _module_load(self, other, assign=False):
    """What load_state_dict puts in place of parameter `self` for state-dict value `other`: `other` detached
    when assigning, else `self` with `other` copied into it, detached."""
    return other.detach() if assign else self.copy_(other).detach()


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                  stacklevel=2)


_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def _reinforce(self, reward):
    raise RuntimeError(_REINFORCE)


def _grad_dtype_get(self):
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.__dict__.get("_grad_dtype", self.dtype)


def _grad_dtype_set(self, value):
    """Gradients reaching this leaf are cast to `value` (None: left in whatever dtype they arrive)."""
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None and not isinstance(value, D.dtype):
        raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
    self.__dict__["_grad_dtype"] = value


def install(cls):
    cls.grad_dtype = property(_grad_dtype_get, _grad_dtype_set)
    cls.as_subclass = _as_subclass
    cls.slice_inverse = slice_inverse
    cls.module_load = _module_load
    cls.volatile = property(_volatile_get, _volatile_set)
    cls.reinforce = _reinforce
