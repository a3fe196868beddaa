"""FullyShardedDataParallel across processes: torch's flat-parameter layout, gathered and reduced with
facade.distributed's collectives (each a JAX program over the process mesh; nothing home-made).

A wrapper flattens the parameters it manages (the wrapped module's, in registration order, a tied parameter
once) into one vector, pads it to a multiple of the group size and keeps rank r's r-th piece:

- use_orig_params=False: the piece is one Parameter, `_fsdp_wrapped_module._flat_param`, as torch's; the
  original parameters leave the module and their storage is freed.
- use_orig_params=True: each parameter starts at a 16-byte boundary (torch's alignment padding, counted in
  the mixed-precision param_dtype where there is one) and keeps as its data the 1-D part of it inside rank
  r's piece (possibly empty); the Parameter objects stay.

The forward all-gathers the vector (one `all_gather_single` per wrapper), puts each parameter's view of it in
the module for the call, and runs it on this rank's own batch. The gather is an autograd Function whose
backward reduce-scatters the full gradient divided by the group size (torch's pre- and post-divide factors,
powers of two), so each rank's piece gets the average gradient over the ranks, as torch's. An optimizer built
on `parameters()` after wrapping updates the pieces; its state is sharded with them. `no_sync()` keeps the full
gradient on the rank until the next synchronised backward adds it in.

State dicts, model and optimizer: FULL_STATE_DICT gathers the pieces back into the module's own keys and shapes;
SHARDED_STATE_DICT gives each parameter (and its optimizer state) as the rows torch.chunk gives this rank, a Shard(0)
DTensor of the whole shape where torch gives a ShardedTensor laid out alike (torch.distributed.checkpoint saves
and loads either); LOCAL_STATE_DICT gives this rank's piece of the flat vector under `_flat_param` (a DTensor of
the padded flat length where torch's is a ShardedTensor) and, with use_orig_params, each parameter's 1-D part of
it, as torch's. Nested FSDP wrappers and HYBRID_SHARD raise NotImplementedError across processes.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import facade

from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...func._module import _reparametrize
from ...nn.modules.module import _IncompatibleKeys
from ...nn.parameter import Parameter
from ..tensor._dtensor import DTensor, shard
from ..tensor.placement_types import Shard
from .api import StateDictType

_ALIGN_BYTES = 16  # torch's FSDP alignment of each original parameter in a use_orig_params flat parameter


def _dist():
    from ... import distributed

    return distributed


def _divide_factors(world):
    """torch's gradient pre- and post-divide factors: powers of two whose product is `world`'s share."""
    pre = 1
    while world % pre == 0 and world / pre > pre:
        pre *= 2
    return pre, world / pre


class _Gather(Function):
    """This rank's piece -> the whole flat vector; backward: reduce-scatter of its gradient, averaged."""

    @staticmethod
    def forward(ctx, local, shards):
        ctx.shards = shards
        return shards.all_gather(local)

    @staticmethod
    def backward(ctx, grad):
        return ctx.shards.reduce_scatter(grad), None


