"""torch.optim.adam: Adam, with L2 or decoupled weight decay and AMSGrad.

The update is optax.scale_by_adam's arithmetic (torch's exact Adam: m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps));
AMSGrad uses functional.optim.adam_amsgrad (optax's amsgrad maxes the bias-corrected moment).
"""

from __future__ import annotations

import jax.numpy as jnp
import optax

from functional import optim as F

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, _check, _check_betas, _check_lr, _scalar_tensor, _zeros_like

__all__ = ["Adam"]


def _adam_update(params, grads, states, hp, static):
    lr, (b1, b2), eps, wd = hp["lr"], hp["betas"], hp["eps"], hp["weight_decay"]
    # The whole group's steps and bias corrections as vectors, not a chain of scalar kernels per parameter (on XLA
    # each its own launch): torch's incremented steps, optax.scale_by_adam's `1 / (1 - b ** count)` (XLA turns its
    # division by a broadcast scalar into this product) with the incremented step as its count.
    if not states:
        return [], []
    new = jnp.stack([s["step"] for s in states]) + 1
    steps, count = [n.astype(s["step"].dtype) for n, s in zip(new, states)], new.astype(jnp.int32)
    bc1, bc2, inverse = 1 - b1 ** count, 1 - b2 ** count, {}
    out_p, out_s = [], []
    for i, (p, g, s, step) in enumerate(zip(params, grads, states, steps)):
        if static["amsgrad"]:
            p, m, v, vmax = F.adam_amsgrad(p, g, s["exp_avg"], s["exp_avg_sq"], s["max_exp_avg_sq"], step, lr=lr,
                                           beta1=b1, beta2=b2, eps=eps, weight_decay=wd, maximize=static["maximize"],
                                           decoupled_weight_decay=static["decoupled_weight_decay"])
            out_p.append(p)
            out_s.append({"step": step, "exp_avg": m, "exp_avg_sq": v, "max_exp_avg_sq": vmax})
            continue
        p, g = F.decayed(p, g, lr, wd, static["maximize"], static["decoupled_weight_decay"])
        m = optax.tree.update_moment(g, s["exp_avg"], b1, 1)
        v = optax.tree.update_moment_per_elem_norm(g, s["exp_avg_sq"], b2, 2)
        if m.dtype not in inverse:
            inverse[m.dtype] = 1 / bc1.astype(m.dtype), 1 / bc2.astype(m.dtype)
        r1, r2 = inverse[m.dtype]
        u = m * r1[i] / (jnp.sqrt(v * r2[i] + 0.0) + eps)
        out_p.append(p + jnp.asarray(-lr, p.dtype) * u)
        out_s.append({"step": step, "exp_avg": m, "exp_avg_sq": v.astype(s["exp_avg_sq"].dtype)})
    return out_p, out_s


class Adam(Optimizer):
    """Adam (torch.optim.Adam); `decoupled_weight_decay=True` is AdamW."""

    _hyper = ("lr", "betas", "eps", "weight_decay")
    _static = ("amsgrad", "maximize", "decoupled_weight_decay")
    _update = staticmethod(_adam_update)

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        betas = tuple(float(b) if isinstance(b, Tensor) else b for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _init_state(self, p, group):
        st = {"step": _scalar_tensor(p, 0.0), "exp_avg": _zeros_like(p), "exp_avg_sq": _zeros_like(p)}
        if group["amsgrad"]:
            st["max_exp_avg_sq"] = _zeros_like(p)
        return st
