"""Activation functions with torch.nn.functional's semantics.

Gradients at the kinks follow torch's conventions, which the `where` forms below give directly:
relu'(0) = 0, leaky_relu'(0) = negative_slope, hardtanh/relu6/hardsigmoid are flat at their bounds,
hardswish'(-3) = 0 and hardswish'(3) = 1, elu'(0) = alpha, hardshrink/softshrink are flat on
[-lambd, lambd]. Branches that are not taken are evaluated on clamped inputs so that their
(discarded) gradients stay finite.
"""

import jax
import jax.numpy as jnp

from ..core import prng_key
from ..pointwise import _name
from ..shape import _dim

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "prelu", "rrelu", "glu", "gelu", "silu", "mish",
    "logsigmoid", "hardtanh", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink", "softsign",
    "softplus", "threshold", "softmax", "log_softmax", "gumbel_softmax",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _floats(kernel, x):
    """torch's refusal of integer and bool inputs by kernels that only cover floating types."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")


def _no_bool(fn, x, word="Boolean"):
    if x.dtype == jnp.bool_:
        raise RuntimeError(f"{word} inputs not supported for {fn}")


def _c(x, v):
    return jnp.asarray(v, x.dtype)


def relu(input):
    """max(input, 0) like torch's clamp_min: NaN and -0.0 pass through; integer inputs stay integer.
    relu'(0) = 0, relu'(nan) = 1."""
    _no_bool("relu", input)
    return _relu(input)


@jax.custom_jvp
def _relu(x):
    return jnp.where(x < 0, _c(x, 0), x)  # NaN and -0.0 are not < 0: they pass through


@_relu.defjvp
def _relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _relu(x), jnp.where(x <= 0, jnp.zeros_like(t), t)  # 0 at and below 0; NaN's is 1, as torch's


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """input clamped to [min_val, max_val] (NaN and a zero equal to a bound pass through, as in torch's
    clamp); the gradient is 0 at and beyond the bounds."""
    _no_bool("hardtanh", input, "Bool")
    lo, hi = _c(input, min_val), _c(input, max_val)
    at = (input == lo) | (input == hi)
    inside = jnp.where(at, jax.lax.stop_gradient(input), input)
    return jnp.where(input < lo, lo, jnp.where(input > hi, hi, inside))


def relu6(input):
    """hardtanh(input, 0, 6)."""
    return hardtanh(input, 0.0, 6.0)


def leaky_relu(input, negative_slope=0.01):
    """input where input > 0, else negative_slope * input."""
    _floats("leaky_relu_cpu", input)
    return jnp.where(input > 0, input, input * _c(input, negative_slope))


def _elu(x, alpha, scale, input_scale):
    # torch's elu kernel: scale * (x <= 0 ? alpha * (exp(x * input_scale) - 1) : x), so NaN takes the x branch
    pos = (x > 0) | jnp.isnan(x)
    neg = _c(x, alpha) * jnp.expm1(jnp.where(pos, _c(x, 0), x) * _c(x, input_scale))
    return _c(x, scale) * jnp.where(pos, x, neg)


def elu(input, alpha=1.0):
    """input where input > 0, else alpha * (exp(input) - 1)."""
    _floats("elu_cpu", input)
    return _elu(input, alpha, 1.0, 1.0)


def selu(input):
    """scale * elu(input, alpha) with the self-normalising constants (alpha 1.6733, scale 1.0507)."""
    _floats("elu_cpu", input)
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floats("elu_cpu", input)
    return _elu(input, alpha, 1.0, 1.0 / alpha)


def prelu(input, weight):
    """input where input > 0, else weight * input; `weight` has 1 element or one per channel (dim 1)."""
    if input.dtype != weight.dtype:
        if not jnp.issubdtype(input.dtype, jnp.inexact):
            _floats("prelu_cpu", input)
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_name(input)} and {_name(weight)}")
    _floats("prelu_cpu", input)
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.size != 1 and weight.size != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.size} and channel size = {channels}.")
    w = weight.reshape(()) if weight.size == 1 else weight.reshape((channels,) + (1,) * max(input.ndim - 2, 0))
    # both branches masked, so an inf/NaN weight does not leak 0 * inf = NaN into the other branch's gradient
    pos = input > 0
    return jnp.where(pos, input, jnp.where(pos, _c(input, 0), w) * jnp.where(pos, _c(input, 0), input))


def rrelu(input, key=None, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """Randomized leaky relu: in training the slope of each non-positive element is drawn from
    U(lower, upper) with the PRNG `key` (see `prng_key`); in eval it is (lower + upper) / 2."""
    _floats("leaky_relu_cpu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return jnp.where(input > 0, input, input * _c(input, (lower + upper) / 2))
    wide = jnp.float64 if input.dtype == jnp.float64 else jnp.float32
    r = jax.random.uniform(prng_key(key), input.shape, wide, lower, upper).astype(input.dtype)
    return jnp.where(input > 0, input, input * r)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of `input` along `dim`."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    _floats("glu_cpu", input)
    a, b = jnp.split(input, 2, axis=d)
    return a * jax.nn.sigmoid(b)


def gelu(input, approximate="none"):
    """x * Phi(x) (Phi the standard normal CDF); approximate='tanh' uses
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floats("GeluKernelImpl", input)
    return jax.nn.gelu(input, approximate=approximate == "tanh")


