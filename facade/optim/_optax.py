"""facade.optim.from_optax: any optax GradientTransformation as a torch-style optimizer."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _multidevice as _md
from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, _check_lr, _set

__all__ = ["from_optax"]


def _to_tensors(tree):
    return jax.tree.map(lambda a: Tensor._from_array(jnp.asarray(a)), tree)


def _to_arrays(tree):
    return jax.tree.map(lambda t: t._arr() if isinstance(t, Tensor) else t, tree,
                        is_leaf=lambda x: isinstance(x, Tensor))


class OptaxOptimizer(Optimizer):
    """A torch-style optimizer over an optax GradientTransformation `transform`.

    step() computes `updates, state = transform.update(grads, state, params)` in one jitted call
    and applies `param += lr * update` (optax updates already carry the sign and the transform's own
    learning rate, so the default lr=1.0 is plain optax; an lr scheduler scales it). Parameters
    whose .grad is None get a zero gradient and are left unchanged. The optax state lives in
    `state['optax_state']` as a pytree of tensors (state_dict() holds it; it pickles).
    """

    def __init__(self, params: ParamsT, transform, lr: float = 1.0) -> None:
        _check_lr(lr)
        super().__init__(params, {"lr": lr})
        self.transform = transform
        self._jit_update = _md.serialised(jax.jit(self._pure_update))  # see facade._multidevice

    def _pure_update(self, lrs, params, grads, has_grad, state):
        updates, state = self.transform.update(grads, state, params)
        new = [p + jnp.where(h, jnp.asarray(lr, p.dtype) * u, jnp.zeros((), p.dtype)).astype(p.dtype)
               for p, u, h, lr in zip(params, updates, has_grad, lrs)]
        return new, state

    def step(self, closure=None):
        from ..autograd.grad_mode import enable_grad, no_grad

        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            params = [p for g in self.param_groups for p in g["params"]]
            arrays = [p._arr() for p in params]
            if "optax_state" not in self.state:
                self.state["optax_state"] = _to_tensors(self.transform.init(arrays))
            grads = [p.grad._arr() if p.grad is not None else jnp.zeros_like(a) for p, a in zip(params, arrays)]
            has = [p.grad is not None for p in params]
            lrs = [float(g["lr"]) for g in self.param_groups for _ in g["params"]]
            new, state = self._jit_update(lrs, arrays, grads, has, _to_arrays(self.state["optax_state"]))
            for p, a in zip(params, new):
                _set(p, a)
            self.state["optax_state"] = _to_tensors(state)
        return loss


def from_optax(params: ParamsT, transform, lr: float = 1.0) -> Optimizer:
    """A torch-style optimizer (`step`, `zero_grad`, `param_groups`, `state_dict`) running the optax
    GradientTransformation `transform` over `params`: `opt = from_optax(model.parameters(), optax.adam(1e-3))`."""
    return OptaxOptimizer(params, transform, lr)
