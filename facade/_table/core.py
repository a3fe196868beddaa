"""Table rows for copies and fills, and the Tensor methods and torch functions that are compositions
of other ops or answer about a tensor's metadata (is_conj, new, resize_, set_, fill_diagonal_ ...)."""

import math

import numpy as np
from jax._src.array import ArrayImpl
from jax.sharding import SingleDeviceSharding

import functional as F

from .. import _creation, _deferred, _dispatch, _host
from .. import _dtype as D
from .._device import jax_device
from .._dispatch import Op
from .._tensor import Size, Tensor
from ..autograd.grad_mode import STATE

_COPY = Op("copy", F.copy, arrays=("input", "src"), function=False, method=False, inplace=True,
           grad_name="CopyBackwards", saves=())
_FILL = Op("fill", F.fill, arrays=("input", "value"), method=False, inplace=True, saves=())
OPS = [Op("clone", F.clone, grad_name="CloneBackward0", saves=()), _COPY, _FILL]


# ---------------------------------------------------------------------------- writes without a program
# A module's initialisation fills its tensors (zero_(), ones_(), fill_(1)) and load_state_dict copies into every
# parameter: on a CPU tensor that records nothing these take the new values as they are (a fresh host fill, the
# source's array: jax arrays are immutable) instead of compiling a fill or copy program for every shape.

def _plain_write(t):
    """Whether a write into `t` records nothing and needs no program: a CPU tensor of its own (not a view, not
    bucketed, not an inference tensor), no autograd, not traced."""
    return (t._base is None and t._rg is None and not t._inference and not (STATE.enabled and t.requires_grad)
            and _deferred.host_memory(t._device) and not _dispatch.TRACING and not _host.ACTIVE)


def _placed_alike(a, t):
    """Whether array `a` sits where `t`'s array does (one device, committed alike: no second signature for jit)."""
    b = t._data if t._np is None else None
    return type(a) is ArrayImpl and (b is None or type(b) is ArrayImpl and type(a.sharding) is SingleDeviceSharding
                                     and a.sharding == b.sharding and a.committed == b.committed)


def fill_(self, value) -> Tensor:
    """Tensor.fill_ (0 or 1 on a plain CPU tensor: made on the host, exact in every dtype)."""
    if type(value) in (int, float, bool) and value in (0, 1) and _plain_write(self):
        a = _creation._full(tuple(self.shape), value, self.dtype.np, jax_device(self._device))
        if _placed_alike(a, self):
            self._assign(Tensor._from_array(a, self._device))
            return self
    return _dispatch.call_inplace(_FILL, self, (value,), None)


def copy_(self, src, non_blocking=False) -> Tensor:
    """Tensor.copy_ (a source of the same shape, dtype and device into a plain CPU tensor: its values as they are)."""
    if (type(src) is Tensor and src._device == self._device and src.dtype is self.dtype and src._rg is None
            and not (STATE.enabled and src.requires_grad) and src.shape == self.shape and _plain_write(self)):
        a = src._arr()
        if _placed_alike(a, self):
            self._assign(Tensor._from_array(a, self._device))
            return self
    return _dispatch.call_inplace(_COPY, self, (src, non_blocking), None)


def _torch():
    import facade

    return facade


# ---------------------------------------------------------------------------- metadata

def _false(input):
    """Lazy conjugate/negative bits, distributed and sparse-CSR layouts: tensors here have none."""
    return False


def _identity(input):
    """resolve_conj / resolve_neg: conj() and neg() here are eager, so there is nothing to resolve."""
    return input


def is_nonzero(input):
    """The truth value of a one-element tensor (refused for any other size, like torch)."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    return input.is_signed()


def get_device(input):
    return input.get_device()


def typename(obj):
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified class name for anything else."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)  # torch.typename(nn.Parameter) names the class itself
    module, name = getattr(cls, "__module__", "") or "", cls.__qualname__
    if module.startswith("facade"):
        module = "torch" + module[len("facade"):]
    return name if module in ("", "builtins") else f"{module}.{name}"


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (stride order, ties kept in dim order)."""
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -st[d]))


