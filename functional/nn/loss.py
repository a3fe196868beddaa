"""Loss functions with torch.nn.functional's semantics.

Every loss takes `reduction` in {'none', 'mean', 'sum'} (a static string); 'none' keeps the
per-element (or per-sample) loss, 'mean' averages it and 'sum' adds it up. torch's legacy
`size_average`/`reduce` arguments are mapped to `reduction` by the facade before these are called.
Checks that need the values of a tensor (a class index out of range, a probability outside [0, 1])
are the facade's, done when the values are concrete; here under jit they cannot raise.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "soft_margin_loss", "triplet_margin_loss", "ctc_loss",
]

_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _tname(dtype):
    return _TORCH_NAMES.get(np.dtype(dtype).name, str(dtype))


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _clamp_min0(x):
    """max(x, 0) with torch's clamp_min gradient: 1 where x >= 0 (jnp.maximum splits a tie in half)."""
    return jnp.where(x >= 0, x, 0)


def _hinge(z):
    """max(z, 0) with gradient 0 at z == 0, as torch's margin kernels (`if (z > 0)`)."""
    return jnp.where(z > 0, z, 0)


def _weighted(loss, weight, reduction, shape):
    """l1/mse with torch 2.13's elementwise `weight`: 'mean' divides by the sum of the weights."""
    if tuple(weight.shape) != tuple(shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return jnp.sum(loss)
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(input, target, reduction="mean", weight=None):
    """Mean absolute error |input - target| (broadcast), optionally times an elementwise `weight`."""
    loss = jnp.abs(input - target)
    if weight is not None:
        return _weighted(loss, weight, reduction, input.shape)
    return _reduce(loss, reduction)


def mse_loss(input, target, reduction="mean", weight=None):
    """Mean squared error (input - target)^2 (broadcast), optionally times an elementwise `weight`."""
    loss = jnp.square(input - target)
    if weight is not None:
        return _weighted(loss, weight, reduction, input.shape)
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target); beta == 0 is l1_loss."""
    d = jnp.abs(input - target)
    if beta == 0.0:
        return _reduce(d, reduction)
    return _reduce(jnp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); with `weight`, 'mean' is the plain mean."""
    d = jnp.abs(input - target)
    loss = jnp.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return _reduce(loss, reduction)


# --------------------------------------------------------------------------- class-index losses

def _check_weight(weight, n_classes, input, prefix=""):
    if weight is None:
        return
    if weight.ndim != 1 or weight.shape[0] != n_classes:
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {n_classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input.dtype)} but found {_tname(weight.dtype)}")


def _check_nll(input, target, weight):
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if target.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target.dtype)}")
    if input.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif input.shape[0] != (target.shape[0] if target.ndim else -1):
        got = target.shape[0] if target.ndim else 1
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({got}).")
    elif input.ndim == 2 and target.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif input.ndim > 2 and tuple(target.shape) != (input.shape[0], *input.shape[2:]):
        if input.ndim == 4:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
        raise RuntimeError(f"Expected target size {[input.shape[0], *input.shape[2:]]}, got {list(target.shape)}")
    _check_weight(weight, input.shape[0 if input.ndim == 1 else 1], input)


