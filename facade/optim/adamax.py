"""torch.optim.adamax: Adamax, Adam with the infinity norm (update: functional.optim.adamax)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_betas, _check_lr, _elementwise, _scalar_tensor, _zeros_like

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (torch.optim.Adamax); see functional.optim.adamax."""

    _update = _elementwise(F.adamax, ("exp_avg", "exp_inf"))

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _hypers(self, g):
        return dict(lr=float(g["lr"]), beta1=float(g["betas"][0]), beta2=float(g["betas"][1]), eps=float(g["eps"]),
                    weight_decay=float(g["weight_decay"]))

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])),)

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0), "exp_avg": _zeros_like(p), "exp_inf": _zeros_like(p)}
