"""Table rows of torch.nn.functional: activation.

One row per activation (its autograd node named as torch's). torch.nn.functional's versions take
`inplace=`: `_inplace_fn` makes them from the row (out of place, or written into the input through
the row's in-place path); torch.X_ / F.X_ are that in-place path alone.
"""

import inspect
import warnings

import functional.nn as A

from .. import _dtype as D
from .._dispatch import Op, call, call_inplace
from .._random import next_key
from .._tensor import Tensor

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
F = "torch.nn.functional"
BOTH = ("torch", F)


def _row(name, fn, *, module=F, method=False, inplace=False, grad_name=None, saves="inputs", promote="all", **kw):
    return Op(name, fn, promote=promote, module=module, method=method, inplace=inplace, grad_name=grad_name,
              saves=saves, **kw)


_relu = _row("relu", A.relu, module="torch", method=True, inplace=True, saves="result")
_hardtanh = _row("hardtanh", A.hardtanh, function=False)
_leaky = _row("leaky_relu", A.leaky_relu, function=False)
_elu = _row("elu", A.elu, function=False)
_selu = _row("selu", A.selu, module="torch", grad_name="EluBackward0", saves="result")
_celu = _row("celu", A.celu, module="torch")
_silu = _row("silu", A.silu, function=False)
_mish = _row("mish", A.mish, function=False)
_hardsigmoid = _row("hardsigmoid", A.hardsigmoid, function=False)
_hardswish = _row("hardswish", A.hardswish, function=False)
_threshold = _row("threshold", A.threshold, module="torch")
_rrelu = Op("rrelu", A.rrelu, arrays=("input", "key"), promote=("input",), function=False, method=False,
            grad_name="RreluWithNoiseBackward0")
_softmax = _row("softmax", A.softmax, module="torch", method=True, saves="result")
_log_softmax = _row("log_softmax", A.log_softmax, module="torch", method=True, saves="result")
_gumbel = {hard: Op("gumbel_softmax", A.gumbel_softmax, arrays=("logits", "key"), promote=("logits",),
                    function=False, method=False, grad_name="AddBackward0" if hard else "SoftmaxBackward0")
           for hard in (False, True)}

def _refuse_bool(err):
    """check= for rows that turn integers to floats before the functional function sees them."""
    def check(vals):
        if isinstance(vals[0], Tensor) and vals[0].dtype is D.bool:
            raise err[0](err[1])
    return check


_SUB_BOOL = (RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
             "to invert a mask, use the `~` or `logical_not()` operator instead.")
