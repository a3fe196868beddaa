"""Pointwise math with torch's semantics: arithmetic, transcendental functions, rounding,
clamping, comparisons, logical and bitwise ops, and the complex-number helpers.

Inputs arrive already promoted to torch's result type (the facade casts them; ops whose
integer results become floats, such as `sqrt` or `/`, arrive as the default float dtype).
Ops over several arrays check broadcasting with torch's rule and message (`_broadcast`).
Gradients are JAX's, except at kinks and poles where torch defines them differently (abs at
0, pow at 0, atan2 at the origin, hypot at the origin, copysign at 0, logit outside [0, 1],
xlogy at 0, polar at abs 0, maximum/minimum at nan, clamp at its bounds and at nan, fmax/fmin
ties); those functions carry a `jax.custom_jvp` or a `where` form that gives torch's value.
Errors are torch's types and messages, raised at trace time from dtypes and shapes.
"""

import builtins
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._names import cpp_name, scalar_name

__all__ = [
    # arithmetic
    "add", "sub", "mul", "div", "rdiv", "floor_divide", "remainder", "fmod", "pow", "pow_number", "pow_kernel_exponent",
    "float_power",
    "neg", "abs", "sign", "sgn", "reciprocal", "square", "positive", "lerp", "addcmul", "addcdiv",
    # exponentials, logarithms, trigonometry
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "sigmoid", "logit",
    "sinc", "deg2rad", "rad2deg", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "heaviside",
    # rounding and clamping
    "floor", "ceil", "trunc", "round", "frac", "clamp", "clamp_min", "clamp_max", "nan_to_num",
    "maximum", "minimum", "fmax", "fmin",
    # predicates, comparisons, selection
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal", "eq", "ne", "lt", "le", "gt", "ge", "isclose",
    "allclose", "equal", "where",
    # logical and bitwise
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "invert", "bitwise_left_shift", "bitwise_right_shift",
    # complex numbers
    "real", "imag", "conj", "angle", "polar", "complex", "view_as_real", "view_as_complex",
    # number representation
    "gcd", "lcm", "ldexp", "frexp", "nextafter", "signbit", "isin",
]


def _name(x):
    return scalar_name(x.dtype)


def _unsupported(kernel, x):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")


def _is_bool(x):
    return x.dtype == jnp.bool_


def _is_int(x):
    """Integer or bool."""
    return x.dtype == jnp.bool_ or jnp.issubdtype(x.dtype, jnp.integer)


def _is_complex(x):
    return jnp.issubdtype(x.dtype, jnp.complexfloating)


def _refuse(kernel, x, *, bool=True, int=False, complex=False):
    """Raise torch's NotImplementedError for an input dtype the kernel does not cover."""
    if (bool and _is_bool(x)) or (int and _is_int(x)) or (complex and _is_complex(x)):
        raise _unsupported(kernel, x)


def _broadcast(*xs):
    """Check that the shapes of `xs` broadcast together, pairwise from the left like torch's
    `infer_size`; raise torch's RuntimeError naming the first mismatching dimension."""
    shape = None
    for x in xs:
        s = getattr(x, "shape", ())
        if shape is None or s == shape:
            shape = s
            continue
        n = max(len(shape), len(s))
        a, b = (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(s)) + tuple(s)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                   f"non-singleton dimension {i}")
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))


def _scalar_kind(v):
    """'b', 'i', 'f' or 'c': the kind of a Python scalar (or the array standing for it under jit)."""
    d = jnp.result_type(v)
    if d == jnp.bool_:
        return "b"
    if jnp.issubdtype(d, jnp.integer):
        return "i"
    return "c" if jnp.issubdtype(d, jnp.complexfloating) else "f"


def _alpha(alpha, dtype):
    """add/sub's alpha cast to `dtype`, refused like torch (no float alpha for integers, bool
    alpha only for bool results, no complex alpha for real results)."""
    k = _scalar_kind(alpha)
    if k == "b" and dtype != jnp.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if k in "fc" and not jnp.issubdtype(dtype, jnp.inexact):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if k == "c" and not jnp.issubdtype(dtype, jnp.complexfloating):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    return jnp.asarray(alpha, dtype)


def _value(value, dtype):
    """addcmul/addcdiv's value (or lerp's weight) cast to `dtype`; a float value truncates for
    integer inputs like torch's, a complex one is refused for real inputs."""
    if _scalar_kind(value) == "c" and not jnp.issubdtype(dtype, jnp.complexfloating):
        raise RuntimeError(f"value cannot be converted to type {cpp_name(dtype)} without overflow")
    return jnp.asarray(value).astype(dtype)


def _float(x):
    """x as an inexact array (ints and bools become float32, as functional's own default)."""
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


# ---------------------------------------------------------------------------- arithmetic

def add(input, other, *, alpha=1):
    """input + alpha * other (elementwise, broadcast). For bool inputs `+` is logical or."""
    _broadcast(input, other)
    if type(alpha) is int and alpha == 1:
        return input + other
    return input + other * _alpha(alpha, input.dtype)


