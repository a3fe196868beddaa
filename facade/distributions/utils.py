"""torch.distributions.utils: broadcasting, logits/probs conversions, lazy_property, tril packing, and the
random draws the distributions share (standard normal, and the standard gamma with its reparameterised
gradient)."""

from __future__ import annotations

import numbers
from functools import update_wrapper

import jax
import jax.numpy as jnp

import facade as torch
from functional.core import prng_key

from .._dispatch import Op, call
from .._random import next_key

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """Broadcast Tensors and numbers together; numbers take the first Tensor's dtype and device (or the
    default dtype when there is no Tensor)."""
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, torch.Tensor) for v in values):
        first = next((v for v in values if isinstance(v, torch.Tensor)), None)
        options = (dict(dtype=torch.get_default_dtype()) if first is None
                   else dict(dtype=first.dtype, device=first.device))
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, **options) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return torch.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dimensions of `value`."""
    return value if dim == 0 else value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    return torch.sigmoid(logits) if is_binary else torch.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp probabilities into [eps, 1 - eps] of their dtype."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    return torch.log(ps) - torch.log1p(-ps) if is_binary else torch.log(ps)


class lazy_property:
    """A non-data descriptor computing the value on first access (under enable_grad) and caching it on the
    instance; Distribution's argument validation skips lazy parameters not yet computed."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    arange = torch.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries of a (batch of) D x D matrix, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a (batch of) lower-triangular D x D matrix from its entries."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


def _gamma_fn(alpha, key):
    """Gamma(alpha, 1) samples (jax.random.gamma; its gradient in alpha is the implicit reparameterisation
    gradient, as torch's _standard_gamma_grad)."""
    wide = jnp.float64 if alpha.dtype == jnp.float64 else jnp.float32
    return jax.random.gamma(prng_key(key), alpha.astype(wide)).astype(alpha.dtype)


_STANDARD_GAMMA = Op("_standard_gamma", _gamma_fn, arrays=("alpha", "key"), function=False, method=False,
                     grad_name="StandardGammaBackward0")


def _standard_gamma(alpha, generator=None):
    """torch._standard_gamma: one Gamma(alpha, 1) draw per entry of `alpha`, differentiable in alpha."""
    return call(_STANDARD_GAMMA, (alpha, next_key(generator, alpha.device)), None)
