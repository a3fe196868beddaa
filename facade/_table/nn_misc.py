"""Table rows of torch.nn.functional: dropout, embedding, one_hot, normalize and distances.

Dropout draws its key with `facade._random.next_key` and passes it to the row as an array; eval
mode, p = 0 and empty inputs return the input itself, as torch does. Checks on index values
(embedding, one_hot) run on concrete values only (skipped while tracing).
"""

import warnings

import functional.nn as M

from .. import _deferred
from .. import _dtype as D
from .._dispatch import Op, call, call_inplace
from .._random import next_key
from ..autograd.grad_mode import no_grad
from .indexing import _values

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
F = "torch.nn.functional"
BOTH = ("torch", F)


def _drop_row(name, fn, grad_name):
    return Op(name, fn, arrays=("input", "key"), function=False, method=False, grad_name=grad_name, saves=())


_ROWS = {(feature, alpha): _drop_row(name, getattr(M, name), "AddBackward0" if alpha else "MulBackward0")
         for (feature, alpha), name in {(False, False): "dropout", (True, False): "feature_dropout",
                                        (False, True): "alpha_dropout", (True, True): "feature_alpha_dropout"}.items()}


def _dropout(input, p, train, inplace, feature=False, alpha=False, kind=ValueError):
    """torch's _dropout_impl around the row: the input itself when nothing is dropped."""
    if p < 0 or p > 1:
        raise kind(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    key = next_key(None, input.device) if p != 1 else None
    row = _ROWS[(feature, alpha)]
    args = (key, p, bool(train))
    return call_inplace(row, input, args, None) if inplace else call(row, (input, *args), None)


def dropout(input, p=0.5, training=True, inplace=False):
    """See functional.nn.dropout (the mask comes from the default generator)."""
    return _dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


def _channelwise(input, p, training, inplace, batched_dim):
    """dropout1d/3d: a (C, *) input without its batch dim is dropped as a batch of one."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    batched = input.dim() == batched_dim
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _dropout(input, p, training, inplace, feature=True)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, L) or (C, L) inputs."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channelwise(input, p, training, inplace, 3)


def _deprecated_dims(name, ndim, spatial, ok):
    if ndim not in ok:
        warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error "
                      "in a future release. To retain the behavior and silence this warning, please use dropout "
                      f"instead. Note that {name} exists to provide channel-wise dropout on inputs with {spatial} "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{ok[0]}D or {ok[1]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, H, W) inputs; a 3-D input is taken as (N, C, L), as torch does."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ndim = input.dim()
    _deprecated_dims("dropout2d", ndim, 2, (3, 4))
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) inputs."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _deprecated_dims("dropout3d", input.dim(), 3, (4, 5))
    return _channelwise(input, p, training, inplace, 5)


def _torch_dropout(feature, alpha, inplace):
    """torch.dropout(input, p, train) and friends: RuntimeError for a bad p."""
    def fn(input, p, train):
        return _dropout(input, p, train, inplace, feature, alpha, RuntimeError)
    return fn


# ---------------------------------------------------------------------------- embedding

def _check_embedding(vals):
    weight, indices = vals[0], vals[1]
    if weight.ndim == 2 and indices.dtype in (D.int64, D.int32):  # deferred on an accelerator
        _deferred.check_range(indices, 0, weight.shape[0] - 1, lambda v: IndexError("index out of range in self"),
                              op="embedding")


_embedding = Op("embedding", M.embedding, arrays=("weight", "indices"), method=False, check=_check_embedding)
_renorm = Op("embedding_renorm", M.embedding_renorm, arrays=("weight", "indices"), function=False, method=False,
             check=_check_embedding)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rows of `input` (the weight) selected by `indices` rescaled to norm <= max_norm."""
    with no_grad():
        return call_inplace(_renorm, input, (indices, max_norm, norm_type), None)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """See functional.nn.embedding; `max_norm` first renormalises the looked-up rows of `weight` in place."""
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return call(_embedding, (weight, input, padding_idx, scale_grad_by_freq, sparse), None)


_embedding_bag = Op("embedding_bag", M.embedding_bag, arrays=("weight", "input", "offsets", "per_sample_weights"),
                    function=False, method=False, grad_name="EmbeddingBagBackward0")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """See functional.nn.embedding_bag."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets).__name__}")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return call(_embedding_bag, (weight, input, offsets, mode, per_sample_weights, include_last_offset,
                                 padding_idx), None)


# ---------------------------------------------------------------------------- one_hot, distances

_one_hot = Op("one_hot", M.one_hot, arrays=("tensor",), function=False, method=False)


def one_hot(tensor, num_classes=-1):
    """See functional.nn.one_hot; num_classes=-1 is one more than the largest value."""
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    v = _values(tensor)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if v is None:
            raise RuntimeError("one_hot with num_classes=-1 needs concrete values (pass num_classes when compiling)")
        num_classes = int(v.max()) + 1
    if v is not None and v.size:
        if v.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if v.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return call(_one_hot, (tensor, int(num_classes)), None)


_normalize = Op("normalize", M.normalize, function=False, method=False, grad_name="DivBackward0")


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """See functional.nn.normalize."""
    return call(_normalize, (input, p, dim, eps), None if out is None else {"out": out})


OPS = [
    *_ROWS.values(), _embedding, _renorm, _embedding_bag, _one_hot,
    _normalize,
    Op("cosine_similarity", M.cosine_similarity, arrays=("x1", "x2"), promote="all", module=BOTH, method=False,
       grad_name="SumBackward1"),
    Op("pairwise_distance", M.pairwise_distance, arrays=("x1", "x2"), promote="all", to_float=True, module=BOTH,
       method=False, grad_name="NormBackward1"),
    Op("pdist", M.pdist, module=BOTH, method=False),
]

FUNCTIONS = {
    "dropout": dropout, "alpha_dropout": alpha_dropout, "feature_alpha_dropout": feature_alpha_dropout,
    "dropout1d": dropout1d, "dropout2d": dropout2d, "dropout3d": dropout3d,
    "torch.dropout": _torch_dropout(False, False, False), "torch.dropout_": _torch_dropout(False, False, True),
    "torch.feature_dropout": _torch_dropout(True, False, False),
    "torch.feature_dropout_": _torch_dropout(True, False, True),
    "torch.alpha_dropout": _torch_dropout(False, True, False),
    "torch.alpha_dropout_": _torch_dropout(False, True, True),
    "torch.feature_alpha_dropout": _torch_dropout(True, True, False),
    "torch.feature_alpha_dropout_": _torch_dropout(True, True, True),
    "embedding": embedding, "torch.embedding_renorm_": embedding_renorm_, "embedding_bag": embedding_bag,
    "one_hot": one_hot, "normalize": normalize,
}


# ---------------------------------------------------------------------------- torch.<nn op>: the ATen signatures

def _nn():
    import facade

    return facade, facade.nn.functional


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _nn()[1].batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _nn()[1].instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(layer_norm(input), mean, 1 / sqrt(var + eps)), the statistics over the normalized dims kept as size 1."""
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    with no_grad():
        mean = input.mean(dims, keepdim=True)
        rstd = (input.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    return _nn()[1].layer_norm(input, tuple(normalized_shape), weight, bias, eps), mean, rstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(group_norm(input), mean (N, group), 1 / sqrt(var + eps) (N, group)); torch differentiates all three."""
    g = input.reshape(N, group, -1)
    mean, rstd = g.mean(-1), (g.var(-1, unbiased=False) + eps).rsqrt()
    return _nn()[1].group_norm(input, group, weight, bias, eps), mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(batch_norm(input), batch mean, 1 / sqrt(batch var + eps)) in training; empty statistics otherwise."""
    torch, nnf = _nn()
    out = nnf.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        return out, input.new_empty(0), input.new_empty(0)
    dims = (0, *range(2, input.ndim))
    with no_grad():
        mean, invstd = input.mean(dims), (input.var(dims, unbiased=False) + eps).rsqrt()
    return out, mean, invstd


def native_dropout(input, p, train):
    """(dropout(input), the boolean keep mask); train=False gives (a copy of input, all True)."""
    torch, _ = _nn()
    if train is False or p == 0:
        return input.clone(), torch.ones(input.shape, dtype=D.bool, device=input.device)
    if p == 1:
        return input * 0, torch.zeros(input.shape, dtype=D.bool, device=input.device)
    mask = torch.rand(input.shape, device=input.device) >= p  # kept with probability 1 - p
    return input * mask / (1 - p), mask


def native_channel_shuffle(input, groups):
    return _nn()[1].channel_shuffle(input, groups)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler_2d/3d: grid_sample with ATen's int modes (0 bilinear, 1 nearest, 2 bicubic;
    padding 0 zeros, 1 border, 2 reflection)."""
    return _nn()[1].grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode],
                                align_corners)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The N-d (transposed) convolution that weight's rank gives (conv1d/2d/3d, conv_transpose1d/2d/3d)."""
    nnf = _nn()[1]
    n = weight.ndim - 2
    if transposed:
        return getattr(nnf, f"conv_transpose{n}d")(input, weight, bias, tuple(stride), tuple(padding),
                                                   tuple(output_padding), groups, tuple(dilation))
    return getattr(nnf, f"conv{n}d")(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution over time-batch-channel input (T, B, Cin) with weight (k, Cin, Cout): (T', B, Cout)."""
    out = _nn()[1].conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


FUNCTIONS.update({"torch." + f.__name__: f for f in (
    batch_norm, instance_norm, native_layer_norm, native_group_norm, native_batch_norm, native_dropout,
    native_channel_shuffle, convolution, conv_tbc)})
FUNCTIONS.update({"torch.grid_sampler_2d": _grid_sampler, "torch.grid_sampler_3d": _grid_sampler,
                  "torch.grid_sampler": _grid_sampler})