def sub(input, other, *, alpha=1):
    """input - alpha * other (elementwise, broadcast). Bool operands are refused like torch."""
    _broadcast(input, other)
    if _is_bool(input):
        raise _sub_refusal(True, True)
    if type(alpha) is int and alpha == 1:
        return input - other
    return input - other * _alpha(alpha, input.dtype)


def _sub_refusal(input_bool, other_bool):
    """torch's error for subtraction with bool operands (the facade checks the dtypes before
    promotion, since bool - int promotes to int yet is refused)."""
    if input_bool and other_bool:
        return RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                            "Use the `^` or `logical_xor()` operator instead.")
    if input_bool or other_bool:
        return RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return None


def mul(input, other):
    """input * other (elementwise, broadcast). For bool inputs `*` is logical and."""
    _broadcast(input, other)
    return input * other


def true_divide_exact(input, other):
    """input / other by IEEE division, as torch's: XLA rewrites a division by a broadcast value (a scalar, a
    row) into a multiplication by its reciprocal, one ulp off in about 11% of the quotients, unless the
    divisor reaches the division through an optimization barrier (about 4% slower on 10^6 elements here)."""
    input, other = jnp.asarray(input), jnp.asarray(other)
    if other.shape != jnp.broadcast_shapes(input.shape, other.shape):
        # the divisor at the quotient's shape, by a select on the dividend rather than a broadcast: under vmap
        # it then carries the batch dimension too, where a broadcast would be broadcast again outside the barrier
        other = lax.optimization_barrier(jnp.where(input == input, other, other))
    return input / other


