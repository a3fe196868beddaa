"""torch.nn.parallel.DistributedDataParallel: one process per rank, gradients averaged after backward.

Like torch's Reducer: the parameters are split into buckets (reverse registration order, about the
order their gradients become ready, by dtype, up to `bucket_cap_mb` each; the first bucket 1 MiB).
Each parameter's post-accumulate-grad hook marks it ready; a bucket whose parameters are all ready
is flattened into one tensor, divided by the world size and summed over the ranks with one
asynchronous `all_reduce`, buckets strictly in order so every rank issues the same collectives.
When the last bucket is out, the reduced values are written back into the gradients. Every
collective is facade.distributed's (a JAX program over the process mesh). A torch.compile'd whole
training step runs as one SPMD program over the group's mesh with these all_reduces inside it
(facade/_compile/_spmd.py).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
import weakref

import facade

from ..._tensor import Tensor
from ...autograd.grad_mode import STATE as _GRAD
from ...autograd.grad_mode import no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
_BUCKET_MB = 25
_BROADCAST_BYTES = 250 * 1024 * 1024

_NOT_FINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
    "in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` function. Please include "
    "the loss function and the structure of the return value of `forward` of your module when reporting this "
    "issue (e.g. list, dict, iterable).\nParameter indices which did not receive grad for rank {rank}: {missing}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
    "out information about which particular parameters did not receive gradient on this rank as part of this error")


def _dist():
    from ... import distributed

    return distributed


def _flat(tensors):
    return facade.cat([t.reshape(-1) for t in tensors])


def _write_back(flat, tensors, write):
    """Call write(i, piece) with each tensor's piece of `flat`, shaped like the tensor."""
    offset = 0
    for i, t in enumerate(tensors):
        n = t.numel()
        write(i, flat[offset:offset + n].view(t.shape))
        offset += n


def _groups(tensors, caps):
    """Index lists: `tensors` in order, by dtype, each list closed once it holds caps[k] bytes (the last cap
    repeats), like torch's compute_bucket_assignment_by_size."""
    done, open_ = [], {}
    for i, t in enumerate(tensors):
        idx, size = open_.setdefault(t.dtype, ([], [0]))
        idx.append(i)
        size[0] += t.numel() * t.element_size()
        if size[0] >= caps[min(len(done), len(caps) - 1)]:
            done.append(open_.pop(t.dtype)[0])
    return done + [idx for idx, _ in open_.values()]


def _broadcast_coalesced(tensors, src, group, cap=_BROADCAST_BYTES):
    """Every tensor overwritten in place with rank `src`'s value, one broadcast per dtype bucket."""
    dist = _dist()
    with no_grad():
        for idx in _groups(tensors, [cap]):
            part = [tensors[i] for i in idx]
            flat = _flat(part)
            dist.broadcast(flat, src, group=group)
            _write_back(flat, part, lambda i, piece, part=part: part[i].copy_(piece))


