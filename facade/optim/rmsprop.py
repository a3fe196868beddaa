"""torch.optim.rmsprop: RMSprop, plain or centered, with momentum.

The update is optax: scale_by_rms / scale_by_stddev (eps outside the square root) then trace for momentum,
which is torch's g / (sqrt(v [- mean^2]) + eps) and buf = momentum * buf + that.
"""

from __future__ import annotations

import jax.numpy as jnp
import optax

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_lr, _scalar_tensor, _zeros_like

__all__ = ["RMSprop"]


def _rmsprop_update(params, grads, states, hp, static):
    lr, alpha, eps, wd, momentum = hp["lr"], hp["alpha"], hp["eps"], hp["weight_decay"], hp["momentum"]
    out_p, out_s = [], []
    for p, g, s in zip(params, grads, states):
        _, g = F.decayed(p, g, None, wd, static["maximize"], False)
        new = {"step": s["step"] + 1}
        if static["centered"]:
            u, st = optax.scale_by_stddev(alpha, eps, eps_in_sqrt=False).update(
                g, optax.ScaleByRStdDevState(mu=s["grad_avg"], nu=s["square_avg"]))
            new.update(square_avg=st.nu, grad_avg=st.mu)
        else:
            u, st = optax.scale_by_rms(alpha, eps, eps_in_sqrt=False).update(
                g, optax.ScaleByRmsState(nu=s["square_avg"]))
            new.update(square_avg=st.nu)
        if static["use_momentum"]:
            u, st = optax.trace(momentum).update(u, optax.TraceState(trace=s["momentum_buffer"]))
            new.update(momentum_buffer=st.trace)
        out_p.append(p + jnp.asarray(-lr, p.dtype) * u)
        out_s.append(new)
    return out_p, out_s


class RMSprop(Optimizer):
    """RMSprop (torch.optim.RMSprop)."""

    _hyper = ("lr", "alpha", "eps", "weight_decay", "momentum")
    _update = staticmethod(_rmsprop_update)

    def __init__(self, params: ParamsT, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])), ("centered", bool(g["centered"])),
                ("use_momentum", g["momentum"] > 0))

    def _init_state(self, p, group):
        st = {"step": _scalar_tensor(p, 0.0), "square_avg": _zeros_like(p)}
        if group["momentum"] > 0:
            st["momentum_buffer"] = _zeros_like(p)
        if group["centered"]:
            st["grad_avg"] = _zeros_like(p)
        return st