def div(input, other, *, rounding_mode=None):
    """input / other. rounding_mode None: true division (integer inputs arrive as floats);
    'trunc': rounded toward zero; 'floor': rounded down (Python's `//`). Rounded quotients of
    integers stay integers; their gradient is zero, like torch's."""
    _broadcast(input, other)
    if rounding_mode is None:
        return true_divide_exact(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    if rounding_mode == "floor":
        _refuse("div_floor_cpu", input, complex=True)
        if _is_int(input):
            return lax.stop_gradient(jnp.floor_divide(input, other))
        return lax.stop_gradient(_div_floor_float(input, other))
    _refuse("div_trunc_cpu", input, complex=True)
    if _is_int(input):
        input, other = jnp.broadcast_arrays(input, other)
        return lax.div(input, other)
    return lax.stop_gradient(jnp.trunc(input / other))


def rdiv(input, other, *, rounding_mode=None):
    """`number / tensor` (Tensor.__rtruediv__) as torch computes it: other.reciprocal() * input, rounded twice
    (hence its grad_fn, MulBackward0); a rounding mode divides as `div` does."""
    if rounding_mode is not None:
        return div(input, other, rounding_mode=rounding_mode)
    _broadcast(input, other)
    return reciprocal(other) * input


def _div_floor_float(a, b):
    """torch's (and Python's) float floor division: from fmod, so a zero quotient keeps the sign of a / b
    (-0.0 // 1.0 is -0.0), -1 // inf is -1 and inf // 2 is NaN; division by zero is a / b."""
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = jnp.floor(div)
    fl = jnp.where(div - fl > 0.5, fl + 1, fl)
    q = jnp.where(div != 0, fl, jnp.copysign(jnp.zeros_like(div), a / b))
    return jnp.where(b == 0, a / b, q)


def floor_divide(input, other):
    """input // other: the quotient rounded down (integers stay integers), like Python."""
    return div(input, other, rounding_mode="floor")


def remainder(input, other):
    """Python's modulus: input - floor(input / other) * other; the sign follows the divisor."""
    _broadcast(input, other)
    _refuse("remainder_cpu", input, complex=True)
    return jnp.remainder(input, other)


def fmod(input, other):
    """C's fmod: input - trunc(input / other) * other; the sign follows the dividend."""
    _broadcast(input, other)
    _refuse("fmod_cpu", input, complex=True)
    return jnp.fmod(input, other)


@jax.custom_jvp
def _pow(x, y):
    return jnp.power(x, y)


@_pow.defjvp
def _pow_jvp(primals, tangents):
    # torch: d/dx is 0 where the exponent is 0 (JAX gives nan at 0**0), and d/dy is 0 where
    # x == 0 and y >= 0, else out * log(x) (-inf at 0**negative, where JAX gives nan).
    x, y = primals
    tx, ty = tangents
    out = _pow(x, y)
    dx = jnp.where(y == 0, jnp.zeros((), out.dtype), y * jnp.power(x, y - 1))
    dy = jnp.where((x == 0) & (jnp.real(y) >= 0), jnp.zeros((), out.dtype), out * jnp.log(x))
    return out, dx * tx + dy * ty


@jax.custom_jvp
def _pow_number(x, y):
    # torch's scalar-exponent kernel: sqrt for 0.5 and rsqrt for -0.5 (so (-0.0) ** 0.5 is -0.0 and
    # (-inf) ** 0.5 is NaN, where std::pow gives 0.0 and inf), std::pow otherwise
    return jnp.where(y == 0.5, jnp.sqrt(x), jnp.where(y == -0.5, lax.rsqrt(x), jnp.power(x, y)))


@_pow_number.defjvp
def _pow_number_jvp(primals, tangents):
    # torch's PowBackward0: exponent * input ** (exponent - 1), that power by the same kernel (0 where exponent == 0)
    x, y = primals
    out = _pow_number(x, y)
    return out, jnp.where(y == 0, jnp.zeros((), out.dtype), y * _pow_number(x, y - 1)) * tangents[0]


# The exponents torch's CPU scalar-exponent kernel (pow_tensor_scalar_kernel) computes without std::pow, per float
# dtype: x * x, x * x * x, 1 / (x * x), 1 / x, sqrt(x), rsqrt(x). float16 takes std::pow except for 2 and -1.
POW_KERNELS = {np.dtype(jnp.float16): (2, -1)}
POW_KERNELS_DEFAULT = (2, 3, -2, -1, 0.5, -0.5)


def pow_kernel_exponent(dtype, exponent):
    """Whether torch computes float `dtype` ** Python number `exponent` by a kernel of its own (`POW_KERNELS`):
    then the exponent is part of the program (`pow_number` with a number), else it is data."""
    return type(exponent) in (int, float) and exponent in POW_KERNELS.get(np.dtype(dtype), POW_KERNELS_DEFAULT)


def _pow_kernel(x, y):
    """x ** y for a Python number y by torch's kernel for it: the products and quotients are exact where std::pow
    (jnp.power) is not (XLA's power(x, 3.0) differs from x * x * x in the last bit for about a quarter of floats)."""
    if y == 1:
        return x  # torch copies (the exponent of pow(x, 2)'s derivative)
    if y in (2, -1):
        return x * x if y == 2 else 1 / x
    if y in (3, -2) and x.dtype != jnp.float16:
        return x * x * x if y == 3 else 1 / (x * x)
    return jnp.sqrt(x) if y == 0.5 else lax.rsqrt(x) if y == -0.5 else jnp.power(x, y)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _pow_static(x, y):
    return _pow_kernel(x, y)


@_pow_static.defjvp
def _pow_static_jvp(y, primals, tangents):
    # torch's PowBackward0: exponent * input ** (exponent - 1), that power by the same kernels
    (x,), (t,) = primals, tangents
    return _pow_static(x, y), jnp.zeros_like(t) if y == 0 else (y * _pow_static(x, y - 1)) * t


def pow_number(input, exponent):
    """input ** exponent for a float tensor and a Python-number exponent, as torch's scalar overload computes
    it (pow(x, 0.5) is sqrt(x), pow(x, -0.5) is rsqrt(x)); other inputs as `pow`. For the table row of
    torch.pow(Tensor, Number); a 0-dim tensor exponent takes `pow`, as on torch. A Python number exponent
    (static: see `pow_kernel_exponent`) is computed by torch's kernel for it, a traced one by std::pow."""
    static = type(exponent) in (int, float)
    if _is_int(input) or _is_bool(input) or _is_complex(input) or not static and _is_complex(exponent):
        return pow(input, exponent)
    _broadcast(input, exponent)
    return _pow_static(input, exponent) if static else _pow_number(input, exponent)


def _pow_refusal():
    """torch's error for an integer tensor raised to a negative integer *number* (the facade checks
    the Python exponent before it is traced; a negative exponent tensor gives 0, 1 or -1 instead)."""
    return RuntimeError("Integers to negative integer powers are not allowed.")


def pow(input, exponent):
    """input ** exponent. Integer powers stay integers (a negative exponent gives 0 unless the
    base is 1 or -1); float and complex powers are differentiable in both arguments."""
    _broadcast(input, exponent)
    if _is_bool(input):
        raise _unsupported("pow", input)
    if _is_int(input):
        neg = exponent < 0
        pos = jnp.power(input, jnp.where(neg, 0, exponent))
        one = jnp.where(exponent % 2 == 0, 1, -1).astype(input.dtype)
        return jnp.where(neg, jnp.where(input == 1, 1, jnp.where(input == -1, one, 0)).astype(input.dtype), pos)
    return _pow(input, exponent)


def float_power(input, exponent):
    """input ** exponent computed in double precision (float64, or complex128 if either is complex)."""
    input, exponent = jnp.asarray(input), jnp.asarray(exponent)
    dt = jnp.complex128 if _is_complex(input) or _is_complex(exponent) else jnp.float64
    return pow(input.astype(dt), exponent.astype(dt))


def neg(input):
    """-input. Refused for bool (use logical_not)."""
    if _is_bool(input):
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return -input


def positive(input):
    """+input (the input itself). Refused for bool."""
    if _is_bool(input):
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


_abs.defjvp(lambda p, t: (jnp.abs(p[0]), sign(p[0]) * t[0]))  # torch: sign(x), so 0 at 0 and at NaN


def abs(input):
    """|input|; for complex input the (real) modulus. Integers stay integers."""
    _refuse("abs_cpu", input)
    if _is_complex(input) or _is_int(input):
        return jnp.abs(input)
    return _abs(input)


def sign(input):
    """-1, 0 or 1 by the sign of input (bool stays bool). Refused for complex (use sgn)."""
    if _is_complex(input):
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                  "Please use torch.sgn instead.")
    if _is_bool(input):
        return input
    # torch (CPU): sign(nan) is 0 and sign(-0.0) is 0.0, where jnp.sign gives nan and -0.0
    return (input > 0).astype(input.dtype) - (input < 0).astype(input.dtype)


