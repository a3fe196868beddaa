"""Dropout, embedding, one_hot, normalize and distances with torch.nn.functional's semantics.

Random ops take a PRNG `key` argument (0-dim int64 key data, see `functional.prng_key`).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..core import prng_key
from ..linalg import _broadcast, _float_input, _vnorm
from ..pointwise import _name
from ..shape import _dim

__all__ = [
    "dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "embedding", "embedding_renorm",
    "embedding_bag", "one_hot", "normalize", "cosine_similarity", "pairwise_distance", "pdist",
]

_SELU_ALPHA_PRIME = 1.7580993408473766  # -selu_scale * selu_alpha: where SELU saturates


def _check_p(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, key, p, train, feature, alpha):
    """torch's _dropout_impl: keep with probability 1 - p and rescale (alpha: keep SELU's mean and variance)."""
    _check_p(p)
    if p == 0 or not train or input.size == 0:
        return input
    if p == 1:
        return input * jnp.zeros((), input.dtype)
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = input.shape[:2] + (1,) * (input.ndim - 2)
    else:
        shape = input.shape
    noise = jax.random.bernoulli(prng_key(key), 1 - p, shape).astype(input.dtype)
    if not alpha:
        return input * (noise / jnp.asarray(1 - p, input.dtype))
    a = 1 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = (noise - 1) * jnp.asarray(_SELU_ALPHA_PRIME * a, input.dtype) + jnp.asarray(_SELU_ALPHA_PRIME * a * p,
                                                                                     input.dtype)
    return input * (noise * jnp.asarray(a, input.dtype)) + b


def dropout(input, key=None, p=0.5, train=True):
    """Zero each element with probability p (PRNG `key`) and scale the rest by 1 / (1 - p);
    the identity when not `train`."""
    return _dropout(input, key, p, train, False, False)


def feature_dropout(input, key=None, p=0.5, train=True):
    """dropout of whole channels: one draw per (N, C) entry of an (N, C, *) input."""
    return _dropout(input, key, p, train, True, False)


def alpha_dropout(input, key=None, p=0.5, train=False):
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation value and an
    affine map keeps the mean and variance of the input."""
    return _dropout(input, key, p, train, False, True)


def feature_alpha_dropout(input, key=None, p=0.5, train=False):
    """alpha_dropout of whole channels."""
    return _dropout(input, key, p, train, True, True)


# ---------------------------------------------------------------------------- embedding

@jax.custom_jvp
def _scale_grad(x, scale):
    """x, with its gradient multiplied by `scale` (torch's scale_grad_by_freq)."""
    return x


@_scale_grad.defjvp
def _scale_grad_jvp(primals, tangents):
    (x, scale), (t, _) = primals, tangents
    return x, t * scale


