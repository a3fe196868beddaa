"""Linear maps and convolutions with torch.nn.functional's semantics: linear, bilinear, conv{1,2,3}d,
conv_transpose{1,2,3}d, pad (constant / reflect / replicate / circular), unfold / fold (im2col / col2im),
pixel_shuffle / pixel_unshuffle and channel_shuffle.

Products run at full float32 precision (torch's default, as in functional.linalg); half types accumulate
in float32. Shape, argument and dtype errors are torch's and raise at trace time. Inputs without a batch
dimension ("unbatched") are accepted where torch accepts them.
"""

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._names import cpp_name as _cpp
from ..linalg import _hi, _product
from ..sorting import _name

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "pad", "constant_pad_nd", "unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
]

_HALF = (jnp.float16, jnp.bfloat16)
_AXES = {2: ("height", "width"), 3: ("depth", "height", "width")}


def _size(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------------------- linear

def linear(input, weight, bias=None):
    """y = input @ weight.T + bias.

    input (*, in_features); weight (out_features, in_features), or (in_features,) for a single output
    that drops the last dimension; bias broadcastable to the result (usually (out_features,)).
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cpp(input.dtype)} != "
                           f"{_cpp(weight.dtype)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(bias.dtype)} and "
                           f"{_name(weight.dtype)}")
    if weight.ndim == 1 and bias is not None and input.ndim > 1:  # torch's addmm path wants a matrix
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    k = input.shape[-1]
    if weight.shape[-1] != k:
        if weight.ndim == 1:
            if input.ndim == 1:
                raise RuntimeError(f"inconsistent tensor size, expected tensor [{k}] and src [{weight.shape[0]}] to "
                                   f"have the same number of elements, but got {k} and {weight.shape[0]} elements "
                                   "respectively")
            raise RuntimeError(f"size mismatch, got input ({math.prod(input.shape[:-1])}), mat "
                               f"({math.prod(input.shape[:-1])}x{k}), vec ({weight.shape[0]})")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({math.prod(input.shape[:-1])}x{k} and "
                           f"{weight.shape[1]}x{weight.shape[0]})")
    out = _product(input, weight.T)
    return out if bias is None else out + _expand_to(bias, out.shape)


def _expand_to(t, shape):
    """`t` broadcast to `shape` without growing it (torch's expand in addmm), with its error."""
    if t.ndim > len(shape):
        raise RuntimeError(f"The expanded size of the tensor ({len(shape)}) must match the existing size "
                           f"({t.ndim}) at non-singleton dimension 0.  Target sizes: {_size(shape)}.  Tensor "
                           f"sizes: {_size(t.shape)}")
    for i in range(1, t.ndim + 1):
        if t.shape[-i] not in (1, shape[-i]):
            raise RuntimeError(f"The expanded size of the tensor ({shape[-i]}) must match the existing size "
                               f"({t.shape[-i]}) at non-singleton dimension {len(shape) - i}.  Target sizes: "
                               f"{_size(shape)}.  Tensor sizes: {_size(t.shape)}")
    return t


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o].

    input1 (*, in1), input2 (*, in2) with the same batch dimensions; weight (out, in1, in2); bias (out,).
    """
    ts = (input1, input2, weight) + (() if bias is None else (bias,))
    if any(t.dtype != input1.dtype for t in ts):
        names = ("input1", "input2", "weight", "bias")
        raise RuntimeError("All tensors must have the same dtype, got " +
                           ", ".join(f"{n}: {_cpp(t.dtype)}" for n, t in zip(names, ts)))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    half = input1.dtype in _HALF
    out = jnp.einsum("...i,oij,...j->...o", input1, weight, input2, precision=_hi(),
                     preferred_element_type=jnp.float32 if half else None).astype(input1.dtype)
    return out if bias is None else out + bias


# ---------------------------------------------------------------------------- convolutions

def _expand(value, n, name):
    """A conv argument as a tuple of `n` ints (an int or a 1-element list repeats), or torch's error."""
    v = (value,) * n if isinstance(value, int) else tuple(value)
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(v)}")
    return v


def _per_axis(n, what, values, pad):
    """["what_height: v", "what_width: v"] as torch's transposed kernels word it (1-D runs as 2-D)."""
    values = (pad,) + tuple(values) if n == 1 else tuple(values)
    return [f"{what}_{a}: {v}" for a, v in zip(_AXES[max(n, 2)], values)]


