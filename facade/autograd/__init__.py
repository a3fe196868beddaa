"""torch.autograd: backward, grad, Function, grad modes and anomaly detection."""

from __future__ import annotations

from . import forward_ad, graph, profiler
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck  # the functions shadow the module, as in torch

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "inference_mode", "set_grad_enabled", "is_grad_enabled", "set_detect_anomaly", "detect_anomaly",
           "is_anomaly_enabled", "is_inference_mode_enabled", "graph", "forward_ad", "gradcheck", "gradgradcheck",
           "profiler"]


def _tensors(x):
    from .._tensor import Tensor

    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _root_grads(outputs, grad_outputs, create_graph, fn):
    from .._tensor import Tensor

    grads = []
    for i, (o, g) in enumerate(zip(outputs, grad_outputs)):
        if not o.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not o.dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            g = Tensor._from_array(_ones(tuple(o.shape), o._arr().dtype, o.device), o.device)
        elif not isinstance(g, Tensor):
            from .. import _creation

            g = _creation.tensor(g, dtype=o.dtype)
        elif tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                               f"shape of {o.shape}.")
        grads.append(g if create_graph else g._arr())
    return grads


_ONES = {}


def _ones(shape, dtype, device):
    """The implicit gradient of a scalar output (cached: building it eagerly costs more than the op)."""
    import numpy as np

    from .._creation import _put
    from .._device import jax_device

    a = _ONES.get((shape, dtype, device))
    if a is None:  # uncommitted on the default device: it also meets a loss on a jax Mesh (facade.distributed)
        a = _ONES[(shape, dtype, device)] = _put(np.ones(shape, dtype), jax_device(device))
    return a


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' `.grad`."""
    outputs = _tensors(tensors)
    grads = _tensors(grad_tensors) or [None] * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_grads(outputs, grads, create_graph, "backward")
    edges = [o._edge() for o in outputs]
    if inputs is not None:
        ins = _tensors(inputs)
        captured = graph.run_backward(edges, roots, retain_graph, create_graph,
                                      inputs=[t._edge() for t in ins], accumulate=False)
        for i, t in enumerate(ins):
            g = captured.get(i)
            if g is not None:
                graph._accumulate(t, g, create_graph)
        return
    graph.run_backward(edges, roots, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned (not accumulated)."""
    from .._tensor import Tensor

    outs = _tensors(outputs)
    ins = _tensors(inputs)
    grads = _tensors(grad_outputs) or [None] * len(outs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = _root_grads(outs, grads, create_graph, "grad")
    captured = graph.run_backward([o._edge() for o in outs], roots, retain_graph, create_graph,
                                  inputs=[t._edge() for t in ins], accumulate=False)
    result = []
    for i, t in enumerate(ins):
        g = captured.get(i)
        if g is None:
            if materialize_grads:
                from .. import _creation

                result.append(_creation.zeros_like(t))
                continue
            if not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                                   "Set allow_unused=True if this is the desired behavior.")
            result.append(None)
        else:
            result.append(g if isinstance(g, Tensor) else Tensor._from_array(g, t.device))
    return tuple(result)


def set_detect_anomaly(mode: bool, check_nan: bool = True):
    """Enable anomaly detection: NaN gradients raise, naming the op (and its forward traceback)."""

    class _Ctx:
        def __init__(self):
            self.prev = list(graph._anomaly)
            graph._anomaly[:] = [bool(mode), check_nan]

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            graph._anomaly[:] = self.prev

    return _Ctx()


class detect_anomaly:
    """Context manager / decorator enabling anomaly detection."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = list(graph._anomaly)
        graph._anomaly[:] = [True, self.check_nan]

    def __exit__(self, *exc):
        graph._anomaly[:] = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with detect_anomaly(self.check_nan):
                return fn(*a, **k)

        return wrapper


def is_anomaly_enabled():
    return graph._anomaly[0]