class ProcessShards:
    """The parameters one FSDP wrapper manages across the ranks of `group`, and what the wrapper does with them."""

    def __init__(self, wrapper, module, group, use_orig_params, ignored, sync_module_states, param_dtype=None):
        dist = _dist()
        self.wrapper, self.module, self.group, self.orig = wrapper, module, group, use_orig_params
        self.world, self.rank = dist.get_world_size(group), dist.get_rank(group)
        self.stash = None  # the full gradient kept under no_sync()
        self.keys = list(module.state_dict().keys())
        params, index, self.paths = [], {}, []  # unique parameters; id -> index; (path in module, index)
        for prefix, sub in module.named_modules(remove_duplicate=False):
            for name, p in sub._parameters.items():
                if p is None or id(p) in ignored:
                    continue
                i = index.setdefault(id(p), len(params))
                if i == len(params):
                    params.append(p)
                self.paths.append((f"{prefix}.{name}" if prefix else name, i))
        self.params, self.by_path = params, dict(self.paths)
        self.names = {}  # index -> the first path (named_parameters' name)
        for path, i in self.paths:
            self.names.setdefault(i, path)
        self.shapes = [tuple(p.shape) for p in params]
        for what, values in (("dtype", {p.dtype for p in params}),
                             ("`requires_grad`", {p.requires_grad for p in params} if not use_orig_params else ())):
            if len(values) > 1:
                raise ValueError(f"Must flatten tensors with uniform {what} when `use_orig_params=False`"
                                 if what != "dtype" else f"Must flatten tensors with uniform dtype but got {values}")
        self.dtype = params[0].dtype if params else facade.float32
        # 16 bytes of the dtype the forward computes in (torch aligns the low-precision copy)
        size = facade.empty(0, dtype=param_dtype or self.dtype).element_size()
        align = max(1, _ALIGN_BYTES // size) if use_orig_params else 1
        self.offsets, end = [], 0
        for p in params:
            end = -(-end // align) * align
            self.offsets.append(end)
            end += p.numel()
        self.shard = -(-end // self.world)
        lo = self.rank * self.shard
        self.pieces = [(max(o, lo) - lo, max(min(o + p.numel(), lo + self.shard), max(o, lo)) - lo)
                       for o, p in zip(self.offsets, params)]  # this rank's [start, stop) of each, in its piece
        if sync_module_states:
            from ...nn.parallel.distributed import _broadcast_coalesced

            _broadcast_coalesced(params + [b for b in module.buffers()], 0, group)
        with no_grad():
            local = self._local_of([p.detach().reshape(-1) for p in params], whole=True)
            if use_orig_params:
                for p, (a, b) in zip(params, self.pieces):
                    p.data = local[a:b].clone()
                self.flat_param = None
            else:
                rg = params[0].requires_grad if params else False
                self.flat_param = Parameter(local.clone(), requires_grad=rg)
                for path, _ in self.paths:
                    owner, _, attr = path.rpartition(".")
                    sub = module.get_submodule(owner) if owner else module
                    sub._parameters.pop(attr, None)
                for p in params:
                    p.data = facade.empty(0, dtype=p.dtype)
                module.register_parameter("_flat_param", self.flat_param)

    # ------------------------------------------------------------------ the layout
    def _local_of(self, values, whole=False):
        """This rank's piece of the flat vector whose parameters hold `values`: each parameter's whole 1-D
        values (whole=True) or its part in this rank's piece; padding is zeros. Differentiable."""
        parts, at, lo = [], 0, self.rank * self.shard
        for (a, b), o, v in zip(self.pieces, self.offsets, values):
            if b <= a:
                continue
            if a > at:
                parts.append(facade.zeros(a - at, dtype=self.dtype))
            parts.append(v[a + lo - o:b + lo - o] if whole else v.reshape(-1))
            at = b
        if at < self.shard:
            parts.append(facade.zeros(self.shard - at, dtype=self.dtype))
        return facade.cat(parts) if len(parts) > 1 else parts[0]

    def local(self):
        """This rank's piece as the optimizer holds it (differentiable with respect to the held parameters)."""
        return self.flat_param if self.flat_param is not None else self._local_of(self.params)

    def held(self):
        """The Parameters that hold this rank's piece."""
        return [self.flat_param] if self.flat_param is not None else self.params

    def split(self, full):
        """Each unique parameter's view of the whole flat vector `full`, in its own shape."""
        return [full[o:o + math.prod(s)].view(s) for o, s in zip(self.offsets, self.shapes)]

    # ------------------------------------------------------------------ communication
    def all_gather(self, local):
        out = facade.empty(self.shard * self.world, dtype=local.dtype)
        _dist().all_gather_single(out, local.detach().contiguous(), group=self.group)
        return out

    def reduce_scatter(self, grad):
        if not self.wrapper._fsdp_sync:
            self.stash = grad if self.stash is None else self.stash + grad
            return None
        if self.stash is not None:
            grad, self.stash = grad + self.stash, None
        pre, post = _divide_factors(self.world)
        out = facade.empty(self.shard, dtype=grad.dtype)
        _dist().reduce_scatter_single(out, (grad / pre).contiguous(), group=self.group)
        return out / post if post != 1 else out

    # ------------------------------------------------------------------ forward
    def forward(self, call, args, kwargs, param_dtype=None, ignore_classes=()):
        """`call(*args, **kwargs)` with the whole parameters in the module; with `param_dtype`, the floating-point
        ones enter it cast (a differentiable cast: gradients reach the pieces in their dtype), except those of
        modules of `ignore_classes`."""
        if not self.params:
            return call(*args, **kwargs)
        views = self.split(_Gather.apply(self.local(), self))
        if param_dtype is not None:
            keep = {i for path, i in self.paths
                    if isinstance(self.module.get_submodule(path.rpartition(".")[0]), ignore_classes)}
            views = [v.to(param_dtype) if v.is_floating_point() and i not in keep else v for i, v in enumerate(views)]
        with _reparametrize(self.module, {path: views[i] for path, i in self.paths}, False, False):
            return call(*args, **kwargs)

    def full_params(self):
        """Every unique parameter as a whole tensor of its own (collective: every rank calls it)."""
        with no_grad():
            return [v.clone() for v in self.split(self.all_gather(self.local().detach()))]

    def set_full(self, values):
        """Lay out whole parameter values (one per unique parameter) as this rank's piece."""
        with no_grad():
            self._set_local(self._local_of([v.detach().reshape(-1).to(self.dtype) for v in values], whole=True))

    @no_grad()
    def _set_local(self, local):
        """Write this rank's piece of the flat vector into the parameters that hold it."""
        if self.flat_param is not None:
            self.flat_param.copy_(local)
        else:
            for p, (a, b) in zip(self.params, self.pieces):
                p.copy_(local[a:b])

    # ------------------------------------------------------------------ gradients
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """torch's FSDP.clip_grad_norm_: the norm over every rank's piece of the gradients."""
        dist = _dist()
        norm_type = float(norm_type)
        grads = [p.grad for p in self.wrapper.parameters() if p.grad is not None]
        norms = [facade.linalg.vector_norm(g, norm_type, dtype=facade.float32) for g in grads if g.numel()]
        local = (facade.linalg.vector_norm(facade.stack(norms), norm_type) if norms
                 else facade.zeros((), dtype=facade.float32))
        if math.isinf(norm_type):
            dist.all_reduce(local, op=dist.ReduceOp.MAX, group=self.group)
            total = local
        else:
            local = local ** norm_type
            dist.all_reduce(local, group=self.group)
            total = local ** (1.0 / norm_type)
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        with no_grad():
            for g in grads:
                g.mul_(coef.to(g.dtype))
        return total.to(grads[0].dtype) if grads else total

    # ------------------------------------------------------------------ state dicts
    def state_dict(self, module_sd, prefix, kind, rank0_only):
        """The wrapped module's state dict `module_sd` with this wrapper's parameters laid out as StateDictType
        `kind` gives them (see the module docstring); collective except for LOCAL_STATE_DICT."""
        if kind is StateDictType.LOCAL_STATE_DICT:
            out = OrderedDict((k, v) for k, v in module_sd.items() if not k.endswith("_flat_param"))
            out[prefix + "_flat_param"] = DTensor._make(self.local().detach(), (Shard(0),), (self.shard * self.world,),
                                                         self.group)
            if self.flat_param is not None:  # torch's order: the flat parameter first, as the module registers it
                out.move_to_end(prefix + "_flat_param", last=False)
            return out
        full = self.full_params()
        if rank0_only and self.rank != 0:
            return OrderedDict()
        sharded = kind is StateDictType.SHARDED_STATE_DICT
        out = OrderedDict()
        for k in self.keys:
            i = self.by_path.get(k)
            out[prefix + k] = module_sd[prefix + k] if i is None else self._rows(full[i]) if sharded else full[i]
        return out

    def _rows(self, whole):
        """This rank's rows of a whole tensor, as a Shard(0) DTensor (torch's SHARDED_STATE_DICT values)."""
        return shard(whole, self.group, requires_grad=False, cls=DTensor) if whole.ndim else whole

    def load_state_dict(self, state_dict, kind, strict):
        """Take a state dict of StateDictType `kind`: whole tensors (FULL_STATE_DICT), DTensors (SHARDED), or this
        rank's piece under `_flat_param` (LOCAL); collective except for LOCAL_STATE_DICT."""
        own = {k: v for k, v in state_dict.items() if k in self.by_path}
        if kind is StateDictType.LOCAL_STATE_DICT:
            if "_flat_param" not in state_dict:
                raise RuntimeError("FullyShardedDataParallel.load_state_dict with LOCAL_STATE_DICT: no '_flat_param' "
                                   f"in the state dict (keys: {list(state_dict)})")
            self._set_local(_local_part(state_dict["_flat_param"], (self.shard,)))
            missing = []
        else:
            if kind is StateDictType.SHARDED_STATE_DICT:
                for k, v in own.items():
                    if v.ndim and not isinstance(v, DTensor):
                        raise AssertionError(f"Expected ShardedTensor, got {type(v)}: SHARDED_STATE_DICT values are "
                                             f"DTensors here (key {k!r})")
            own = {k: v.full_tensor() if isinstance(v, DTensor) else v for k, v in own.items()}  # collective
            missing = self._load_whole(own)
        rest = self.module.load_state_dict({k: v for k, v in state_dict.items() if k not in own and k != "_flat_param"},
                                           strict=False)
        missing += [k for k in rest.missing_keys if k not in self.by_path and k != "_flat_param"]
        unexpected = list(rest.unexpected_keys)
        if strict and (missing or unexpected):
            msgs = ([f"Missing key(s) in state_dict: {', '.join(repr(k) for k in missing)}. "] if missing else []) + \
                   ([f"Unexpected key(s) in state_dict: {', '.join(repr(k) for k in unexpected)}. "]
                    if unexpected else [])
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self.module).__name__}:\n\t"
                               + "\n\t".join(msgs))
        return _IncompatibleKeys(missing, unexpected)

    def _load_whole(self, own):
        """Lay out the whole parameter values of `own` ({path: tensor}); the paths it lacks (returned) keep theirs."""
        missing = [path for path, _ in self.paths if path not in own]
        values = [p for p in self.full_params()] if missing else [None] * len(self.params)
        for path, i in self.paths:
            if path in own:
                v = own[path]
                if tuple(v.shape) != self.shapes[i]:
                    raise RuntimeError(f"Error(s) in loading state_dict for {type(self.module).__name__}:\n\tsize "
                                       f"mismatch for {path}: copying a param with shape {tuple(v.shape)} from "
                                       f"checkpoint, the shape in current model is {self.shapes[i]}.")
                values[i] = v
        self.set_full(values)
        return missing

    def optim_state(self, state, sharded=False):
        """{name: full state} of this wrapper's parameters from the optimizer's {Parameter: state}; `sharded`: each
        parameter's state tensors as this rank's rows (SHARDED_STATE_DICT, as `state_dict`). Collective."""
        held = self.held()
        per = [state.get(p, {}) for p in held]
        keys = list(dict.fromkeys(k for s in per for k in s))
        out = {self.names[i]: {} for i in range(len(self.params))}
        for k in keys:
            sample = next(s[k] for s in per if k in s)
            # a piece's state tensor (an empty piece gets no gradient, so no state)
            if isinstance(sample, facade.Tensor) and sample.ndim == 1 and \
                    all(tuple(s[k].shape) == tuple(p.shape) if k in s else p.numel() == 0 for s, p in zip(per, held)):
                local = per[0][k] if self.flat_param is not None else \
                    self._local_of([s.get(k, p.detach()) for s, p in zip(per, held)])
                with no_grad():
                    full = self.split(self.all_gather(local))
                for i in range(len(self.params)):
                    out[self.names[i]][k] = self._rows(full[i]) if sharded else full[i].clone()
            else:
                for i in range(len(self.params)):
                    out[self.names[i]][k] = sample.clone() if isinstance(sample, facade.Tensor) else sample
        return out

    def optim_state_to_load(self, named):
        """The inverse of `optim_state`: {held Parameter: state} from {name: full state}."""
        given = [named.get(self.names[i]) for i in range(len(self.params))]
        if any(s is None for s in given):
            return {}
        out = {p: {} for p in self.held()}
        for k in given[0]:
            values = [s[k].full_tensor() if isinstance(s[k], DTensor) else s[k] for s in given]  # collective
            if all(isinstance(v, facade.Tensor) and v.ndim and tuple(v.shape) == s
                   for v, s in zip(values, self.shapes)):
                with no_grad():
                    local = self._local_of([v.reshape(-1).to(self.dtype) for v in values], whole=True)
                if self.flat_param is not None:
                    out[self.flat_param][k] = local.clone()
                else:
                    for p, (a, b) in zip(self.params, self.pieces):
                        out[p][k] = local[a:b].clone()
            else:
                for st in out.values():
                    st[k] = values[0].clone() if isinstance(values[0], facade.Tensor) else values[0]
        return out


def _local_part(value, shape):
    """The tensor a LOCAL_STATE_DICT's `_flat_param` holds for this rank (a DTensor's local part), of `shape`."""
    local = value.to_local() if isinstance(value, DTensor) else value
    if tuple(local.shape) != shape:
        raise RuntimeError(f"FullyShardedDataParallel.load_state_dict with LOCAL_STATE_DICT: this rank's "
                           f"'_flat_param' piece has shape {tuple(local.shape)}, the wrapper's is {shape}")
    return local
