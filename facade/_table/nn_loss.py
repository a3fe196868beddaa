"""Table rows of torch.nn.functional: losses.

Each loss is one row (installed nowhere by itself) plus a FUNCTIONS entry with torch's exact
signature, which maps the legacy size_average/reduce arguments to `reduction` with torch's warning,
runs the checks that need concrete tensor values (a class index out of range is torch's IndexError;
under torch.compile/jit the values are not known and these checks are skipped: out-of-range class
indices then give NaN) and calls the row.
"""

import inspect
import warnings

import jax
import numpy as np

from functional.nn import loss as L

from .. import _deferred
from .._creation import full_like, tensor
from .._dispatch import Op, call
from .._tensor import Tensor

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed


def _row(fn, arrays, grad, **kw):
    return Op(fn.__name__, fn, arrays=arrays, method=False, function=False, grad_name=grad, **kw)


_IT = ("input", "target")
_L1 = _row(L.l1_loss, (*_IT, "weight"), "MeanBackward0", promote="all")
_MSE = _row(L.mse_loss, (*_IT, "weight"), "MseLossBackward0", promote="all")
_SMOOTH = _row(L.smooth_l1_loss, _IT, "SmoothL1LossBackward0", promote="all")
_HUBER = _row(L.huber_loss, (*_IT, "weight"), "HuberLossBackward0", promote=("input",), scalars=("target", "weight"))
_NLL = _row(L.nll_loss, (*_IT, "weight"), "NllLossBackward0")
_CE = _row(L.cross_entropy, (*_IT, "weight"), "NllLossBackward0")
_CE_PROB = _row(L.cross_entropy, (*_IT, "weight"), "DivBackward1", promote=_IT, scalars=("weight",))
_BCE = _row(L.binary_cross_entropy, (*_IT, "weight"), "BinaryCrossEntropyBackward0")
_BCEL = _row(L.binary_cross_entropy_with_logits, (*_IT, "weight", "pos_weight"),
             "BinaryCrossEntropyWithLogitsBackward0", promote=("target",), scalars=("input", "weight", "pos_weight"))
_KL = _row(L.kl_div, _IT, "MeanBackward0", promote="all")
_POISSON = _row(L.poisson_nll_loss, _IT, "MeanBackward0", promote="all", to_float=True)
_GAUSS = _row(L.gaussian_nll_loss, (*_IT, "var"), "MeanBackward0", promote="all", to_float=True)
_COSINE = _row(L.cosine_embedding_loss, ("input1", "input2", "target"), "MeanBackward0", promote=("input1", "input2"))
_RANKING = _row(L.margin_ranking_loss, ("input1", "input2", "target"), "MeanBackward0", promote="all")
_HINGE = _row(L.hinge_embedding_loss, _IT, "MeanBackward0", promote=("input",), scalars=("target",))
_SOFT = _row(L.soft_margin_loss, _IT, "SoftMarginLossBackward0", promote=("input",), scalars=("target",))
_MLSOFT = _row(L.multilabel_soft_margin_loss, (*_IT, "weight"), "MeanBackward0", promote="all", to_float=True)
_MLMARGIN = _row(L.multilabel_margin_loss, _IT, "MultilabelMarginLossBackward0")
_MULTI = _row(L.multi_margin_loss, (*_IT, "weight"), "MultiMarginLossBackward0", promote=("input", "weight"))
_TRIPLET = _row(L.triplet_margin_loss, ("anchor", "positive", "negative"), "MeanBackward0", promote="all")
_PAIRWISE = _row(L._pairwise_distance, ("x1", "x2"), "NormBackward1", promote="all")
_CTC = _row(L.ctc_loss, ("log_probs", "targets", "input_lengths", "target_lengths"), "MeanBackward0")


def _legacy(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=3)
    return ret


def _values(t):
    """t's values as a numpy array, or None while it is traced (compile/jit) or on the meta device."""
    if not isinstance(t, Tensor) or t.device.type == "meta" or isinstance(t._arr(), jax.core.Tracer):
        return None
    return t._host()


def _binder(sig):
    """bind(args, kwargs): `sig.bind(*args, **kwargs)` with its defaults applied, as a dict. A loss runs every
    step and inspect's bind takes about 60 us; a call that binds is read directly, anything else (a missing or
    unexpected argument) goes to inspect for its TypeError."""
    names = tuple(sig.parameters)
    index = {name: i for i, name in enumerate(names)}
    defaults = [p.default for p in sig.parameters.values()]
    empty = inspect.Parameter.empty

    def bind(args, kwargs):
        n = len(args)
        if n <= len(names) and all(index.get(k, -1) >= n for k in kwargs):
            a = dict(zip(names, args))
            for name, default in zip(names[n:], defaults[n:]):
                v = a[name] = kwargs.get(name, default)
                if v is empty:
                    break
            else:
                return a
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        return b.arguments

    return bind


