"""torch.special beyond the OpInfo table: every public name exists, the in-place forms of the
torch-level gamma ops, and torch's refusal of derivatives it does not implement (raised when
backward reaches them)."""

import pytest
import torch

import facade

from ._compare import same


def _public(mod):
    return getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]


# names deliberately absent, with the reason
MISSING = {
    "ldl_factor": "LAPACK sytrf's Bunch-Kaufman pivots have no JAX counterpart yet",
    "ldl_factor_ex": "as ldl_factor", "ldl_solve": "needs ldl_factor's pivots",
}
_DOCS = ("common_notes", "common_args", "factory_common_args", "torch")  # docstring fragments, the torch module


@pytest.mark.parametrize("module", ["special", "fft", "linalg"])
def test_every_name_exists(module):
    missing = [n for n in _public(getattr(torch, module)) if n not in _DOCS and n not in MISSING
               and not hasattr(getattr(facade, module), n)]
    assert not missing, f"torch.{module} names missing from facade: {missing}"


def _x(t, shift=0.0):
    return t.tensor([0.25, 0.5, 1.0, 2.5]) + shift


@pytest.mark.parametrize("expr", [
    lambda t: _x(t).lgamma_(), lambda t: _x(t).digamma_(), lambda t: _x(t).i0_(), lambda t: _x(t).polygamma_(2),
    lambda t: _x(t, 2).mvlgamma_(3), lambda t: _x(t).igamma_(_x(t, 1)), lambda t: _x(t).igammac_(_x(t, 1)),
    lambda t: t.arange(4).lgamma_(), lambda t: t.polygamma(-1, _x(t)), lambda t: t.mvlgamma(_x(t), 0),
    lambda t: t.igamma(_x(t), 2.0), lambda t: t.special.gammaincc(2.0, _x(t)),
])
def test_torch_level(expr):
    same(expr, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,message", [
    ("igamma", "the derivative for 'igamma: input' is not implemented."),
    ("igammac", "the derivative for 'igammac: input' is not implemented."),
    ("special.zeta", "the derivative for 'zeta' is not implemented."),
])
def test_no_derivative_for_input(name, message):
    def run(t, grad_input):
        a = t.tensor([1.5, 2.0, 3.0]).requires_grad_(grad_input)
        x = t.tensor([0.5, 1.0, 2.0]).requires_grad_()
        fn = t
        for part in name.split("."):
            fn = getattr(fn, part)
        fn(a, x).sum().backward()
        return x.grad

    with pytest.raises(NotImplementedError, match="^" + message.replace("(", r"\(")):
        run(torch, True)
    with pytest.raises(NotImplementedError, match="^" + message.replace("(", r"\(")):
        run(facade, True)
    same(lambda t: run(t, False), rtol=1e-5, atol=1e-6)