_ABS_BOOL = (NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'")

OPS = [
    _relu, _hardtanh, _leaky, _elu, _selu, _celu, _silu, _mish, _hardsigmoid, _hardswish, _threshold, _rrelu,
    _softmax, _log_softmax, *_gumbel.values(),
    _row("prelu", A.prelu, arrays=("input", "weight"), module=BOTH, method=True, grad_name="PreluKernelBackward0",
         promote=()),
    _row("glu", A.glu),
    _row("gelu", A.gelu),
    _row("logsigmoid", A.logsigmoid, grad_name="LogSigmoidBackward0"),
    _row("hardshrink", A.hardshrink, module=BOTH, method=True),
    _row("softshrink", A.softshrink),
    _row("tanhshrink", A.tanhshrink, grad_name="SubBackward0", to_float=True, check=_refuse_bool(_SUB_BOOL)),
    _row("softsign", A.softsign, grad_name="DivBackward0", to_float=True, check=_refuse_bool(_ABS_BOOL)),
    _row("softplus", A.softplus),
]


def _twin(op):
    """The row torch records for the in-place form of `op` (elu_ is EluBackward1, relu_ ReluBackward0)."""
    if op.name not in ("elu", "leaky_relu", "threshold", "selu", "celu", "rrelu"):
        return op
    return Op(op.name, op.fn, arrays=tuple(op.params[i] for i in op.array_idx),
              promote=tuple(op.params[i] for i in op.promote_idx), function=False, method=False,
              grad_name=op.grad_name[:-1] + "1", saves="result")


def _inplace_fn(op, name=None):
    """torch.nn.functional.`name`(input, *row args, inplace=False) from the row `op`."""
    nargs = len(op.params) - 1
    ip = _twin(op)

    def fn(input, *args, inplace=False, **kwargs):
        if len(args) > nargs:  # inplace given positionally, after the row's own arguments
            *args, inplace = args
        return call_inplace(ip, input, args, kwargs) if inplace else call(op, (input, *args), kwargs)

    sig = inspect.signature(op.fn)
    fn.__signature__ = sig.replace(parameters=[*sig.parameters.values(), inspect.Parameter(
        "inplace", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=False)])
    _name(fn, name or op.name, op)
    return fn


def _inplace_only(op, name=None):
    """torch.X_ / F.X_: the row written into its input."""
    ip = _twin(op)

    def fn(input, *args, **kwargs):
        return call_inplace(ip, input, args, kwargs)

    fn.__signature__ = inspect.signature(op.fn)
    _name(fn, name or op.name + "_", op)
    return fn


def _name(fn, name, op):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.nn.functional.{name}: see functional.nn.{op.fn.__name__}.\n\n{op.fn.__doc__ or ''}"


def _check_hardtanh(min_val, max_val):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    _check_hardtanh(min_val, max_val)
    return call_inplace(_hardtanh, input, (min_val, max_val), None) if inplace else call(
        _hardtanh, (input, min_val, max_val), None)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _check_hardtanh(min_val, max_val)
    return call_inplace(_hardtanh, input, (min_val, max_val), None)


def relu6(input, inplace=False):
    """min(max(0, x), 6): hardtanh(input, 0, 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


_rrelu_ = _twin(_rrelu)


def _rrelu_call(input, lower, upper, training, inplace, generator=None):
    key = next_key(generator, input.device) if training else None
    args = (key, lower, upper, training)
    return call_inplace(_rrelu_, input, args, None) if inplace else call(_rrelu, (input, *args), None)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """See functional.nn.rrelu (the slopes of a training call are drawn from the default generator)."""
    return _rrelu_call(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu_call(input, lower, upper, training, True, generator)


def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu_call(input, lower, upper, training, False, generator)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """See functional.nn.softmax; dim=None picks torch's legacy dim (0 for 0-, 1- and 3-D inputs, else 1)
    with a warning."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return call(_softmax, (input, dim, dtype), None)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return call(_softmax, (-input, dim, dtype), None)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return call(_log_softmax, (input, dim, dtype), None)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """See functional.nn.gumbel_softmax (the noise comes from the default generator)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    return call(_gumbel[bool(hard)], (logits, next_key(None, logits.device), tau, bool(hard), dim), None)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


FUNCTIONS = {
    "relu": _inplace_fn(_relu), "relu_": _inplace_only(_relu), "torch.relu_": _inplace_only(_relu),
    "hardtanh": hardtanh, "hardtanh_": hardtanh_, "relu6": relu6,
    "leaky_relu": _inplace_fn(_leaky), "leaky_relu_": _inplace_only(_leaky),
    "elu": _inplace_fn(_elu), "elu_": _inplace_only(_elu),
    "selu": _inplace_fn(_selu), "selu_": _inplace_only(_selu), "torch.selu_": _inplace_only(_selu),
    "celu": _inplace_fn(_celu), "celu_": _inplace_only(_celu), "torch.celu_": _inplace_only(_celu),
    "silu": _inplace_fn(_silu), "mish": _inplace_fn(_mish),
    "hardsigmoid": _inplace_fn(_hardsigmoid), "hardswish": _inplace_fn(_hardswish),
    "threshold": _inplace_fn(_threshold), "threshold_": _inplace_only(_threshold),
    "torch.threshold_": _inplace_only(_threshold),
    "rrelu": rrelu, "rrelu_": rrelu_, "torch.rrelu": _torch_rrelu, "torch.rrelu_": rrelu_,
    "softmax": softmax, "softmin": softmin, "log_softmax": log_softmax, "gumbel_softmax": gumbel_softmax,
    "sigmoid": sigmoid, "tanh": tanh,
}
