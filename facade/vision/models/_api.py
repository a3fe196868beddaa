"""The model registry and the `weights=` API: Weights, WeightsEnum, register_model, list_models, get_model ...

As torchvision.models._api. Weights are checkpoints at a URL; `WeightsEnum.get_state_dict` loads one through
torch.hub's cache (`facade.hub.load_state_dict_from_url`), and a checkpoint that is neither in the cache nor
downloadable fails naming the file and the place to put it.
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from types import ModuleType
from typing import Any, get_args
from urllib.parse import urlparse

from ... import hub

__all__ = ["WeightsEnum", "Weights", "get_model", "get_model_builder", "get_model_weights", "get_weight", "list_models"]


@dataclass
class Weights:
    """A checkpoint: its `url`, the constructor of its preprocessing preset (`transforms`) and its `meta` data
    (`categories`, `num_params`, `min_size`, metrics ...)."""

    url: str
    transforms: Callable
    meta: dict[str, Any]

    def __eq__(self, other: Any) -> bool:
        # transforms is usually a functools.partial, and a deep-copied partial is a new object that compares unequal;
        # comparing its parts lets an enum member survive deepcopy and pickling.
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        a, b = self.transforms, other.transforms
        if isinstance(a, partial) and isinstance(b, partial):
            return a.func == b.func and a.args == b.args and a.keywords == b.keywords
        return a == b


class WeightsEnum(Enum):
    """Base of each model's weights enum; its members' values are `Weights`."""

    @classmethod
    def verify(cls, obj: Any) -> Any:
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(
                    f"Invalid Weight class provided; expected {cls.__name__} but received {obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return hub.load_state_dict_from_url(self.url, *args, **kwargs)
        except OSError as err:  # urllib's URLError (no network) is an OSError
            model_dir = kwargs.get("model_dir") or os.path.join(hub.get_dir(), "checkpoints")
            filename = kwargs.get("file_name") or os.path.basename(urlparse(self.url).path)
            path = os.path.join(model_dir, filename)
            if os.path.exists(path):
                raise
            raise FileNotFoundError(
                f"{self!r}: the checkpoint {filename} is not in the torch hub cache and could not be downloaded from "
                f"{self.url} ({err}). Download it elsewhere and place it at {path} (the hub cache is "
                f"torch.hub.get_dir() + '/checkpoints', i.e. $TORCH_HOME/hub/checkpoints), or load a local file with "
                f"model.load_state_dict(torch.load(path)).") from err

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


def get_weight(name: str) -> WeightsEnum:
    """The weights enum member by its full name, e.g. "ResNet50_Weights.IMAGENET1K_V1"."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    base_module = importlib.import_module(__name__.rsplit(".", 1)[0])
    model_modules = [base_module] + [m for _, m in inspect.getmembers(base_module, inspect.ismodule)
                                     if (getattr(m, "__file__", None) or "").endswith("__init__.py")]
    for m in model_modules:
        candidate = m.__dict__.get(enum_name, None)
        if isinstance(candidate, type) and issubclass(candidate, WeightsEnum):
            return candidate[value_name]
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be retrieved.")


def get_model_weights(name: Callable | str) -> type[WeightsEnum]:
    """The weights enum class of a model builder (or of the name it is registered under)."""
    return _get_enum_from_fn(get_model_builder(name) if isinstance(name, str) else name)


def _get_enum_from_fn(fn: Callable) -> type[WeightsEnum]:
    sig = inspect.signature(fn, eval_str=True)
    if "weights" not in sig.parameters:
        raise ValueError("The method is missing the 'weights' argument.")
    ann = sig.parameters["weights"].annotation
    for t in (ann, *get_args(ann)):
        if isinstance(t, type) and issubclass(t, WeightsEnum):
            return t
    raise ValueError(
        "The WeightsEnum class for the specific method couldn't be retrieved. Make sure the typing info is correct.")


BUILTIN_MODELS: dict[str, Callable] = {}


def register_model(name: str | None = None) -> Callable[[Callable], Callable]:
    """Decorator: register a model builder under `name` (default: the function's name)."""
    def wrapper(fn: Callable) -> Callable:
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn

    return wrapper


def _matching(names: set[str], filters: Iterable[str] | str) -> set[str]:
    filters = [filters] if isinstance(filters, str) else filters
    return {n for f in filters for n in fnmatch.filter(names, f)}


def list_models(module: ModuleType | None = None, include: Iterable[str] | str | None = None,
                exclude: Iterable[str] | str | None = None) -> list[str]:
    """Sorted names of the registered models (of `module` only, if given), filtered by fnmatch patterns."""
    all_models = {k for k, v in BUILTIN_MODELS.items()
                  if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__}
    models = _matching(all_models, include) if include else all_models
    if exclude:
        models = models - _matching(all_models, exclude)
    return sorted(models)


def get_model_builder(name: str) -> Callable:
    """The builder function registered under `name` (case-insensitive)."""
    name = name.lower()
    try:
        return BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name: str, **config: Any):
    """The model registered under `name`, built with `config` (e.g. weights="DEFAULT", num_classes=10)."""
    return get_model_builder(name)(**config)

