"""The unpicklers of torch.load: torch's weights-only allow-list unpickler (the default), the full one
(weights_only=False), and a scan that runs nothing (to list a legacy file's storages).

The weights-only unpickler interprets pickle opcodes itself. A global is looked up by name in the allow-list
(`_pickling.torch_names()`, containers, `add_safe_globals`); nothing is imported, only allow-listed callables
are called, only allow-listed types are built, and items go only into lists, dicts and sets. Anything else
stops the load with torch's message naming it.
"""

from __future__ import annotations

import io
import pickle
import struct
from _codecs import encode
from collections import Counter, OrderedDict

from ._pickling import STORAGE_TYPES, _make_parameter, _set_obj_state, parameter_class, resolve_torch, torch_names
from ._tensor import Tensor

__all__ = ["WeightsUnpickler", "full_unpickler", "ScanUnpickler", "globals_in"]

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
                      "_codecs.encode": encode, "builtins.bytearray": bytearray, "builtins.set": set,
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
