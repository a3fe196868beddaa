"""facade.Tensor: a jax.Array plus torch's autograd metadata, views and in-place semantics.

A view remembers its root base and the chain of view ops that produced it. Reading a
view whose base has been written since re-derives it from the base; writing a view is
one scatter into the base at the flat indices the chain reads (`_flat_index`).
A CPU tensor may be backed by a numpy array instead (`from_numpy`, `.numpy()`), so that
writes through either side show in the other; it is read afresh at every use.
"""

from __future__ import annotations

import functools
import warnings
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from functional._names import cpp_name
from functional.shape import strided_positions

from . import _deferred, _dispatch, _host, _ragged
from . import _dtype as D
from ._device import CPU, META, gpus, jax_device, put
from ._device import device as _devcls
from .autograd import graph
from .autograd.grad_mode import STATE

__all__ = ["Tensor", "Size"]

_TYPE_NAMES = {d.name: d._c10 for d in D.ALL}  # c10's ScalarType names: torch.FloatTensor, 'Long' in errors


class Size(tuple):
    """torch.Size: a tuple of ints, as `Tensor.size()` returns."""

    def __new__(cls, sizes=()):
        out = []
        for i, s in enumerate(sizes):
            if not isinstance(s, int):
                try:
                    if isinstance(s, Tensor) and s.dtype._cat > 1:
                        raise TypeError
                    s = s.__index__()
                except (AttributeError, TypeError):
                    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(s).__name__}')") from None
            out.append(s)
        return tuple.__new__(cls, out)

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return tuple.__new__(Size, r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _contiguous_strides(shape):
    """torch's strides of a contiguous tensor of `shape` (a size-0 dim counts as 1)."""
    return _strides_of(tuple(shape))


@functools.lru_cache(4096)  # every view op asks for them, with a handful of shapes
def _strides_of(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


class ValueNeeded(RuntimeError):
    """A traced Tensor's value was asked for (item(), bool(), print ...): a graph break under torch.compile."""


class _PendingGeometry:
    """A view's (shape, strides, offset) by a rule that reads only the view op's other arguments (not the source
    tensor, which it does not keep alive), worked out when first asked for."""

    __slots__ = ("g", "op", "args", "kwargs", "k")

    def __init__(self, g, op, args, kwargs, k):
        self.g, self.op, self.args, self.kwargs, self.k = g, op, args, kwargs, k

    def resolve(self, shape):
        vals = _dispatch.bind(self.op, (None, *self.args), dict(self.kwargs) if self.kwargs else None)
        return (shape, *self.op.geometry(self.g, shape, vals, self.k))


class Tensor:
    """A multi-dimensional array with torch's API. See DESIGN.md, "Tensor"."""

    __slots__ = ("_data", "_rg", "_np", "_base", "_view", "_detached", "_bsv", "_sv", "_vc", "_idx", "_geom", "_device",
                 "requires_grad", "_grad", "_grad_fn", "_output_nr", "_hooks", "_post_acc_hooks", "_acc",
                 "_retains_grad", "_inference", "__dict__", "__weakref__")

    # --------------------------------------------------------------- construction
    def __new__(cls, *args, device=None):
        from . import _creation

        return _creation.legacy_new(cls, args, device)

    @classmethod
    def _from_array(cls, a, device=CPU):
        t = object.__new__(Tensor)
        t._data, t._rg, t._np, t._base, t._device = a, None, None, None, device
        t.requires_grad, t._grad, t._grad_fn, t._sv, t._vc = False, None, None, 0, 0
        t._hooks = t._post_acc_hooks = t._acc = None
        t._retains_grad, t._inference = False, STATE.inference
        return t

    @classmethod
    def _from_numpy(cls, arr):
        t = cls._from_array(None, CPU)
        t._np = arr
        return t

    @classmethod
    def _with_edge(cls, a, fn, nr):
        """A tensor standing for value `a` at autograd edge (fn, nr) (used for double backward)."""
        t = cls._from_array(a)
        t.requires_grad = True
        if isinstance(fn, graph.AccumulateGrad):
            t._acc = weakref.ref(fn)
        else:
            t._grad_fn, t._output_nr = fn, nr
        return t

    def _become(self, other):
        """Take over `other`'s contents (used by subclasses such as Parameter)."""
        for s in Tensor.__slots__[:-2]:
            object.__setattr__(self, s, getattr(other, s, None))

    def __getattr__(self, name):
        # only an unset _data slot gets here: a bucketed tensor (facade/_ragged.py) being read as an array
        if name == "_rg":  # made without _from_array (a subclass's own __new__): never bucketed
            return None
        if name == "_data" and self._rg is not None:
            return _ragged.materialize(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # --------------------------------------------------------------- storage
    def _sync(self):
        """The current array of a view or numpy-backed tensor."""
        b = self._base
        if b is None:
            a = self._np
            return (a if _host.ACTIVE else put(a)) if a is not None else self._data  # a copy, no compile
        if self._bsv == b._sv and self._data is not None and b._np is None:
            return self._data
        grad = not self._detached and b.requires_grad and STATE.enabled
        if (b._np is not None and self._data is not None and not grad and self.dtype is not D.bfloat16
                and self._geometry() is not None):  # a strided view of the base's host values: no program
            a = np.ascontiguousarray(self.numpy(force=True))
            self._data, self._bsv = a if _host.ACTIVE else put(a), b._sv
            return self._data
        t = b if grad else Tensor._from_array(b._data if b._np is None else b._sync(), b._device)
        for op, args, kwargs, k in self._view:
            t = _dispatch.call(op, (t, *args), dict(kwargs) if kwargs else None)
            if k is not None:
                t = t[k]
        self._data = t._data
        if grad:
            self._grad_fn, self._output_nr, self.requires_grad = t._grad_fn, t._output_nr, t.requires_grad
        self._bsv = b._sv
        return self._data

    def _arr(self):
        a = self._data
        return a if a is not None and self._base is None else self._sync()

    def _assign_data(self, a):
        """Replace the values only (no autograd effect), as `.data = ...` or grad accumulation do."""
        if self._rg is not None:
            _ragged.materialize(self)
        if self._base is None and self._np is None:
            self._data = a
            self._sv += 1
        else:
            self._write(Tensor._from_array(a, self._device), record=False)

    def _assign(self, res):
        """Write `res` (same shape and dtype) into self in place, with autograd like torch."""
        self._write(res, record=True)

    def _write(self, res, record):
        if self._rg is not None:
            _ragged.materialize(self)
        if self._base is None:
            if self._np is not None:
                np.copyto(self._np, res._np if res._np is not None else np.asarray(res._arr()))
            else:
                self._data = res._arr()
            self._sv += 1
            if record:
                self._vc += 1
                if res._grad_fn is not None:
                    self._grad_fn, self._output_nr, self.requires_grad = res._grad_fn, res._output_nr, True
            return
        b = self._base
        if record and not self._detached and STATE.enabled and (b.requires_grad or res.requires_grad):
            idx = self._flat_index()
            idx = Tensor._from_array(put(idx) if type(idx) is np.ndarray else idx, b._device)
            b._write(_dispatch.call(_put_flat_op(), (b, idx, res), None), True)
            self._bsv = -1  # re-derive data and grad_fn from the base on next use
        else:
            # an alias of the whole base (detach(), .data, a state_dict value) writes it directly: no index, no scatter
            whole = self.dtype is b.dtype and self._geometry() == b._geometry()
            b._write(res if whole else Tensor._from_array(_put_flat(b._arr(), self._flat_index(), res._arr()),
                                                          b._device), record)
            self._data, self._bsv = res._arr(), b._sv

    def _flat_index(self):
        """Flat positions in the root base that this view reads (shape of the view): from its strides and offset
        where they are known (numpy, a few us), else by running its view ops on the base's positions."""
        if self._idx is None:
            b = self._base
            g = self._geometry() if self.dtype is b.dtype else None
            if g is not None:
                self._idx = strided_positions(*g)
                return self._idx
            xp = np if _host.ACTIVE else jnp
            t = Tensor._from_array(xp.arange(max(b.numel(), 1), dtype=np.int64)[: b.numel()].reshape(b.shape))
            with _no_grad():
                for op, args, kwargs, k in self._view:
                    t = _dispatch.call(op, (t, *args), dict(kwargs) if kwargs else None)
                    if k is not None:
                        t = t[k]
            self._idx = t._data
        return self._idx

    def _mark_view(self, src, op, args, kwargs, k=None):
        root = src._base if src._base is not None else src
        self._base, self._idx = root, None
        self._view = (src._view if src._base is not None else ()) + ((op, args, kwargs, k),)
        self._detached = src._detached if src._base is not None else False
        self._bsv = root._sv
        rule = getattr(op, "geometry", None)  # (geometry in, shape out, bound args, k) -> strides, offset
        g = src._geometry() if rule is not None else None
        if g is None:
            self._geom = None
        elif getattr(op, "geometry_lazy", False):  # a slice in every step: worked out only if ever asked for
            self._geom = _PendingGeometry(g, op, args, kwargs, k)
        else:
            self._geom = (tuple(self.shape), *rule(g, tuple(self.shape), _dispatch.bind(
                op, (src, *args), dict(kwargs) if kwargs else None), k))
        return self

    def _geometry(self):
        """(shape, strides, storage offset) as torch has them; None for a view made by an op without a rule."""
        if self._base is None:
            shape = tuple(self.shape)
            return shape, _contiguous_strides(shape), 0
        g = getattr(self, "_geom", None)
        if type(g) is _PendingGeometry:
            g = self._geom = g.resolve(tuple(self.shape))
        return g

    def _alias(self, detached):
        """A tensor sharing self's storage (for .data and .detach())."""
        t = Tensor._from_array(self._data if self._base is None and self._np is None else self._arr(), self._device)
        root = self._base if self._base is not None else self
        viewed = self._base is not None
        t._base, t._idx, t._view, t._bsv = root, self._idx if viewed else None, self._view if viewed else (), root._sv
        t._detached, t._geom = detached, self._geometry()
        return t

    @property
    def _version(self):
        return self._vc if self._base is None else self._base._vc

    def _check_inplace(self, op, res):
        if self.requires_grad and STATE.enabled and self.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if (self._base is not None and not self._detached and self._base.requires_grad and self._base.is_leaf
                and STATE.enabled):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        if self._base is not None:
            self._check_view_write()
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                               f"{list(res.shape)}")
        if res.dtype is not self.dtype and not D.can_cast(res.dtype, self.dtype):
            raise RuntimeError(f"result type {_TYPE_NAMES[res.dtype.name]} can't be cast to the desired output "
                               f"type {_TYPE_NAMES[self.dtype.name]}")

    def _check_view_write(self):
        """torch's refusals of writes through views: overlapping (expanded) memory, and the outputs of
        multi-output view ops (split, chunk, unbind) while their base records gradients."""
        g = self._geometry()
        if g is not None and any(s == 0 and n > 1 for n, s in zip(g[0], g[1])):
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")
        if (not self._detached and STATE.enabled and self._base.requires_grad
                and any(k is not None and getattr(op, "multi_view", True) for op, _, _, k in self._view)):
            op, _, _, k = self._view[-1]
            raise RuntimeError(f"Output {k or 0} of {op.grad_name.replace('Backward0', '')} is a view and is being "
                               "modified inplace. This view is the output of a function that returns multiple views. "
                               "Such functions do not allow the output views to be modified inplace. You should "
                               "replace the inplace operation by an out-of-place one.")

    def _resize_assign(self, res):
        if res.dtype is not self.dtype:
            res = res.to(self.dtype)
        if tuple(res.shape) != tuple(self.shape):
            self._data, self._np, self._base = res._arr(), None, None
            self._sv += 1
            return
        self._assign(res)

    # --------------------------------------------------------------- autograd metadata
    @property
    def grad_fn(self):
        if self._base is not None and not self._detached and self._bsv != self._base._sv:
            self._sync()
        return self._grad_fn

    @property
    def grad(self):
        if self._grad is None and not self._retains_grad and self._grad_fn is not None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
                "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
                "for more informations.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                               f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same "
                               "size")
        # the tensor's dtype unless Tensor.grad_dtype (facade/_extras.py) set another, or None: any dtype
        want = self.__dict__.get("_grad_dtype", self.dtype) if value is not None else None
        if want is not None and value.dtype is not want:
            from ._creation import _legacy_name

            raise RuntimeError(f"attempting to assign a gradient with dtype '{cpp_name(value.dtype.np)}' to a tensor "
                               "with grad_dtype "
                               f"'{_legacy_name(want)}'. The gradient must match the tensor's grad_dtype (defaults to "
                               "the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                               "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes "
                               "of a tensor and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def _edge(self):
        fn = self.grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = graph.AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return (acc, 0)

    # --------------------------------------------------------------- basic properties
    @property
    def shape(self):
        if self._rg is not None:
            return tuple.__new__(Size, self._rg.shape)
        a = self._data if self._data is not None else (self._np if self._np is not None else self._arr())
        return tuple.__new__(Size, a.shape)  # shapes hold ints already: skip Size's checks

    @property
    def dtype(self):
        if self._rg is not None:
            return D._FROM_NP[self._rg.buf.dtype]
        a = self._data if self._data is not None else (self._np if self._np is not None else self._arr())
        return D._FROM_NP[a.dtype]

    @property
    def ndim(self):
        if self._rg is not None:
            return self._rg.buf.ndim
        a = self._data if self._data is not None else (self._np if self._np is not None else self._arr())
        return a.ndim

    @property
    def T(self):
        n = self.ndim
        if n not in (0, 2):
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                          "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                          "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(*reversed(range(n))) if n > 1 else self

    @property
    def mT(self):
        if self.ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                               f"{self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_meta(self):
        return self._device.type == "meta"

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    @property
    def layout(self):
        from . import strided

        return strided

    is_sparse = False
    is_quantized = False
    is_nested = False

    @property
    def is_mps(self):
        return False

    is_xpu = is_ipu = is_mtia = is_maia = is_xla = is_vulkan = is_mkldnn = is_mps  # devices JAX does not drive here

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def size(self, dim=None):
        s = self.shape
        if dim is None:
            return s
        return s[_wrap_dim(dim, len(s), "size")]

    def dim(self):
        return len(self.shape)

    ndimension = dim

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def stride(self, dim=None):
        shape = tuple(self.shape)
        g = self._geometry()
        if g is not None:
            st = g[1]
        elif self._base is None or not self._view or 0 in shape:
            st = _contiguous_strides(shape)
        else:
            idx = np.asarray(self._flat_index())
            st = list(_contiguous_strides(shape))
            for d, n in enumerate(shape):
                if n > 1:
                    ix = [0] * len(shape)
                    ix[d] = 1
                    st[d] = int(idx[tuple(ix)] - idx[(0,) * len(shape)])
            st = tuple(st)
        return st if dim is None else st[_wrap_dim(dim, len(shape), "stride")]

    def storage_offset(self):
        g = self._geometry()
        if g is not None:
            return g[2]
        if self._base is None or self.numel() == 0:
            return 0
        return int(np.asarray(self._flat_index()).reshape(-1)[0])

    def is_contiguous(self, memory_format=None):
        shape = tuple(self.shape)
        if 0 in shape:
            return True
        st = self.stride()
        want = _contiguous_strides(shape)
        return all(n <= 1 or a == b for n, a, b in zip(shape, st, want))

    def is_inference(self):
        """True for a tensor made inside inference_mode (a view: when its base was)."""
        return (self._base if self._base is not None else self)._inference

    def data_ptr(self):
        return id(self._base if self._base is not None else self) * 16 + self.storage_offset() * self.element_size()

    def untyped_storage(self):
        from .storage import UntypedStorage

        return UntypedStorage._of(self._base if self._base is not None else self)

    def storage(self):
        from .storage import tensor_storage

        return tensor_storage(self)

    # --------------------------------------------------------------- data / grad
    @property
    def data(self):
        return self._alias(detached=True)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data, self._np, self._base, self._device = value._arr(), None, None, value._device
        self._sv += 1

    def retain_grad(self):
        if self.is_leaf or self._retains_grad:
            return
        ref = weakref.ref(self)

        def hook(g):
            t = ref()
            if t is not None:
                t.grad = g.detach() if t.grad is None else t.grad + g.detach()

        self.grad_fn._add_pre_hook(self._output_nr, hook)
        self._retains_grad = True

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.is_leaf:
            self._hooks = (self._hooks or []) + [hook]
            return graph._Handle(self, "_hooks", hook)
        return self.grad_fn._add_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if not self.is_leaf:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        self._post_acc_hooks = (self._post_acc_hooks or []) + [hook]
        return graph._Handle(self, "_post_acc_hooks", hook)

    def requires_grad_(self, requires_grad=True):
        if not requires_grad and not self.is_leaf:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and self.dtype._cat < 2:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    def detach(self):
        t = self._alias(detached=True)
        return t

    def detach_(self):
        if self._base is not None and not self._detached:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn, self.requires_grad = None, False
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # --------------------------------------------------------------- conversion
    def item(self):
        if self._device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._host().reshape(()).item()

    def tolist(self):
        return self._host().tolist()

    def _host(self):
        if self._device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._np is not None:
            return self._np
        _deferred.flush()  # a sync point: raise the errors of value checks deferred on the device
        a = self._arr()
        if isinstance(a, jax.core.Tracer):
            raise ValueNeeded(f"a concrete value of a Tensor is needed (for item()/tolist()/numpy()/bool()) but "
                               f"it is being traced by torch.compile/jax.jit: {a}")
        return np.asarray(a)

    def numpy(self, *, force=False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        if self.dtype is D.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        root = self._base if self._base is not None else self
        if root._np is None:
            _deferred.flush()
            arr = np.array(root._arr())
            root._np, root._data = arr, None
            root._sv += 1
        if self._base is None or not self._view:
            return root._np
        g = self._geometry()  # (shape, strides, offset); else from the flat positions the view reads
        shape, strides, offset = g if g is not None else (
            np.shape(self._flat_index()), self.stride(), self.storage_offset())
        isz = root._np.itemsize
        return np.lib.stride_tricks.as_strided(root._np.reshape(-1)[offset:], shape=shape,
                                               strides=tuple(s * isz for s in strides))

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad or self._device.type != "cpu":
            self.numpy()  # torch's errors
        a = self._host()
        return a.astype(dtype) if dtype is not None else a

    def __jax_array__(self):
        return self._arr()

    def __dlpack__(self, *args, **kwargs):
        return self._arr().__dlpack__(*args, **kwargs)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        if self.ndim == 1 and self.dtype._cat <= 1 and self._base is None and self._rg is None and \
                not self.requires_grad and self._device.type == "cpu" and not _host.ACTIVE and \
                (self._np is not None or self._data is not None and not isinstance(self._data, jax.core.Tracer)):
            # `for i in ix` of CPU integers (indices, lengths, labels): the values move to the host once and
            # each element is a 0-dim view of them, which int(), slicing and integer arithmetic read with no
            # program and no device round trip (see _dispatch._host_scalars)
            a = self.numpy()
            return (Tensor._from_numpy(a[k, ...]) for k in range(len(a)))
        return iter(self.unbind(0))

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'more than one value' if n else 'no values'} is "
                               "ambiguous")
        return bool(self.item())

    def _scalar(self):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self):
        return int(self._scalar())

    def __float__(self):
        return float(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        a = self._np
        if a is not None and not a.ndim and a.dtype.kind in "biu" and self._base is None:  # `for i in ix`: i
            return int(a)
        if self.dtype._cat > 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        if self.ndim == 0 and self._device.type != "meta" and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import tensor_repr

        return tensor_repr(self, tensor_contents)

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.")
        new = type(self).__new__(type(self), Tensor._from_array(self._arr(), self._device)) \
            if type(self) is not Tensor else Tensor._from_array(self._arr(), self._device)
        new.requires_grad = self.requires_grad
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        return (_rebuild_tensor, (self._host().copy() if self.dtype is not D.bfloat16 else
                                  np.asarray(self._arr()), str(self._device), self.requires_grad))

    # --------------------------------------------------------------- devices and dtypes
    def to(self, *args, **kwargs):
        dtype, device, copy = _parse_to(args, kwargs, self)
        t = self
        if device is not None and device != t._device:
            t = _to_device(t, device)
        if dtype is not None and dtype is not t.dtype:
            t = _dispatch.call(_astype_op(), (t, dtype), None)
        if copy and t is self:
            t = self.clone()
        return t

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        if isinstance(device, int) and not gpus():  # torch resolves an index through torch.accelerator
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(device, (str, _devcls)):
            device = _devcls("cuda", device if isinstance(device, int) else None)
        return self.to(device)

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        raise AssertionError("Torch not compiled with XPU enabled")

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        raise AssertionError("Torch not compiled with MTIA enabled")

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        raise RuntimeError("PyTorch is not linked with support for ipu devices")

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + _TYPE_NAMES[self.dtype.name] + "Tensor"
        if isinstance(dtype, str):
            from . import _creation

            dtype, dev = _creation.legacy_type(dtype)
            return self.to(dtype=dtype, device=dev) if dev is not None else self.to(dtype)
        if isinstance(dtype, type) and hasattr(dtype, "_legacy_dtype"):
            return self.to(dtype._legacy_dtype)
        return self.to(dtype)

    def type_as(self, other):
        return self.to(other.dtype)

    def float(self, memory_format=None):
        return self.to(D.float32)

    def double(self, memory_format=None):
        return self.to(D.float64)

    def half(self, memory_format=None):
        return self.to(D.float16)

    def bfloat16(self, memory_format=None):
        return self.to(D.bfloat16)

    def long(self, memory_format=None):
        return self.to(D.int64)

    def int(self, memory_format=None):
        return self.to(D.int32)

    def short(self, memory_format=None):
        return self.to(D.int16)

    def char(self, memory_format=None):
        return self.to(D.int8)

    def byte(self, memory_format=None):
        return self.to(D.uint8)

    def bool(self, memory_format=None):
        return self.to(D.bool)

    def cfloat(self):
        return self.to(D.complex64)

    def cdouble(self):
        return self.to(D.complex128)

    def pin_memory(self, device=None):
        return self

    def is_pinned(self, device=None):
        return False

    def share_memory_(self):
        return self

    def is_shared(self):
        return False

    def get_device(self):
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        from . import _creation

        return _creation.tensor(data, dtype=dtype or self.dtype, device=device or self._device,
                                requires_grad=requires_grad)

    def _new(self, fn, args, size, dtype, device, requires_grad):
        from . import _creation

        return getattr(_creation, fn)(*args, size=size, dtype=dtype or self.dtype,
                                      device=self._device if device is None else device, requires_grad=requires_grad)

    def new_zeros(self, *args, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        return self._new("zeros", args, size, dtype, device, requires_grad)

    def new_ones(self, *args, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        return self._new("ones", args, size, dtype, device, requires_grad)

    def new_empty(self, *args, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        return self._new("empty", args, size, dtype, device, requires_grad)

    def zero_(self):
        return self.fill_(0)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        from . import _creation

        return _creation.full(size, fill_value, dtype=dtype or self.dtype, device=device or self._device,
                              requires_grad=requires_grad)

    def __class_getitem__(cls, item):
        return cls


class _no_grad:
    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = False

    def __exit__(self, *exc):
        STATE.enabled = self.prev


def _rebuild_tensor(arr, dev, requires_grad):
    if _host.ACTIVE:  # unpickled in a DataLoader worker: a host tensor
        return Tensor._from_array(arr, CPU)
    t = Tensor._from_array(jnp.asarray(arr), CPU).to(dev)
    t.requires_grad = requires_grad
    return t


def _wrap_dim(dim, ndim, fn):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _parse_to(args, kwargs, t):
    """Tensor.to's signatures: (dtype), (device, dtype=None), (tensor), each with copy/non_blocking."""
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, bool):
            pass  # positional non_blocking / copy
        elif isinstance(a, (str, _devcls, int)):
            device = _devcls(a)
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if device is not None:
        device = _devcls(device)
        if device.type == "cuda" and device.index is None:
            device = _devcls("cuda", 0)
    return dtype, device, copy


def _to_device(t, device):
    if _host.ACTIVE:
        _host.jax_device(device)  # a DataLoader worker: CPU only (raises)
    if device.type == "meta":
        out = Tensor._from_array(jax.ShapeDtypeStruct(t.shape, t._arr().dtype if t._device.type != "meta"
                                                      else t._data.dtype), META)
        out.requires_grad = t.requires_grad
        return out
    if t._device.type == "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
                                  "instead of torch.nn.Module.to() when moving module from meta to a different "
                                  "device.")
    res = _dispatch.call(_device_put_op(), (t, jax_device(device)), None)
    res._device = device
    return res


_lazy_ops = {}


def _lazy(name, factory):
    op = _lazy_ops.get(name)
    if op is None:
        op = _lazy_ops[name] = factory()
    return op


def _astype_op():
    from functional import astype

    return _lazy("astype", lambda: _dispatch.Op("_to_copy", astype, arrays=("input",), grad_name="ToCopyBackward0",
                                                saves=()))


def _device_put_op():
    return _lazy("device_put", lambda: _dispatch.Op("_to_copy", _device_put, grad_name="ToCopyBackward0", saves=(),
                                                    jit=False))


def _device_put(input, device):
    return jax.device_put(input, device)


@functools.lru_cache(maxsize=1)
def _put_flat_program():
    from functional import put_flat  # (it casts src to base's dtype)

    return jax.jit(put_flat)


def _put_flat(base, index, src):
    """`base` with the flat positions `index` set to `src`: one program (compiled per shapes, the positions as
    data), where JAX's op-by-op dispatch of the same steps took about 0.7 ms a write."""
    if _host.ACTIVE:
        return _host.put_flat(base, index, src)
    return _put_flat_program()(base, index, src)


def _put_flat_op():
    from functional import put_flat

    return _lazy("put_flat", lambda: _dispatch.Op("_put_flat", put_flat, arrays=("input", "index", "src"),
                                                  grad_name="CopySlices", saves=()))


_dispatch.Tensor = Tensor
_ragged.Tensor, _ragged.STATE = Tensor, STATE
graph.Tensor = Tensor
