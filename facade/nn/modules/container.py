"""torch.nn.modules.container: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections import abc as container_abcs
from itertools import chain, islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _torch_type, _typename

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _addindent(s_, numSpaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join(numSpaces * " " + line for line in s)


def _abs_index(idx, size):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size if size else idx


def _renumber(module):
    module._modules = OrderedDict((str(i), m) for i, m in enumerate(module._modules.values()))


def _strip_digits(keys):
    return [key for key in keys if not key.isdigit()]


class Container(Module):
    """Deprecated: subclass Module instead."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    """Modules called in order, each on the previous one's output. Built from modules (named '0', '1', ...)
    or from an OrderedDict of named modules."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        return next(islice(iterator, _abs_index(idx, len(self)), None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module):
        setattr(self, self._get_item_by_idx(self._modules.keys(), idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {_torch_type(other)} is "
                             "given.")

    def __add__(self, other):
        self._check_sequential(other)
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def __iadd__(self, other):
        self._check_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {_torch_type(self)} and {_torch_type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {_torch_type(self)}")

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        for i, module in enumerate(m for _ in range(other) for m in self):
            combined.add_module(str(i), module)
        return combined

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        n = len(self)
        for i in range(n, n * other):
            self.add_module(str(i), self._modules[str(i % n)])
        return self

    def __dir__(self):
        return _strip_digits(super().__dir__())

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, input):
        for module in self:
            input = module(input)
        return input

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError("module should be of type: <class 'torch.nn.modules.module.Module'>")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(Module):
    """A list of submodules, registered (and indexed) as '0', '1', ...; it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx):
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self):
        """Runs of identical children print once: `(0-2): 3 x Linear(...)`."""
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if blocks and r == blocks[-1][2]:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [_addindent(f"({s}): {b}" if s == e else f"({s}-{e}): {e - s + 1} x {b}", 2) for s, e, b in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return _strip_digits(super().__dir__())

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _pairs(items, kind):
    """Validate an iterable of (key, value) pairs as dict.update does, with torch's messages."""
    for j, p in enumerate(items):
        if not isinstance(p, container_abcs.Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is" + type(p).__name__)
        if len(p) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(p)}; 2 is required")
        yield p[0], p[1]


class ModuleDict(Module):
    """An ordered dict of submodules (keys are their names); it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        items = modules.items() if isinstance(modules, (ModuleDict, container_abcs.Mapping)) else \
            _pairs(modules, "ModuleDict")
        for key, module in items:
            self[key] = module


def _tensor_line(k, p, type_name):
    """One `(k): Parameter containing: [torch.float32 of size 2x3]` line of a parameter container's repr."""
    if not isinstance(p, Tensor):
        return f"  ({k}): Object of type: {type(p).__name__}"
    size = "x".join(str(s) for s in p.size())
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"  ({k}): {kind} containing: [{type_name(p)} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters, registered as '0', '1', ...; plain tensors are wrapped in Parameter."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param):
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return _strip_digits(super().__dir__())

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_tensor_line(k, p, lambda t: t.dtype) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (string keys); plain tensors are wrapped in Parameter."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key):
        return key in self._keys

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in self._keys.copy():
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = parameters.items()
        elif isinstance(parameters, container_abcs.Mapping):
            items = sorted(parameters.items())
        else:
            items = _pairs(parameters, "ParameterDict")
        for key, parameter in items:
            self[key] = parameter

    def extra_repr(self):
        return "\n".join(_tensor_line(k, p, _typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self