def storage_type(self):
    from ..storage import tensor_storage_type

    return tensor_storage_type(self)


def _output_nr(self):
    return self._output_nr if self._grad_fn is not None else 0


def _record_stream(self, stream):
    """Streams here are no-ops (JAX orders device work itself), so there is nothing to record."""


# ---------------------------------------------------------------------------- compositions

def adjoint(input):
    """The conjugate transpose of the last two dims (a view for real tensors)."""
    t = input.transpose(-2, -1)
    return t.conj() if input.is_complex() else t


def _mh(self):
    if self.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return adjoint(self)


def _h(self):
    if self.ndim == 0:  # deprecated in torch (with a warning): x.conj()
        return self.conj()
    if self.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{hint}")
    return adjoint(self)


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    return _torch().linalg.vector_norm(input - other, p)


def rsub(input, other, alpha=1):
    """other - alpha * input."""
    return _torch().sub(other, input, alpha=alpha) if alpha != 1 else _torch().sub(other, input)


def conj_physical_(self):
    return self.copy_(self.conj()) if self.is_complex() else self


def sum_to_size(self, *size):
    """self summed over the dims where `size` (which self must expand to) is 1 or missing."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != n and s != 1 for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, (s, n) in enumerate(zip(size, shape[lead:])) if s == 1 != n)
    return self.sum(dims, keepdim=True).reshape(size) if dims else self


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal (all dims of equal length; a tall matrix wraps if asked)."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if self.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.ndim == 2:
        rows, cols = shape
        step = cols + 1
        end = rows * cols if wrap and rows > cols + 1 else min(rows, cols) * cols
        flat = np.arange(0, end, step)
        index = (flat // cols, flat % cols)
    else:
        index = (np.arange(shape[0]),) * self.ndim
    tensor = _torch().tensor
    self[tuple(tensor(i, dtype=D.int64) for i in index)] = fill_value
    return self


def new(self, *args, device=None):
    """The legacy constructor with self's dtype (and device): x.new(2, 3), x.new([1, 2]), x.new()."""
    from .._creation import legacy_new

    return legacy_new(Tensor, args, device if device is not None else self.device, dtype=self.dtype)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    return _torch().empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                                  requires_grad=requires_grad)


def _sizes(sizes):
    return tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)) else tuple(sizes)


def resize_(self, *sizes, memory_format=None):
    """self reshaped to `sizes` in place, keeping its first elements (new ones are zero here)."""
    shape = _sizes(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if shape == tuple(self.shape):
        return self
    n = math.prod(shape)
    flat = self.detach().reshape(-1)
    if n > flat.numel():
        flat = _torch().cat([flat, flat.new_zeros(n - flat.numel())])
    self._resize_assign(flat[:n].reshape(shape))
    return self


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, the_template.shape)


def resize(self, *sizes):
    return resize_(self.detach().clone(), *sizes)


def resize_as(self, the_template):
    return resize(self, the_template.shape)


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """self becomes an alias of `source`'s storage (or an empty tensor with no source)."""
    if source is None:
        source = _torch().empty(0, dtype=self.dtype, device=self._device)
    if not isinstance(source, Tensor) or storage_offset is not None or size is not None or stride is not None:
        raise NotImplementedError("Tensor.set_ here takes a Tensor source only (torch.Tensor.set_ with a storage, "
                                  "offset, size or stride)")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}")
    alias = source._alias(detached=True)  # a view of source's root: writes through either show in the other
    for s in ("_data", "_np", "_base", "_view", "_detached", "_bsv", "_idx", "_geom", "_device"):
        object.__setattr__(self, s, getattr(alias, s, None))
    return self


def is_set_to(self, tensor):
    """True if both are the same elements of one storage (same root, sizes, strides and offset)."""
    def root(t):
        return t._base if t._base is not None else t

    return (root(self) is root(tensor) and tuple(self.shape) == tuple(tensor.shape)
            and self.stride() == tensor.stride() and self.storage_offset() == tensor.storage_offset())


