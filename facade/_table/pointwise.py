"""Table rows for pointwise math: arithmetic, transcendental functions, rounding, clamping,
comparisons, logical and bitwise ops, complex numbers.

torch names the autograd node of some ops by the overload called (`x ** 2` is PowBackward0,
`x ** y` PowBackward1, `2 ** x` PowBackward2); `_overloads` gives such an op one row per
overload, picked by `route` from which arguments are Tensors.
"""

import warnings

import functional as F
from functional.pointwise import _addcdiv_refusal, _pow_refusal, _sub_refusal

from .. import _deferred
from .. import _dtype as D
from .._dispatch import Op
from .._tensor import Tensor


def _arg(args, kwargs, i, name):
    return args[i] if len(args) > i else (kwargs.get(name) if kwargs else None)


def _tensors(*params):
    """Route key: which of the (position, name) params are Tensors (a bool for one param)."""
    if len(params) == 1:
        (i, n), = params
        return lambda args, kwargs: isinstance(_arg(args, kwargs, i, n), Tensor)
    return lambda args, kwargs: tuple(isinstance(_arg(args, kwargs, i, n), Tensor) for i, n in params)


def _overloads(name, fn, key, variants, **kw):
    """One row per torch overload of `name`: `variants` maps a key to the row's autograd node name,
    or to a dict of the row's own Op arguments (fn included). The first row is the one installed; it routes each
    call to the row of `key(args, kwargs)`."""
    rows = {k: Op(name, **{"fn": fn, **kw, **(v if isinstance(v, dict) else {"grad_name": v})})
            for k, v in variants.items()}
    first = next(iter(rows.values()))
    first.route = lambda args, kwargs: rows.get(key(args, kwargs))
    return first


def _alpha(args, kwargs):
    """alpha= given: only then is it a traced argument (a default 1 passed to every jitted call costs
    more than the add itself)."""
    return bool(kwargs) and "alpha" in kwargs


_BINARY = _tensors((0, "input"), (1, "other"))
_POW = {(True, False): "PowBackward0", (True, True): "PowBackward1", (False, True): "PowBackward2"}
_POW_ARGS = _tensors((0, "input"), (1, "exponent"))


def _pow_route(args, kwargs):
    """pow's overload; "kernel" for a float tensor and a Python number exponent that torch computes by a kernel of
    its own (x * x for 2 ...: functional.pow_kernel_exponent), whose row takes the exponent as part of the program:
    the same few values recur (x ** 2), and the program is exact and compiles like a product, not like std::pow."""
    key = _POW_ARGS(args, kwargs)
    if key == (True, False):
        x = _arg(args, kwargs, 0, "input")
        if x.dtype._cat == 2 and F.pow_kernel_exponent(x.dtype.np, _arg(args, kwargs, 1, "exponent")):
            return "kernel"
    return key


def _is_bool(v):
    return v.dtype is D.bool if isinstance(v, Tensor) else isinstance(v, bool)


def _check_sub(vals):
    err = _sub_refusal(_is_bool(vals[0]), _is_bool(vals[1]))
    if err is not None:
        raise err


def _check_addcdiv(vals):
    t1, t2 = vals[1], vals[2]
    if isinstance(t1, Tensor) and isinstance(t2, Tensor) and t1.dtype._cat < 2 and t2.dtype._cat < 2:
        raise _addcdiv_refusal()


def _int_cat(v):
    """torch's category of an operand: 0 bool, 1 integer, 2 float, 3 complex."""
    return v.dtype._cat if isinstance(v, Tensor) else 0 if isinstance(v, bool) else 1 if isinstance(v, int) else 2


