"""Autocast's per-op cast policy, applied by the dispatcher (facade._dispatch.call) while autocast is on.

The tables are torch's (aten/src/ATen/autocast_mode.{h,cpp}), keyed by op-table row name; CPU's list
differs from CUDA's and the autocast device type picks the list. The policies:

lower    cast floating inputs to the autocast dtype (matmul, conv, linear, attention ...)
fp32     cast floating inputs to float32 (losses, norms, exp/log ... on CUDA; linalg, fft ... on CPU)
fp32_opt run in float32 through the op's `dtype=` argument, unless the caller set it (softmax, sum ...)
promote  cast floating inputs to the widest floating dtype among them (cat, stack, addcmul ...)
banned   refuse (binary_cross_entropy on CUDA)

A tensor is cast only if it is floating point but not float64, and lives on the autocast's device
type. Rows whose torch op is a composition of listed ops get the policy the composition yields
(einsum on CPU runs through bmm, multi_head_attention_forward through linear and bmm: `lower`).
"""

from __future__ import annotations

import weakref

from .. import _dtype as D
from ._state import STATE

__all__ = ["POLICIES", "cast"]

_LOWER_CPU = ("conv1d", "conv2d", "conv3d", "bmm", "mm", "baddbmm", "addmm", "addbmm", "linear", "matmul",
              "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu", "scaled_dot_product_attention",
              "einsum", "chain_matmul", "multi_dot", "tensordot", "multi_head_attention_forward", "lstm")
_FP32_CPU = ("avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile", "nanquantile", "stft",
             "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse",
             "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
             "adaptive_avg_pool3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss",
             "poisson_nll_loss", "smooth_l1_loss", "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss",
             "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
             "multilabel_margin_loss", "binary_cross_entropy_with_logits",
             "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
             "hfft", "ihfft",
             "cond", "matrix_rank", "solve", "solve_ex", "svdvals", "eigvals", "eigvalsh", "inv", "inv_ex",
             "householder_product", "tensorinv", "tensorsolve", "geqrf", "qr", "svd", "triangular_solve",
             "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
             "adaptive_max_pool3d_with_indices", "max_pool3d_with_indices", "cholesky_ex", "eig", "eigh", "lstsq")
_PROMOTE_CPU = ("stack", "cat", "index_copy", "hstack", "vstack", "dstack", "column_stack")

_LOWER_CUDA = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
               "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "linear", "addbmm", "baddbmm", "bmm",
               "chain_matmul", "multi_dot", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
               "scaled_dot_product_attention", "multi_head_attention_forward", "lstm", "gru", "rnn_tanh",
               "rnn_relu")  # the last four: cudnn's RNNs, cast by torch's AutocastRNN
_FP32_CUDA = ("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
              "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "cosine_similarity", "poisson_nll_loss",
              "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss",
              "huber_loss", "mse_loss", "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss",
              "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist",
              "cdist", "renorm", "logsumexp", "cross_entropy", "normalize")
_FP32_OPT_CUDA = ("prod", "softmax", "log_softmax", "cumprod", "cumsum", "vector_norm", "matrix_norm", "norm", "sum")
_PROMOTE_CUDA = ("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put",
                 "tensordot", "scatter_add")


def _pad_cpu(op, vals):
    """F.pad: reflect and replicate padding run as reflection_pad*/replication_pad* (fp32 on CPU)."""
    return "fp32" if vals[op.index["mode"]] in ("reflect", "replicate") else None


def _interpolate_cuda(op, vals):
    """F.interpolate: every mode but 'area' (adaptive_avg_pool) runs as an upsample_* kernel (fp32 on CUDA)."""
    return None if vals[op.index["mode"]] == "area" else "fp32"


POLICIES = {
    "cpu": {**dict.fromkeys(_LOWER_CPU, "lower"), **dict.fromkeys(_FP32_CPU, "fp32"),
            **dict.fromkeys(_PROMOTE_CPU, "promote"), "pad": _pad_cpu},
    "cuda": {**dict.fromkeys(_LOWER_CUDA, "lower"), **dict.fromkeys(_FP32_CUDA, "fp32"),
             **dict.fromkeys(_FP32_OPT_CUDA, "fp32_opt"), **dict.fromkeys(_PROMOTE_CUDA, "promote"),
             "interpolate": _interpolate_cuda, "binary_cross_entropy": "banned"},
}
# The tensor device types each autocast device type casts (a test seam: CUDA's list is checked on CPU).
ON = {"cpu": ("cpu",), "cuda": ("cuda",)}

_ELIGIBLE = frozenset({D.float16, D.bfloat16, D.float32})
_BANNED = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
           "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
           "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
           "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
           "safe to autocast.")


def cast(op, vals, Tensor, convert):
    """`vals` (op's bound arguments) as autocast runs them; `convert(tensor, dtype)` is the recorded cast."""
    for device in ("cpu", "cuda"):
        if STATE.enabled[device]:
            policy = POLICIES[device].get(op.name)
            if callable(policy):
                policy = policy(op, vals)
            if policy is not None:
                _apply(policy, op, vals, ON[device], STATE.dtype[device], Tensor, convert)
    return vals


def _apply(policy, op, vals, on, lower, Tensor, convert):
    def eligible(t):
        return isinstance(t, Tensor) and t.dtype in _ELIGIBLE and t._device.type in on

    if policy == "banned":
        raise RuntimeError(_BANNED)
    arrays = [i for i in op.array_idx if vals[i] is not None]
    if policy == "fp32_opt":  # float32 through dtype=, if the first input is eligible and dtype= is unset
        if not arrays or not eligible(vals[arrays[0]]):
            return
        i = op.index.get("dtype")
        if i is not None:
            if vals[i] is None:
                vals[i] = D.float32
            return
        policy, arrays = "fp32", arrays[:1]
    if policy == "lower":
        to = lower
    elif policy == "fp32":
        to = D.float32
    else:
        to = _widest(lower, [t for i in arrays for t in _tensors(vals[i]) if eligible(t)])
    for i in arrays:
        vals[i] = _map(vals[i], lambda t: _cast(t, to, lower, convert) if eligible(t) else t, Tensor)


def _tensors(v):
    return v if isinstance(v, (list, tuple)) else (v,)


def _map(v, fn, Tensor):
    if isinstance(v, Tensor):
        return fn(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_map(x, fn, Tensor) for x in v)
    return v


def _widest(lower, tensors):
    to = lower
    for t in tensors:
        if t.dtype is D.float32:
            to = D.float32
        elif t.dtype is not lower and to is not D.float32:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return to


def _cast(t, to, lower, convert):
    if t.dtype is to:
        return t
    # torch caches the low-precision casts of float32 leaf weights for the rest of the autocast region
    if (to is lower and t.dtype is D.float32 and STATE.cache_enabled and t.requires_grad and t.is_leaf
            and t._base is None):
        hit = STATE.cache.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        out = convert(t, to)
        STATE.cache[id(t)] = (weakref.ref(t), out)
        return out
    return convert(t, to)
