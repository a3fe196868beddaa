"""torch.nn.modules.lazy: LazyModuleMixin, for modules whose parameter shapes come from their first input."""

from __future__ import annotations

import itertools

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix in before a Module class (`class LazyLinear(LazyModuleMixin, Linear)`) whose parameters start as
    UninitializedParameter. The first call runs `initialize_parameters(*args, **kwargs)` (a forward pre-hook),
    which materializes them and resets them; the module then becomes `cls_to_become`. Loading a state_dict
    into an uninitialized module materializes the parameters with the checkpoint's shapes first.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for store, skip in ((self._parameters, ()), (self._buffers, self._non_persistent_buffers_set)):
            for name, t in store.items():
                if t is not None and name not in skip:
                    destination[prefix + name] = t if is_lazy(t) or keep_vars else t.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialize and initialize the uninitialized parameters from the first input (subclasses)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
