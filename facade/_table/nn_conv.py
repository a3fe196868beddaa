"""Table rows of torch.nn.functional: linear maps, convolutions, padding, fold/unfold and shuffles.

torch names the autograd node of several of these after the kernel it happens to run (linear on a
matrix is addmm, an unbatched conv ends in a squeeze, each padding mode has its own kernel); `route`
picks the row with that node name, the function being the same.
"""

import functional.nn.conv as C

from .._dispatch import Op

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
_F = "torch.nn.functional"
_BOTH = ("torch", _F)


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default) if kwargs else default


def _variants(name, fn, names, **kw):
    return {key: Op(name, fn, grad_name=g, **kw) for key, g in names.items()}


_LIN = dict(arrays=("input", "weight", "bias"), method=False, module=_F)
_LINEAR = _variants("linear", C.linear, {
    (2, True): "AddmmBackward0", (2, False): "MmBackward0", (1, True): "ViewBackward0", (1, False): "SqueezeBackward4",
    (3, True): "ViewBackward0", (3, False): "UnsafeViewBackward0", "dot": "DotBackward0", "mv": "MvBackward0"}, **_LIN)


def _linear_route(args, kwargs):
    x, w, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight"), _arg(args, kwargs, 2, "bias")
    nd = getattr(x, "ndim", 2)
    if getattr(w, "ndim", 2) == 1:  # a vector weight: torch runs dot / mv
        return _LINEAR["dot"] if nd == 1 else _LINEAR["mv"] if nd == 2 and b is None else None
    return _LINEAR.get((min(nd, 3), b is not None))


_BIL = dict(arrays=("input1", "input2", "weight", "bias"), method=False, module=_BOTH)
_BILINEAR_BIAS = Op("bilinear", C.bilinear, grad_name="AddBackward0", **_BIL)


def _conv_row(name, fn):
    kw = dict(arrays=("input", "weight", "bias"), method=False, module=_BOTH)
    unbatched = Op(name, fn, grad_name="SqueezeBackward1", **kw)
    n = int(name[-2])

    def route(args, kwargs):
        x = _arg(args, kwargs, 0, "input")
        return unbatched if getattr(x, "ndim", None) == n + 1 else None

    return Op(name, fn, grad_name="ConvolutionBackward0", route=route, **kw)


_PAD = {("constant", k): Op("pad", C.pad, method=False, module=_F, grad_name="ConstantPadNdBackward0")
        for k in range(4)}
_PAD.update({(mode, k): Op("pad", C.pad, method=False, module=_F, grad_name=f"{kernel}Pad{k}DBackward0")
             for mode, kernel in (("reflect", "Reflection"), ("replicate", "Replication")) for k in (1, 2, 3)})
_PAD.update({("circular", k): Op("pad", C.pad, method=False, module=_F, grad_name="CopySlices") for k in (1, 2, 3)})


def _pad_route(args, kwargs):
    pad, mode = _arg(args, kwargs, 1, "pad", ()), _arg(args, kwargs, 2, "mode", "constant")
    try:
        return _PAD.get((mode, min(len(pad) // 2, 3) if mode == "constant" else len(pad) // 2))
    except TypeError:
        return None


OPS = [
    Op("linear", C.linear, grad_name="AddmmBackward0", route=_linear_route, **_LIN),
    Op("bilinear", C.bilinear, grad_name="ViewBackward0",
       route=lambda args, kwargs: _BILINEAR_BIAS if _arg(args, kwargs, 3, "bias") is not None else None, **_BIL),
    *[_conv_row(f"conv{n}d", getattr(C, f"conv{n}d")) for n in (1, 2, 3)],
    *[_conv_row(f"conv_transpose{n}d", getattr(C, f"conv_transpose{n}d")) for n in (1, 2, 3)],
    Op("pad", C.pad, method=False, module=_F, grad_name="ConstantPadNdBackward0", route=_pad_route),
    Op("constant_pad_nd", C.constant_pad_nd, method=False, grad_name="ConstantPadNdBackward0"),
    Op("unfold", C.unfold, method=False, module=_F, grad_name="Im2ColBackward0"),
    Op("fold", C.fold, method=False, module=_F, grad_name="Col2ImBackward0"),
    Op("pixel_shuffle", C.pixel_shuffle, method=False, module=_BOTH),
    Op("pixel_unshuffle", C.pixel_unshuffle, method=False, module=_BOTH),
    Op("channel_shuffle", C.channel_shuffle, method=False, module=_BOTH),
]
FUNCTIONS = {}