def _loss(row, params, before=None, after=None, route=None):
    """F.<loss>: torch's positional order `params` (the row's parameters plus the legacy size_average and
    reduce); `before(args)` may check or rewrite the bound arguments, `after(args)` checks values once the
    row has run (so shape errors come first, as torch's), `route(args)` picks another row."""
    fn_params = inspect.signature(row.fn).parameters
    pok = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature([inspect.Parameter(p, pok, default=None) if p in ("size_average", "reduce")
                             else fn_params[p].replace(kind=pok) for p in params.split()])

    bind = _binder(sig)

    def loss(*args, **kwargs):
        a = bind(args, kwargs)
        size_average, reduce = a.pop("size_average", None), a.pop("reduce", None)
        if size_average is not None or reduce is not None:
            a["reduction"] = _legacy(size_average, reduce)
        elif a.get("reduction") == "elementwise_mean":
            warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                          stacklevel=2)
            a["reduction"] = "mean"
        if before is not None:
            before(a)
        out = call((route(a) if route is not None else None) or row, (), a)
        if after is not None:
            after(a)
        return out

    loss.__name__ = loss.__qualname__ = row.name
    loss.__signature__ = sig
    loss.__doc__ = f"torch.nn.functional.{row.name}: see functional.nn.{row.name}.\n\n{row.fn.__doc__}"
    return loss


