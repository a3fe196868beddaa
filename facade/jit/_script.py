"""torch.jit.script / torch.jit.trace on facade: compiled callables that keep the module interface.

TorchScript itself (its IR, `.code`, `.graph`, saving to a `.pt` archive) is not rebuilt: scripting or tracing
a module gives a module of torch's class name (`RecursiveScriptModule`, `TopLevelTracedModule`) that is the
original module (same parameters, buffers, state_dict keys, attributes and hooks) with its forward compiled by
torch.compile; a function gives its compiled function. `torch.jit.save`/`load` raise: save the state_dict with
torch.save, or export with torch.export.
"""

from __future__ import annotations

from ..nn.modules.module import Module

_SAVE = ("torch.jit.{}: TorchScript archives are not supported by facade. Save the weights with "
         "torch.save(model.state_dict(), path) and rebuild the model in Python, or export the program with "
         "torch.export (torch.export.export / torch.export.save).")


class ScriptModule(Module):
    """torch.jit.ScriptModule: the base of scripted and traced modules."""

    def save(self, f, **kwargs):
        raise NotImplementedError(_SAVE.format("ScriptModule.save"))

    @property
    def code(self):
        raise NotImplementedError("torch.jit.ScriptModule.code: facade compiles through XLA and has no TorchScript "
                                  "code to show; torch._dynamo.explain(module)(inputs) reports the program")

    graph = code


class RecursiveScriptModule(ScriptModule):
    """What torch.jit.script(module) returns."""


class TracedModule(ScriptModule):
    """What torch.jit.trace(module) returns (TopLevelTracedModule at the top)."""


class TopLevelTracedModule(TracedModule):
    pass


class ScriptFunction:
    """torch.jit.ScriptFunction: a compiled function."""

    def __init__(self, compiled):
        self._compiled, self.__wrapped__ = compiled, compiled._fn
        self.__name__ = getattr(compiled._fn, "__name__", "forward")

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def save(self, f, **kwargs):
        raise NotImplementedError(_SAVE.format("ScriptFunction.save"))


def _as(mod, base):
    """`mod` itself under a class of torch's name whose forward is compiled (one class per module)."""
    from .._compile import CompiledFunction

    compiled = CompiledFunction(mod.forward)
    cls = type(base.__name__, (base,), {"forward": staticmethod(compiled), "__module__": "torch.jit._script",
                                        "_original_class": type(mod)})
    out = object.__new__(cls)
    out.__dict__ = mod.__dict__  # the same parameters, buffers, submodules, hooks and attributes
    return out


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """torch.jit.script: a module keeps its interface, its forward compiled; a function is compiled."""
    if isinstance(obj, ScriptModule):
        return obj
    if isinstance(obj, Module):
        return _as(obj, RecursiveScriptModule)
    if isinstance(obj, type):
        raise NotImplementedError("torch.jit.script of a class: TorchScript classes are not supported by facade")
    from .._compile import CompiledFunction

    return ScriptFunction(CompiledFunction(obj))


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """torch.jit.trace: compiled like torch.compile, and run once on the example inputs (as torch's tracer does)."""
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be specified")
    out = _as(func, TopLevelTracedModule) if isinstance(func, Module) else script(func)
    args = example_inputs if isinstance(example_inputs, tuple) else () if example_inputs is None else (example_inputs,)
    out(*args, **(example_kwarg_inputs or {}))
    return out


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    return freeze(mod.eval() if isinstance(mod, ScriptModule) else script(mod).eval())


def save(m, f, _extra_files=None):
    raise NotImplementedError(_SAVE.format("save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError(_SAVE.format("load"))
