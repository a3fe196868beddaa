"""torch.storage: UntypedStorage, TypedStorage and the legacy FloatStorage & co.

A storage here is a window on a tensor's root, the tensor that all its views share: `t.untyped_storage()`
of a tensor and of its views is one object, its bytes the root's elements in order. A TypedStorage reads
those elements as its dtype; writes through it (`s[0] = 5`, `fill_`) go into the root, so every tensor on
that root sees them, as in torch. A storage made on its own (`torch.FloatStorage(3)`) holds a fresh 1-D root.
Storages of checkpoints being loaded (what `map_location` callables receive) are `facade._pickling`'s.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype as D
from ._device import device as _device

__all__ = ["TypedStorage", "UntypedStorage"]

_WARN = [True]


def _warn_typed_storage_removal(stacklevel=2):
    """torch warns once per process that TypedStorage is deprecated."""
    if _WARN[0]:
        _WARN[0] = False
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=stacklevel + 1)


def _reset_warn_typed_storage_removal():
    _WARN[0] = True


def _fresh(data, dtype, device, who):
    """A 1-D root tensor for a storage made on its own: of `data` elements (an int) or holding a sequence."""
    from . import _creation

    if data is None or isinstance(data, int):
        n = 0 if data is None else data
        if n < 0:
            raise RuntimeError(f"{who}: the size of a storage must be non-negative, but got {n}")
        return _creation.zeros(n, dtype=dtype, device=device)
    if isinstance(data, str) or not hasattr(data, "__len__"):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if dtype is D.uint8:
        bad = next((x for x in data if not isinstance(x, int)), None)
        if bad is not None:
            raise RuntimeError(f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                               f"({type(data).__name__}), but one of the items was of type {type(bad).__name__} "
                               "instead of int")
    return _creation.tensor(list(data), dtype=dtype, device=device)


class _StorageBase:
    is_sparse = False

    @property
    def device(self):
        return self._root.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def data_ptr(self):
        return id(self._root) * 16

    def nbytes(self):
        return self._root.nbytes

    def __len__(self):
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, i):
        n = len(self)
        if not isinstance(i, int):
            raise TypeError(f"can't index a {type(self).__name__} with {type(i).__name__}")
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return self.tolist()[i]

    def __repr__(self):
        info = f"[{_typename(self)}({self._info()}device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(x) for x in self) + "\n" + info

    __str__ = __repr__

    def is_shared(self):
        return False

    def share_memory_(self):
        return self

    def is_pinned(self, device="cuda"):
        return False

    def pin_memory(self, device="cuda"):
        return self

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        return self.to(_device("cuda", 0 if device is None else device))


class UntypedStorage(_StorageBase):
    """torch.UntypedStorage(size | sequence of ints, *, device=None): bytes."""

    def __init__(self, data=None, *, device=None):
        self._root = _fresh(data, D.uint8, device, "UntypedStorage")

    @classmethod
    def _of(cls, root):
        s = root.__dict__.get("_untyped_storage")
        if s is None:
            s = root.__dict__["_untyped_storage"] = object.__new__(cls)
            s._root = root
        return s

    def size(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def _info(self):
        return ""

    def tolist(self):
        root = self._root
        if root.device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return np.ascontiguousarray(root.detach().cpu().numpy()).view(np.uint8).reshape(-1).tolist()

    def type(self, dtype=None, non_blocking=False):
        return "torch.storage.UntypedStorage" if dtype is None else TypedStorage(wrap_storage=self, dtype=dtype)

    def untyped(self):
        return self

    def to(self, device=None, non_blocking=False):
        device = _device(device)
        return self if device == self.device else UntypedStorage._of(self._root.to(device))

    def clone(self):
        return UntypedStorage._of(self._root.clone())


class _LegacyStorageMeta(type):
    """`isinstance(t.storage(), torch.FloatStorage)` holds for any TypedStorage of that dtype, as in torch."""

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage and cls.dtype is not None:
            return instance.dtype is cls.dtype
        return type.__instancecheck__(cls, instance)


class TypedStorage(_StorageBase, metaclass=_LegacyStorageMeta):
    """torch.TypedStorage([size | sequence], *, dtype=None, device=None, wrap_storage=None). Deprecated in torch."""

    dtype = None  # the instance's dtype; a legacy class's own on FloatStorage & co.

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        legacy = type(self) is not TypedStorage
        if legacy:
            if dtype is not None or device is not None:
                raise RuntimeError(f"{type(self)}.__new__ received an invalid combination of arguments. Expected "
                                   "one of:\n * no arguments\n * (int size)\n * (Sequence data)\n * (*, "
                                   "UntypedStorage wrap_storage)\nKeyword argument "
                                   f"'{'dtype' if dtype is not None else 'device'}' cannot be specified")
            dtype = type(self).dtype
        if len(args) > 1:
            raise RuntimeError(f"TypedStorage.__init__ received an invalid combination of arguments: too many "
                               f"positional arguments ({len(args)}), expected at most 1")
        dtype = dtype or D.get_default_dtype()
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage.__init__ received an invalid combination of arguments. Expected "
                                   "one of:\n * (*, torch.device device, torch.dtype dtype)\n * (int size, *, "
                                   "torch.device device, torch.dtype dtype)\n * (Sequence data, *, torch.device "
                                   "device, torch.dtype dtype)\n * (*, UntypedStorage wrap_storage, torch.dtype "
                                   "dtype)\nNo positional arguments should be given when using 'wrap_storage'")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected a torch.UntypedStorage as wrap_storage, got {type(wrap_storage)}")
            self._root = wrap_storage._root
        else:
            self._root = _fresh(args[0] if args else None, dtype, device, "TypedStorage")
        self.dtype = dtype
        if legacy:
            self.__class__ = TypedStorage  # torch's legacy constructors return plain TypedStorages

    @classmethod
    def _of(cls, root):
        s = object.__new__(TypedStorage)
        s._root, s.dtype = root, root.dtype
        return s

    @property
    def _untyped_storage(self):
        return UntypedStorage._of(self._root)

    def untyped(self):
        return self._untyped_storage

    def _info(self):
        return f"dtype={self.dtype}, "

    def _flat(self):
        """The elements as a 1-D tensor: a view of the root when the dtypes agree (writable), else a bitcast."""
        flat = self._root.detach().reshape(-1)
        if self._root.dtype is self.dtype:
            return flat
        if flat.nbytes % self.dtype.itemsize:
            raise RuntimeError(f"Storage of {flat.nbytes} bytes cannot be viewed as {self.dtype}")
        return flat.view(D.uint8).view(self.dtype) if flat.dtype is not D.uint8 else flat.view(self.dtype)

    def size(self):
        return self._root.nbytes // self.dtype.itemsize

    def element_size(self):
        return self.dtype.itemsize

    def tolist(self):
        return self._flat().tolist()

    def __setitem__(self, i, value):
        if self._root.dtype is not self.dtype:
            raise NotImplementedError(f"writing to a {self.dtype} storage that views a {self._root.dtype} "
                                      "tensor's bytes is not supported here")
        if isinstance(i, int) and not -len(self) <= i < len(self):
            raise IndexError(f"index {i} out of range for storage of size {len(self)}")
        self._flat()[i] = value

    def fill_(self, value):
        self[:] = value
        return self

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "torch." + _LEGACY_NAME[self.dtype] if self.dtype in _LEGACY_NAME else _typename(self)
        return self._cast(dtype)

    def pickle_storage_type(self):
        return _LEGACY_NAME[self.dtype]

    def _cast(self, dtype):
        return TypedStorage._of(self._flat().to(dtype))

    def to(self, device=None, non_blocking=False):
        device = _device(device)
        return self if device == self.device else TypedStorage._of(self._flat().to(device))

    def clone(self):
        return TypedStorage._of(self._flat().clone())


def _legacy(name, dtype):
    return _LegacyStorageMeta(name, (TypedStorage,), {"dtype": dtype, "__module__": "torch", "__qualname__": name,
                                                       "__doc__": f"torch.{name}: a TypedStorage of {dtype}."})


_LEGACY_NAME = {D.float32: "FloatStorage", D.float64: "DoubleStorage", D.float16: "HalfStorage",
                D.bfloat16: "BFloat16Storage", D.int64: "LongStorage", D.int32: "IntStorage", D.int16: "ShortStorage",
                D.int8: "CharStorage", D.uint8: "ByteStorage", D.bool: "BoolStorage",
                D.complex64: "ComplexFloatStorage", D.complex128: "ComplexDoubleStorage"}
LEGACY = {n: _legacy(n, d) for d, n in _LEGACY_NAME.items()}

for _n, _d in (("float", D.float32), ("double", D.float64), ("half", D.float16), ("bfloat16", D.bfloat16),
               ("long", D.int64), ("int", D.int32), ("short", D.int16), ("char", D.int8), ("byte", D.uint8),
               ("bool", D.bool), ("complex_float", D.complex64), ("complex_double", D.complex128)):
    setattr(TypedStorage, _n, lambda self, _d=_d: self._cast(_d))


def _typename(s):
    return "torch.storage." + ("UntypedStorage" if isinstance(s, UntypedStorage) else "TypedStorage")


def is_storage(obj) -> bool:
    """torch.is_storage: True for a storage object (also one a checkpoint being loaded hands to map_location)."""
    from ._pickling import TypedStorage as _Loaded

    return isinstance(obj, (_StorageBase, _Loaded))


def tensor_storage(t):
    """Tensor.storage(): a TypedStorage of t's dtype over t's root (torch warns it is deprecated)."""
    _warn_typed_storage_removal(stacklevel=3)
    return TypedStorage(wrap_storage=t.untyped_storage(), dtype=t.dtype, _internal=True)


def tensor_storage_type(t):
    """Tensor.storage_type(): the legacy class of t's dtype (torch.FloatStorage ..., a class as in torch)."""
    return LEGACY[_LEGACY_NAME[t.dtype]]
