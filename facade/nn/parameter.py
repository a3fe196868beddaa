"""torch.nn.parameter: Parameter, Buffer, UninitializedParameter, UninitializedBuffer."""

from __future__ import annotations

from collections import OrderedDict

from .._tensor import Tensor

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]


def _empty(device=None, dtype=None):
    from .. import _creation

    return _creation.empty(0, device=device, dtype=dtype)


def _share(cls, data, requires_grad, alias=True):
    """A `cls` tensor on the storage of `data` (torch's Tensor._make_subclass): a plain root tensor `data`
    becomes an alias of the new one, so writes through either show in the other, as in torch."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
    if requires_grad and not (data.is_floating_point() or data.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    new = object.__new__(cls)
    new._become(Tensor._from_array(data._arr(), data._device))
    new.requires_grad = bool(requires_grad)
    if (alias and type(data) is Tensor and data._base is None and data._np is None and data._grad_fn is None
            and not data.requires_grad and data._device.type != "meta"):
        data._base, data._view, data._idx, data._detached = new, (), None, True
        data._bsv, data._geom = new._sv, new._geometry()
    return new


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute (torch.nn.Parameter).
    It shares the storage of `data`, is a leaf, and requires grad unless `requires_grad=False`."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        return _share(cls, _empty() if data is None else data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        result.__dict__.update(self.__dict__)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        from .. import _pickling

        state = dict(self.__dict__)
        data = Tensor._from_array(self._arr(), self._device)
        if not state:
            return (_pickling._rebuild_parameter, (data, self.requires_grad, OrderedDict()))
        return (_pickling._rebuild_parameter_with_state, (data, self.requires_grad, OrderedDict(), state))


class _BufferMeta(type):
    """`isinstance(t, Buffer)` holds for the plain tensors Buffer() returns (they carry `_is_buffer`)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a Module registers as a buffer when assigned as an attribute (torch.nn.Buffer).
    `Buffer(data)` returns `data.detach()` marked with `persistent` and `_is_buffer`, as torch does."""

    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = data.detach()
        t.requires_grad = data.requires_grad
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """What LazyModules hold before their first call: a tensor with no shape yet. `materialize(shape)`
    turns it into `cls_to_become` in place."""

    def materialize(self, shape, device=None, dtype=None):
        from .. import _creation

        device = self._device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = _creation.empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self._device, self.dtype)
        memo[id(self)] = result
        return result


def is_lazy(param) -> bool:
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (LazyModules); see torch.nn.UninitializedParameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _share(cls, _empty(device, dtype), requires_grad, alias=False)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (LazyModules); see torch.nn.UninitializedBuffer."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _share(cls, _empty(device, dtype), requires_grad, alias=False)
        t.persistent = persistent
        t._is_buffer = True
        return t