def _check_int_div(vals):
    """torch's RuntimeError for an integer division (//, %, fmod, div with rounding_mode) by zero."""
    input, other = vals[0], vals[1]
    if (len(vals) > 2 and vals[2] is None) or max(_int_cat(input), _int_cat(other)) != 1:
        return
    if isinstance(input, Tensor) and not input.numel():
        return
    if not isinstance(other, Tensor):
        if other == 0:
            raise RuntimeError("ZeroDivisionError")
        return
    _deferred.check_range(other, 0, 0, lambda v: RuntimeError("ZeroDivisionError"), op="integer division",
                          inside=True)


def _check_pow(vals):
    input, exponent = vals[0], vals[1]
    if (isinstance(input, Tensor) and input.dtype._cat < 2 and type(exponent) is int and exponent < 0):
        raise _pow_refusal()


def _check_where(vals, pos=0):
    # warned at every call, not at trace time (a cached compile would warn only once per process)
    if isinstance(vals[pos], Tensor) and vals[pos].dtype is D.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=4)


def _where_method(input, condition, other):
    """Tensor.where(condition, other): torch.where(condition, self, other)."""
    return F.where(condition, input, other)


def _where_nonzero(condition):
    """torch.where(condition) alone: condition.nonzero(as_tuple=True) (data-dependent shape, not jitted)."""
    return F.nonzero(condition, as_tuple=True)


def _unary(name, fn, *, to_float=True, inplace=True, **kw):
    """A one-input op (integer inputs become floats unless to_float=False)."""
    return Op(name, fn, promote="all", to_float=to_float, inplace=inplace, **kw)


def _binary(name, fn, dunder=None, *, inplace=True, **kw):
    """A two-input op over torch's promotion; `dunder` "add" gives __add__, __radd__, __iadd__."""
    d = {} if dunder is None else dict(dunders=(f"__{dunder}__",), rdunders=(f"__r{dunder}__",),
                                       inplace_dunders=(f"__i{dunder}__",))
    return Op(name, fn, arrays=("input", "other"), promote="all", inplace=inplace, **d, **kw)


def _compare(name, fn, dunder, aliases=()):
    # differentiable: torch records comparisons with a zero-gradient node (EqBackward0), which shows in eq_
    return Op(name, fn, arrays=("input", "other"), promote="all", dunders=(f"__{dunder}__",), inplace=True,
              aliases=aliases)


def _special(name, row, **kw):
    """torch.special.`name`: the function of table row `row` (not a Tensor method)."""
    return Op(name, row.fn, arrays=tuple(row.params[i] for i in row.array_idx),
              promote=tuple(row.params[i] for i in row.promote_idx), to_float=row.to_float, method=False,
              module="torch.special", grad_name=row.grad_name, **kw)


_sigmoid = _unary("sigmoid", F.sigmoid, saves="result")
_logit = Op("logit", F.logit, promote="all", to_float=True, inplace=True)
_erf, _erfc, _erfinv = (_unary(n, getattr(F, n)) for n in ("erf", "erfc", "erfinv"))
_exp2 = _unary("exp2", F.exp2, saves="result")
_expm1 = _unary("expm1", F.expm1, saves="result")
_log1p = _unary("log1p", F.log1p, grad_name="Log1PBackward0")
_sinc = _unary("sinc", F.sinc)
_xlogy = _overloads("xlogy", F.xlogy, _BINARY, {(True, True): "XlogyBackward0", (False, True): "XlogyBackward1",
                                                (True, False): "XlogyBackward2"},
                    arrays=("input", "other"), promote="all", to_float=True, inplace=True)
_round = _overloads("round", F.round, lambda args, kwargs: bool(kwargs and kwargs.get("decimals")),
                    {False: "RoundBackward0", True: "RoundBackward1"}, promote="all", inplace=True)

