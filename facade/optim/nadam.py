"""torch.optim.nadam: NAdam, Adam with Nesterov momentum (update: functional.optim.nadam)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_betas, _check_lr, _elementwise, _scalar_tensor, _zeros_like

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (torch.optim.NAdam); see functional.optim.nadam."""

    _update = _elementwise(F.nadam, ("exp_avg", "exp_avg_sq", "mu_product"))

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _hypers(self, g):
        return dict(lr=float(g["lr"]), beta1=float(g["betas"][0]), beta2=float(g["betas"][1]), eps=float(g["eps"]),
                    weight_decay=float(g["weight_decay"]), momentum_decay=float(g["momentum_decay"]))

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])), ("decoupled_weight_decay", bool(g["decoupled_weight_decay"])))

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0), "mu_product": _scalar_tensor(p, 1.0), "exp_avg": _zeros_like(p),
                "exp_avg_sq": _zeros_like(p)}
