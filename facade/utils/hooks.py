"""torch.utils.hooks: RemovableHandle (what every register_*_hook returns) and BackwardHook (Module's full
backward hooks, run by identity autograd Functions around a module's inputs and outputs)."""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


class RemovableHandle:
    """A handle whose `remove()` deletes hook `id` from the dict(s) it was registered in."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = () if len(state) < 3 or state[2] is None else tuple(weakref.ref(d) for d in state[2])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register(hooks, hook, *, prepend=False, flags=()):
    """Put `hook` in the ordered dict `hooks` (first when `prepend`) under a fresh handle; `flags` are
    (dict, on) pairs marking the hook in side dicts (with_kwargs, always_call) that the handle also clears."""
    handle = RemovableHandle(hooks, extra_dict=[d for d, _ in flags] or None)
    hooks[handle.id] = hook
    for d, on in flags:
        if on:
            d[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def unserializable_hook(f):
    """Mark `f` as a hook that need not be serialized (silences warn_if_has_hooks)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    for hook in getattr(tensor, "_backward_hooks", None) or {}:
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


def _identity_function():
    from ..autograd.function import Function

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            return args

        @staticmethod
        def backward(ctx, *grads):
            return grads

    return BackwardHookFunction


_IDENTITY = []


class BackwardHook:
    """Runs a module's full backward pre-hooks and hooks. Inputs and outputs pass through an identity
    Function: its node at the outputs sees grad_output (pre-hooks may replace it), its node at the inputs
    sees grad_input (hooks may replace it), as torch.utils.hooks.BackwardHook does."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks, self.user_pre_hooks, self.module = user_hooks, user_pre_hooks, module
        self.grad_outputs = None
        self.n_outputs = self.n_inputs = -1
        self.output_tensors_index = self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    def _apply_on_tensors(self, fn, args):
        from .._tensor import Tensor
        from ..autograd.grad_mode import is_grad_enabled

        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not (idx and is_grad_enabled()):
            return args, None
        if not _IDENTITY:
            _IDENTITY.append(_identity_function())
        new = _IDENTITY[0].apply(*(args[i] for i in idx))
        fn(new[0].grad_fn)
        out = list(args)
        for i, v in zip(idx, new):
            out[i] = v
        return (tuple(out) if type(args) is tuple else type(args)(*out)), idx

    def setup_input_hook(self, args):
        def fn(grad_fn):
            def hook(grad_input, _):
                if self.grad_outputs is None:
                    return None
                res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, "
                                           f"but expected {len(res)}")
                    res = out
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_tensors_index)

            grad_fn.register_hook(hook)

        res, self.input_tensors_index = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                           f"{len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = new
                local = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/"
                                  "generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for "
                                  "more details.", stacklevel=5)
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        res, self.output_tensors_index = self._apply_on_tensors(fn, args if is_tuple else (args,))
        self.n_outputs = len(args) if is_tuple else 1
        return res if is_tuple else res[0]