def _reachable_leaves(outputs):
    """ids of the leaf tensors the autograd graph of `outputs` reaches."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in outputs if isinstance(t, Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            found.add(id(var))
        stack.extend(n for n, _ in node.next_functions)
    return found


class _Reducer:
    """Gradient averaging for one DDP module: buckets, readiness, and the in-order bucketed all_reduce."""

    def __init__(self, params, bucket_bytes, group, world, rank, find_unused):
        self.params, self.group, self.world, self.rank, self.find_unused = params, group, world, rank, find_unused
        order = list(reversed(range(len(params))))
        self.buckets = [[order[j] for j in b] for b in _groups([params[i] for i in order],
                                                                [_FIRST_BUCKET_BYTES, bucket_bytes])]
        self.bucket_of = {i: b for b, idx in enumerate(self.buckets) for i in idx}
        self.expect_hooks = False
        self.ready = set()

    def prepare_for_forward(self):
        """torch's check that the previous synced backward reached every parameter."""
        if self.expect_hooks and self.ready:
            missing = sorted(set(range(len(self.params))) - self.ready)
            raise RuntimeError(_NOT_FINISHED.format(rank=self.rank, missing=" ".join(map(str, missing))))

    def prepare_for_backward(self, outputs):
        """Arm the hooks for the backward of this forward; with find_unused, note the parameters it cannot reach."""
        self.expect_hooks, self.ready, self.next, self.launched, self.used = True, set(), 0, [], None
        self.pending = [len(b) for b in self.buckets]
        self.unused = set()
        if self.find_unused:
            reached = _reachable_leaves(outputs)
            self.unused = {i for i, p in enumerate(self.params) if id(p) not in reached}

    def on_grad_ready(self, i):
        if not self.expect_hooks or i in self.ready:
            return
        if not self.ready and self.find_unused:  # backward has started: as torch, unused parameters are ready now
            if self.world > 1:  # which parameters some rank used (torch's local_used_map)
                self.used = facade.tensor([float(j not in self.unused) for j in range(len(self.params))])
                self.used_work = _dist().all_reduce(self.used, group=self.group, async_op=True)
            for j in sorted(self.unused):
                self._mark(j)
        self._mark(i)

    def _mark(self, i):
        self.ready.add(i)
        self.pending[self.bucket_of[i]] -= 1
        while self.next < len(self.buckets) and self.pending[self.next] == 0:
            self._launch(self.buckets[self.next])
            self.next += 1
        if self.next == len(self.buckets):
            self._finalize()

    def _launch(self, idx):
        if self.world == 1:
            return
        with no_grad():
            grads = [facade.zeros_like(self.params[i]) if i in self.unused else self.params[i].grad for i in idx]
            flat = _flat(grads).div_(self.world)
            work = _dist().all_reduce(flat, group=self.group, async_op=True)
        self.launched.append((idx, flat, work))

    def _finalize(self):
        self.expect_hooks = False
        if self.world == 1:
            return
        used = None
        if self.used is not None:
            self.used_work.wait()
            used = self.used.tolist()
        with no_grad():
            for idx, flat, work in self.launched:
                work.wait()
                _write_back(flat, [self.params[i] for i in idx], functools.partial(self._set_grad, idx, used))
        self.launched = []

    def _set_grad(self, idx, used, k, value):
        i = idx[k]
        p = self.params[i]
        if i in self.unused and not used[i]:
            return  # no rank used it: its gradient is left as it was (torch)
        if p.grad is None:
            p.grad = value.clone()
        else:
            p.grad.copy_(value)


def _on_grad_ready(reducer_ref, i, param):
    reducer = reducer_ref()
    if reducer is not None:
        reducer.on_grad_ready(i)