def _size_warning(a):
    i, t = a["input"], a["target"]
    if isinstance(t, Tensor) and isinstance(i, Tensor) and tuple(t.shape) != tuple(i.shape):
        warnings.warn(f"Using a target size (torch.Size({list(t.shape)})) that is different to the input size "
                      f"(torch.Size({list(i.shape)})). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _class_bounds(a):
    """torch's IndexError for a class index outside [0, C) (not ignore_index), deferred on an accelerator."""
    inp, target = a["input"], a["target"]
    if target.is_floating_point() or inp.ndim < 1:
        return
    n_classes = inp.shape[0 if inp.ndim == 1 else 1]
    _deferred.check_range(target, 0, n_classes - 1, lambda v: IndexError(f"Target {v} is out of bounds."),
                          op="the class target check", skip=a["ignore_index"])


def _ce_route(a):
    return _CE_PROB if isinstance(a["target"], Tensor) and a["target"].is_floating_point() else None


def _unit_interval(a):
    for name in _IT:
        if isinstance(a[name], Tensor):  # deferred on an accelerator
            _deferred.check_range(a[name], 0, 1, lambda v, name=name: RuntimeError(
                f"all elements of {name} should be between 0 and 1"), op="binary_cross_entropy")


def _kl_before(a):
    if isinstance(a["target"], Tensor) and not (a["target"].is_floating_point() or a["target"].is_complex()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if a["reduction"] == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=3)


def _gauss_before(a):
    var = a["var"]
    if isinstance(var, Tensor):
        v = _values(var)
        if v is not None and (v < 0).any():
            raise ValueError("var has negative entry/entries")
    else:
        if var < 0:
            raise ValueError("var has negative entry/entries")
        a["var"] = full_like(a["input"], var)


def _ctc_before(a):
    """Lengths given as Python sequences become tensors (no recompile per batch); concatenated targets
    with known lengths are padded to (N, max length) here, so the jitted recursion runs over the longest
    target, not the sum of all."""
    for k in ("input_lengths", "target_lengths"):
        if not isinstance(a[k], Tensor):
            a[k] = tensor(a[k]).long()
    lp, lengths = a["log_probs"], _values(a["target_lengths"])
    if lp.ndim == 3 and a["targets"].ndim == 1 and lengths is not None:
        flat = _values(a["targets"])
        if flat is not None:
            starts = np.cumsum(lengths) - lengths
            pad = np.zeros((len(lengths), int(lengths.max(initial=0))), flat.dtype)
            for n, (s, k) in enumerate(zip(starts, lengths)):
                pad[n, :k] = flat[s:s + k]
            a["targets"] = tensor(pad)
    ilen = _values(a["input_lengths"])
    if ilen is not None and ilen.size and ilen.max() > lp.shape[0]:
        raise RuntimeError(f"Expected input_lengths to have value at most {lp.shape[0]}, but got value "
                           f"{ilen.max()} (while checking arguments for ctc_loss_allocate_outputs)")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for any callable distance `d` of two
    tensors (default: pairwise_distance); `swap` uses min(d(a, n), d(p, n)) for the negative distance."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    if distance_function is None:
        def distance_function(x1, x2):
            return call(_PAIRWISE, (x1, x2, 2.0, 1e-06), None)
    d_pos = distance_function(anchor, positive)
    d_neg = distance_function(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance_function(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return loss.sum() if reduction == "sum" else loss.mean() if reduction == "mean" else loss


OPS = []
FUNCTIONS = {
    "l1_loss": _loss(_L1, "input target size_average reduce reduction weight", _size_warning),
    "mse_loss": _loss(_MSE, "input target size_average reduce reduction weight", _size_warning),
    "smooth_l1_loss": _loss(_SMOOTH, "input target size_average reduce reduction beta", _size_warning),
    "huber_loss": _loss(_HUBER, "input target reduction delta weight", _size_warning),
    "nll_loss": _loss(_NLL, "input target weight size_average ignore_index reduce reduction", after=_class_bounds),
    "cross_entropy": _loss(_CE, "input target weight size_average ignore_index reduce reduction label_smoothing",
                           after=_class_bounds, route=_ce_route),
    "binary_cross_entropy": _loss(_BCE, "input target weight size_average reduce reduction", after=_unit_interval),
    "binary_cross_entropy_with_logits": _loss(_BCEL, "input target weight size_average reduce reduction pos_weight"),
    "kl_div": _loss(_KL, "input target size_average reduce reduction log_target", _kl_before),
    "poisson_nll_loss": _loss(_POISSON, "input target log_input full size_average eps reduce reduction"),
    "gaussian_nll_loss": _loss(_GAUSS, "input target var full eps reduction", _gauss_before),
    "cosine_embedding_loss": _loss(_COSINE, "input1 input2 target margin size_average reduce reduction"),
    "margin_ranking_loss": _loss(_RANKING, "input1 input2 target margin size_average reduce reduction"),
    "hinge_embedding_loss": _loss(_HINGE, "input target margin size_average reduce reduction"),
    "multilabel_margin_loss": _loss(_MLMARGIN, "input target size_average reduce reduction"),
    "multilabel_soft_margin_loss": _loss(_MLSOFT, "input target weight size_average reduce reduction"),
    "multi_margin_loss": _loss(_MULTI, "input target p margin weight size_average reduce reduction"),
    "soft_margin_loss": _loss(_SOFT, "input target size_average reduce reduction"),
    "triplet_margin_loss": _loss(_TRIPLET, "anchor positive negative margin p eps swap size_average reduce "
                                           "reduction"),
    "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss,
    "ctc_loss": _loss(_CTC, "log_probs targets input_lengths target_lengths blank reduction zero_infinity",
                      _ctc_before),
}


# ---------------------------------------------------------------------------- torch.<loss>: the ATen signatures

_REDUCTIONS = ("none", "mean", "sum")  # ATen's Reduction enum


def _aten(name, params):
    """torch.`name`: F.`name` called with ATen's positional order `params` ("p=default" for optional ones), whose
    `reduction` is an int (0 none, 1 mean, 2 sum; torch's Python binding defaults it to 0, not ATen's 1).
    kl_div's 'mean' here is ATen's, without F's warning."""
    names, defaults = [], {}
    for p in params.split():
        n, eq, d = p.partition("=")
        names.append(n)
        if eq:
            defaults[n] = eval(d)  # noqa: S307  (literals written above)

    def fn(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names)} positional arguments but {len(args)} were given")
        a = {**defaults, **dict(zip(names, args)), **kwargs}
        missing = [n for n in names if n not in a]
        if missing:
            raise TypeError(f"{name}() missing required argument '{missing[0]}'")
        r = a["reduction"]
        if not isinstance(r, int) or not 0 <= r <= 2:
            raise TypeError(f"{name}(): argument 'reduction' must be int (0, 1 or 2), not {r!r}")
        a["reduction"] = _REDUCTIONS[r]
        if name == "kl_div":
            return call(_KL, (a["input"], a["target"], a["reduction"], a["log_target"]), None)
        return FUNCTIONS[name](**a)

    fn.__name__ = name
    return fn


FUNCTIONS.update({"torch." + n: _aten(n, p) for n, p in {
    "binary_cross_entropy_with_logits": "input target weight=None pos_weight=None reduction=0",
    "cosine_embedding_loss": "input1 input2 target margin=0.0 reduction=0",
    "ctc_loss": "log_probs targets input_lengths target_lengths blank=0 reduction=0 zero_infinity=False",
    "hinge_embedding_loss": "input target margin=1.0 reduction=0",
    "kl_div": "input target reduction=0 log_target=False",
    "margin_ranking_loss": "input1 input2 target margin=0.0 reduction=0",
    "poisson_nll_loss": "input target log_input full eps reduction",
    "triplet_margin_loss": "anchor positive negative margin=1.0 p=2.0 eps=1e-06 swap=False reduction=0",
}.items()})
