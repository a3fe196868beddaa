"""torch.utils.checkpoint: trade compute for memory by recomputing a region's forward in backward.

Both of torch's variants are here, with torch's semantics:

- `use_reentrant=False`: the region runs once with autograd recording as usual, but under
  saved-tensor hooks that keep nothing (each saved tensor becomes an index). The first time
  backward needs one of them, the region is run again (same RNG state, grad enabled, inputs
  detached) and the arrays it saves fill the indices. Gradients flow to every tensor the region
  used (closure parameters too), `autograd.grad` works, and the outputs' grad_fn is the region's
  last op, as in torch.
- `use_reentrant=True` (torch 2.13's default, with its warning when not passed): the region runs
  under no_grad as one custom Function (`CheckpointFunctionBackward`) whose backward re-runs it and
  calls `backward` on it, so closure parameters get `.grad` directly; `autograd.grad` through it is
  refused with torch's error.

Why not `jax.checkpoint` of the region: the region is arbitrary Python over facade tensors (closure
parameters, module state, `.item()`, data-dependent branches); making it one pure JAX function needs
the state lifting of torch.compile. Recomputing eagerly reuses every op's cached program and needs no
new compile per region; under a traced step the recomputation is traced like any other backward.
"""

from __future__ import annotations

import contextlib
import warnings

from .. import _random
from ..autograd import graph
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "detach_variable",
           "noop_context_fn", "check_backward_validity"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(x):
    from .._tensor import Tensor

    return isinstance(x, Tensor)


def detach_variable(inputs):
    """Detached copies of the tensors in `inputs` that keep their requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if _is_tensor(x) else x for x in inputs)


def check_backward_validity(inputs):
    if not any(_is_tensor(x) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


@contextlib.contextmanager
def _rng(state):
    """Run with the RNG state of the original forward (when preserved), restoring the current one after."""
    if state is None:
        yield
        return
    with _random.fork_rng():
        _random.set_rng_state(state)
        yield


class CheckpointFunction(Function):
    """The reentrant variant: forward without a graph, backward re-runs the region and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.inputs = args
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd import backward

        if not graph.is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = detach_variable(tuple(ctx.inputs))
        with _rng(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if _is_tensor(o) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(x.grad if _is_tensor(x) else None for x in inputs))


class _Frame:
    """The non-reentrant variant's state for one region: saved tensors become indices into a recomputation."""

    def __init__(self, function, args, kwargs, rng_state):
        self.function, self.args, self.kwargs, self.rng_state = function, args, kwargs, rng_state
        self.count, self.recomputed = 0, {}

    def pack(self, tensor):
        self.count += 1
        return self.count - 1

    def unpack(self, index):
        if index not in self.recomputed:
            self.recompute()
        return self.recomputed.pop(index)

    def recompute(self):
        saved = []

        def keep(t):
            saved.append(t)
            return t

        with _rng(self.rng_state), enable_grad(), graph.saved_tensors_hooks(keep, lambda t: t):
            self.function(*detach_variable(tuple(self.args)), **self.kwargs)
        if len(saved) != self.count:
            raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the "
                                  f"original forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{self.count}\nNumber of tensors saved during recomputation: {len(saved)}.\n")
        self.recomputed = dict(enumerate(saved))


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run `function(*args, **kwargs)` without keeping its intermediate values; backward recomputes them.
    `preserve_rng_state=True` (a keyword) replays the forward's random draws (dropout masks) in the recomputation."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if not is_grad_enabled():
        return function(*args, **kwargs)
    frame = _Frame(function, args, kwargs, _random.get_rng_state() if preserve else None)
    forward_ctx, _ = context_fn()
    with forward_ctx, graph.saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model in `segments` chunks; the last chunk runs normally."""
    from ..nn import Sequential

    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
