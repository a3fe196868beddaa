"""torch.compile(module): `OptimizedModule`, torch's wrapper, whose forward is the compiled `__call__` of the
original module. The original is registered as the child `_orig_mod`, so parameters are shared, not copied, and
state_dict keys carry the `_orig_mod.` prefix exactly as torch's do; attributes the wrapper lacks are the
original's."""

from __future__ import annotations

from ..nn.modules.module import Module
from ._function import CompiledFunction


class OptimizedModule(Module):
    """torch._dynamo.eval_frame.OptimizedModule."""

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "forward", "_forward",
                           "__dict__", "_super_module_initialized"}

    def __init__(self, mod, compiled):
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod
        self._torchdynamo_orig_callable = mod.forward
        self.dynamo_ctx = compiled
        self.forward = _compiled_call(mod, compiled)

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if name in OptimizedModule._opt_mod_attributes or not getattr(self, "_super_module_initialized", False):
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        return delattr(self._orig_mod, name)

    def __len__(self):
        return len(self._orig_mod)

    @property
    def training(self):  # the original's flag, read and written through (as torch's wrapper does)
        mods = self.__dict__.get("_modules")
        return mods["_orig_mod"].training if mods and "_orig_mod" in mods else True

    @training.setter
    def training(self, mode):
        mods = self.__dict__.get("_modules")
        if mods and "_orig_mod" in mods:
            mods["_orig_mod"].training = mode

    def __reduce__(self):
        return OptimizedModule, (self._orig_mod, self.dynamo_ctx)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("forward", None)
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.forward = _compiled_call(self._orig_mod, self.dynamo_ctx)


def _compiled_call(mod, settings):
    around = getattr(type(mod), "_compiled_forward", None)
    if around is not None:  # DistributedDataParallel: its module compiles, its own forward stays eager around it
        return around(mod, lambda inner: _compiled_call(inner, settings))
    fn = CompiledFunction(mod.__call__, **settings)
    fn._lift_grads = False
    fn.__name__, fn.__qualname__ = "forward", f"{type(mod).__name__}.forward"
    return fn
