"""Pickling for torch.save/torch.load: torch's global names, rebuild functions, the writer's pickler and the
allow-list unpickler behind `weights_only=True`.

A checkpoint names its callables by torch's paths (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`,
`torch.float32` ...). Here those names resolve to this module's functions and facade's objects, and facade's
objects are written under those names, so nothing ever imports real torch. Tensors travel as torch does it:
`_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`, the storage a persistent id
('storage', storage type, key, location, numel) whose bytes are a separate record, written once however many
tensors view it.
"""

from __future__ import annotations

import importlib
import io
import pickle
import struct
import threading
import types
from collections import Counter, OrderedDict

import jax
import numpy as np

from . import _dtype as D
from ._device import CPU, META, jax_device
from ._device import device as _device
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
        return self.to(_device("cuda", device if device is not None else 0) if not isinstance(device, (str, _device))
                       else device)

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
        return Tensor._from_array(jax.device_put(arr, jax_device(self.device)), self.device)


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
    try:
        return importlib.import_module("facade.nn.parameter").Parameter
    except ImportError:
        return None


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
    ret = func(*args)
    if type(ret) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise pickle.UnpicklingError(f"cannot rebuild a tensor as {new_type!r}")
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
    return name  # facade's only layout, torch.strided, is the string "torch.strided"


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
    names.update({f"torch.{n}": s for n, s in STORAGE_TYPES.items()})
    names["torch.storage.UntypedStorage"] = names["torch.storage.TypedStorage"] = STORAGE_TYPES["UntypedStorage"]
    names.update({f"torch.{d.name}": d for d in D.ALL})
    names.update({f"torch.{n}": MissingDtype(n) for n in _TORCH_ONLY_DTYPES})
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


def resolve_torch(module, name):
    """facade's object for torch's `module.name`: the names above, else the same path under facade."""
    full = f"{module}.{name}"
    obj = torch_names().get(full)
    if obj is not None:
        return obj
    if module == "torch.tensor":  # renamed in 2021 (torch's load_module_mapping)
        module = "torch._tensor"
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
        self.pid = ["storage", _STORAGE_OF[self.dtype], key, location, root.numel()]

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
        if t is _device:
            return (_device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _reduce_tensor(self, t):
        if t.device.type == "meta":
            return (_rebuild_meta_tensor_no_storage, (t.dtype, tuple(t.shape), tuple(t.stride()), t.requires_grad))
        param = parameter_class()
        if param is not None and isinstance(t, param):
            state = dict(t.__dict__)
            args = (t.detach(), t.requires_grad, OrderedDict())
            return (_rebuild_parameter_with_state, (*args, state)) if state else (_rebuild_parameter, args)
        root = t._base if t._base is not None else t
        if root.dtype is not t.dtype:  # a reinterpreting view: its own storage
            root = Tensor._from_array(t._arr(), t.device)
        offset, stride = (0, _contiguous_strides(tuple(t.shape))) if root is t else (t.storage_offset(), t.stride())
        args = (self._ref(root), offset, tuple(t.shape), tuple(stride), t.requires_grad, OrderedDict())
        if type(t) is Tensor and not t.__dict__:
            return (_rebuild_tensor_v2, args)
        return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(t), args, dict(t.__dict__)))

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


# ---------------------------------------------------------------------------- reading


_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_MAPPINGS = (dict, OrderedDict, Counter)
_user_safe = []  # add_safe_globals: objects or (object, "dotted.name")


def _user_names():
    out = {}
    for g in _user_safe:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                                 f"length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(g[1])}")
            out[g[1]] = g[0]
        else:
            mod, qual = g.__module__, g.__qualname__
            out[f"{mod}.{qual}"] = g
            if mod == "facade" or mod.startswith("facade."):  # facade's classes are named by torch's paths
                out[f"torch{mod[len('facade'):]}.{qual}"] = g
    return out


