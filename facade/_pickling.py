"""Pickling for torch.save/torch.load: torch's global names, loaded storages, rebuild functions and the
writer's pickler (the unpicklers are in `_unpickler`).

A checkpoint names its callables by torch's paths (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`,
`torch.float32` ...). Here those names resolve to this module's functions and facade's objects, and facade's
objects are written under those names, so nothing ever imports real torch. Tensors travel as torch does it:
`_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`, the storage a persistent id
('storage', storage type, key, location, numel) whose bytes are a separate record, written once however many
tensors view it.
"""

from __future__ import annotations

import importlib
import pickle
import threading
import types
from collections import OrderedDict

import jax
import numpy as np

from . import _dtype as D
from ._device import CPU, META, jax_device, put
from ._device import device as _device
from ._layout import LAYOUTS, layout
from ._ragged import RaggedInt
from ._tensor import Size, Tensor, _contiguous_strides

__all__ = ["StorageType", "TypedStorage"]

# ---------------------------------------------------------------------------- storages

_STORAGE_NAMES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8",
    "ByteStorage": "uint8", "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128", "UntypedStorage": "uint8",
}
_QUANTIZED_STORAGES = ("QUInt8Storage", "QInt8Storage", "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage")


class StorageType:
    """What `torch.FloatStorage` & co. name inside a checkpoint: the element type of a storage record."""

    def __init__(self, name):
        self.name = name
        self._dtype = D._NAMES.get(_STORAGE_NAMES.get(name, ""))

    @property
    def dtype(self):
        if self._dtype is None:
            raise RuntimeError(f"torch.load: storages of type torch.{self.name} (quantized tensors) are not supported")
        return self._dtype

    def __repr__(self):
        return f"StorageType(dtype={self._dtype})"


STORAGE_TYPES = {n: StorageType(n) for n in (*_STORAGE_NAMES, *_QUANTIZED_STORAGES)}
_STORAGE_OF = {STORAGE_TYPES[n].dtype: STORAGE_TYPES[n] for n in _STORAGE_NAMES if n != "UntypedStorage"}


class TypedStorage:
    """A loaded storage: the elements of one record, placed on a device. `map_location` callables receive it.

    Every tensor rebuilt from it views one root tensor, so tensors that shared storage when saved alias again.
    """

    def __init__(self, array, dtype, device=CPU):
        self._array, self.dtype, self.device = array, dtype, _device(device)
        self._root = None

    def __len__(self):
        return 0 if self._array is None else self._array.size

    size = __len__

    def nbytes(self):
        return len(self) * self.dtype.itemsize

    def element_size(self):
        return self.dtype.itemsize

    def to(self, device):
        device = _device(device)
        if device.type != "meta":
            jax_device(device)  # raises torch's error for a device that is not here
        return self if device == self.device else TypedStorage(self._array, self.dtype, device)

    def cpu(self):
        return self.to(CPU)

    def cuda(self, device=None):
        if not isinstance(device, (str, _device)):
            device = _device("cuda", 0 if device is None else device)
        return self.to(device)

    def __repr__(self):
        return f"TypedStorage(dtype={self.dtype}, device={self.device}, size={len(self)})"

    def _typed(self, dtype):
        if dtype is self.dtype:
            return self
        if self._array is None or self._array.nbytes % dtype.itemsize:
            raise RuntimeError(f"torch.load: a storage of {self.nbytes()} bytes cannot hold {dtype} elements")
        return TypedStorage(self._array.view(np.uint8).view(dtype.np), dtype, self.device)

    def _tensor(self, offset, size, stride):
        """A tensor viewing this storage with torch's (storage_offset, size, stride)."""
        size, stride, offset = tuple(map(int, size)), tuple(map(int, stride)), int(offset)
        if len(size) != len(stride) or min(size + stride + (offset,), default=0) < 0:
            raise RuntimeError(f"torch.load: invalid tensor geometry: sizes {list(size)}, strides {list(stride)}, "
                               f"storage offset {offset}")
        if self.device.type == "meta":
            return Tensor._from_array(jax.ShapeDtypeStruct(size, self.dtype.np), META)
        numel = int(np.prod(size, dtype=np.int64))
        end = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if numel else 0
        if end > len(self):
            isz = self.dtype.itemsize
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                               f"itemsize {isz} requiring a storage size of {end * isz} are out of bounds for storage "
                               f"of size {self.nbytes()}")
        whole = offset == 0 and numel == len(self) and all(
            n <= 1 or s == c for n, s, c in zip(size, stride, _contiguous_strides(size)))
        if self._root is None:
            self._root = self._make(self._array.reshape(size) if whole else self._array)
            if whole:
                return self._root
        from ._table.shape import as_strided

        return as_strided(self._root.detach(), size, stride, offset)

    def _make(self, arr):
        jd = jax_device(self.device)
        if jd != jax.local_devices()[0]:
            a = jax.device_put(arr, jd)
        else:  # uncommitted, as facade's creation functions leave arrays on the default device
            a = put(arr)
        return Tensor._from_array(a, self.device)