def sgn(input):
    """sign(input) for real input; input / |input| (0 at 0) for complex input."""
    if not _is_complex(input):
        return sign(input)
    a = jnp.abs(input)
    zero = a == 0
    return jnp.where(zero, 0, input / jnp.where(zero, 1, a).astype(input.dtype))


@jax.custom_jvp
def reciprocal(input):
    """1 / input (integer inputs arrive as floats); its gradient is torch's, grad * -(result * result)."""
    return 1 / input


@reciprocal.defjvp
def _reciprocal_jvp(primals, tangents):
    r = reciprocal(*primals)
    return r, tangents[0] * -(r * r)


def square(input):
    """input * input; bool becomes int64, as torch's pow(input, 2)."""
    if _is_bool(input):
        input = input.astype(jnp.int64)
    return input * input


def lerp(input, end, weight):
    """input + weight * (end - input), computed from whichever end is nearer (torch's formula).
    weight: a number or a tensor of input's dtype; end must have input's dtype."""
    weight = jnp.asarray(weight)  # a Python number stays weakly typed: it takes input's dtype
    _broadcast(input, end, weight)
    _refuse("lerp_kernel_scalar", input, int=True)
    for what, x in (("end", end), ("weight", weight)):
        if x.dtype != input.dtype and not x.weak_type:
            raise RuntimeError(f"expected dtype {cpp_name(input.dtype)} for `{what}` but got dtype "
                               f"{cpp_name(x.dtype)}")
    weight = _value(weight, input.dtype)
    diff = end - input
    return jnp.where(jnp.abs(weight) < 0.5, input + weight * diff, end - diff * (1 - weight))


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    _broadcast(input, tensor1, tensor2)
    return input + _value(value, input.dtype) * tensor1 * tensor2