def _unsupported(what):
    raise NotImplementedError(f"torch.nn.parallel.DistributedDataParallel({what}) is not supported by facade yet "
                              "(only the default all_reduce averaging is implemented)")


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel(module, device_ids=None, ...): see the module docstring.

    `static_graph`, `gradient_as_bucket_view`, `check_reduction` and `batched_grad_copy` are accepted
    and change nothing observable here (gradients are not views of the buckets).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the same "
                             "time.")
        for name, value in (("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("mixed_precision", mixed_precision), ("device_mesh", device_mesh),
                            ("bucket_cap_mb_list", bucket_cap_mb_list)):
            if value is not None:
                _unsupported(f"{name}=...")
        dist = _dist()
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        self.process_group = process_group
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self.parameters_to_ignore = ignore
        params = [p for n, p in module.named_parameters() if n not in ignore]
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        types = {p.device.type for p in params}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but input "
                             f"module parameters locate in {types}.")
        self.device_type = next(iter(types))
        self.is_multi_device_module = len({p.device for p in params}) > 1
        if not device_ids or self.device_type == "cpu" or self.is_multi_device_module:
            if device_ids or output_device:
                raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                                 "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                                 f"{device_ids}, output_device {output_device}, and module parameters "
                                 f"{ {p.device for p in params} }.")
            self.device_ids = self.output_device = None
        else:
            self.device_ids = [_index(d) for d in device_ids]
            self.output_device = _index(device_ids[0] if output_device is None else output_device)
        if broadcast_buffers is not None:
            warnings.warn(_BROADCAST_DEPRECATED if forward_sync_buffers is None else _BOTH_GIVEN, FutureWarning,
                          stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_buffers = forward_sync_buffers, True
        else:
            self.forward_sync_buffers = init_buffers = broadcast_buffers if broadcast_buffers is not None else True
        self.dim, self.module, self.device = dim, module, params[0].device
        self.find_unused_parameters, self.static_graph = find_unused_parameters, static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = self.require_forward_param_sync = True
        self.modules_buffers = [b for n, b in module.named_buffers() if n not in ignore]
        self.broadcast_bucket_size = _BROADCAST_BYTES
        self.bucket_bytes_cap = int((_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._world = dist.get_world_size(process_group)
        self._src = 0 if process_group is None else dist.get_global_rank(process_group, 0)
        if init_sync and self._world > 1:
            _broadcast_coalesced(params + (self.modules_buffers if init_buffers else []), self._src, process_group)
        trained = [p for p in params if p.requires_grad]
        self.reducer = _Reducer(trained, self.bucket_bytes_cap, process_group, self._world,
                                dist.get_rank(process_group), find_unused_parameters)
        ref = weakref.ref(self.reducer)
        self._hook_handles = [p.register_post_accumulate_grad_hook(functools.partial(_on_grad_ready, ref, i))
                              for i, p in enumerate(trained)]

    def forward(self, *inputs, **kwargs):
        return self._forward(self.module, inputs, kwargs)

    def _compiled_forward(self, compile_module):
        """The forward of torch.compile(ddp): the wrapped module runs compiled (one program forward, one backward
        node) and this forward's buffer broadcast and gradient readiness stay eager around it, as in
        DDP(torch.compile(model)); a broadcast traced inside the compiled forward would be a graph break."""
        inner = compile_module(self.module)

        def forward(*inputs, **kwargs):
            return self._forward(inner, inputs, kwargs)

        return forward

    def _forward(self, module, inputs, kwargs):
        from ...utils._pytree import tree_leaves, tree_map_only  # facade.utils imports facade.nn

        syncing = _GRAD.enabled and self.require_backward_grad_sync
        if syncing:
            self.reducer.prepare_for_forward()
        if self.will_sync_module_buffers():
            _broadcast_coalesced(self.modules_buffers, self._src, self.process_group)
        if self.device_ids:
            here = facade.device(self.device_type, self.device_ids[0])
            inputs, kwargs = tree_map_only(Tensor, lambda t: t.to(here), (inputs, kwargs))
        output = module(*inputs, **kwargs)
        self.require_forward_param_sync = syncing
        if syncing:
            self.reducer.prepare_for_backward(tree_leaves(output) if self.find_unused_parameters else [])
        return output

    @property
    def _spmd_group(self):
        """The process group over which a compiled whole step reaching this module runs as one SPMD program, its
        gradient all_reduce inside (facade/_compile/_spmd.py): this module's group when it spans processes."""
        return _dist()._pg.resolve(self.process_group) if self._world > 1 else None

    def _compile_guard(self):
        """What a compiled step reaching this module depends on besides tensors: whether its backward syncs
        (no_sync() traces a step without the all_reduce)."""
        return self.require_backward_grad_sync

    def _compile_snapshot(self):
        """A function that puts the reducer's bookkeeping back as it is now: a torch.compile trace runs the
        hooks on tracers, and a trace cut short by a graph break must not leave a half-done backward behind."""
        r = self.reducer
        before = {k: v.copy() if isinstance(v, (set, list, dict)) else v for k, v in vars(r).items()}
        syncing = self.require_forward_param_sync

        def restore():
            vars(r).clear()
            vars(r).update(before)
            self.require_forward_param_sync = syncing

        return restore

    def will_sync_module_buffers(self):
        return (self.require_forward_param_sync and self.forward_sync_buffers and len(self.modules_buffers) > 0
                and self._world > 1)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of the forward/backward passes inside accumulate locally; the first synced backward after
        the context reduces the accumulated gradients (the forward must be inside the context)."""
        old, self.require_backward_grad_sync = self.require_backward_grad_sync, False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        _unsupported("...).register_comm_hook(")

    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        _unsupported("...).join(")

    def _set_static_graph(self):
        self.static_graph = True


def _index(d):
    return d if isinstance(d, int) else (facade.device(d).index or 0)


_BROADCAST_DEPRECATED = (
    "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
    "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you rely on buffers "
    "NOT being synced at init (e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
    "`init_sync_buffers` is available.")
_BOTH_GIVEN = (
    "Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is deprecated and its "
    "value is ignored when `forward_sync_buffers` is provided.")
