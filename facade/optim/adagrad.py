"""torch.optim.adagrad: Adagrad (update: functional.optim.adagrad)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_lr, _elementwise, _scalar_tensor, _zeros_like

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (torch.optim.Adagrad); see functional.optim.adagrad. State exists from construction, as in torch."""

    _update = _elementwise(F.adagrad, ("sum",))

    def __init__(self, params: ParamsT, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(p, group))

    def _hypers(self, g):
        return dict(lr=float(g["lr"]), lr_decay=float(g["lr_decay"]), weight_decay=float(g["weight_decay"]),
                    eps=float(g["eps"]))

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])),)

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0),
                "sum": _zeros_like(p, value=self.defaults["initial_accumulator_value"])}