def _addcdiv_refusal():
    """torch's error for addcdiv of two integer tensors (checked by the facade before promotion)."""
    return RuntimeError(
        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
        "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
        "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
        "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
        "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2. Refused when both tensor1 and tensor2 are integers."""
    _broadcast(input, tensor1, tensor2)
    if _is_int(tensor1) and _is_int(tensor2):
        raise _addcdiv_refusal()
    return input + _value(value, input.dtype) * tensor1 / tensor2


# ---------------------------------------------------------------------------- exponentials, logs, trigonometry
# Integer and bool inputs of these arrive as the default float dtype.

def exp(input):
    """e ** input."""
    return jnp.exp(input)


def exp2(input):
    """2 ** input."""
    return jnp.exp2(input)


def expm1(input):
    """e ** input - 1, accurate near 0."""
    return jnp.expm1(input)


def log(input):
    """Natural logarithm."""
    return jnp.log(input)


def log2(input):
    """Base-2 logarithm."""
    return jnp.log2(input)


def log10(input):
    """Base-10 logarithm."""
    return jnp.log10(input)


def log1p(input):
    """log(1 + input), accurate near 0."""
    return jnp.log1p(input)


def sqrt(input):
    """Square root (gradient inf at 0, like torch)."""
    return jnp.sqrt(input)


def rsqrt(input):
    """1 / sqrt(input)."""
    return 1 / jnp.sqrt(input) if _is_complex(input) else lax.rsqrt(input)


def sin(input):
    """Sine."""
    return jnp.sin(input)


def cos(input):
    """Cosine."""
    return jnp.cos(input)


def tan(input):
    """Tangent."""
    return jnp.tan(input)


def asin(input):
    """Inverse sine."""
    return jnp.arcsin(input)


def acos(input):
    """Inverse cosine."""
    return jnp.arccos(input)


def atan(input):
    """Inverse tangent."""
    return jnp.arctan(input)


@jax.custom_jvp
def _atan2(y, x):
    return jnp.arctan2(y, x)


@_atan2.defjvp
def _atan2_jvp(primals, tangents):
    # torch: the gradient at the origin is 0 (1 / (x^2 + y^2) is taken as 0 where infinite).
    y, x = primals
    ty, tx = tangents
    r = 1 / (x * x + y * y)
    r = jnp.where(jnp.isinf(r), 0, r)
    return _atan2(y, x), (x * ty - y * tx) * r


def atan2(input, other):
    """The angle of the point (other, input): atan(input / other) in the right quadrant."""
    _broadcast(input, other)
    _refuse("atan2_cpu", input, complex=True)
    return _atan2(input, other)


def sinh(input):
    """Hyperbolic sine."""
    return jnp.sinh(input)


def cosh(input):
    """Hyperbolic cosine."""
    return jnp.cosh(input)


def tanh(input):
    """Hyperbolic tangent."""
    return jnp.tanh(input)


def asinh(input):
    """Inverse hyperbolic sine."""
    return jnp.arcsinh(input)


def acosh(input):
    """Inverse hyperbolic cosine."""
    return jnp.arccosh(input)


def atanh(input):
    """Inverse hyperbolic tangent."""
    return jnp.arctanh(input)


def erf(input):
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt."""
    _refuse("erf_vml_cpu", input, complex=True)
    return jax.scipy.special.erf(input)


def erfc(input):
    """1 - erf(input), accurate for large input."""
    _refuse("erfc_vml_cpu", input, complex=True)
    return jax.scipy.special.erfc(input)


def erfinv(input):
    """The inverse of erf on (-1, 1)."""
    _refuse("erfinv_vml_cpu", input, complex=True)
    return jax.scipy.special.erfinv(input)


def sigmoid(input):
    """1 / (1 + exp(-input)) (torch.special.expit)."""
    return lax.logistic(input)


@jax.custom_jvp
def _logit(x):
    return jnp.log(x / (1 - x))


@_logit.defjvp
def _logit_jvp(primals, tangents):
    # torch: nan outside [0, 1] (the formula would give a finite slope there).
    (x,), (t,) = primals, tangents
    d = 1 / (x * (1 - x))
    return _logit(x), jnp.where((x < 0) | (x > 1), jnp.nan, d) * t


def logit(input, eps=None):
    """log(input / (1 - input)); with eps, input is first clamped to [eps, 1 - eps] (the
    gradient is then 0 outside that interval)."""
    _refuse("logit_cpu", input, complex=True)
    if eps is not None:
        input = clamp(input, eps, 1 - eps)
    return _logit(input)


def sinc(input):
    """sin(pi * input) / (pi * input), 1 at 0."""
    return jnp.sinc(input)


def deg2rad(input):
    """Degrees to radians."""
    if _is_complex(input):
        raise RuntimeError("deg2rad is not supported for complex tensors.")
    return input * jnp.asarray(math.pi / 180, input.dtype)


def rad2deg(input):
    """Radians to degrees."""
    if _is_complex(input):
        raise RuntimeError("rad2deg is not supported for complex tensors.")
    return input * jnp.asarray(180 / math.pi, input.dtype)


@jax.custom_jvp
def _hypot(x, y):
    return jnp.hypot(x, y)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # torch: (x dx + y dy) / hypot, nan at the origin (JAX's gives 0.5).
    x, y = primals
    tx, ty = tangents
    out = _hypot(x, y)
    return out, (x * tx + y * ty) / out


def hypot(input, other):
    """sqrt(input^2 + other^2) without overflow."""
    _broadcast(input, other)
    _refuse("hypot_cpu", input, int=True, complex=True)
    return _hypot(input, other)


def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    _broadcast(input, other)
    _refuse("logaddexp_cpu", input, int=True)
    if _is_complex(input):
        hi = jnp.where(input.real >= other.real, input, other)
        lo = jnp.where(input.real >= other.real, other, input)
        return hi + jnp.log1p(jnp.exp(lo - hi))
    return jnp.logaddexp(input, other)


def logaddexp2(input, other):
    """log2(2 ** input + 2 ** other) without overflow."""
    _broadcast(input, other)
    _refuse("logaddexp2_cpu", input, int=True, complex=True)
    return jnp.logaddexp2(input, other)


@jax.custom_jvp
def _xlogy(x, y):
    return jnp.where(jnp.isnan(y), y, jnp.where(x == 0, jnp.zeros((), x.dtype), x * jnp.log(y)))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    # torch: d/dx is log(y), but 0 where x == 0 and y <= 0; d/dy is x / y.
    x, y = primals
    tx, ty = tangents
    dx = jnp.where((x == 0) & (y <= 0), jnp.zeros((), x.dtype), jnp.log(y))
    return _xlogy(x, y), dx * tx + x / y * ty


def xlogy(input, other):
    """input * log(other), taken as 0 where input is 0 (nan where other is nan)."""
    _broadcast(input, other)
    _refuse("xlogy_cpu", input, complex=True)
    return _xlogy(input, other)


def copysign(input, other):
    """|input| with the sign (bit) of other. The gradient to input is 0 at input == 0, like torch."""
    _broadcast(input, other)
    _refuse("copysign_cpu", input, complex=True)
    a = _abs(input)
    return jnp.where(jnp.signbit(other), -a, a)


def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0. Both need one dtype."""
    _broadcast(input, values)
    if _is_complex(input) or _is_complex(values):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    zero = jnp.zeros((), input.dtype)
    return jnp.where(input == 0, values, (input > zero).astype(input.dtype))


# ---------------------------------------------------------------------------- rounding and clamping

def _rounding(kernel, input):
    if _is_bool(input):
        raise _unsupported(f"{kernel}_vml_cpu", input)
    if _is_complex(input):
        raise NotImplementedError(f"{kernel} is not supported for complex inputs")


def floor(input):
    """Largest integer <= input (integers unchanged)."""
    _rounding("floor", input)
    return input if _is_int(input) else jnp.floor(input)


def ceil(input):
    """Smallest integer >= input (integers unchanged)."""
    _rounding("ceil", input)
    return input if _is_int(input) else jnp.ceil(input)


def trunc(input):
    """input rounded toward zero (integers unchanged)."""
    _rounding("trunc", input)
    return input if _is_int(input) else jnp.trunc(input)


def round(input, *, decimals=0):
    """input rounded to `decimals` decimal places, halves to even (integers unchanged)."""
    if _is_complex(input) or _is_bool(input):
        raise _unsupported("round_vml_cpu", input)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if _is_int(input):
        if decimals:
            raise _unsupported("round_cpu", input)
        return input
    if decimals == 0:
        return jnp.round(input)
    # torch's formula: scale by a power of ten (divide for negative decimals), round, scale back
    f = jnp.asarray(10.0 ** builtins.abs(decimals), input.dtype)
    return jnp.round(input * f) / f if decimals > 0 else jnp.round(input / f) * f



def frac(input):
    """input - trunc(input)."""
    _refuse("frac_cpu", input, int=True, complex=True)
    return input - jnp.trunc(input)


def clamp(input, min=None, max=None):
    """input limited to [min, max] (min and max: numbers or tensors, either may be None; where
    min > max the result is max; a nan anywhere gives nan). Gradients follow torch: input's
    passes where min <= input <= max, bounds included; min's where input < min < max; max's
    where input > max or max < min; none where a nan is involved."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if _is_complex(input):
        raise NotImplementedError("clamp is not supported for complex types")
    _broadcast(input, *(b for b in (min, max) if b is not None))
    if max is None:
        picks, rest = [(input >= min, input), (input < min, min)], jnp.maximum(input, min)
    elif min is None:
        picks, rest = [(input <= max, input), (input > max, max)], jnp.minimum(input, max)
    else:
        picks = [((input >= min) & (input <= max), input), ((input < min) & (min < max), min),
                 ((input > max) | (max < min), max)]
        rest = jnp.minimum(jnp.maximum(input, min), max)
    out = lax.stop_gradient(rest)  # a nan anywhere, or min == max > input: no gradient at all
    for cond, value in reversed(picks):
        out = jnp.where(cond, value, out)
    return out.astype(input.dtype)


def clamp_min(input, min):
    """input limited to >= min."""
    return clamp(input, min, None)


def clamp_max(input, max):
    """input limited to <= max."""
    return clamp(input, None, max)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default the largest and
    smallest finite values of the dtype). Integers unchanged."""
    if _is_int(input):
        return input
    return jnp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


def _extreme_jvp(out, x, y, tx, ty, x_wins):
    # torch: ties split the gradient evenly; where the two are unordered (nan) both get all of it.
    half = jnp.asarray(0.5, out.dtype)
    gx = jnp.where(x == y, half, jnp.where(x_wins(y, x), 0, 1).astype(out.dtype))
    gy = jnp.where(x == y, half, jnp.where(x_wins(x, y), 0, 1).astype(out.dtype))
    return out, gx * tx + gy * ty


@jax.custom_jvp
def _maximum(x, y):
    return jnp.maximum(x, y)


_maximum.defjvp(lambda p, t: _extreme_jvp(_maximum(*p), *p, *t, jnp.greater))


@jax.custom_jvp
def _minimum(x, y):
    return jnp.minimum(x, y)


_minimum.defjvp(lambda p, t: _extreme_jvp(_minimum(*p), *p, *t, jnp.less))


def maximum(input, other):
    """Elementwise max; nan propagates. Gradient: split evenly at ties, to both where nan."""
    _broadcast(input, other)
    if _is_complex(input):
        raise RuntimeError("maximum not implemented for complex tensors.")
    return _maximum(input, other)


def minimum(input, other):
    """Elementwise min; nan propagates. Gradient: split evenly at ties, to both where nan."""
    _broadcast(input, other)
    if _is_complex(input):
        raise RuntimeError("minimum not implemented for complex tensors.")
    return _minimum(input, other)


def fmax(input, other):
    """Elementwise max ignoring nan (nan only where both are nan); ties give input the gradient."""
    _broadcast(input, other)
    if _is_complex(input):
        raise RuntimeError("fmax not implemented for complex tensors.")
    return jnp.where((input >= other) | jnp.isnan(other), input, other)


def fmin(input, other):
    """Elementwise min ignoring nan (nan only where both are nan); ties give input the gradient."""
    _broadcast(input, other)
    if _is_complex(input):
        raise RuntimeError("fmin not implemented for complex tensors.")
    return jnp.where((input <= other) | jnp.isnan(other), input, other)


# ---------------------------------------------------------------------------- predicates and comparisons

def isnan(input):
    """True where input is nan."""
    return jnp.isnan(input)


def isinf(input):
    """True where input is +inf or -inf."""
    return jnp.isinf(input)


def isposinf(input):
    """True where input is +inf."""
    if _is_complex(input):
        raise RuntimeError("isposinf does not support complex inputs.")
    return jnp.isposinf(input)


def isneginf(input):
    """True where input is -inf."""
    if _is_complex(input):
        raise RuntimeError("isneginf does not support complex inputs.")
    return jnp.isneginf(input)


def isfinite(input):
    """True where input is neither nan nor infinite."""
    return jnp.isfinite(input)


def isreal(input):
    """True where input has no imaginary part."""
    return input.imag == 0 if _is_complex(input) else jnp.ones(input.shape, jnp.bool_)


def _compare(kernel, fn, ordered):
    def compare(input, other):
        if other is None and not ordered:  # `tensor == None` is False, `tensor != None` True
            return jnp.asarray(kernel == "ne")
        _broadcast(input, other)
        if ordered:
            _refuse(f"{kernel}_cpu", input, bool=False, complex=True)
        return fn(input, other)

    compare.__name__ = compare.__qualname__ = kernel
    symbol = dict(eq="==", ne="!=", lt="<", le="<=", gt=">", ge=">=")[kernel]
    compare.__doc__ = f"input {symbol} other, elementwise (bool result)."
    return compare


eq = _compare("eq", jnp.equal, False)
ne = _compare("ne", jnp.not_equal, False)
lt = _compare("lt", jnp.less, True)
le = _compare("le", jnp.less_equal, True)
gt = _compare("gt", jnp.greater, True)
ge = _compare("ge", jnp.greater_equal, True)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other| (or equal, or both nan with equal_nan). The
    two must share a dtype."""
    _broadcast(input, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_name(input)} did not match {_name(other)}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not tol >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol}")
    close = input == other
    if _is_bool(input):
        return close
    if equal_nan and not _is_int(input):
        close = close | (jnp.isnan(input) & jnp.isnan(other))
    if rtol == 0 and atol == 0:
        return close
    ref = _float(other) if _is_int(other) else other
    err = jnp.abs(input - other)
    return close | (jnp.isfinite(err) & (err <= atol + jnp.abs(rtol * ref)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose everywhere (a 0-dim bool array; torch.allclose returns it as a Python bool)."""
    return jnp.all(isclose(input, other, rtol, atol, equal_nan))


def equal(input, other):
    """True if input and other have the same shape and elements (no broadcasting)."""
    if input.shape != other.shape:
        return jnp.asarray(False)
    return jnp.all(input == other)


def where(condition, input, other):
    """input where condition is True, else other (all three broadcast). condition: bool
    (uint8 is accepted with torch's deprecation warning)."""
    _broadcast(condition, input, other)
    if condition.dtype == jnp.uint8:
        condition = condition.astype(jnp.bool_)
    elif not _is_bool(condition):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_name(condition)}")
    return jnp.where(condition, input, other)


