"""Names of torch APIs that a later piece of work delivers: importable now, and raising a clear
NotImplementedError naming the torch API when called (never a silent no-op)."""

from __future__ import annotations

__all__ = ["unsupported", "unsupported_class"]


def _message(api: str, owner: str) -> str:
    return f"{api} is not supported by facade yet ({owner})"


def unsupported(api: str, owner: str):
    """A function named like `api` (e.g. 'torch.distributed.all_reduce') that raises when called."""
    module, _, name = api.rpartition(".")

    def fn(*args, **kwargs):
        raise NotImplementedError(_message(api, owner))

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module.replace("torch", "facade", 1)
    fn.__doc__ = f"{api}: {_message(api, owner)}."
    return fn


def unsupported_class(api: str, owner: str, bases: tuple = ()):
    """A class named like `api` whose construction raises (isinstance checks against it still work)."""
    module, _, name = api.rpartition(".")

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_message(api, owner))

    return type(name, bases, {"__init__": __init__, "__module__": module.replace("torch", "facade", 1),
                              "__doc__": f"{api}: {_message(api, owner)}."})