OPS = [
    # ---------------------------------------------------------------- arithmetic
    _overloads("add", F.add, _alpha, {False: {}, True: dict(arrays=("input", "other", "alpha"))},
               arrays=("input", "other"), promote=("input", "other"), dunders=("__add__",), rdunders=("__radd__",),
               inplace=True, inplace_dunders=("__iadd__",), saves=()),
    _overloads("sub", F.sub, lambda args, kwargs: (isinstance(_arg(args, kwargs, 0, "input"), Tensor),
                                                   _alpha(args, kwargs)),
               {(True, False): "SubBackward0", (False, False): "RsubBackward1",
                (True, True): dict(grad_name="SubBackward0", arrays=("input", "other", "alpha")),
                (False, True): dict(grad_name="RsubBackward1", arrays=("input", "other", "alpha"))},
               arrays=("input", "other"), promote=("input", "other"), dunders=("__sub__",), rdunders=("__rsub__",),
               inplace=True, inplace_dunders=("__isub__",), saves=(), check=_check_sub, aliases=("subtract",)),
    _binary("mul", F.mul, "mul", aliases=("multiply",)),
    _overloads("div", F.div, lambda args, kwargs: (isinstance(_arg(args, kwargs, 0, "input"), Tensor),
                                                   _arg(args, kwargs, 2, "rounding_mode") is not None),
               {(True, False): "DivBackward0", (True, True): "DivBackward2",
                (False, False): dict(grad_name="MulBackward0", fn=F.rdiv),  # number / tensor: torch's reciprocal
                (False, True): "DivBackward2"},
               arrays=("input", "other"), promote="all", to_float=lambda vals: vals[2] is None, inplace=True,
               dunders=("__truediv__", "__div__"), rdunders=("__rtruediv__", "__rdiv__"),
               inplace_dunders=("__itruediv__", "__idiv__"),
               aliases=("divide", "true_divide"), check=_check_int_div),
    _binary("floor_divide", F.floor_divide, "floordiv", grad_name="NotImplemented", check=_check_int_div),
    _overloads("remainder", F.remainder, _BINARY, {(True, True): "RemainderBackward1",
                                                   (True, False): "RemainderBackward0",
                                                   (False, True): "NotImplemented"},
               arrays=("input", "other"), promote="all", inplace=True, dunders=("__mod__",), rdunders=("__rmod__",),
               inplace_dunders=("__imod__",), check=_check_int_div),
    _overloads("fmod", F.fmod, _BINARY, {(True, True): "FmodBackward1", (True, False): "FmodBackward0"},
               arrays=("input", "other"), promote="all", inplace=True, check=_check_int_div),
    _overloads("pow", F.pow, _pow_route,  # a number exponent: torch's scalar kernel
               {**_POW, (True, False): dict(grad_name="PowBackward0", fn=F.pow_number),
                "kernel": dict(grad_name="PowBackward0", fn=F.pow_number, arrays=("input",))},
               arrays=("input", "exponent"),
               promote="all", inplace=True, check=_check_pow, dunders=("__pow__",), rdunders=("__rpow__",),
               inplace_dunders=("__ipow__",)),
    _overloads("float_power", F.float_power, _tensors((0, "input"), (1, "exponent")), _POW,
               arrays=("input", "exponent"), inplace=True),
    Op("neg", F.neg, promote="all", dunders=("__neg__",), inplace=True, saves=(), aliases=("negative",)),
    Op("positive", F.positive, promote="all", dunders=("__pos__",), saves=()),
    _unary("abs", F.abs, to_float=False, dunders=("__abs__",), aliases=("absolute",)),
    _unary("sign", F.sign, to_float=False, saves=()),
    _unary("sgn", F.sgn, to_float=False),
    _unary("reciprocal", F.reciprocal, saves="result"),
    _unary("square", F.square, to_float=False, grad_name="PowBackward0"),
    _overloads("lerp", F.lerp, _tensors((2, "weight")), {False: "LerpBackward0", True: "LerpBackward1"},
               arrays=("input", "end", "weight"), inplace=True),
    Op("addcmul", F.addcmul, arrays=("input", "tensor1", "tensor2", "value"), promote=("input", "tensor1", "tensor2"),
       inplace=True),
    Op("addcdiv", F.addcdiv, arrays=("input", "tensor1", "tensor2", "value"), promote=("input", "tensor1", "tensor2"),
       inplace=True, check=_check_addcdiv),
    # ---------------------------------------------------------------- exponentials, logs, trigonometry
    _unary("exp", F.exp, saves="result"),
    _exp2,
    _expm1,
    _unary("log", F.log),
    _unary("log2", F.log2),
    _unary("log10", F.log10),
    _log1p,
    _unary("sqrt", F.sqrt, saves="result"),
    _unary("rsqrt", F.rsqrt, saves="result"),
    _unary("sin", F.sin),
    _unary("cos", F.cos),
    _unary("tan", F.tan, saves="result"),
    _unary("asin", F.asin, aliases=("arcsin",)),
    _unary("acos", F.acos, aliases=("arccos",)),
    _unary("atan", F.atan, aliases=("arctan",)),
    _binary("atan2", F.atan2, to_float=True, aliases=("arctan2",)),
    _unary("sinh", F.sinh),
    _unary("cosh", F.cosh),
    _unary("tanh", F.tanh, saves="result"),
    _unary("asinh", F.asinh, aliases=("arcsinh",)),
    _unary("acosh", F.acosh, aliases=("arccosh",)),
    _unary("atanh", F.atanh, aliases=("arctanh",)),
    _erf,
    _erfc,
    _erfinv,
    _sigmoid,
    _logit,
    _sinc,
    _unary("deg2rad", F.deg2rad, grad_name="Deg2RadBackward0", saves=()),
    _unary("rad2deg", F.rad2deg, grad_name="Rad2DegBackward0", saves=()),
    _binary("hypot", F.hypot),
    _binary("logaddexp", F.logaddexp, inplace=False),
    _binary("logaddexp2", F.logaddexp2, inplace=False),
    _xlogy,
    _overloads("copysign", F.copysign, _tensors((1, "other")), {True: "CopysignBackward0", False: "CopysignBackward1"},
               arrays=("input", "other"), promote="all", to_float=True, inplace=True),
    Op("heaviside", F.heaviside, arrays=("input", "values"), inplace=True, grad_name="NotImplemented"),
    # ---------------------------------------------------------------- rounding and clamping
    _unary("floor", F.floor, to_float=False, saves=()),
    _unary("ceil", F.ceil, to_float=False, saves=()),
    _unary("trunc", F.trunc, to_float=False, saves=(), aliases=("fix",)),
    _round,
    _unary("frac", F.frac, to_float=False, saves=()),
    _overloads("clamp", F.clamp, lambda args, kwargs: any(isinstance(_arg(args, kwargs, i, n), Tensor)
                                                          for i, n in ((1, "min"), (2, "max"))),
               {False: "ClampBackward1", True: "ClampBackward0"}, arrays=("input", "min", "max"), promote="all",
               inplace=True, aliases=("clip",)),
    _overloads("clamp_min", F.clamp_min, _tensors((1, "min")), {False: "ClampMinBackward0", True: "ClampMinBackward1"},
               arrays=("input", "min"), promote="all", inplace=True),
    _overloads("clamp_max", F.clamp_max, _tensors((1, "max")), {False: "ClampMaxBackward0", True: "ClampMaxBackward1"},
               arrays=("input", "max"), promote="all", inplace=True),
    _unary("nan_to_num", F.nan_to_num, to_float=False),
    _binary("maximum", F.maximum, inplace=False),
    _binary("minimum", F.minimum, inplace=False),
    _binary("fmax", F.fmax, inplace=False),
    _binary("fmin", F.fmin, inplace=False),
    # ---------------------------------------------------------------- predicates, comparisons, selection
    *(Op(n, getattr(F, n), differentiable=False) for n in ("isnan", "isinf", "isposinf", "isneginf", "isfinite",
                                                           "isreal")),
    _compare("eq", F.eq, "eq"),
    _compare("ne", F.ne, "ne", aliases=("not_equal",)),
    _compare("lt", F.lt, "lt", aliases=("less",)),
    _compare("le", F.le, "le", aliases=("less_equal",)),
    _compare("gt", F.gt, "gt", aliases=("greater",)),
    _compare("ge", F.ge, "ge", aliases=("greater_equal",)),
    Op("isclose", F.isclose, arrays=("input", "other"), differentiable=False),
    Op("allclose", F.allclose, arrays=("input", "other"), differentiable=False, post=bool),
    Op("equal", F.equal, arrays=("input", "other"), promote="all", differentiable=False, post=bool),
    _overloads("where", F.where, lambda args, kwargs: len(args) == 1 and not kwargs,
               {False: {}, True: dict(fn=_where_nonzero, arrays=("condition",), promote=(), jit=False,
                                      differentiable=False)},
               arrays=("condition", "input", "other"), promote=("input", "other"), method=False, check=_check_where),
    Op("where", _where_method, arrays=("input", "condition", "other"), promote=("input", "other"), function=False,
       grad_name="WhereBackward0", check=lambda vals: _check_where(vals, 1)),
    # ---------------------------------------------------------------- logical and bitwise
    *(Op(n, getattr(F, n), arrays=("input", "other"), inplace=True, differentiable=False)
      for n in ("logical_and", "logical_or", "logical_xor")),
    Op("logical_not", F.logical_not, inplace=True, differentiable=False),
    _binary("bitwise_and", F.bitwise_and, "and", differentiable=False),
    _binary("bitwise_or", F.bitwise_or, "or", differentiable=False),
    _binary("bitwise_xor", F.bitwise_xor, "xor", differentiable=False),
    _binary("bitwise_left_shift", F.bitwise_left_shift, "lshift", differentiable=False),
    _binary("bitwise_right_shift", F.bitwise_right_shift, "rshift", differentiable=False),
    Op("bitwise_not", F.bitwise_not, promote="all", inplace=True, differentiable=False),
    Op("bitwise_not", F.invert, function=False, method=False, dunders=("__invert__",), differentiable=False),
    # ---------------------------------------------------------------- complex numbers
    Op("real", F.real, method="property", saves=(), grad_name="SelectBackward0"),
    Op("imag", F.imag, method="property", saves=(), grad_name="SelectBackward0"),
    Op("conj", F.conj, saves=()),
    _unary("angle", F.angle, inplace=False),
    Op("polar", F.polar, arrays=("abs", "angle"), method=False),
    Op("complex", F.complex, arrays=("real", "imag"), method=False, saves=()),
    Op("view_as_real", F.view_as_real, method=False, saves=()),
    Op("view_as_complex", F.view_as_complex, method=False, saves=()),
    # ---------------------------------------------------------------- number representation
    _binary("gcd", F.gcd, differentiable=False),
    _binary("lcm", F.lcm, differentiable=False),
    _binary("ldexp", F.ldexp, to_float=True),
    Op("frexp", F.frexp, promote="all", out=("frexp", ("mantissa", "exponent"))),
    _binary("nextafter", F.nextafter, differentiable=False),
    Op("signbit", F.signbit, differentiable=False),
    Op("isin", F.isin, arrays=("elements", "test_elements"), promote="all", method=False, differentiable=False),
    # ---------------------------------------------------------------- torch.special
    _special("expit", _sigmoid, saves="result"),
    _special("logit", _logit),
    _special("erf", _erf),
    _special("erfc", _erfc),
    _special("erfinv", _erfinv),
    _special("exp2", _exp2, saves="result"),
    _special("expm1", _expm1, saves="result"),
    _special("log1p", _log1p),
    _special("sinc", _sinc),
    Op("xlogy", F.xlogy, arrays=("input", "other"), promote="all", to_float=True, method=False,
       module="torch.special", route=_xlogy.route),
    Op("round", F.round, promote="all", method=False, module="torch.special", route=_round.route),
]