def _check_indices(indices, fn="embedding"):
    if indices.dtype not in (jnp.int64, jnp.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_name(indices)}Tensor instead (while checking arguments for "
                           f"{fn})")


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` (num_embeddings, embedding_dim) at `indices` (any shape) -> indices.shape + (dim,).
    Lookups of row `padding_idx` (>= 0) pass no gradient to it; `scale_grad_by_freq` divides each
    row's gradient by the number of times it occurs in `indices`."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices)
    if scale_grad_by_freq:
        counts = jnp.zeros(weight.shape[0], weight.dtype).at[indices].add(1)
        w = _scale_grad(weight[indices], (1 / counts[indices])[..., None])
    else:
        w = weight[indices]
    if padding_idx is not None and padding_idx >= 0:
        w = jnp.where((indices == padding_idx)[..., None], jax.lax.stop_gradient(w), w)
    return w


def embedding_renorm(weight, indices, max_norm, norm_type=2.0):
    """`weight` with each row that `indices` selects rescaled to p-norm `max_norm` where its norm
    exceeds it (torch's embedding_renorm_, which writes the result into weight in place)."""
    norm = _vnorm(weight, float(norm_type), (1,), True, False)
    used = jnp.zeros((weight.shape[0], 1), bool).at[indices.reshape(-1)].set(True)
    scale = jnp.asarray(max_norm, norm.dtype) / (norm + jnp.asarray(1e-7, norm.dtype))
    return jnp.where(used & (norm > max_norm), weight * scale, weight)


def embedding_bag(weight, input, offsets=None, mode="mean", per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of `weight` rows: a 2-D `input` (B, N) is B bags of N indices;
    a 1-D `input` is cut into bags starting at `offsets` (include_last_offset: its last entry
    ends the last bag). `per_sample_weights` (input's shape, mode 'sum') scale each row; indices
    equal to `padding_idx` are left out. Empty bags give zeros."""
    _check_indices(input, "embedding_bag")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "the Pytorch GitHub.")
    if input.ndim == 2:
        b, n = input.shape
        flat = input.reshape(-1)
        bag = jnp.repeat(jnp.arange(b), n)
        nbags = b
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    else:
        flat, psw = input, per_sample_weights
        nbags = offsets.shape[0] - (1 if include_last_offset else 0)
        pos = jnp.arange(flat.shape[0])
        bag = jnp.searchsorted(offsets[:nbags], pos, side="right") - 1
        if include_last_offset:
            bag = jnp.where(pos < offsets[-1], bag, nbags)  # past the last offset: no bag
    keep = bag >= 0
    if padding_idx is not None:
        keep = keep & (flat != padding_idx)
    rows = weight[flat]
    if psw is not None:
        rows = rows * psw[:, None]
    seg = jnp.where(keep, bag, nbags)  # dropped entries go to a discarded extra segment
    if mode == "max":
        out = jax.ops.segment_max(rows, seg, nbags + 1)[:nbags]
        counts = jax.ops.segment_sum(keep.astype(jnp.int32), seg, nbags + 1)[:nbags]
        return jnp.where(counts[:, None] > 0, out, 0)
    out = jax.ops.segment_sum(rows, seg, nbags + 1)[:nbags]
    if mode == "mean":
        counts = jax.ops.segment_sum(keep.astype(weight.dtype), seg, nbags + 1)[:nbags]
        out = out / jnp.maximum(counts, 1)[:, None]
    return out


# ---------------------------------------------------------------------------- one_hot, normalize, distances

def one_hot(tensor, num_classes):
    """(*, ) int64 class indices -> (*, num_classes) int64 one-hot rows. The values must lie in
    [0, num_classes); facade checks that (and infers num_classes=-1) on concrete values."""
    if tensor.dtype != jnp.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    return (tensor[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


def _clamp_min(x, eps):
    # torch's clamp_min gradient: passes where x >= eps
    return jnp.where(x >= eps, x, jnp.asarray(eps, x.dtype))


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    _float_input(input, "linalg.vector_norm")
    x = input.reshape(1) if input.ndim == 0 else input
    norm = _vnorm(x, float(p), (_dim(dim, input.ndim),), True, False)
    return (x / _clamp_min(norm, eps)).reshape(input.shape)


def _common_float(x1, x2):
    dt = jnp.promote_types(x1.dtype, x2.dtype)
    if not jnp.issubdtype(dt, jnp.inexact):
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_name(x1.astype(dt))}")
    return x1.astype(dt), x2.astype(dt)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along `dim`, after broadcasting. The
    clamp to eps is outside autograd, as in torch (the norms' gradients flow unclamped)."""
    shape = _broadcast(x1.shape, x2.shape)
    x1, x2 = _common_float(jnp.broadcast_to(x1, shape), jnp.broadcast_to(x2, shape))
    d = _dim(dim, len(shape))
    n1 = _vnorm(x1, 2.0, (d,), True, False) if x1.ndim else jnp.abs(x1)
    n2 = _vnorm(x2, 2.0, (d,), True, False) if x2.ndim else jnp.abs(x2)

    def clamp(n):
        return n + jax.lax.stop_gradient(jnp.maximum(n, eps) - n)

    return jnp.sum((x1 / clamp(n1)) * (x2 / clamp(n2)), axis=d if x1.ndim else None)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (after broadcasting)."""
    _broadcast(x1.shape, x2.shape)
    if not jnp.issubdtype(x1.dtype, jnp.inexact):
        x1, x2 = x1.astype(jnp.float32), x2.astype(jnp.float32)
    diff = x1 - x2 + jnp.asarray(eps, x1.dtype)
    if diff.ndim == 0:
        return jnp.abs(diff) if p != 0 else (diff != 0).astype(diff.dtype)
    return _vnorm(diff, float(p), (diff.ndim - 1,), keepdim, False)


def pdist(input, p=2.0):
    """p-norm distances between the rows of an (N, M) input, for each pair i < j in row-major
    order: N * (N - 1) / 2 values."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    diff = input[i] - input[j]
    return _vnorm(diff, float(p), (1,), False, False)

