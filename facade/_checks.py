"""torch._check and friends: assertions that are also hints for compilers (model libraries use them
in forward passes, e.g. transformers' `torch_compilable_check`). Eagerly they raise when `cond` is false."""

from __future__ import annotations

import builtins

from ._sym import SymBool

__all__ = ["_check_with", "_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
           "_check_tensor_all_with", "_check_tensor_all"]


def _check_with(error_type, cond, message):
    """Raise `error_type(message())` when the bool `cond` is False."""
    from ._tensor import Tensor

    if not isinstance(cond, (builtins.bool, SymBool)):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, got {error_type}")
    if message is None:
        raise error_type("Expected cond to be True, but got False. (Could this error message be improved? If so, "
                         "please report an enhancement request to PyTorch.)")
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _check(cond, message=None):
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(error_type, cond, message=None):
    """`_check_with` on "every element of the bool tensor `cond` is True" (reads the value: a host sync)."""
    from . import _dtype
    from ._tensor import Tensor

    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != _dtype.bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)