def _conv(input, weight, bias, stride, padding, dilation, groups, n, name, transposed=False, output_padding=0):
    """The shared body of conv{n}d / conv_transpose{n}d: torch's checks, then one lax convolution."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input "
                           f"of size: {_size(input.shape)}")
    batched = input.ndim == n + 2
    x = input if batched else input[None]
    if transposed and isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    if bias is not None and bias.dtype != x.dtype and transposed and n == 3:
        raise RuntimeError(f"expected scalar type {_name(x.dtype)} but found {_name(bias.dtype)}")
    if bias is not None and bias.dtype != x.dtype and not transposed:  # transposed 1-D/2-D kernels cast the bias
        raise RuntimeError(f"Input type ({_cpp(x.dtype)}) and bias type ({_cpp(bias.dtype)}) should be the same")
    k = weight.ndim - 2
    same = isinstance(padding, str)
    if same and padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    stride = _expand(stride, k, "stride")
    pads = (0,) * k if same else _expand(padding, k, "padding")
    dilation = _expand(dilation, k, "dilation")
    output_padding = _expand(output_padding, k, "output_padding") if transposed else (0,) * k
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        if transposed:
            raise RuntimeError("dilation should be greater than zero, but got " +
                               ", ".join(_per_axis(n, "dilation", dilation, 1)))
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != x.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{_size(weight.shape)}, but got {x.ndim}-dimensional input of size {_size(x.shape)} "
                           "instead")
    ws = _size(weight.shape)
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    space, ks = x.shape[2:], weight.shape[2:]
    if transposed:
        if x.shape[1] != weight.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{_size(x.shape)} to have "
                               f"{weight.shape[0]} channels, but got {x.shape[1]} channels instead")
        cout = weight.shape[1] * groups
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != cout):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                               f"{cout} elements, but got bias of size {_size(bias.shape)} instead")
    else:
        if x.shape[1] != weight.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{_size(x.shape)} to have "
                               f"{weight.shape[1] * groups} channels, but got {x.shape[1]} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {weight.shape[0]} "
                               f"elements, but got bias of size {_size(bias.shape)} instead")
        padded = [s + 2 * p for s, p in zip(space, pads)]
        kernel = [d * (kk - 1) + 1 for d, kk in zip(dilation, ks)]
        if any(p < kk for p, kk in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                               "input size")
    if weight.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_name(x.dtype)} but found {_name(weight.dtype)}")
    if x.dtype == jnp.bool_:
        kernel_name = f"slow_conv_transpose{max(n, 2)}d_out_cpu" if transposed else f"slow_conv{max(n, 2)}d_cpu"
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for 'Bool'")
    if same and padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (kk - 1) for d, kk in zip(dilation, ks)]
        pairs = [(t // 2, t - t // 2) for t in total]  # torch puts the odd extra element on the right
    else:
        pairs = [(p, p) for p in pads]
    spec = "NC" + "DHW"[3 - k:]
    dn = lax.conv_dimension_numbers(x.shape, weight.shape, (spec, "OI" + spec[2:], spec))
    half = x.dtype in _HALF
    kw = dict(dimension_numbers=dn, feature_group_count=groups, precision=_hi(),
              preferred_element_type=jnp.float32 if half else None)
    if not transposed and x.shape[1] == 0:  # torch answers no input channels with no output channels
        outs = [(s + a + b - d * (kk - 1) - 1) // st + 1
                for s, (a, b), d, kk, st in zip(space, pairs, dilation, ks, stride)]
        out = jnp.zeros((x.shape[0], 0, *outs), x.dtype)
        return out if batched else out[0]
    if transposed:
        outs = [(i - 1) * s - 2 * p + d * (kk - 1) + op + 1
                for i, s, p, d, kk, op in zip(space, stride, pads, dilation, ks, output_padding)]
        if any(o <= 0 for o in outs):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, space))}). Calculated output "
                               f"size per channel: ({' x '.join(map(str, outs))}). Output size is too small")
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(
                _per_axis(n, "output_padding", output_padding, 0) + _per_axis(n, "stride", stride, 1)
                + _per_axis(n, "dilation", dilation, 1)))
        # A transposed convolution is the convolution of the stride-dilated input with the flipped kernel,
        # whose (in, out/groups) axes are swapped group by group.
        cin, cog = weight.shape[:2]
        w = weight.reshape(groups, cin // groups, cog, *ks).swapaxes(1, 2).reshape(groups * cog, cin // groups, *ks)
        w = jnp.flip(w, tuple(range(2, 2 + k)))
        edges = [(d * (kk - 1) - p, d * (kk - 1) - p + op) for d, kk, p, op in zip(dilation, ks, pads, output_padding)]
        out = lax.conv_general_dilated(x, w, (1,) * k, edges, lhs_dilation=stride, rhs_dilation=dilation, **kw)
    else:
        out = lax.conv_general_dilated(x, weight, stride, pairs, rhs_dilation=dilation, **kw)
    out = out.astype(x.dtype)
    if bias is not None:
        out = out + bias.astype(out.dtype).reshape((-1,) + (1,) * k)
    return out if batched else out[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation, as in torch).

    input (N, C_in, L) or (C_in, L); weight (C_out, C_in / groups, kL); bias (C_out,).
    padding: int, tuple, or 'valid' (none) / 'same' (output length = input length, stride 1 only; the odd
    extra element goes on the right). L_out = (L + 2 p - d (k - 1) - 1) // s + 1.
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution: input (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in / groups, kH, kW);
    bias (C_out,). See conv1d for padding and the output size."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution: input (N, C_in, D, H, W) or (C_in, D, H, W); weight (C_out, C_in / groups, kD, kH, kW);
    bias (C_out,). See conv1d for padding and the output size."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-D transposed convolution (the gradient of conv1d with respect to its input).

    input (N, C_in, L) or (C_in, L); weight (C_in, C_out / groups, kL); bias (C_out,).
    L_out = (L - 1) s - 2 p + d (k - 1) + output_padding + 1; output_padding < stride or < dilation.
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv_transpose1d", True, output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-D transposed convolution: input (N, C_in, H, W) or (C_in, H, W); weight (C_in, C_out / groups, kH, kW).
    See conv_transpose1d for the output size."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv_transpose2d", True, output_padding)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-D transposed convolution: input (N, C_in, D, H, W) or (C_in, D, H, W); weight
    (C_in, C_out / groups, kD, kH, kW). See conv_transpose1d for the output size."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv_transpose3d", True, output_padding)


# ---------------------------------------------------------------------------- padding

_MODES = ("constant", "reflect", "replicate", "circular")
_PAD_SIZES = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_ints(pad, fn="pad"):
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"{fn}(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    return tuple(int(p) for p in pad)


def constant_pad_nd(input, pad, value=0):
    """Pad the last len(pad) // 2 dimensions with `value`: pad = (last_left, last_right, prev_left, ...).
    Negative entries crop."""
    pad = _pad_ints(pad, "constant_pad_nd")
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)} while the input has {input.ndim} dimensions.")
    config = [(0, 0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = input.shape[d] + min(lo, 0)  # torch narrows the negative sides first
        if size < 0 or size + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        config[d] = (lo, hi, 0)
    fill = np.asarray(np.asarray(value).astype(np.dtype(input.dtype)) if input.dtype != jnp.bfloat16 else value)
    return lax.pad(input, jnp.asarray(fill, input.dtype), config)


def _reflect_index(n, lo, hi):
    i = np.arange(n + lo + hi) - lo
    i = np.abs(i)
    return np.where(i >= n, 2 * (n - 1) - i, i)


def _replicate_index(n, lo, hi):
    return np.clip(np.arange(n + lo + hi) - lo, 0, n - 1)


def _circular_index(n, lo, hi):
    """torch's circular padding, step by step (its copies from the padded output itself, negative sides crop)."""
    size = n + lo + hi
    out = np.zeros(size, np.int64)
    out[max(lo, 0):size - max(hi, 0)] = np.arange(n)[max(-lo, 0):n - max(-hi, 0)]
    if lo > 0:
        out[:lo] = out[size - max(hi, 0) - lo:size - max(hi, 0)].copy()
    if hi > 0:
        out[size - hi:] = out[max(lo, 0):max(lo, 0) + hi].copy()
    return out


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dimensions; pad = (last_left, last_right, prev_left, prev_right, ...).

    mode 'constant' pads with `value` (0 by default) any number of dimensions, negative entries crop;
    'reflect' mirrors without repeating the edge, 'replicate' repeats the edge and 'circular' wraps around,
    each for the last 1, 2 or 3 dimensions of a (C, *) or (N, C, *) input.
    """
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = _pad_ints(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if not (1 <= k <= 3 and input.ndim in (k + 1, k + 2)):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  + _PAD_SIZES)
    space = input.shape[input.ndim - k:][::-1]  # (W, H, D): the order of the pad pairs
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(k)]
    if mode == "circular":
        for n, (lo, hi) in zip(space, pairs):
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + lo + hi < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        index = _circular_index
    else:
        kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d"
        batch = input.ndim == k + 2
        if any(s == 0 for s in input.shape[1 if batch else 0:]):
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {_size(input.shape)}")
        if mode == "reflect":
            for i, (n, (lo, hi)) in enumerate(zip(space, pairs)):
                if lo >= n or hi >= n:
                    raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                                       f"input dimension, but got: padding ({lo}, {hi}) at dimension "
                                       f"{input.ndim - 1 - i} of input {_size(input.shape)}")
        outs = [n + lo + hi for n, (lo, hi) in zip(space, pairs)]
        if all(o < 1 for o in outs) or (k == 1 and outs[0] < 1):
            names = "DHW"[3 - k:]
            raise RuntimeError(f"input ({' '.join(f'{a}: {n}' for a, n in zip(names, space[::-1]))}) is too small. "
                               f"Calculated output {' '.join(f'{a}: {o}' for a, o in zip(names, outs[::-1]))}")
        if input.dtype == jnp.bool_:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        index = _reflect_index if mode == "reflect" else _replicate_index
    out = input
    for i, (n, (lo, hi)) in enumerate(zip(space, pairs)):
        if n + lo + hi == 0:
            shape = list(out.shape)
            shape[input.ndim - 1 - i] = 0
            out = jnp.zeros(shape, out.dtype)
            continue
        out = jnp.take(out, jnp.asarray(index(n, lo, hi)), axis=input.ndim - 1 - i)
    return out


# ---------------------------------------------------------------------------- im2col / col2im

def _pair(v, name):
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
    return v


def _window_checks(kernel, dilation, padding, stride):
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")


def _blocks(space, kernel, dilation, padding, stride):
    return tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1
                 for s, k, d, p, st in zip(space, kernel, dilation, padding, stride))


def _floating(x, kernel):
    if not (jnp.issubdtype(x.dtype, jnp.floating) or jnp.issubdtype(x.dtype, jnp.complexfloating)):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x.dtype)}'")


def _windows(kernel, dilation, stride, blocks):
    """(row slice, column slice) of the padded image read by each kernel position, in (kh, kw) order."""
    return [(slice(i * dilation[0], i * dilation[0] + stride[0] * (blocks[0] - 1) + 1, stride[0]),
             slice(j * dilation[1], j * dilation[1] + stride[1] * (blocks[1] - 1) + 1, stride[1]))
            for i in range(kernel[0]) for j in range(kernel[1])]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks (im2col): (N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L) or
    (C * kH * kW, L), L = the number of block positions; the block axis is (c, kh, kw) row-major."""
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    padding, stride = _pair(padding, "padding"), _pair(stride, "stride")
    _window_checks(kernel, dilation, padding, stride)
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got 2)")
    batched = input.ndim == 4
    if input.ndim > 4 or any(s == 0 for s in input.shape[1 if batched else 0:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_size(input.shape)}")
    x = input if batched else input[None]
    blocks = _blocks(x.shape[2:], kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding "
                           f"blocks as {blocks}, but its components must be at least one.")
    _floating(x, "im2col_out_cpu")
    x = jnp.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    cols = jnp.stack([x[:, :, r, c] for r, c in _windows(kernel, dilation, stride, blocks)], axis=2)
    out = cols.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], blocks[0] * blocks[1])
    return out if batched else out[0]


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding local blocks into an image, summing overlaps (col2im, the transpose of unfold):
    (N, C * kH * kW, L) or (C * kH * kW, L) -> (N, C, H, W) or (C, H, W), (H, W) = output_size."""
    size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dilation, padding, stride = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    _window_checks(kernel, dilation, padding, stride)
    batched = input.ndim == 3
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[1 if batched else 0:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_size(input.shape)}")
    x = input if batched else input[None]
    kk = kernel[0] * kernel[1]
    if x.shape[1] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    given = (f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
             f"stride={stride}, ")
    if x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={x.shape[2]}.")
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as {blocks}, which is too small "
                           "(non-positive)")
    _floating(x, "col2im_out_cpu")
    n, c = x.shape[0], x.shape[1] // kk
    cols = x.reshape(n, c, kk, *blocks)
    out = jnp.zeros((n, c, size[0] + 2 * padding[0], size[1] + 2 * padding[1]), x.dtype)
    for i, (r, col) in enumerate(_windows(kernel, dilation, stride, blocks)):
        out = out.at[:, :, r, col].add(cols[:, :, i])
    out = out[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]
    return out if batched else out[0]


# ---------------------------------------------------------------------------- shuffles

def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h, w]."""
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    nb = len(batch)
    x = x.transpose(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)  # (*, C, H, r, W, r)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle."""
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    nb = len(batch)
    x = x.transpose(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)  # (*, C, r, r, H, W)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, C, *) -> (N, C, *) with the channels regrouped: out[:, j g + i] = in[:, i (C / g) + j]."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{_size(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    x = input.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return x.reshape(input.shape)