def _host_map(name):
    """apply_/map_/map2_: a Python callable over a CPU tensor's elements, written back in place."""
    def method(self, *args):
        if self.device.type != "cpu":
            raise TypeError(f"{name} is only implemented on CPU tensors")
        *others, fn = args
        values = [self.numpy(force=True)] + [np.broadcast_to(o.numpy(force=True), tuple(self.shape)) for o in others]
        out = np.vectorize(fn, otypes=[self.dtype.np])(*values) if self.numel() else values[0]
        return self.copy_(_torch().tensor(np.asarray(out, self.dtype.np)))

    method.__name__ = name
    return method


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero() with a fixed number of rows: cut to `size`, or padded with rows of fill_value."""
    found = input.nonzero()
    n = found.shape[0]
    if n >= size:
        return found[:size]
    pad = _torch().full((size - n, input.ndim), fill_value, dtype=D.int64, device=input.device)
    return _torch().cat([found, pad])


def unravel_index(indices, shape):
    """The coordinates in `shape` of flat (row-major) indices, as a tuple of tensors of indices' shape."""
    torch = _torch()
    if not isinstance(indices, Tensor):
        indices = torch.tensor(indices)
    if indices.dtype._cat != 1 or indices.dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    rest = indices.long() % max(math.prod(shape), 1)  # torch wraps indices out of range, too
    out = []
    for s in reversed(shape):
        out.append(rest % s)
        rest = rest.div(s, rounding_mode="floor")
    return tuple(reversed(out))


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of `size` (strides here are always row-major; the layout only is checked)."""
    if sorted(physical_layout) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"dim={len(size)} but len(physical_layout)={len(physical_layout)}")
    return _torch().empty(tuple(size), dtype=dtype, device=device, requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor of `buffer`'s bytes read as `dtype` (a copy here: arrays cannot alias Python buffers)."""
    data = np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset)
    return _torch().tensor(data, dtype=dtype, requires_grad=requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """The first `size` elements of a binary file as a 1-D tensor (read, not memory-mapped)."""
    dtype = dtype or _torch().get_default_dtype()
    data = np.fromfile(filename, dtype=dtype.np, count=size)
    if data.size < size:
        raise RuntimeError(f"unable to read {size} elements of {filename}: the file holds {data.size}")
    return _torch().tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


_PREDICATES = {"is_conj": _false, "is_neg": _false, "is_distributed": _false}
_BOTH = {**_PREDICATES, "is_nonzero": is_nonzero, "is_same_size": is_same_size, "resolve_conj": _identity,
         "resolve_neg": _identity, "adjoint": adjoint, "dist": dist, "conj_physical_": conj_physical_}

FUNCTIONS = {
    **_BOTH, "is_signed": is_signed, "get_device": get_device, "typename": typename, "rsub": rsub,
    "detach": lambda input: input.detach(), "detach_": lambda input: input.detach_(), "zero_": lambda t: t.zero_(),
    "nonzero_static": nonzero_static, "unravel_index": unravel_index, "empty_permuted": empty_permuted,
    "frombuffer": frombuffer, "from_file": from_file, "conj_physical": lambda input: input.conj(),
    "resize_as_": resize_as_, "dsmm": lambda input, mat2: input.mm(mat2),  # dsmm: sparse @ dense; dense here
}
METHODS = {
    **_BOTH, "conj_physical": lambda self: self.conj(), "H": property(_h), "mH": property(_mh),
    "sum_to_size": sum_to_size, "fill_diagonal_": fill_diagonal_, "new": new, "new_empty_strided": new_empty_strided,
    "resize_": resize_, "resize_as_": resize_as_, "resize": resize, "resize_as": resize_as, "set_": set_,
    "is_set_to": is_set_to, "apply_": _host_map("apply_"), "map_": _host_map("map_"), "map2_": _host_map("map2_"),
    "nonzero_static": nonzero_static, "dim_order": dim_order, "output_nr": property(_output_nr),
    "record_stream": _record_stream, "name": None, "const_data_ptr": lambda self: self.data_ptr(),
    "storage_type": storage_type, "fill_": fill_, "copy_": copy_,
}
