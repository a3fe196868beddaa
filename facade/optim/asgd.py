"""torch.optim.asgd: averaged SGD (update: functional.optim.asgd)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_lr, _elementwise, _scalar_tensor, _zeros_like

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent (torch.optim.ASGD); see functional.optim.asgd."""

    _update = _elementwise(F.asgd, ("ax", "eta", "mu"))

    def __init__(self, params: ParamsT, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _hypers(self, g):
        return {k: float(g[k]) for k in ("lr", "lambd", "alpha", "t0", "weight_decay")}

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])),)

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0), "eta": _scalar_tensor(p, float(group["lr"])),
                "mu": _scalar_tensor(p, 1.0), "ax": _zeros_like(p)}
