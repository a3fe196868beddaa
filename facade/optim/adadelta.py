"""torch.optim.adadelta: Adadelta. The update is optax.scale_by_adadelta, which is torch's exactly."""

from __future__ import annotations

import jax.numpy as jnp
import optax

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_lr, _scalar_tensor, _zeros_like

__all__ = ["Adadelta"]


def _adadelta_update(params, grads, states, hp, static):
    out_p, out_s = [], []
    for p, g, s in zip(params, grads, states):
        _, g = F.decayed(p, g, None, hp["weight_decay"], static["maximize"], False)
        u, st = optax.scale_by_adadelta(hp["rho"], hp["eps"]).update(
            g, optax.ScaleByAdaDeltaState(e_g=s["square_avg"], e_x=s["acc_delta"]))
        out_p.append(p + jnp.asarray(-hp["lr"], p.dtype) * u)
        out_s.append({"step": s["step"] + 1, "square_avg": st.e_g, "acc_delta": st.e_x})
    return out_p, out_s


class Adadelta(Optimizer):
    """Adadelta (torch.optim.Adadelta)."""

    _hyper = ("lr", "rho", "eps", "weight_decay")
    _static = ("maximize",)
    _update = staticmethod(_adadelta_update)

    def __init__(self, params: ParamsT, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0), "square_avg": _zeros_like(p), "acc_delta": _zeros_like(p)}
