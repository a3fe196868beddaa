"""torch.library: Python custom operators (`custom_op`, `register_fake`, `register_autograd`, `register_kernel`).

A custom op is the user's function behind a name ("mylib::f", also reachable as `torch.ops.mylib.f`). facade
has no C++ dispatcher, so an op is one generated `torch.autograd.Function`: the forward runs the kernel (the
fake kernel for meta tensors, a `register_kernel` one for its device type), the backward is the registered
autograd formula, and backward through an op without one raises torch's error. The dispatcher-level API
(`Library`, `define`, `impl`, torch-dispatch/vmap/autocast registrations, triton ops) raises NotImplementedError.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Sequence

from ._ops import ops
from ._unsupported import unsupported, unsupported_class

_OWNER = "facade has no operator dispatcher; use torch.library.custom_op"
_DISPATCHER = ("impl", "define", "fallthrough_kernel", "impl_abstract", "register_autocast", "register_torch_dispatch",
               "register_vmap", "get_ctx", "get_kernel", "triton_op", "wrap_triton")

__all__ = ["Library", "custom_op", "register_fake", "register_autograd", "register_kernel", "infer_schema",
           "CustomOpDef", *_DISPATCHER]

Library = unsupported_class("torch.library.Library", _OWNER)
globals().update({n: unsupported(f"torch.library.{n}", _OWNER) for n in _DISPATCHER})


def _schema_types():
    from . import _device, _dtype
    from ._tensor import Tensor

    base = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
            _dtype.dtype: "ScalarType", _device.device: "Device"}
    types = dict(base)
    for py, name in base.items():
        types[typing.Optional[py]] = name + "?"  # noqa: UP045  (the spelling users annotate with)
        if py is not str:
            for seq in (list, Sequence, typing.List, typing.Sequence):  # noqa: UP006
                types[seq[py]] = name + "[]"
    return types


def infer_schema(prototype_function, /, *, mutates_args, op_name=None) -> str:
    """The operator schema of a type-annotated function, e.g. "(Tensor x, SymInt n) -> Tensor"."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    types = _schema_types()

    def error(what):
        return ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params = []
    for i, (name, p) in enumerate(sig.parameters.items()):
        if name not in hints:
            raise error(f"Parameter {name} must have a type annotation.")
        if hints[name] not in types:
            raise error(f"Parameter {name} has unsupported type {hints[name]}. The valid types are: "
                        f"{', '.join(sorted(set(types.values())))}.")
        kind = types[hints[name]]
        if mutates_args == "unknown" or name in mutates_args:
            kind = kind.replace("Tensor", f"Tensor(a{i}!)", 1)
        default = "" if p.default is inspect.Parameter.empty else "=" + (
            f'"{p.default}"' if isinstance(p.default, str) else str(p.default))
        params.append(f"{kind} {name}{default}")
    if "return" not in hints:
        raise error("No return type annotation was provided. Please add one.")
    ret = hints["return"]
    outs = typing.get_args(ret) if typing.get_origin(ret) is tuple else () if ret is type(None) else (ret,)
    if any(o not in types for o in outs):
        raise error(f"Return has unsupported type {ret}.")
    names = [types[o] for o in outs]
    returns = names[0] if len(names) == 1 and typing.get_origin(ret) is not tuple else f"({', '.join(names)})"
    return f"({', '.join(params)}) -> {returns}"


class CustomOpDef:
    """A custom operator made by `torch.library.custom_op`; call it like its function."""

    def __init__(self, namespace: str, name: str, schema: str, fn):
        self._namespace, self._name, self._schema, self._init_fn = namespace, name, schema, fn
        self._qualname = f"{namespace}::{name}"
        self._kernels, self._fake_fn, self._backward_fn, self._setup_context_fn = {}, None, None, None
        self._signature = inspect.signature(fn)
        self._function = self._make_function()
        self.default = self  # torch.ops.ns.name.default

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def register_fake(self, fn=None, /):
        if fn is None:
            return self.register_fake
        self._fake_fn = fn
        return fn

    def register_kernel(self, device_types, fn=None, /):
        def register(f):
            for d in [device_types] if isinstance(device_types, str) or device_types is None else device_types:
                self._kernels[d] = f
            return f
        return register if fn is None else register(fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        self._backward_fn, self._setup_context_fn = backward, setup_context

    def _kernel(self, *args):
        from ._tensor import Tensor

        device = next((a.device.type for a in args if isinstance(a, Tensor)), None)
        if device == "meta" and self._fake_fn is not None:
            return self._fake_fn(*args)
        return self._kernels.get(device, self._kernels.get(None, self._init_fn))(*args)

    def _make_function(self):
        from .autograd import Function

        op = self

        def forward(*args):
            return op._kernel(*args)

        def setup_context(ctx, inputs, output):
            if op._setup_context_fn is not None:
                op._setup_context_fn(ctx, inputs, output)

        def backward(ctx, *grads):
            if op._backward_fn is None:
                raise RuntimeError(f"Trying to backward through {op._namespace}.{op._name}.default but no autograd "
                                   "formula was registered. Please use register_autograd to add one.")
            return op._backward_fn(ctx, *grads)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                        "setup_context": staticmethod(setup_context)})

    def __call__(self, *args, **kwargs):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            n = len(self._signature.parameters)
            raise RuntimeError(f"{self._qualname}() expected at most {n} argument(s) but received "
                               f"{len(args) + len(kwargs)} argument(s). Declaration: {self._qualname}{self._schema}"
                               ) from None
        bound.apply_defaults()
        out = self._function.apply(*bound.args)
        for o in out if isinstance(out, tuple) else (out,):
            if any(o is a for a in bound.args):
                raise RuntimeError(f"{self._name}: The output of this custom operator (1) must not also be an input "
                                   "to this custom operator and (2) may not alias any inputs to this custom operator "
                                   "or other returns. Please instead return a clone of the offending output "
                                   "tensor(s) (e.g. return x.clone()) or refactor the custom operator to not "
                                   "return y.")
        return out


def custom_op(name: str, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Make `fn` the custom operator `name` ("namespace::opname"); usable as a decorator."""
    namespace, opname = name.split("::")

    def make(f):
        op = CustomOpDef(namespace, opname, schema or infer_schema(f, mutates_args=mutates_args), f)
        if device_types is not None:
            op.register_kernel(device_types, f)
        getattr(ops, namespace)._ops[opname] = op
        return op
    return make if fn is None else make(fn)


def _lookup(op, missing):
    if isinstance(op, CustomOpDef):
        return op
    namespace, opname = op.split("::")
    found = getattr(ops, namespace)._ops.get(opname)
    if found is None:
        if missing is RuntimeError:
            raise RuntimeError(f"operator {op} does not exist")
        getattr(getattr(ops, namespace), opname)  # torch's AttributeError
    return found


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """Register the shape/dtype-only kernel `func` of custom op `op` (used for meta tensors)."""
    return _lookup(op, RuntimeError).register_fake(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None) -> None:
    """Register `backward(ctx, *grads)` (and `setup_context(ctx, inputs, output)`) as `op`'s autograd formula."""
    _lookup(op, AttributeError).register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register `func` as `op`'s kernel for the given device type(s)."""
    return _lookup(op, RuntimeError).register_kernel(device_types, func)
