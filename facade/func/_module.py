"""torch.func's module helpers: functional_call, stack_module_state, replace_all_batch_norm_modules_."""

from __future__ import annotations

import contextlib
from collections import Counter

from .._tensor import Tensor

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]

_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call `module` with its parameters and buffers replaced, by name, by the given tensors (restored after)."""
    d = parameter_and_buffer_dicts
    if isinstance(d, dict):
        tensors = d
    elif isinstance(d, (list, tuple)):
        counts = Counter(k for part in d for k in part)
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors = {k: v for part in d for k, v in part.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(d)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, tensors, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _named(module):
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(module, tensors):
    """With tied weights (one tensor under several names), a value given for one name goes to all of them."""
    names = {}
    for name, t in _named(module).items():
        names.setdefault(id(t), set()).add(name)
    tied = {n: group for group in names.values() if len(group) > 1 for n in group}
    given = set(tensors).intersection(tied)
    for name in given:
        group = tied[name]
        if len({id(tensors[n]) for n in group & given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = dict(tensors)
    for name in given:
        for other in tied[name]:
            untied[other] = tensors[name]
    return untied


@contextlib.contextmanager
def _reparametrize(module, tensors, tie_weights, strict):
    if strict:
        valid = set(_named(module))
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs))
    if tie_weights:
        tensors = _untie(module, tensors)
    done = []
    try:
        for name, t in tensors.items():
            owner, _, attr = name.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            if not isinstance(t, Tensor):
                raise TypeError(f"{t} is not an instance of torch.Tensor")
            done.append((sub, attr, _swap(sub, attr, t)))
        yield
    finally:
        for sub, attr, orig in reversed(done):
            _swap(sub, attr, orig)


def _swap(module, name, tensor):
    """Put `tensor` (or _MISSING: remove) at `module.name`; return what was there."""
    for store in (module._parameters, module._buffers):
        if name in store:
            orig, store[name] = store[name], tensor
            if tensor is _MISSING:
                del store[name]
            return orig
    orig = getattr(module, name, _MISSING)
    if orig is not _MISSING and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is _MISSING:
        delattr(module, name)
    else:
        object.__setattr__(module, name, tensor)
    return orig


def stack_module_state(models):
    """(params, buffers): each name's tensors from `models` stacked on a new leading dimension (for vmap)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({k: _stacked_leaf([p[k] for p in params], k) for k in params[0]},
            {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]})


def _stacked_leaf(tensors, name):
    from .. import stack

    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = stack(tensors)
    return out.detach().requires_grad_() if True in grads else out


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm in `root` stop tracking running statistics (in place), as torch.func suggests."""
    from ..nn.modules.batchnorm import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = m.running_var = m.num_batches_tracked = None
            m.track_running_stats = False
    return root
