"""Table rows of torch.nn.functional: normalization. batch_norm and instance_norm are functions over a
row: the row returns the output and the new running statistics, the function writes those into the
running buffers in place, as torch's kernels do."""

import functional.nn as N

from .._dispatch import Op, call
from ..autograd.grad_mode import no_grad

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
_BOTH = ("torch", MODULE)
_STATS = ("input", "running_mean", "running_var", "weight", "bias", "momentum")  # momentum traced: no recompile


def _present(out, rm, rv):
    return (out, *[s for s in (rm, rv) if s is not None])


def _batch_norm_stats(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                      eps=1e-5):
    """functional.nn.batch_norm without the statistics that are absent or unchanged (evaluation)."""
    out, rm, rv = N.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return _present(out, rm, rv) if training else out


def _instance_norm_stats(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                         momentum=0.1, eps=1e-5):
    """functional.nn.instance_norm without the statistics that are absent or unchanged."""
    out, rm, rv = N.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)
    return _present(out, rm, rv) if use_input_stats else out


# saves=(): the running statistics are rewritten right after the call, by design
_BATCH_NORM = Op("batch_norm", _batch_norm_stats, arrays=_STATS, function=False, method=False,
                 grad_name="NativeBatchNormBackward0", saves=())
_INSTANCE_NORM = Op("instance_norm", _instance_norm_stats, arrays=_STATS, function=False, method=False,
                    grad_name="ViewBackward0", saves=())


def _update(res, running_mean, running_var):
    if not isinstance(res, tuple):
        return res
    out, *stats = res
    with no_grad():
        for buf, new in zip([b for b in (running_mean, running_var) if b is not None], stats):
            buf.copy_(new)
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """torch.nn.functional.batch_norm: see functional.nn.batch_norm; updates running_mean/var in place."""
    res = call(_BATCH_NORM, (input, running_mean, running_var, weight, bias, training, momentum, eps), None)
    return _update(res, running_mean, running_var)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """torch.nn.functional.instance_norm: see functional.nn.instance_norm; updates running stats in place."""
    res = call(_INSTANCE_NORM, (input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps),
               None)
    return _update(res, running_mean, running_var)


_AFFINE = ("input", "weight", "bias")
OPS = [
    Op("layer_norm", N.layer_norm, arrays=_AFFINE, method=False, module=_BOTH, grad_name="NativeLayerNormBackward0"),
    Op("group_norm", N.group_norm, arrays=_AFFINE, method=False, module=_BOTH, grad_name="NativeGroupNormBackward0"),
    Op("rms_norm", N.rms_norm, arrays=("input", "weight"), method=False, module=_BOTH, grad_name="MulBackward0"),
    Op("local_response_norm", N.local_response_norm, method=False, module=MODULE, grad_name="DivBackward0"),
]
FUNCTIONS = {"batch_norm": batch_norm, "instance_norm": instance_norm}
