"""Grad-mode switches: no_grad, enable_grad, inference_mode, set_grad_enabled."""

from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _State:
    enabled = True
    inference = False


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _Mode:
    """A context manager that is also a decorator, like torch's grad-mode classes."""

    _target = True

    def __init__(self, *args):
        if args and callable(args[0]):  # used as a bare decorator: @no_grad
            raise TypeError(f"{type(self).__name__}() takes no function; use @{type(self).__name__}()")

    def __enter__(self):
        self._prev = (STATE.enabled, STATE.inference)
        STATE.enabled = self._target

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self._prev

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_Mode):
    _target = False

    def __init__(self, orig_func=None):
        pass

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is not None and callable(orig_func):  # torch allows @torch.no_grad without ()
            return self(orig_func)
        return self


class enable_grad(_Mode):
    _target = True

    def __init__(self, orig_func=None):
        pass

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is not None and callable(orig_func):
            return self(orig_func)
        return self


class set_grad_enabled(_Mode):
    """Sets grad mode on construction (torch's semantics) and restores it on exit."""

    def __init__(self, mode: bool):
        self._target = bool(mode)
        self._prev = (STATE.enabled, STATE.inference)
        STATE.enabled = self._target

    def __enter__(self):
        STATE.enabled = self._target

    def clone(self):
        return set_grad_enabled.__new__(set_grad_enabled)._init_clone(self._target)

    def _init_clone(self, mode):
        self._target = mode
        return self


class inference_mode(_Mode):
    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode):
            self._on = True
            return self(mode)
        self._on = bool(mode)
        return self

    def __init__(self, mode=True):
        pass

    def __enter__(self):
        self._prev = (STATE.enabled, STATE.inference)
        # inference_mode(False) turns both off again, even inside no_grad or inference_mode (as torch's does)
        STATE.enabled, STATE.inference = (False, True) if self._on else (True, False)

    def clone(self):
        return inference_mode(self._on)