# ---------------------------------------------------------------------------- logical and bitwise

def _truth(x):
    return x if _is_bool(x) else x != 0


def logical_and(input, other):
    """input and other, elementwise, by truth value (bool result)."""
    _broadcast(input, other)
    return _truth(input) & _truth(other)


def logical_or(input, other):
    """input or other, elementwise, by truth value (bool result)."""
    _broadcast(input, other)
    return _truth(input) | _truth(other)


def logical_xor(input, other):
    """input xor other, elementwise, by truth value (bool result)."""
    _broadcast(input, other)
    return _truth(input) ^ _truth(other)


def logical_not(input):
    """not input, elementwise, by truth value (bool result)."""
    return ~_truth(input)


def _bitwise(kernel, fn, bools=True):
    def op(input, other):
        _broadcast(input, other)
        _refuse(f"{kernel}_cpu", input, bool=not bools)
        if not jnp.issubdtype(input.dtype, jnp.integer) and not _is_bool(input):
            raise _unsupported(f"{kernel}_cpu", input)
        return fn(input, other)

    return op


def bitwise_and(input, other):
    """input & other on integers and bools."""
    return _bitwise("bitwise_and", jnp.bitwise_and)(input, other)


def bitwise_or(input, other):
    """input | other on integers and bools."""
    return _bitwise("bitwise_or", jnp.bitwise_or)(input, other)


