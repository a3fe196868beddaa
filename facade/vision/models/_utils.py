"""Shared pieces of the model builders: the legacy `pretrained=` interface, parameter overrides, one builder factory,
and the two layer blocks of torchvision.ops.misc the models use (Conv2dNormActivation, MLP)."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

from ... import nn
from ._api import Weights, WeightsEnum, register_model


def _sequence_to_str(seq, separate_last: str = "") -> str:
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"
    head = "'" + "', '".join([str(item) for item in seq[:-1]]) + "'"
    tail = f"{'' if separate_last and len(seq) == 2 else ','} {separate_last}'{seq[-1]}'"
    return head + tail


class IntermediateLayerGetter(nn.ModuleDict):
    """The model's direct children up to the last one named in `return_layers`; forward returns an OrderedDict
    {new_name: output} of the named children's outputs."""

    _version = 2

    def __init__(self, model: nn.Module, return_layers: dict[str, str]) -> None:
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        remaining = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            remaining.pop(name, None)
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """`v` rounded to a multiple of `divisor` (at least `min_value`), never more than 10% below `v`."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def kwonly_to_pos_or_kw(fn: Callable) -> Callable:
    """Let `fn`'s keyword-only parameters also be passed positionally, with torchvision's deprecation warning."""
    params = tuple(inspect.signature(fn).parameters.values())
    try:
        start = next(i for i, p in enumerate(params) if p.kind == p.KEYWORD_ONLY)
    except StopIteration:
        raise TypeError(f"Found no keyword-only parameter on function '{fn.__name__}'") from None
    keyword_only = tuple(p.name for p in params[start:])

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        args, extra = args[:start], args[start:]
        if extra:
            extra_kwargs = dict(zip(keyword_only, extra))
            warnings.warn(
                f"Using {_sequence_to_str(tuple(extra_kwargs.keys()), separate_last='and ')} as positional "
                f"parameter(s) is deprecated since 0.13 and may be removed in the future. Please use keyword "
                f"parameter(s) instead.", stacklevel=2)
            kwargs.update(extra_kwargs)
        return fn(*args, **kwargs)

    return wrapper


def _legacy_to_weights(builder_name, kwargs, weights_param, pretrained_param, default) -> None:
    """Rewrite `pretrained=True/False` (keyword, or positional and so already under `weights_param`) in `kwargs`
    into `weights=<default enum>/None`, warning as torchvision does."""
    sentinel = object()
    weights_arg = kwargs.get(weights_param, sentinel)
    if ((weights_param not in kwargs and pretrained_param not in kwargs) or isinstance(weights_arg, WeightsEnum)
            or (isinstance(weights_arg, str) and weights_arg != "legacy") or weights_arg is None):
        return
    pretrained_positional = weights_arg is not sentinel
    if pretrained_positional:
        kwargs[pretrained_param] = kwargs.pop(weights_param)
    pretrained_arg = kwargs[pretrained_param]
    if pretrained_arg:
        default_weights_arg = default(kwargs) if callable(default) else default
        if not isinstance(default_weights_arg, WeightsEnum):
            raise ValueError(f"No weights available for model {builder_name}")
    else:
        default_weights_arg = None
    if not pretrained_positional:
        warnings.warn(f"The parameter '{pretrained_param}' is deprecated since 0.13 and may be removed in the future, "
                      f"please use '{weights_param}' instead.", stacklevel=4)
    msg = (f"Arguments other than a weight enum or `None` for '{weights_param}' are deprecated since 0.13 and may be "
           f"removed in the future. The current behavior is equivalent to passing "
           f"`{weights_param}={default_weights_arg}`.")
    if pretrained_arg:
        msg = (f"{msg} You can also use `{weights_param}={type(default_weights_arg).__name__}.DEFAULT` to get the "
               f"most up-to-date weights.")
    warnings.warn(msg, stacklevel=4)
    del kwargs[pretrained_param]
    kwargs[weights_param] = default_weights_arg


def handle_legacy_interface(**weights: tuple[str, Any]):
    """Decorator: accept the pre-0.13 interface of a builder (positional arguments, `pretrained=True`), as
    torchvision does. `weights` maps the weights parameter to (legacy name, default enum or callable(kwargs))."""
    def outer_wrapper(builder: Callable) -> Callable:
        @kwonly_to_pos_or_kw
        @functools.wraps(builder)
        def inner_wrapper(*args: Any, **kwargs: Any):
            for weights_param, (pretrained_param, default) in weights.items():
                _legacy_to_weights(builder.__name__, kwargs, weights_param, pretrained_param, default)
            return builder(*args, **kwargs)

        return inner_wrapper

    return outer_wrapper


def _ovewrite_named_param(kwargs: dict[str, Any], param: str, new_value: Any) -> None:
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def _ovewrite_value_param(param: str, actual: Any, expected: Any) -> Any:
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} instead.")
    return expected


def _model_builder(module: str, name: str, weights_enum: type[WeightsEnum], build: Callable,
                   legacy_default: Any = "IMAGENET1K_V1", doc: str = ""):
    """The registered builder `name(*, weights=None, progress=True, **kwargs)` of module `module`: verifies
    `weights` against `weights_enum` and calls `build(weights, progress, **kwargs)`, which builds the model and
    loads the weights' state dict. `legacy_default` is the enum member `pretrained=True` means (None: no weights)."""
    def builder(*, weights=None, progress: bool = True, **kwargs: Any) -> nn.Module:
        return build(weights_enum.verify(weights), progress, **kwargs)

    builder.__name__ = builder.__qualname__ = name
    builder.__module__ = module
    builder.__doc__ = doc or f"{name} (torchvision's architecture); weights: a {weights_enum.__name__} or its name."
    builder.__annotations__ = {"weights": weights_enum | None, "progress": bool, "kwargs": Any,
                               "return": nn.Module}
    default = weights_enum[legacy_default] if isinstance(legacy_default, str) else legacy_default
    return register_model()(handle_legacy_interface(weights=("pretrained", default))(builder))


