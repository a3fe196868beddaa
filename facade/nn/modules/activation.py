"""torch.nn.modules.activation: activation modules, generated from their functions (MLX style).

`_activation` makes a Module class with torch's name, constructor signature, `__constants__` and
`extra_repr`, whose forward is the torch.nn.functional function called with the module's attributes.
The few with state or extra rules (PReLU's weight, RReLU's training flag, Hardtanh's deprecated
arguments, Softmax2d's shape check) are written out.
"""

import inspect
import warnings

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._multihead import MultiheadAttention  # noqa: F401  (torch defines it in activation.py)
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
           "Softshrink", "MultiheadAttention", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
           "LogSoftmax"]

_P = inspect.Parameter


def _inplace_str(self, first=False):
    return ("inplace=True" if first else ", inplace=True") if self.inplace else ""


def _activation(name, fn, params=(), extra_repr=None, constants=None, forward=None):
    """A Module class `name` whose constructor takes `params` [(name, default)] in torch's order and stores
    them as attributes; forward(input) = torch.nn.functional.`fn`(input, *attributes) unless `forward` is
    given (looked up at call time: the op table fills torch.nn.functional after this module is imported)."""
    names = [p for p, _ in params]
    sig = inspect.Signature([_P("self", _P.POSITIONAL_OR_KEYWORD)] +
                            [_P(p, _P.POSITIONAL_OR_KEYWORD, default=d) for p, d in params])

    def __init__(self, *args, **kwargs):
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}.__init__() {e}") from None
        bound.apply_defaults()
        Module.__init__(self)
        for p in names:
            setattr(self, p, bound.arguments[p])

    def default_forward(self, input):
        return getattr(F, fn)(input, *[getattr(self, p) for p in names])

    __init__.__signature__ = sig
    ns = {"forward": forward or default_forward, "__module__": __name__,
          "__doc__": f"torch.nn.{name}: applies torch.nn.functional.{fn} (see its docstring)."}
    if names:  # without parameters, Module's own (*args, **kwargs) constructor, as torch's
        ns["__init__"] = __init__
    if constants is not None or names:
        ns["__constants__"] = list(constants if constants is not None else names)
    if extra_repr is not None:
        ns["extra_repr"] = extra_repr
    cls = type(name, (Module,), ns)
    cls.__qualname__ = name
    return cls


ReLU = _activation("ReLU", "relu", [("inplace", False)], lambda self: _inplace_str(self, True))
Threshold = _activation("Threshold", "threshold", [("threshold", inspect.Parameter.empty),
                                                   ("value", inspect.Parameter.empty), ("inplace", False)],
                        lambda self: f"threshold={self.threshold}, value={self.value}{_inplace_str(self)}")
Sigmoid = _activation("Sigmoid", "sigmoid")
Tanh = _activation("Tanh", "tanh")
LogSigmoid = _activation("LogSigmoid", "logsigmoid")
Softsign = _activation("Softsign", "softsign")
Tanhshrink = _activation("Tanhshrink", "tanhshrink")
Hardsigmoid = _activation("Hardsigmoid", "hardsigmoid", [("inplace", False)])
Hardswish = _activation("Hardswish", "hardswish", [("inplace", False)])
SiLU = _activation("SiLU", "silu", [("inplace", False)], lambda self: _inplace_str(self, True))
Mish = _activation("Mish", "mish", [("inplace", False)], lambda self: _inplace_str(self, True))
SELU = _activation("SELU", "selu", [("inplace", False)], lambda self: _inplace_str(self, True))
ELU = _activation("ELU", "elu", [("alpha", 1.0), ("inplace", False)],
                  lambda self: f"alpha={self.alpha}{_inplace_str(self)}")
CELU = _activation("CELU", "celu", [("alpha", 1.0), ("inplace", False)],
                   lambda self: f"alpha={self.alpha}{_inplace_str(self)}")
LeakyReLU = _activation("LeakyReLU", "leaky_relu", [("negative_slope", 1e-2), ("inplace", False)],
                        lambda self: f"negative_slope={self.negative_slope}{_inplace_str(self)}",
                        constants=["inplace", "negative_slope"])
GLU = _activation("GLU", "glu", [("dim", -1)], lambda self: f"dim={self.dim}")
GELU = _activation("GELU", "gelu", [("approximate", "none")], lambda self: f"approximate={self.approximate!r}",
                   forward=lambda self, input: F.gelu(input, approximate=self.approximate))
Hardshrink = _activation("Hardshrink", "hardshrink", [("lambd", 0.5)], lambda self: f"{self.lambd}")
Softshrink = _activation("Softshrink", "softshrink", [("lambd", 0.5)], lambda self: str(self.lambd))
Softplus = _activation("Softplus", "softplus", [("beta", 1.0), ("threshold", 20.0)],
                       lambda self: f"beta={self.beta}, threshold={self.threshold}")
Softmax = _activation("Softmax", "softmax", [("dim", None)], lambda self: f"dim={self.dim}",
                      forward=lambda self, input: F.softmax(input, self.dim, _stacklevel=5))
Softmin = _activation("Softmin", "softmin", [("dim", None)], lambda self: f"dim={self.dim}",
                      forward=lambda self, input: F.softmin(input, self.dim, _stacklevel=5))
LogSoftmax = _activation("LogSoftmax", "log_softmax", [("dim", None)], lambda self: f"dim={self.dim}",
                         forward=lambda self, input: F.log_softmax(input, self.dim, _stacklevel=5))
RReLU = _activation("RReLU", "rrelu", [("lower", 1.0 / 8), ("upper", 1.0 / 3), ("inplace", False)],
                    lambda self: f"lower={self.lower}, upper={self.upper}{_inplace_str(self)}",
                    forward=lambda self, input: F.rrelu(input, self.lower, self.upper, self.training, self.inplace))


def _softmax2d(self, input):
    if input.dim() not in (3, 4):
        raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
    return F.softmax(input, -3, _stacklevel=5)


Softmax2d = _activation("Softmax2d", "softmax", forward=_softmax2d)


class Hardtanh(Module):
    """torch.nn.Hardtanh: applies torch.nn.functional.hardtanh (see its docstring)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self)}"


class ReLU6(Hardtanh):
    """torch.nn.ReLU6: Hardtanh(0, 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self, True)


class PReLU(Module):
    """torch.nn.PReLU: leaky relu with a learnt slope, one per channel or shared (`num_parameters`)."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