def bitwise_xor(input, other):
    """input ^ other on integers and bools."""
    return _bitwise("bitwise_xor", jnp.bitwise_xor)(input, other)


def bitwise_left_shift(input, other):
    """input << other on integers (shifts of the bit width or more give 0)."""
    return _bitwise("lshift", jnp.left_shift, bools=False)(input, other)


def bitwise_right_shift(input, other):
    """input >> other on integers (arithmetic for signed types)."""
    return _bitwise("rshift", jnp.right_shift, bools=False)(input, other)


def bitwise_not(input):
    """~input on integers and bools (logical not for bools)."""
    if not _is_int(input):
        raise _unsupported("bitwise_not_cpu", input)
    return jnp.invert(input)


def invert(input):
    """The `~` operator: bitwise_not, refusing other dtypes with TypeError like torch's `~`."""
    if not _is_int(input):
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return jnp.invert(input)


# ---------------------------------------------------------------------------- complex numbers

def real(input):
    """The real part (input itself for real dtypes)."""
    return input.real if _is_complex(input) else input


def imag(input):
    """The imaginary part (complex input only)."""
    if not _is_complex(input):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return input.imag


def conj(input):
    """The complex conjugate (input itself for real dtypes)."""
    return jnp.conj(input) if _is_complex(input) else input