def _global_error(full):
    if full.startswith("builtins"):
        rest = full[len("builtins"):]
        full = rest[1:] if rest.startswith(".") else "builtins" + rest
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {full} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{full}])` or the `torch.serialization.safe_globals([{full}])` "
        "context manager to allowlist this global if you trust this class/function.")


_PY2_NAMES = {("__builtin__", "set"): ("builtins", "set"), ("__builtin__", "complex"): ("builtins", "complex"),
              ("__builtin__", "bytearray"): ("builtins", "bytearray"), ("copy_reg", "_reconstructor"):
              ("copyreg", "_reconstructor")}
_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
                "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
                "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io"}


def _py3_name(module, name):
    if (module, name) in _PY2_NAMES:
        return _PY2_NAMES[(module, name)]
    return _PY2_MODULES.get(module, module), name


class WeightsUnpickler:
    """torch's weights_only unpickler: globals come only from an allow-list, looked up by name (nothing is
    imported), and only allow-listed callables are called. Anything else stops the load, naming it."""

    def __init__(self, file, persistent_load, encoding="bytes"):
        self.read, self.readline = file.read, file.readline
        self.persistent_load, self.encoding = persistent_load, encoding
        self.memo = {}

    def allowed(self):
        names = torch_names()
        names.update({"collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
                      "_codecs.encode": _codecs_encode, "builtins.bytearray": bytearray, "builtins.set": set,
                      "builtins.complex": complex})
        return names

    def load(self):
        self.names, self.user = self.allowed(), _user_names()
        self.callable_ids = {id(v) for v in (*self.names.values(), *self.user.values())}
        self.stack, self.metastack = [], []
        try:
            while True:
                key = self.read(1)
                if not key:
                    raise EOFError
                op = self.ops.get(key[0])
                if op is None:
                    raise pickle.UnpicklingError(f"Unsupported operand {key[0]}")
                if op is _stop:
                    return self.stack.pop()
                op(self)
        except (EOFError, struct.error, IndexError) as e:
            raise pickle.UnpicklingError(f"the pickle data is truncated or corrupted ({type(e).__name__}: {e})") \
                from None

    def find(self, module, name):
        module, name = _py3_name(module, name)
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        if full in self.names:
            return self.names[full]
        if full in self.user:
            return self.user[full]
        raise _global_error(full)

    def pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def memo_get(self, i):
        if i not in self.memo:
            raise pickle.UnpicklingError(f"Memo value not found at index {i}")
        self.stack.append(self.memo[i])

    def check_callable(self, func, what):
        if id(func) not in self.callable_ids:
            raise pickle.UnpicklingError(f"Trying to call {what} for unrecognized function {func!r}")

    def target(self, kinds, message):
        t = self.stack[-1]
        if type(t) not in kinds:
            raise pickle.UnpicklingError(message.format(type(t)))
        return t


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    import codecs

    return codecs.encode(obj, encoding, errors)


def _readline_str(u):
    return u.readline()[:-1].decode("utf-8")


def _global(u):
    module = _readline_str(u)
    u.stack.append(u.find(module, _readline_str(u)))


def _stack_global(u):
    name, module = u.stack.pop(), u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise pickle.UnpicklingError("STACK_GLOBAL requires str")
    u.stack.append(u.find(module, name))


def _reduce(u):
    args = u.stack.pop()
    func = u.stack[-1]
    u.check_callable(func, "reduce")
    if type(args) is not tuple:
        raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
    u.stack[-1] = func(*args)


def _newobj(u):
    args = u.stack.pop()
    cls = u.stack.pop()
    if cls is _make_parameter or cls is parameter_class():
        u.stack.append(_make_parameter(*args))
        return
    if id(cls) not in u.callable_ids or not isinstance(cls, type):
        raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted via "
                                     f"`add_safe_globals` but got {cls}")
    u.stack.append(cls.__new__(cls, *args))


def _build(u):
    state = u.stack.pop()
    inst = u.stack[-1]
    t = type(inst)
    if t is OrderedDict:
        if not isinstance(state, dict):
            raise pickle.UnpicklingError("OrderedDict state must be a dict")
        inst.__dict__.update(state)
    elif isinstance(inst, Tensor) and t is not Tensor and (id(t) in u.callable_ids or t is parameter_class()):
        _set_obj_state(inst, state)
    elif id(t) in u.callable_ids and not isinstance(inst, Tensor):
        if hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
        else:
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                inst.__dict__.update(state)
            for k, v in (slots or {}).items():
                setattr(inst, k, v)
    else:
        raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                     f"`add_safe_globals`, but got {t}")


def _setitem(u):
    v, k = u.stack.pop(), u.stack.pop()
    u.target(_MAPPINGS, "Can only SETITEM for dict, collections.OrderedDict, collections.Counter, but got {}")[k] = v


def _setitems(u):
    items = u.pop_mark()
    target = u.target(_MAPPINGS, "Can only SETITEMS for dict, collections.OrderedDict, collections.Counter, but got {}")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _append(u):
    item = u.stack.pop()
    u.target((list,), "Can only append to lists, but got {}").append(item)


def _appends(u):
    items = u.pop_mark()
    u.target((list,), "Can only extend lists, but got {}").extend(items)


def _additems(u):
    items = u.pop_mark()
    u.target((set,), "Can only add items to sets, but got {}").update(items)


def _marked(make):
    def op(u):
        items = u.pop_mark()  # before touching u.stack: pop_mark rebinds it
        u.stack.append(make(items))
    return op


def _dict(u):
    items = u.pop_mark()
    u.stack.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})


def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


def _persid(u):
    pid = u.stack.pop()
    if type(pid) is not tuple and type(pid) is not int:
        raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
    if type(pid) is tuple and len(pid) > 0 and pid[0] not in ("storage", b"storage"):
        raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
    u.stack.append(u.persistent_load(pid))


def _proto(u):
    u.read(1)


def _stop(u):
    pass


def _frame(u):
    u.read(8)


def _short_binstring(u):
    data = u.read(u.read(1)[0])
    u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding, "strict"))


def _binstring(u):
    data = u.read(struct.unpack("<i", u.read(4))[0])
    u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding, "strict"))


def _unicode(n_fmt):
    def op(u):
        (n,) = struct.unpack(n_fmt, u.read(struct.calcsize(n_fmt)))
        data = u.read(n)
        if len(data) != n:
            raise EOFError
        u.stack.append(str(data, "utf-8", "surrogatepass"))
    return op


def _bytes(n_fmt, wrap=bytes):
    def op(u):
        (n,) = struct.unpack(n_fmt, u.read(struct.calcsize(n_fmt)))
        data = u.read(n)
        if len(data) != n:
            raise EOFError
        u.stack.append(wrap(data))
    return op


def _push(value_fn):
    def op(u):
        u.stack.append(value_fn(u))
    return op


def _put(fmt):
    def op(u):
        (i,) = struct.unpack(fmt, u.read(struct.calcsize(fmt)))
        u.memo[i] = u.stack[-1]
    return op


def _get(fmt):
    def op(u):
        u.memo_get(struct.unpack(fmt, u.read(struct.calcsize(fmt)))[0])
    return op


def _tuple_n(n):
    def op(u):
        if n:
            items = tuple(u.stack[-n:])
            if len(items) != n:
                raise IndexError("stack underflow")
            del u.stack[-n:]
            u.stack.append(items)
        else:
            u.stack.append(())
    return op


def _text_line(u):
    return u.readline()[:-1].decode("ascii")


def _int_text(u):
    s = _text_line(u)
    return {"00": False, "01": True}[s] if s in ("00", "01") else int(s)


_OPS = {
    pickle.PROTO[0]: _proto, pickle.STOP[0]: _stop, pickle.FRAME[0]: _frame,
    pickle.GLOBAL[0]: _global, pickle.STACK_GLOBAL[0]: _stack_global, pickle.REDUCE[0]: _reduce,
    pickle.NEWOBJ[0]: _newobj, pickle.BUILD[0]: _build,
    pickle.MARK[0]: _mark, pickle.POP[0]: lambda u: u.stack.pop(), pickle.POP_MARK[0]: lambda u: u.pop_mark(),
    pickle.DUP[0]: lambda u: u.stack.append(u.stack[-1]),
    pickle.APPEND[0]: _append, pickle.APPENDS[0]: _appends, pickle.SETITEM[0]: _setitem,
    pickle.SETITEMS[0]: _setitems, pickle.ADDITEMS[0]: _additems,
    pickle.TUPLE[0]: _marked(tuple), pickle.LIST[0]: _marked(list),
    pickle.DICT[0]: _dict,
    pickle.FROZENSET[0]: _marked(frozenset),
    pickle.EMPTY_TUPLE[0]: _tuple_n(0), pickle.TUPLE1[0]: _tuple_n(1), pickle.TUPLE2[0]: _tuple_n(2),
    pickle.TUPLE3[0]: _tuple_n(3),
    pickle.NONE[0]: _push(lambda u: None), pickle.NEWTRUE[0]: _push(lambda u: True),
    pickle.NEWFALSE[0]: _push(lambda u: False), pickle.EMPTY_LIST[0]: _push(lambda u: []),
    pickle.EMPTY_DICT[0]: _push(lambda u: {}), pickle.EMPTY_SET[0]: _push(lambda u: set()),
    pickle.BININT[0]: _push(lambda u: struct.unpack("<i", u.read(4))[0]),
    pickle.BININT1[0]: _push(lambda u: u.read(1)[0]),
    pickle.BININT2[0]: _push(lambda u: struct.unpack("<H", u.read(2))[0]),
    pickle.LONG1[0]: _push(lambda u: pickle.decode_long(u.read(u.read(1)[0]))),
    pickle.LONG4[0]: _push(lambda u: pickle.decode_long(u.read(struct.unpack("<i", u.read(4))[0]))),
    pickle.INT[0]: _push(_int_text), pickle.LONG[0]: _push(lambda u: int(_text_line(u).rstrip("L"))),
    pickle.BINFLOAT[0]: _push(lambda u: struct.unpack(">d", u.read(8))[0]),
    pickle.FLOAT[0]: _push(lambda u: float(_text_line(u))),
    pickle.BINUNICODE[0]: _unicode("<I"), pickle.SHORT_BINUNICODE[0]: _unicode("<B"),
    pickle.BINUNICODE8[0]: _unicode("<Q"),
    pickle.SHORT_BINSTRING[0]: _short_binstring, pickle.BINSTRING[0]: _binstring,
    pickle.BINBYTES[0]: _bytes("<I"), pickle.SHORT_BINBYTES[0]: _bytes("<B"), pickle.BINBYTES8[0]: _bytes("<Q"),
    pickle.BYTEARRAY8[0]: _bytes("<Q", bytearray),
    pickle.BINPERSID[0]: _persid,
    pickle.BINGET[0]: _get("<B"), pickle.LONG_BINGET[0]: _get("<I"),
    pickle.BINPUT[0]: _put("<B"), pickle.LONG_BINPUT[0]: _put("<I"),
    pickle.MEMOIZE[0]: lambda u: u.memo.__setitem__(len(u.memo), u.stack[-1]),
}


def globals_in(data: bytes):
    """The dotted names of every global a pickle refers to, read without running it."""
    import pickletools

    out, strings = [], []
    for op, arg, _ in pickletools.genops(io.BytesIO(data)):
        if op.name == "GLOBAL":
            module, name = _py3_name(*arg.split(" ", 1))
            out.append(f"{module}.{name}")
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            out.append(f"{strings[-2]}.{strings[-1]}")
        elif isinstance(arg, str):
            strings.append(arg)
    return out


def full_unpickler(pickle_module):
    """weights_only=False: a `pickle_module.Unpickler` that maps torch's names to facade's."""

    class Unpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if module == "torch" or module.startswith("torch."):
                return resolve_torch(module, name)
            return super().find_class(module, name)

    return Unpickler


class ScanUnpickler(WeightsUnpickler):
    """Runs nothing: every global but a storage type is a stand-in, every call and build yields one. Lists the
    storages a legacy (pre-1.6) checkpoint's pickle refers to, before reading their bytes, which follow it."""

    def find(self, module, name):
        module, name = _py3_name(module, name)
        if module == "torch" and name in STORAGE_TYPES:
            return STORAGE_TYPES[name]
        return _Opaque()

    def target(self, kinds, message):
        t = self.stack[-1]
        return t if type(t) in kinds else _Opaque()


class _Opaque:
    def __setitem__(self, k, v):
        pass

    def append(self, x):
        pass

    extend = update = append


def _opaque_result(n):
    def op(u):
        del u.stack[-n:]
        u.stack.append(_Opaque())
    return op


WeightsUnpickler.ops = _OPS
ScanUnpickler.ops = {**_OPS, pickle.REDUCE[0]: _opaque_result(2), pickle.NEWOBJ[0]: _opaque_result(2),
                     pickle.BUILD[0]: lambda u: u.stack.pop()}
