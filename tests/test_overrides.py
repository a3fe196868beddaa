"""torch.overrides helpers against real torch (plus torch.hub's tqdm re-export)."""

from __future__ import annotations

import pytest
import torch

import facade


class _Duck:
    """A tensor-like of another library: defines __torch_function__."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("duck", func.__name__, len(types))


class _SubDuck(_Duck):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("subduck", func.__name__, len(types))


class _Refuses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def _probe(lib):
    o = lib.overrides
    t = lib.ones(2)
    p = lib.nn.Parameter(lib.ones(2))
    return [o.has_torch_function((t,)), o.has_torch_function((t, p, 1)), o.has_torch_function_unary(t),
            o.has_torch_function_unary(p), o.has_torch_function_variadic(t, 2.0, None),
            o.has_torch_function((t, _Duck())), o.has_torch_function_unary(_Duck()),
            o.has_torch_function_variadic(t, _Duck()), o.has_torch_function([]),
            o.is_tensor_like(t), o.is_tensor_like(p), o.is_tensor_like(1), o.is_tensor_like(None),
            o.is_tensor_like(_Duck())]


def test_probes_like_torch():
    assert _probe(facade) == _probe(torch)


def _handle(lib, args):
    def public_api(*a):
        return "plain"

    try:
        return lib.overrides.handle_torch_function(public_api, args, *args)
    except TypeError as e:
        return str(e).split(" on types")[0]


@pytest.mark.parametrize("args", [(_Duck(),), (_Duck(), _SubDuck()), (_Refuses(),), (_Refuses(), _Duck())],
                         ids=["one", "subclass_first", "all_refuse", "second_answers"])
def test_handle_torch_function_like_torch(args):
    assert _handle(facade, args) == _handle(torch, args)


def test_overridable_sets_are_truthful():
    assert facade.overrides.get_overridable_functions() == {}
    ignored = facade.overrides.get_ignored_functions()
    assert facade.add in ignored and facade.nn.functional.relu in ignored


def test_hub_tqdm_is_tqdm():
    import tqdm

    from facade.hub import tqdm as hub_tqdm

    assert hub_tqdm is tqdm.tqdm is torch.hub.tqdm
