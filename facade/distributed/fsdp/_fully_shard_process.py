"""fully_shard (FSDP2) across processes: each managed parameter becomes a DTensor sharded on dim 0 over the
default process group (torch.chunk's rows per rank, as torch's), gathered in forward and reduce-scattered in
backward through facade.distributed's collectives.

A module's forward all-gathers its own parameters in one collective (their parts padded to equal rows and
concatenated), puts the whole ones in the module for the call and runs it on this rank's own batch. The gather
is an autograd Function whose backward reduce-scatters the whole gradients in one collective, divided by the
group size (torch's pre- and post-divide factors), so each rank's part gets the average gradient over the
ranks. Parameters of an inner fully_shard module are gathered by its own forward. With
MixedPrecisionPolicy(param_dtype=...) the gathered parameters enter the forward cast (differentiably): the
gradients are reduce-scattered in the parameters' dtype, where torch reduces in reduce_dtype (close, not equal).
"""

from __future__ import annotations

import math

import facade

from ...autograd.function import Function
from ...func._module import _reparametrize
from ..tensor._dtensor import DTensor, chunk_rows, rows_per_rank, shard
from ..tensor._dtensor import pad_rows as _pad
from ._process import _dist, _divide_factors


class _Gather(Function):
    """The local parts of a module's parameters -> the whole parameters; backward: one averaged reduce-scatter."""

    @staticmethod
    def forward(ctx, plan, *locals_):
        ctx.plan = plan
        flat = facade.cat([_pad(t, c).reshape(-1) for t, c in zip(locals_, plan.rows)])
        out = flat.new_empty(plan.world * flat.numel())
        _dist().all_gather_single(out, flat.contiguous(), group=plan.group)
        grid = out.view(plan.world, -1)
        fulls, at = [], 0
        for shape, c in zip(plan.shapes, plan.rows):
            size = c * _row(shape)
            fulls.append(grid[:, at:at + size].reshape(plan.world * c, *shape[1:])[:shape[0]])
            at += size
        return tuple(fulls)

    @staticmethod
    def backward(ctx, *grads):
        plan = ctx.plan
        parts = []
        for g, shape, c in zip(grads, plan.shapes, plan.rows):
            if g is None:
                g = facade.zeros(shape, dtype=plan.dtype)
            parts.append(_pad(g, plan.world * c).reshape(plan.world, -1))
        flat = facade.cat(parts, 1).reshape(-1)
        pre, post = _divide_factors(plan.world)
        out = flat.new_empty(flat.numel() // plan.world)
        _dist().reduce_scatter_single(out, (flat / pre).contiguous(), group=plan.group)
        out = out / post if post != 1 else out
        locals_, at = [], 0
        for shape, c, (a, b) in zip(plan.shapes, plan.rows, plan.mine):
            size = c * _row(shape)
            locals_.append(out[at:at + size].reshape(c, *shape[1:])[:b - a])
            at += size
        return (None, *locals_)


def _row(shape):
    return math.prod(shape[1:])


class _Plan:
    def __init__(self, params, group):
        dist = _dist()
        self.group, self.world, rank = group, dist.get_world_size(group), dist.get_rank(group)
        self.shapes = [tuple(p.shape) for p in params]
        self.rows = [rows_per_rank(s[0], self.world) for s in self.shapes]
        self.mine = [chunk_rows(s[0], self.world, rank) for s in self.shapes]
        dtypes = {p.dtype for p in params}
        if len(dtypes) > 1:
            raise NotImplementedError(f"fully_shard across processes: parameters of one module in several dtypes "
                                      f"({sorted(str(d) for d in dtypes)}) are not supported by facade")
        self.dtype = params[0].dtype


class ProcessShards:
    """The parameters one fully_shard'ed module manages across the ranks: (path, DTensor) in registration order."""

    def __init__(self, module, group, ignored=(), mesh=None):
        ignored = {id(p) for p in ignored}
        made, self.paths = {}, []
        for prefix, sub in module.named_modules(remove_duplicate=False):
            for name, p in list(sub._parameters.items()):
                if p is None or id(p) in ignored or (isinstance(p, DTensor) and id(p) not in made):
                    continue  # another fully_shard manages it
                if p.ndim == 0:
                    raise NotImplementedError("fully_shard across processes: a 0-dim parameter is not supported by "
                                              "facade (torch shards dim 0)")
                if id(p) not in made:
                    made[id(p)] = shard(p, group, mesh=mesh)
                d = made[id(p)]
                sub._parameters[name] = d
                self.paths.append((f"{prefix}.{name}" if prefix else name, d))
        self.params = list({id(d): d for _, d in self.paths}.values())
        self.module, self.plan = module, _Plan(self.params, group) if self.params else None

    def forward(self, call, args, kwargs, param_dtype=None):
        if not self.params:
            return call(*args, **kwargs)
        fulls = _Gather.apply(self.plan, *[p._local for p in self.params])
        fulls = fulls if isinstance(fulls, tuple) else (fulls,)
        if param_dtype is not None:
            fulls = [f.to(param_dtype) if f.is_floating_point() else f for f in fulls]
        whole = {id(p): f for p, f in zip(self.params, fulls)}
        with _reparametrize(self.module, {path: whole[id(d)] for path, d in self.paths}, False, False):
            return call(*args, **kwargs)
