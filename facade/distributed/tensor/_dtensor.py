"""DTensor across processes: what `fully_shard` makes of a parameter when its group spans several processes.

A DTensor here is laid out on the ranks of a process group as `Shard(0)` (rank r holds rows
[r * c, min((r + 1) * c, n)) of n, c = ceil(n / world): torch.chunk's split, the last ranks possibly empty) or
`Replicate()` (every rank holds the whole). It keeps this rank's part as a plain tensor (`to_local()`), and
reports the global shape, as torch's. The optimizer updates the local part (its state is laid out alike), the
gradient is a DTensor of the local gradient, and `full_tensor()` gathers the whole on every rank.

Torch ops on a DTensor (arithmetic, reductions, indexing) are torch's sharding propagation, which is not built
here: they raise NotImplementedError naming DTensor instead of computing on the local part. `detach`, `clone`,
`copy_`, `to`, `cpu`, `zero_`, `item` (replicated) and the DTensor methods work.
"""

from __future__ import annotations

import math

from ..._tensor import Size, Tensor
from ...autograd.grad_mode import no_grad
from ...nn.parameter import Parameter
from .placement_types import Replicate, Shard

_OWNER = ("facade runs torch ops on a DTensor only through fully_shard, the optimizer, clip_grad_norm_ and the state "
          "dict APIs (torch's sharding propagation is not built); use .to_local() or .full_tensor()")


def _dist():
    from ... import distributed

    return distributed