# ---------------------------------------------------------------------------- rebuild functions

_CTX = threading.local()  # map_location of the load in progress (for rebuilds that name a device themselves)


def _restore_device(location):
    restore = getattr(_CTX, "restore", None)
    return restore(location) if restore is not None else _device(location)


def _set_requires_grad(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_storage(storage):
    if not isinstance(storage, TypedStorage):
        raise pickle.UnpicklingError(f"expected a storage to rebuild a tensor from, got {type(storage).__name__}")


def _apply_metadata(t, metadata):
    if metadata:
        if metadata.get("conj"):
            t = t.conj()
        if metadata.get("neg"):
            t = t.neg()
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    _check_storage(storage)
    return storage._tensor(storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    t = _apply_metadata(_rebuild_tensor(storage, storage_offset, size, stride), metadata)
    return _set_requires_grad(t, requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    _check_storage(storage)
    if not isinstance(dtype, D.dtype):
        raise RuntimeError(f"torch.load: the checkpoint holds a tensor of dtype {dtype}, which facade does not have")
    return _rebuild_tensor_v2(storage._typed(dtype), storage_offset, size, stride, requires_grad, backward_hooks,
                              metadata)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    t = Tensor._from_array(jax.ShapeDtypeStruct(tuple(size), dtype.np), META)
    t.requires_grad = bool(requires_grad)
    return t


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    return _set_requires_grad(data.to(dtype=dtype, device=_restore_device(device)), requires_grad)


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    if not isinstance(data, np.ndarray):
        raise pickle.UnpicklingError(f"expected a numpy array, got {type(data).__name__}")
    from ._creation import from_numpy

    return _set_requires_grad(from_numpy(data).to(dtype=dtype, device=_restore_device(device)), requires_grad)


def parameter_class():
    """facade.nn.Parameter once facade.nn exists, else None (a parameter then loads as a plain leaf tensor)."""
    if not _PARAMETER:
        try:
            cls = importlib.import_module("facade.nn.parameter").Parameter
        except ModuleNotFoundError as e:
            if e.name not in ("facade.nn", "facade.nn.parameter"):
                raise
            cls = None
        _PARAMETER.append(cls)
    return _PARAMETER[0]


_PARAMETER = []


def _make_parameter(data, requires_grad=True):
    cls = parameter_class()
    if cls is None:
        t = data.detach()
        return _set_requires_grad(t, requires_grad)
    return cls(data, requires_grad)


def _set_obj_state(obj, state):
    dict_state, slots_state = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for part in (dict_state, slots_state):
        for k, v in (part or {}).items():
            if not isinstance(k, str) or k in Tensor.__slots__ or k.startswith("__"):
                raise pickle.UnpicklingError(f"refusing to set attribute {k!r} of a loaded tensor")
            setattr(obj, k, v)
    return obj


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return _make_parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(_make_parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    if func not in REBUILD.values() or not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise pickle.UnpicklingError(f"_rebuild_from_type_v2 rebuilds tensors only, got {func!r} and {new_type!r}")
    ret = func(*args)
    if type(ret) is not new_type:
        sub = object.__new__(new_type)
        sub._become(ret)
        ret = sub
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None) and new_type is not Tensor:
        ret.__setstate__(state)
        return ret
    return _set_obj_state(ret, state)


def _unsupported(kind):
    def rebuild(*args):
        raise RuntimeError(f"torch.load: {kind} tensors are not supported by facade")

    rebuild.__name__ = rebuild.__qualname__ = f"_rebuild_{kind}"
    return rebuild


def _get_layout(name):
    """How torch pickles a layout: `_get_layout("torch.strided")`."""
    obj = LAYOUTS.get(name.removeprefix("torch.")) if isinstance(name, str) else None
    if obj is None:
        raise pickle.UnpicklingError(f"torch.load: unknown layout {name!r}")
    return obj


REBUILD = {f.__name__: f for f in (
    _rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_meta_tensor_no_storage,
    _rebuild_device_tensor_from_cpu_tensor, _rebuild_device_tensor_from_numpy, _rebuild_parameter,
    _rebuild_parameter_with_state)}
REBUILD.update({"_rebuild_qtensor": _unsupported("quantized"), "_rebuild_sparse_tensor": _unsupported("sparse"),
                "_rebuild_nested_tensor": _unsupported("nested"),
                "_rebuild_wrapper_subclass": _unsupported("wrapper-subclass")})

# ---------------------------------------------------------------------------- torch's names for facade's objects

_TORCH_ONLY_DTYPES = (
    *(f"uint{b}" for b in (16, 32, 64)), *(f"int{b}" for b in range(1, 8)), *(f"uint{b}" for b in range(1, 8)),
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
    "complex32", "quint8", "qint8", "qint32", "quint4x2", "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8",
    "bits16")


class MissingDtype:
    """A torch dtype that facade lacks: it may appear in a checkpoint, a tensor of it cannot load."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


def _base_names():
    from . import _creation

    names = {"torch._utils." + k: f for k, f in REBUILD.items()}
    names["torch.storage.UntypedStorage"] = STORAGE_TYPES["UntypedStorage"]  # first: the name torch writes
    names.update({f"torch.{n}": s for n, s in STORAGE_TYPES.items()})
    names["torch.storage.TypedStorage"] = STORAGE_TYPES["UntypedStorage"]
    names.update({f"torch.{d.name}": d for d in D.ALL})
    names.update({f"torch.{n}": MissingDtype(n) for n in _TORCH_ONLY_DTYPES if f"torch.{n}" not in names})
    names.update({f"torch.{n}": c for n, c in _creation.LEGACY_CPU.items()})
    names.update({f"torch.cuda.{n}": c for n, c in _creation.LEGACY_CUDA.items()})
    names.update({"torch.Size": Size, "torch.Tensor": Tensor, "torch._tensor.Tensor": Tensor, "torch.device": _device,
                  "torch.serialization._get_layout": _get_layout,
                  "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2})
    return names


_NAMES = None
_PATHS = None


def torch_names():
    """{torch's dotted name: facade's object} for everything a weights-only checkpoint may name."""
    global _NAMES, _PATHS
    if _NAMES is None:
        _NAMES = _base_names()
        _PATHS = {}
        for full, obj in _NAMES.items():
            if full not in ("torch._tensor.Tensor", "torch.storage.TypedStorage"):
                _PATHS.setdefault(id(obj), tuple(full.rsplit(".", 1)))
    names = dict(_NAMES)
    param = parameter_class()
    names["torch.nn.parameter.Parameter"] = param if param is not None else _make_parameter
    return names


def torch_path(obj):
    """(module, qualname) under which torch knows facade's `obj`, or None for an object that is not facade's."""
    torch_names()
    p = _PATHS.get(id(obj))
    if p is not None:
        return p
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(mod, str) or not isinstance(qual, str):
        return None
    if mod == "facade" or mod.startswith("facade."):
        mod = "torch" + mod[len("facade"):]
    elif not (mod == "torch" or mod.startswith("torch.")):
        return None
    try:
        same = resolve_torch(mod, qual) is obj
    except (ImportError, AttributeError):
        same = False
    if not same:
        raise pickle.PicklingError(f"Can't pickle {obj!r}: facade resolves no torch name to it (tried {mod}.{qual})")
    return mod, qual


# torch's C extension modules whose functions are facade's functions of a public module
# (the C names of torch.linalg.vector_norm and friends are prefixed: linalg_vector_norm)
_C_MODULES = {"torch._C._nn": "torch.nn.functional", "torch._C._linalg": "torch.linalg",
              "torch._C._special": "torch.special", "torch._C._fft": "torch.fft",
              "torch._C._VariableFunctions": "torch",
              "torch.functional": "torch"}  # torch/functional.py: atleast_2d, einsum, meshgrid ... all on torch


def resolve_torch(module, name):
    """facade's object for torch's `module.name`: the names above, else the same path under facade."""
    full = f"{module}.{name}"
    obj = torch_names().get(full)
    if obj is not None:
        return obj
    if module == "torch.tensor":  # renamed in 2021 (torch's load_module_mapping)
        module = "torch._tensor"
    if full == "torch._C._VariableFunctionsClass":  # torch pickles torch.tanh as getattr(this, "tanh")
        return importlib.import_module("facade")
    if module in _C_MODULES:  # torch pickles F.gelu as torch._C._nn.gelu, atleast_2d as torch.functional.
        module = _C_MODULES[module]
        prefix = module.rpartition(".")[2] + "_"
        name = name[len(prefix):] if name.startswith(prefix) and module != "torch" else name
    target = "facade" + module[len("torch"):]
    try:
        obj = importlib.import_module(target)
    except ImportError:
        raise ImportError(f"torch.load: the checkpoint needs {full}, but facade has no module {target!r} yet") \
            from None
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"torch.load: the checkpoint needs {full}, which facade does not implement") \
                from None
    return obj


# ---------------------------------------------------------------------------- writing


class StorageRef:
    """A root tensor's storage inside a pickle: becomes a persistent id and one data record."""

    __slots__ = ("key", "root", "dtype", "pid")

    def __init__(self, key, root):
        self.key, self.root, self.dtype = key, root, root.dtype
        loc = root.device
        location = "cpu" if loc.type == "cpu" else f"{loc.type}:{loc.index or 0}"
        typed = _STORAGE_OF.get(self.dtype)  # dtypes without a legacy class (uint16, float8 ...): bytes, as torch
        self.pid = ["storage", typed or STORAGE_TYPES["UntypedStorage"], key, location,
                    root.numel() * (1 if typed else self.dtype.itemsize)]

    def array(self):
        a = self.root._host()
        return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


class Pickler(pickle._Pickler):
    """The pure-Python pickler, so that facade's objects can be written under torch's global names.

    (The C pickler would import the module a global names to verify it, i.e. real torch.)
    """

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # id(root) -> StorageRef, in the order torch numbers them

    def persistent_id(self, obj):
        return tuple(obj.pid) if type(obj) is StorageRef else None  # a new tuple each time, as torch (no memo)

    def _ref(self, root):
        ref = self.storages.get(id(root))
        if ref is None:
            ref = self.storages[id(root)] = StorageRef(str(len(self.storages)), root)
        return ref

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        t = type(obj)
        if t is D.dtype or t is StorageType:
            return obj.name  # saved as a global: torch.float32, torch.FloatStorage
        if t is layout:
            return (_get_layout, (repr(obj),))
        if t is _device:
            return (_device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _reduce_tensor(self, t):
        if t.is_quantized:
            raise NotImplementedError("torch.save: quantized tensors cannot be saved here yet (dequantize() first)")
        if t.device.type == "meta":
            return (_rebuild_meta_tensor_no_storage, (t.dtype, tuple(t.shape), tuple(t.stride()), t.requires_grad))
        param = parameter_class()
        if param is not None and isinstance(t, param):
            state = dict(t.__dict__)
            args = (t.detach(), t.requires_grad, OrderedDict())
            return (_rebuild_parameter_with_state, (*args, state)) if state else (_rebuild_parameter, args)
        root = t._base if t._base is not None else t
        if root is t or root.dtype is not t.dtype:  # its own storage (a reinterpreting view gets a copy)
            root = t if root is t else Tensor._from_array(t._arr(), t.device)
            offset, stride = 0, _contiguous_strides(tuple(t.shape))
        else:
            offset, stride = t.storage_offset(), t.stride()
        args = (self._ref(root), offset, tuple(t.shape), tuple(stride), t.requires_grad, OrderedDict())
        rebuild = _rebuild_tensor_v2
        if t.dtype not in _STORAGE_OF:  # an untyped storage: the dtype travels with the tensor
            rebuild, args = _rebuild_tensor_v3, (*args, t.dtype)
        if type(t) is Tensor and not t.__dict__:
            return (rebuild, args)
        return (_rebuild_from_type_v2, (rebuild, type(t), args, dict(t.__dict__)))

    def save_global(self, obj, name=None):
        path = torch_path(obj)
        if path is None:
            return super().save_global(obj, name)
        module, qualname = path
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode())
        self.memoize(obj)

    dispatch = pickle._Pickler.dispatch.copy()
    dispatch[type] = dispatch[types.FunctionType] = save_global
    # a bucketed tensor's length (a size's entry, or an int read off it) is written as the int it is: reduced, it
    # would be a call of `int`, which loading with weights_only refuses
    dispatch[RaggedInt] = lambda self, obj: self.save_long(int(obj))