def _nll(logp, target, weight, ignore_index):
    """Per-element -w[t] logp[t] (0 where ignored) and the weights w[t] (0 where ignored).
    A target outside [0, C) gives NaN here (it is an IndexError in eager facade calls)."""
    x = jnp.moveaxis(logp, 0 if logp.ndim == 1 else 1, -1)  # (N, d1.., C)
    n_classes = x.shape[-1]
    t = target.astype(jnp.int32)
    valid = t != ignore_index
    safe = jnp.where(valid, t, 0)
    picked = jnp.take_along_axis(x, jnp.clip(safe, 0, max(n_classes - 1, 0))[..., None], -1, mode="clip")[..., 0]
    picked = jnp.where(valid & ((t < 0) | (t >= n_classes)), jnp.nan, picked)
    w = jnp.ones_like(picked) if weight is None else weight[jnp.clip(safe, 0, n_classes - 1)]
    w = jnp.where(valid, w, 0)
    return jnp.where(valid, -picked * w, 0), w


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of class indices: loss = -weight[t] * input[n, t] for input (N, C, d1, ..),
    (N, C) or (C,) of log-probabilities and target (N, d1, ..) / (N,) / () of class indices; targets equal
    to `ignore_index` contribute 0. 'mean' divides by the sum of the weights of the non-ignored targets."""
    _check_nll(input, target, weight)
    loss, w = _nll(input, target, weight, ignore_index)
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(w)
    return _reduce(loss, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim (1, or 0 for an unbatched (C,) input) followed by nll_loss for
    integer class-index targets, or by -sum(target * logp * weight) for a floating target of class
    probabilities (same shape as input; 'mean' divides by the number of samples N * d1 * ...).
    label_smoothing eps mixes the target with the uniform distribution: (1 - eps) * target + eps / C."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = jax.nn.log_softmax(input, axis=class_dim)
    wshape = [1] * input.ndim
    wshape[class_dim] = n_classes
    if jnp.issubdtype(target.dtype, jnp.floating):  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target.dtype)}")
        _check_weight(weight, n_classes, input, "cross_entropy: ")
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target if weight is None else logp * target * weight.reshape(wshape)
        if reduction == "mean":
            n = input.size // max(n_classes, 1)
            return -jnp.sum(prod) / n if input.size else jnp.full((), jnp.nan, prod.dtype)
        if reduction == "none":
            return -jnp.sum(prod, axis=class_dim)
        return _reduce(-prod, reduction)
    _check_nll(input, target, weight)
    loss, w = _nll(logp, target, weight, ignore_index)
    nll = jnp.sum(loss) / jnp.sum(w) if reduction == "mean" else _reduce(loss, reduction)
    if label_smoothing <= 0.0:
        return nll
    ignored = target == ignore_index
    smooth = -jnp.sum(logp if weight is None else logp * weight.reshape(wshape), axis=class_dim)
    smooth = jnp.where(ignored, 0, smooth)
    if reduction == "mean":
        smooth = jnp.sum(smooth) / jnp.sum(w if weight is not None else (~ignored).astype(logp.dtype))
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


# --------------------------------------------------------------------------- binary / probabilistic losses

@jax.custom_vjp
def _bce(x, t):
    return (t - 1) * jnp.maximum(jnp.log1p(-x), -100.0) - t * jnp.maximum(jnp.log(x), -100.0)


def _bce_fwd(x, t):
    return _bce(x, t), (x, t)


def _bce_bwd(res, g):  # torch's: (x - t) / max(x (1 - x), 1e-12), finite at x in {0, 1}
    x, t = res
    return g * (x - t) / jnp.maximum(x * (1 - x), 1e-12), g * (jnp.log1p(-x) - jnp.log(x))


_bce.defvjp(_bce_fwd, _bce_bwd)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-weight * (t log x + (1 - t) log(1 - x)) for probabilities x in [0, 1]; each log is clamped at
    -100 (so x = 0 or 1 gives a finite loss) as torch does."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size (torch.Size({list(target.shape)})) that is different to the input "
                         f"size (torch.Size({list(input.shape)})) is deprecated. "
                         "Please ensure they have the same size.")
    for a in (target, weight):
        if a is not None and a.dtype != input.dtype:
            raise RuntimeError(f"Found dtype {_tname(a.dtype)} but expected {_tname(input.dtype)}")
    loss = _bce(input, target)
    if weight is not None:
        loss = loss * jnp.broadcast_to(weight, jnp.broadcast_shapes(weight.shape, target.shape))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target) computed stably from logits:
    (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x), times `weight`."""
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size (torch.Size({list(target.shape)})) must be the same as input size "
                         f"(torch.Size({list(input.shape)}))")
    sp = jax.nn.softplus(-input)
    loss = (1 - target) * input + (sp if pos_weight is None else (1 + (pos_weight - 1) * target) * sp)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """Pointwise KL divergence target * (log target - input) with input log-probabilities (target
    probabilities, or log-probabilities when log_target). 'batchmean' divides the sum by input.shape[0]."""
    if log_target:
        loss = jnp.exp(target) * (target - input)
    else:
        loss = jax.scipy.special.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = jnp.sum(loss)
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):
    """Poisson negative log-likelihood: exp(x) - t x for log-rate input, else x - t log(x + eps); `full`
    adds Stirling's t log t - t + 0.5 log(2 pi t) where t > 1."""
    loss = jnp.exp(input) - target * input if log_input else input - target * jnp.log(input + eps)
    if full:
        safe = jnp.where(target > 1, target, 1)
        stirling = safe * jnp.log(safe) - safe + 0.5 * jnp.log(2 * math.pi * safe)
        loss = loss + jnp.where(target > 1, stirling, 0)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 (log var + (input - target)^2 / var) (+ 0.5 log 2 pi when full), var clamped at eps without
    a gradient through the clamp. var has input's shape, or one dim fewer (the last), or one dim of size 1."""
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var[..., None]
        elif not (input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + jax.lax.stop_gradient(jnp.maximum(var, eps) - var)  # torch clamps under no_grad
    loss = 0.5 * (jnp.log(var) + jnp.square(input - target) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# --------------------------------------------------------------------------- margin losses

def cosine_embedding_loss(input1, input2, target, margin=0, reduction="mean"):
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1."""
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.ndim == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if target.ndim == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    d = target.ndim
    prod = jnp.sum(input1 * input2, axis=d)
    mag = (jnp.sum(input1 * input1, axis=d) + 1e-12) * (jnp.sum(input2 * input2, axis=d) + 1e-12)
    cos = prod / jnp.sqrt(mag)
    loss = jnp.where(target == 1, 1 - cos, 0) + jnp.where(target == -1, _clamp_min0(cos - margin), 0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: torch.Size({list(input1.shape)}), input2: torch.Size({list(input2.shape)}), "
                           f"target: torch.Size({list(target.shape)}) ")
    return _reduce(_clamp_min0(-target * (input1 - input2) + margin), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """input where target == 1, max(0, margin - input) where target == -1 (both terms for other values)."""
    loss = jnp.where(target != 1, _clamp_min0(margin - input), 0) + jnp.where(target != -1, input, 0)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input))."""
    return _reduce(jnp.log1p(jnp.exp(-input * target)), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """-mean over classes of (t logsigmoid(x) + (1 - t) logsigmoid(-x)) (times weight), one value per sample."""
    loss = -(target * jax.nn.log_sigmoid(input) + (1 - target) * jax.nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = jnp.sum(loss, axis=input.ndim - 1) / input.shape[-1]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, reduction="mean"):
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C, for input
    (N, C) or (C,) and target of the same shape holding class indices, ended by the first -1."""
    if target.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_tname(target.dtype)}")
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}" if tuple(target.shape) == tuple(input.shape) or input.ndim > 2
                           else f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    x = jnp.atleast_1d(input).reshape(-1, max(input.shape[-1] if input.ndim else 1, 1))
    t = jnp.atleast_1d(target).reshape(x.shape).astype(jnp.int32)
    n_classes = x.shape[1]
    valid = jnp.cumprod(t >= 0, axis=1).astype(bool)  # labels before the first -1
    tc = jnp.clip(t, 0, n_classes - 1)
    is_target = jnp.any(valid[:, :, None] & (tc[:, :, None] == jnp.arange(n_classes)), axis=1)  # (N, C)
    xt = jnp.take_along_axis(x, tc, 1)  # (N, J)
    z = _hinge(1 - xt[:, :, None] + x[:, None, :])  # (N, J, C)
    loss = jnp.sum(jnp.where(valid[:, :, None] & ~is_target[:, None, :], z, 0), axis=(1, 2)) / n_classes
    loss = loss.reshape(input.shape[:-1] if input.ndim else ())
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    """sum over i != y of weight[y] * max(0, margin - x[y] + x[i])^p / C for input (N, C) or (C,)."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    n_classes = input.shape[-1] if input.ndim else 1
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if target.ndim > 1 or (input.ndim <= 1 and target.size != 1) or (input.ndim == 2 and target.size !=
                                                                      input.shape[0]):
        raise RuntimeError(f"inconsistent target size, expected {input.shape[0] if input.ndim == 2 else 1} but "
                           f"got {list(target.shape)}")
    x = input.reshape(-1, n_classes)
    t = target.reshape(-1).astype(jnp.int32)
    xt = jnp.take_along_axis(x, t[:, None], 1)
    z = _hinge(margin - xt + x)
    z = z if p == 1 else z * z
    if weight is not None:
        z = z * weight[t][:, None]
    z = jnp.where(jnp.arange(n_classes) == t[:, None], 0, z)
    loss = jnp.sum(z, axis=1) / n_classes
    return _reduce(loss.reshape(input.shape[:-1]) if input.ndim == 2 else loss.reshape(()), reduction)


def _pairwise_distance(x1, x2, p, eps):
    d = jnp.abs(x1 - x2 + eps)
    axis = max(x1.ndim, x2.ndim) - 1
    if p == math.inf:
        return jnp.max(d, axis=axis)
    if p == 2:
        return jnp.sqrt(jnp.sum(d * d, axis=axis))
    if p == 1:
        return jnp.sum(d, axis=axis)
    return jnp.sum(d ** p, axis=axis) ** (1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance d(x, y) = ||x - y + eps||_p;
    `swap` uses min(d(a, n), d(p, n)) for the negative distance."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = jnp.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(_clamp_min0(margin + d_pos - d_neg), reduction)


# --------------------------------------------------------------------------- CTC

def _logsumexp3(a, b, c):
    """log(e^a + e^b + e^c) that stays -inf (with a zero, not NaN, gradient) when all three are -inf."""
    m = jnp.maximum(jnp.maximum(a, b), c)
    m = jnp.where(jnp.isfinite(m), m, 0)
    s = jnp.exp(a - m) + jnp.exp(b - m) + jnp.exp(c - m)
    return jnp.where(s > 0, m + jnp.log(jnp.where(s > 0, s, 1)), -jnp.inf)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist Temporal Classification loss: -log of the total probability of all alignments of
    each target to its input, by the forward (alpha) recursion in log space over the extended target
    (blank, l1, blank, l2, ..., blank), one lax.scan step per time step.

    log_probs (T, N, C) or (T, C) log-probabilities; targets (N, S) padded, or 1-d concatenated targets
    of total length sum(target_lengths); input_lengths, target_lengths (N,). 'mean' divides each loss by
    its target length (at least 1) and then averages over the batch. zero_infinity zeroes infinite losses
    (impossible alignments) and their gradients."""
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs[:, None, :]  # (T, N, C)
    n_time, n_batch, _ = lp.shape
    in_len = jnp.reshape(input_lengths, (-1,)).astype(jnp.int32)
    tg_len = jnp.reshape(target_lengths, (-1,)).astype(jnp.int32)
    tg = targets.astype(jnp.int32)
    if tg.ndim == 1 and batched:  # concatenated targets -> padded (N, total) rows starting at each target's offset
        total = tg.shape[0]
        start = jnp.cumsum(tg_len) - tg_len
        idx = jnp.clip(start[:, None] + jnp.arange(total), 0, max(total - 1, 0))
        tg = tg[idx] if total else jnp.zeros((n_batch, 0), jnp.int32)
    tg = tg.reshape(n_batch, -1)
    if n_time == 0:
        loss = jnp.where(tg_len > 0, jnp.inf, 0.0).astype(lp.dtype)
        return _ctc_reduce(loss, tg_len, reduction, zero_infinity, batched)
    s_max = tg.shape[1]
    n_ext = 2 * s_max + 1
    pos = jnp.arange(n_ext)
    ext = jnp.where(pos % 2 == 1, tg[:, jnp.clip((pos - 1) // 2, 0, max(s_max - 1, 0))] if s_max else blank,
                    blank)  # (N, 2S+1)
    ext = jnp.broadcast_to(ext, (n_batch, n_ext))
    prev2 = jnp.concatenate([jnp.full((n_batch, 2), -1, ext.dtype), ext[:, :-2]], axis=1)
    skip = (ext != blank) & (ext != prev2)  # may come from s - 2
    nll = _ctc_nll(lp, ext, skip, in_len, tg_len, zero_infinity)
    return _ctc_reduce(nll, tg_len, reduction, zero_infinity, batched)


def _ctc_alphas(lp, ext, skip, in_len, tg_len):
    """Forward variables log alpha_t(s) (T, N, 2S+1) and the per-sample loss -log p(target | input)."""
    n_time, n_batch, _ = lp.shape
    pos = jnp.arange(ext.shape[1])
    ninf = jnp.array(-jnp.inf, lp.dtype)
    emit = jnp.take_along_axis(lp, jnp.broadcast_to(ext, (n_time, *ext.shape)), axis=2)  # (T, N, 2S+1)
    alpha0 = jnp.where(pos <= jnp.minimum(1, 2 * tg_len[:, None]), emit[0], ninf)

    def step(alpha, t):
        a1 = jnp.concatenate([jnp.full((n_batch, 1), ninf), alpha[:, :-1]], axis=1)
        a2 = jnp.concatenate([jnp.full((n_batch, 2), ninf), alpha[:, :-2]], axis=1)
        new = _logsumexp3(alpha, a1, jnp.where(skip, a2, ninf)) + emit[t]
        new = jnp.where((t < in_len)[:, None], new, alpha)
        return new, new

    alpha, rest = jax.lax.scan(step, alpha0, jnp.arange(1, n_time))
    last = jnp.take_along_axis(alpha, 2 * tg_len[:, None], 1)[:, 0]
    before = jnp.take_along_axis(alpha, jnp.maximum(2 * tg_len - 1, 0)[:, None], 1)[:, 0]
    before = jnp.where(tg_len > 0, before, ninf)
    return jnp.concatenate([alpha0[None], rest]), emit, -_logsumexp3(last, before, ninf)


@functools.partial(jax.custom_vjp, nondiff_argnums=(5,))
def _ctc_nll(lp, ext, skip, in_len, tg_len, zero_infinity):
    """-log p(target | input) per sample, with torch's gradient (see _ctc_nll_bwd)."""
    return _ctc_alphas(lp, ext, skip, in_len, tg_len)[2]


def _ctc_nll_fwd(lp, ext, skip, in_len, tg_len, zero_infinity):
    alphas, emit, nll = _ctc_alphas(lp, ext, skip, in_len, tg_len)
    return nll, (lp, ext, skip, in_len, tg_len, alphas, emit, nll)


def _ctc_nll_bwd(zero_infinity, res, g):
    """torch's CTC gradient with respect to log_probs: (exp(log_probs) - posterior of each class) * g
    (Graves et al. 2006, eq. 16), zero at t >= input_length (and for infinite losses under zero_infinity).
    It is the gradient with respect to the logits of a log_softmax that fed log_probs, not the true one
    with respect to log_probs themselves, which lacks the exp(log_probs) term; torch returns this one."""
    lp, ext, skip, in_len, tg_len, alphas, emit, nll = res
    n_time, n_batch, n_class = lp.shape
    n_ext = ext.shape[1]
    pos = jnp.arange(n_ext)
    ninf = jnp.array(-jnp.inf, lp.dtype)
    skip_next = jnp.concatenate([skip[:, 2:], jnp.zeros((n_batch, 2), bool)], axis=1)  # s may go on to s + 2
    ends = (pos == 2 * tg_len[:, None]) | ((pos == 2 * tg_len[:, None] - 1) & (tg_len[:, None] > 0))

    def step(beta, t):
        b1 = jnp.concatenate([beta[:, 1:], jnp.full((n_batch, 1), ninf)], axis=1)
        b2 = jnp.concatenate([beta[:, 2:], jnp.full((n_batch, 2), ninf)], axis=1)
        new = _logsumexp3(beta, b1, jnp.where(skip_next, b2, ninf)) + emit[t]
        last = (t == in_len - 1)[:, None]
        new = jnp.where(last, jnp.where(ends, emit[t], ninf), jnp.where((t < in_len)[:, None], new, ninf))
        return new, new

    _, betas = jax.lax.scan(step, jnp.full((n_batch, n_ext), ninf), jnp.arange(n_time), reverse=True)
    lcab = alphas + betas  # both hold the emission at (t, s): log(p(paths through (t, s)) * y_t(s))
    m = jnp.max(lcab, axis=2, keepdims=True)
    m = jnp.where(jnp.isfinite(m), m, 0)
    onehot = jax.nn.one_hot(ext, n_class, dtype=lp.dtype)  # (N, 2S+1, C)
    per_class = jnp.einsum("tns,nsc->tnc", jnp.exp(lcab - m), onehot)
    log_post = jnp.log(per_class) + m + nll[None, :, None]  # minus lp below: the log posterior of each class
    grad = (jnp.exp(lp) - jnp.exp(log_post - lp)) * g[None, :, None]
    keep = jnp.arange(n_time)[:, None] < in_len[None, :]
    if zero_infinity:
        keep = keep & ~jnp.isinf(nll)[None, :]
    grad = jnp.where(keep[:, :, None], grad, 0)
    return grad, None, None, None, None


_ctc_nll.defvjp(_ctc_nll_fwd, _ctc_nll_bwd)


def _ctc_reduce(loss, tg_len, reduction, zero_infinity, batched):
    if zero_infinity:
        loss = jnp.where(jnp.isinf(loss), 0, loss)
    if reduction == "mean":
        return jnp.mean(loss / jnp.maximum(tg_len, 1).astype(loss.dtype))
    if not batched and reduction == "none":
        return loss[0]
    return _reduce(loss, reduction)
