"""torch.optim.rprop: resilient backpropagation (update: functional.optim.rprop)."""

from __future__ import annotations

from functional import optim as F

from .optimizer import Optimizer, ParamsT, _check_lr, _elementwise, _scalar_tensor, _zeros_like

__all__ = ["Rprop"]


def _rprop(p, g, prev, step_size, step, **kw):
    return F.rprop(p, g, prev, step_size, **kw)


class Rprop(Optimizer):
    """Rprop (torch.optim.Rprop); see functional.optim.rprop."""

    _update = _elementwise(_rprop, ("prev", "step_size"))

    def __init__(self, params: ParamsT, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _hypers(self, g):
        return dict(etaminus=float(g["etas"][0]), etaplus=float(g["etas"][1]),
                    step_size_min=float(g["step_sizes"][0]), step_size_max=float(g["step_sizes"][1]))

    def _statics(self, g):
        return (("maximize", bool(g["maximize"])),)

    def _init_state(self, p, group):
        return {"step": _scalar_tensor(p, 0.0), "prev": _zeros_like(p),
                "step_size": _zeros_like(p, value=float(group["lr"]))}