def _load_weights(model: nn.Module, weights: WeightsEnum | None, progress: bool) -> nn.Module:
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _classifier(model_cls: Callable, weights: WeightsEnum | None, progress: bool, *args: Any, **kwargs: Any):
    """`model_cls(*args, **kwargs)` with `num_classes` fixed by the weights' categories, the weights loaded."""
    if weights is not None and weights.meta["categories"] is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    return _load_weights(model_cls(*args, **kwargs), weights, progress)


class Conv2dNormActivation(nn.Sequential):
    """torchvision.ops.Conv2dNormActivation: Conv2d, then `norm_layer` (if any), then `activation_layer` (if any).
    padding defaults to (kernel_size - 1) // 2 * dilation; the conv has a bias only without a norm layer."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1, padding=None, groups: int = 1,
                 norm_layer: Callable | None = nn.BatchNorm2d, activation_layer: Callable | None = nn.ReLU,
                 dilation=1, inplace: bool | None = True, bias: bool | None = None) -> None:
        if padding is None:
            ks = (kernel_size,) * 2 if isinstance(kernel_size, int) else tuple(kernel_size)
            dil = (dilation,) * 2 if isinstance(dilation, int) else tuple(dilation)
            padding = tuple((k - 1) // 2 * d for k, d in zip(ks, dil))
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = padding[0]
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels


class MLP(nn.Sequential):
    """torchvision.ops.MLP: (Linear, norm?, activation, Dropout) per hidden size, then Linear, Dropout."""

    def __init__(self, in_channels: int, hidden_channels: list[int], norm_layer: Callable | None = None,
                 activation_layer: Callable | None = nn.ReLU, inplace: bool | None = None, bias: bool = True,
                 dropout: float = 0.0):
        params = {} if inplace is None else {"inplace": inplace}
        layers = []
        in_dim = in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers += [activation_layer(**params), nn.Dropout(dropout, **params)]
            in_dim = hidden_dim
        layers += [nn.Linear(in_dim, hidden_channels[-1], bias=bias), nn.Dropout(dropout, **params)]
        super().__init__(*layers)


_NEW_RECIPE = ("`new training recipe <https://pytorch.org/blog/how-to-train-state-of-the-art-models-using-torchvision-"
               "latest-primitives/>`_")


def _imagenet_weights(url: str, recipe: str, num_params: int, acc1: float, acc5: float, ops: float, file_size: float,
                      docs: str, *, min_size: tuple[int, int] = (1, 1), meta: dict | None = None, crop_size: int = 224,
                      **preset: Any) -> Weights:
    """The Weights of an ImageNet-1K classifier checkpoint: its ImageClassification preset (`crop_size`, `preset`)
    and torchvision's meta layout (`meta` adds or overrides keys)."""
    from ..transforms._presets import ImageClassification
    from ._meta import _IMAGENET_CATEGORIES

    return Weights(url=url, transforms=partial(ImageClassification, crop_size=crop_size, **preset), meta={
        "categories": _IMAGENET_CATEGORIES, "min_size": min_size, "num_params": num_params, "recipe": recipe,
        "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}}, "_ops": ops, "_file_size": file_size,
        "_docs": docs, **(meta or {})})
