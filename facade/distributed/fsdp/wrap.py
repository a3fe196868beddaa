"""torch.distributed.fsdp.wrap: auto-wrap policies, accepted by FullyShardedDataParallel(auto_wrap_policy=...).

facade lays out every parameter on its own (see fully_sharded_data_parallel.py), so the wrapping units a policy
picks change nothing; the policies exist so that scripts building them run unchanged."""

from __future__ import annotations

import contextlib

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "ModuleWrapPolicy", "CustomPolicy", "enable_wrap", "wrap"]


def always_wrap_policy(*args, **kwargs) -> bool:
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn) -> bool:
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls) -> bool:
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8), force_leaf_modules=None,
                                exclude_wrap_modules=None) -> bool:
    return True if recurse else nonwrapped_numel >= min_num_params


class ModuleWrapPolicy:
    def __init__(self, module_classes):
        self._module_classes = set(module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else isinstance(module, tuple(self._module_classes))


class CustomPolicy:
    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    yield


def wrap(module, **wrap_overrides):
    """Outside of FSDP's auto-wrapping, torch returns the module as is; so does facade."""
    return module