def rows_per_rank(n, world):
    """torch.chunk's chunk length for n rows over `world` ranks (the last ranks may hold fewer, or none)."""
    return -(-n // world)


def chunk_rows(n, world, rank):
    """torch.chunk's rows of rank `rank`: [start, stop) of n rows over `world` ranks."""
    c = rows_per_rank(n, world)
    return min(rank * c, n), min((rank + 1) * c, n)


class DTensor(Tensor):
    """torch.distributed.tensor.DTensor over a process group (see the module docstring)."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(f"torch.distributed.tensor.DTensor(...): {_OWNER}; fully_shard makes them")

    @classmethod
    def from_local(cls, *args, **kwargs):
        raise NotImplementedError(f"torch.distributed.tensor.DTensor.from_local: {_OWNER}; fully_shard makes them")

    @staticmethod
    def _make(local, placements, shape, group=None, cls=None, mesh=None):
        t = object.__new__(cls or DTensor)
        for s in ("_rg", "_np", "_base", "_grad", "_grad_fn", "_hooks", "_post_acc_hooks", "_acc"):
            object.__setattr__(t, s, None)
        t._device, t._sv, t._vc, t._retains_grad, t._inference = local._device, 0, 0, False, False
        t.__dict__.update(_local=local, _placements=tuple(placements), _shape=Size(shape), _group=group,
                          _gview=None, _mesh=mesh)
        return t

    def _like(self, local):
        return DTensor._make(local, self._placements, self._shape, self._group, mesh=self._mesh)

    # ------------------------------------------------------------------ storage: the local part
    @property
    def _data(self):
        return None  # the dispatcher then asks _sync(), which refuses: no op computes on the local part unseen

    @_data.setter
    def _data(self, a):  # an optimizer's in-place update of the local part
        self._local._data = a

    @property
    def requires_grad(self):
        return self._local.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._local.requires_grad = value

    def _sync(self):
        raise NotImplementedError(f"torch.distributed.tensor.DTensor: {_OWNER}")

    def _arr(self):
        return self._local._arr()

    @property
    def shape(self):
        return self._shape

    @property
    def grad(self):
        g = self._local._grad
        if g is None:
            return None
        view = self._gview
        if view is None or view._local is not g:
            view = self.__dict__["_gview"] = self._like(g)
        return view

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, DTensor):
            raise RuntimeError(f"assigned grad of a DTensor must be a DTensor, got {type(value).__name__}")
        self._local.grad = None if value is None else value._local

    # ------------------------------------------------------------------ torch's DTensor API
    def to_local(self, *, grad_placements=None):
        return self._local

    @property
    def placements(self):
        return self._placements

    @property
    def device_mesh(self):
        from ..device_mesh import ProcessMesh

        return self._mesh if self._mesh is not None else ProcessMesh(self._device.type)

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor on every rank (an all_gather of the parts; collective)."""
        if isinstance(self._placements[0], Replicate):
            return self._local.detach().clone()
        return gather_rows(self._local.detach(), self._shape[0], self._group)

    def redistribute(self, *args, **kwargs):
        raise NotImplementedError(f"torch.distributed.tensor.DTensor.redistribute: {_OWNER}")

    # ------------------------------------------------------------------ what state dicts and optimizers call
    def detach(self):
        return self._like(self._local.detach())

    def clone(self, *, memory_format=None):
        return self._like(self._local.clone())

    def to(self, *args, **kwargs):
        local = self._local.to(*args, **kwargs)
        return self if local is self._local else self._like(local)

    def cpu(self):
        return self.to("cpu")

    @no_grad()
    def copy_(self, src, non_blocking=False):
        """From a DTensor laid out alike, or from a whole tensor of the global shape (this rank takes its part)."""
        if isinstance(src, DTensor):
            if src._placements != self._placements or src._shape != self._shape:
                raise RuntimeError(f"DTensor.copy_: placements {src._placements} and shape {tuple(src._shape)} do "
                                   f"not match {self._placements} and {tuple(self._shape)}")
            self._local.copy_(src._local)
        else:
            if tuple(src.shape) != tuple(self._shape):
                raise RuntimeError(f"DTensor.copy_: a tensor of shape {tuple(src.shape)} into a DTensor of shape "
                                   f"{tuple(self._shape)}")
            self._local.copy_(self._part(src))
        return self

    def _rows(self):
        """[start, stop) of this rank's part in the whole's rows (all of them where replicated)."""
        if isinstance(self._placements[0], Replicate):
            return 0, self._shape[0] if self._shape else 0
        d = _dist()
        return chunk_rows(self._shape[0], d.get_world_size(self._group), d.get_rank(self._group))

    def _offset(self):
        """The first row of this rank's part in the whole."""
        return self._rows()[0]

    def _part(self, full):
        """This rank's part of a whole tensor laid out like self."""
        if isinstance(self._placements[0], Replicate):
            return full
        a, b = self._rows()
        return full[a:b]

    def _lay_out_state(self, state):
        """Optimizer state made from the local part (exp_avg ...): DTensors laid out like self, as torch's."""
        local = tuple(self._local.shape)
        return {k: self._like(v) if isinstance(v, Tensor) and v.ndim and tuple(v.shape) == local else v
                for k, v in state.items()}

    def zero_(self):
        self._local.zero_()
        return self

    def item(self):
        if not isinstance(self._placements[0], Replicate):
            raise NotImplementedError(f"torch.distributed.tensor.DTensor.item of a sharded DTensor: {_OWNER}")
        return self._local.item()

    def __repr__(self):
        return (f"DTensor(local_tensor={self._local!r}, device_mesh={self.device_mesh!r}, "
                f"placements={self._placements})")

    def __reduce_ex__(self, proto):
        raise NotImplementedError("pickling a DTensor across processes (torch.save of a sharded state dict) is not "
                                  "supported by facade: save full_tensor() values, or get_model_state_dict("
                                  "options=StateDictOptions(full_state_dict=True))")


class DParameter(DTensor, Parameter):
    """A Parameter that is a DTensor (torch's nn.Parameter of a DTensor)."""

    __slots__ = ()

    def __repr__(self):
        return "Parameter containing:\n" + DTensor.__repr__(self)


DParameter.__name__ = DParameter.__qualname__ = "DTensor"


def shard(t, group=None, requires_grad=None, mesh=None, cls=None):
    """A whole tensor (the same on every rank) as a Shard(0) DParameter (or `cls`): this rank keeps its rows."""
    d = _dist()
    n = t.shape[0]
    a, b = chunk_rows(n, d.get_world_size(group), d.get_rank(group))
    local = t.detach()[a:b].clone()
    local.requires_grad = t.requires_grad if requires_grad is None else requires_grad
    return DTensor._make(local, (Shard(0),), t.shape, group, cls or DParameter, mesh)


def gather_rows(local, n, group=None):
    """The whole tensor of n rows from each rank's chunk_rows part (collective, not differentiable)."""
    d = _dist()
    world = d.get_world_size(group)
    c = rows_per_rank(n, world)
    rest = tuple(local.shape[1:])
    padded = pad_rows(local, c)
    out = padded.new_empty((world * c, *rest)) if c else padded.new_empty((0, *rest))
    if c:
        d.all_gather_single(out, padded.contiguous(), group=group)
    return out[:n]


def pad_rows(local, c):
    if local.shape[0] == c:
        return local
    from ... import cat, zeros

    return cat([local, zeros((c - local.shape[0], *local.shape[1:]), dtype=local.dtype, device=local.device)])


def clip_grad_norm_(grads, max_norm, norm_type, error_if_nonfinite):
    """torch's clip_grad_norm_ of DTensor gradients: the norm over every rank's part, a replicated DTensor."""
    from ... import float32, linalg, stack, zeros

    if not all(isinstance(g, DTensor) and isinstance(g._placements[0], Shard) for g in grads):
        raise NotImplementedError(f"clip_grad_norm_ of DTensor and other gradients together: {_OWNER}")
    d, group = _dist(), grads[0]._group
    p = float(norm_type)
    with no_grad():
        norms = [linalg.vector_norm(g._local, p, dtype=float32) for g in grads if g._local.numel()]
        local = linalg.vector_norm(stack(norms), p) if norms else zeros((), dtype=float32)
        if math.isinf(p):
            d.all_reduce(local, op=d.ReduceOp.MAX, group=group)
            total = local
        else:
            local = local ** p
            d.all_reduce(local, group=group)
            total = local ** (1.0 / p)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise RuntimeError(f"The total norm of order {p} for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped. To disable this error and scale the gradients by the non-finite "
                               "norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g._local.mul_(coef.to(g._local.dtype))
    return DTensor._make(total.to(grads[0]._local.dtype), (Replicate(),), (), group)