def silu(input):
    """x * sigmoid(x) (swish)."""
    _floats("silu_cpu", input)
    return input * jax.nn.sigmoid(input)


def mish(input):
    """x * tanh(softplus(x))."""
    _floats("mish_cpu", input)
    return input * jnp.tanh(jax.nn.softplus(input))


def logsigmoid(input):
    """log(1 / (1 + exp(-x))), computed stably as -softplus(-x)."""
    _floats("log_sigmoid_cpu", input)
    return jax.nn.log_sigmoid(input)


def hardsigmoid(input):
    """relu6(x + 3) / 6; the gradient is 0 at and beyond x = -3 and x = 3."""
    _floats("hardsigmoid_cpu", input)
    return jnp.where(input <= -3, _c(input, 0), jnp.where(input >= 3, _c(input, 1), input / 6 + _c(input, 0.5)))


def hardswish(input):
    """x * relu6(x + 3) / 6; hardswish'(-3) = 0, hardswish'(3) = 1."""
    _floats("hardswish_cpu", input)
    return jnp.where(input <= -3, _c(input, 0), jnp.where(input >= 3, input, input * (input + 3) / 6))


def _lambd(input, lambd):
    _floats("softshrink_check", input)
    if lambd < 0:
        mx = float(jnp.finfo(input.dtype).max)
        raise RuntimeError(f"lambda must be in range [0, {mx:g}] for input dtype {_name(input)}, but found {lambd:g}")


def hardshrink(input, lambd=0.5):
    """0 on [-lambd, lambd], x elsewhere."""
    _floats("hardshrink_cpu", input)
    return jnp.where((input >= -lambd) & (input <= lambd), _c(input, 0), input)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    _lambd(input, lambd)
    l_ = _c(input, lambd)
    # NaN passes through; a zero result is +0.0 (torch's vectorized loop; its scalar tail gives x * 0)
    mid = jnp.where(jnp.isnan(input), input, _c(input, 0))
    return jnp.where(input > l_, input - l_, jnp.where(input < -l_, input + l_, mid))


def tanhshrink(input):
    """x - tanh(x)."""
    if input.dtype == jnp.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return input - jnp.tanh(input)


def softsign(input):
    """x / (1 + |x|)."""
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return input / (jnp.abs(input) + 1)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    _floats("softplus_cpu", input)
    bx = input * _c(input, beta)
    soft = jnp.log1p(jnp.exp(jnp.where(bx > threshold, _c(input, 0), bx))) / _c(input, beta)
    return jnp.where(bx > threshold, input, soft)


def threshold(input, threshold, value):
    """x where x > threshold or x is NaN, else value; integer inputs stay integer."""
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return jnp.where((input > _c(input, threshold)) | jnp.isnan(input), input, _c(input, value))


def _softmax_prep(kernel, input, dim, dtype):
    if dtype is not None:
        input = input.astype(dtype)
    d = _dim(dim, input.ndim)
    if not jnp.issubdtype(input.dtype, jnp.floating):
        last = "lastdim_" if d == input.ndim - 1 or input.ndim == 0 else ""
        raise NotImplementedError(f"\"{kernel}_{last}kernel_impl\" not implemented for '{_name(input)}'")
    return input, d


def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along `dim` (after casting to `dtype` when given)."""
    x, d = _softmax_prep("softmax", input, dim, dtype)
    if x.ndim == 0:
        return jnp.ones_like(x)
    return jax.nn.softmax(x, axis=d)


def log_softmax(input, dim, dtype=None):
    """x - logsumexp(x) along `dim` (after casting to `dtype` when given)."""
    x, d = _softmax_prep("log_softmax", input, dim, dtype)
    if x.ndim == 0:
        return jnp.zeros_like(x)
    return jax.nn.log_softmax(x, axis=d)


def gumbel_softmax(logits, key, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn with the PRNG `key`; `hard` returns the
    one-hot of its argmax, with the soft sample's gradient (straight-through)."""
    wide = jnp.float64 if logits.dtype == jnp.float64 else jnp.float32
    gumbels = -jnp.log(jax.random.exponential(prng_key(key), logits.shape, wide)).astype(logits.dtype)
    y = softmax((logits + gumbels) / _c(logits, tau), dim)
    if not hard:
        return y
    d = _dim(dim, logits.ndim)
    index = jnp.argmax(y, axis=d, keepdims=True)
    y_hard = (jnp.arange(y.shape[d]).reshape((-1,) + (1,) * (y.ndim - d - 1)) == index).astype(y.dtype)
    return y_hard - jax.lax.stop_gradient(y) + y