def angle(input):
    """The argument of a complex number; for real input pi where negative, else 0 (nan kept),
    with a zero gradient like torch."""
    if _is_complex(input):
        return jnp.angle(input)
    x = lax.stop_gradient(input)
    return jnp.where(x < 0, jnp.asarray(math.pi, x.dtype), jnp.where(jnp.isnan(x), x, jnp.zeros((), x.dtype)))


def _complex_parts(a, b):
    """torch's checks for the float pair that makes a complex number (complex, polar)."""
    ok = (np.dtype(jnp.float16), np.dtype(jnp.float32), np.dtype(jnp.float64))
    if np.dtype(a.dtype) not in ok or np.dtype(b.dtype) not in ok:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_name(a)} and "
                           f"{_name(b)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_name(a)} but got scalar type {_name(b)} for second "
                           "argument")
    _broadcast(a, b)
    if a.dtype == jnp.float16:
        raise NotImplementedError("ComplexHalf is not supported")
    return jnp.complex128 if a.dtype == jnp.float64 else jnp.complex64


def complex(real, imag):
    """real + 1j * imag, from two float tensors of one dtype."""
    dt = _complex_parts(real, imag)
    return lax.complex(*jnp.broadcast_arrays(real, imag)).astype(dt)


@jax.custom_jvp
def _polar(abs, angle):
    return lax.complex(abs * jnp.cos(angle), abs * jnp.sin(angle))


# torch: d out = sgn(out) d abs + i out d angle (so the gradient to abs is 0 where abs is 0)
_polar.defjvp(lambda p, t: (lambda out: (out, sgn(out) * t[0] + 1j * out * t[1]))(_polar(*p)))


def polar(abs, angle):
    """abs * (cos(angle) + 1j * sin(angle)), from two float tensors of one dtype."""
    _complex_parts(abs, angle)
    return _polar(*jnp.broadcast_arrays(abs, angle))


def view_as_real(input):
    """A complex tensor as real pairs: shape (..., 2) holding (real, imag)."""
    if not _is_complex(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return jnp.stack([input.real, input.imag], axis=-1)


def view_as_complex(input):
    """Real pairs (..., 2) as complex numbers (...)."""
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if np.dtype(input.dtype) not in (np.dtype(jnp.float32), np.dtype(jnp.float64)):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {_name(input)}")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return lax.complex(input[..., 0], input[..., 1])



# ---------------------------------------------------------------------------- number representation

def gcd(input, other):
    """Greatest common divisor of integers (non-negative; gcd(0, 0) = 0)."""
    _broadcast(input, other)
    _refuse("gcd_cpu", input, complex=True)
    if not _is_int(input):
        raise _unsupported("gcd_cpu", input)
    return jnp.gcd(input, other)


def lcm(input, other):
    """Least common multiple of integers (non-negative; 0 where either is 0)."""
    _broadcast(input, other)
    _refuse("lcm_cpu", input, complex=True)
    if not _is_int(input):
        raise _unsupported("lcm_cpu", input)
    return jnp.lcm(input, other)


def ldexp(input, other):
    """input * 2**other (inputs arrive promoted to a floating or complex dtype)."""
    _broadcast(input, other)
    return input * jnp.exp2(other.real if _is_complex(other) else other)


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1); exponent int32.
    The mantissa is input / 2**exponent, so its gradient is 2**-exponent, as torch's."""
    if _is_int(input) or _is_complex(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    _, e = jnp.frexp(lax.stop_gradient(input))
    e = e.astype(jnp.int32)
    return input / jnp.exp2(e.astype(input.dtype)), e


def nextafter(input, other):
    """The next floating-point value after input in the direction of other."""
    _broadcast(input, other)
    _refuse("nextafter_cpu", input, int=True, complex=True)
    return jnp.nextafter(input, other)


def signbit(input):
    """True where the sign bit is set (-0.0 included); integers: input < 0."""
    if _is_complex(input):
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return input < 0 if _is_int(input) else jnp.signbit(input)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (False there if invert)."""
    found = jnp.isin(elements, jnp.ravel(test_elements))
    return ~found if invert else found
