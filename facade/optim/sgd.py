"""torch.optim.sgd: SGD with momentum, dampening, Nesterov and weight decay (update: functional.optim.sgd)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check, _check_lr

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (torch.optim.SGD); see functional.optim.sgd."""

    _hyper = ("lr", "momentum", "dampening", "weight_decay")

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _statics(self, group):
        return (("nesterov", bool(group["nesterov"])), ("maximize", bool(group["maximize"])),
                ("use_momentum", group["momentum"] != 0))

    @staticmethod
    def _update(params, grads, states, hp, static):
        out_p, out_s = [], []
        for p, g, s in zip(params, grads, states):
            p, buf = F.sgd(p, g, s.get("momentum_buffer"), **hp, **static)
            out_p.append(p)
            out_s.append({} if buf is None else {"momentum_buffer": buf})
        return out_p, out_s
