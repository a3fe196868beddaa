"""torch.nn's public surface as scripts see it: every module class at torch's deep path with torch's name and
constructor signature, torch.nn.functional / init / utils / optim names, and what is deliberately missing."""

from __future__ import annotations

import importlib
import inspect

import pytest
import torch

import facade

# Not implemented, each with its reason. Anything else torch has must be here.
MISSING = {
    "nn": {
        "AdaptiveLogSoftmaxWithLoss": "not requested by the nn issue; rare in scripts",
        "CrossMapLRN2d": "legacy Lua-torch layer",
        "FractionalMaxPool2d": "random pooling regions; not requested",
        "FractionalMaxPool3d": "random pooling regions; not requested",
        "LinearCrossEntropyLoss": "new in torch 2.13, not requested",
        "LinearCrossEntropyOptions": "new in torch 2.13, not requested",
        "common_types": "typing aliases only",
        "factory_kwargs": "internal helper",
        "grad": "torch.nn.grad (conv weight/input gradients by hand) not requested",
        "intrinsic": "quantization", "qat": "quantization", "quantizable": "quantization", "quantized": "quantization",
    },
    "nn.functional": {
        "fractional_max_pool2d": "random pooling regions; not requested",
        "fractional_max_pool2d_with_indices": "random pooling regions; not requested",
        "fractional_max_pool3d": "random pooling regions; not requested",
        "fractional_max_pool3d_with_indices": "random pooling regions; not requested",
        "linear_cross_entropy": "new in torch 2.13, not requested",
        "conv_tbc": "legacy fairseq op",
        "native_channel_shuffle": "internal alias of channel_shuffle",
        "grouped_mm": "CUDA-only grouped GEMM", "scaled_grouped_mm": "CUDA-only fp8", "scaled_mm": "CUDA-only fp8",
        "assert_int_or_pair": "internal helper", "boolean_dispatch": "internal helper",
        "handle_torch_function": "__torch_function__ protocol", "has_torch_function": "__torch_function__ protocol",
        "has_torch_function_unary": "__torch_function__ protocol",
        "has_torch_function_variadic": "__torch_function__ protocol",
    },
    "nn.utils": {
        "convert_conv2d_weight_memory_format": "memory formats (channels_last) are not modelled",
        "convert_conv3d_weight_memory_format": "memory formats (channels_last) are not modelled",
        "memory_format": "memory formats (channels_last) are not modelled",
        "skip_init": "not requested", "stateless": "superseded by torch.func.functional_call",
        "init": "torch.nn.utils.init (skip_init's helper)",
    },
    "nn.attention": {
        "SDPAParams": "parameters of torch's C++ SDPA kernel-selection probes",
        "activate_flash_attention_impl": "registry of FlashAttention-3/4 CUDA kernels",
        "current_flash_attention_impl": "registry of FlashAttention-3/4 CUDA kernels",
        "list_flash_attention_impls": "registry of FlashAttention-3/4 CUDA kernels",
        "register_flash_attention_impl": "registry of FlashAttention-3/4 CUDA kernels",
        "restore_flash_attention_impl": "registry of FlashAttention-3/4 CUDA kernels",
        "warn": "warnings.warn imported into torch.nn.attention, not an API",
    },
    "optim": {
        "Adafactor": "not requested by the optim issue", "Muon": "not requested by the optim issue",
        "SparseAdam": "facade has no sparse tensors",
        "swap_in_optimizer_params_and_state": "internal helper",
    },
}


def _resolve(root, path):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def _public(mod):
    """Public names: attributes not starting with "_", submodules only when they are mod's own."""
    out = set()
    for n in dir(mod):
        v = getattr(mod, n, None)
        if n.startswith("_") or n in _TYPING or (inspect.ismodule(v) and not v.__name__.startswith(mod.__name__)):
            continue
        out.add(n)
    return out


_TYPING = {"Any", "Callable", "Optional", "Union", "Literal", "ParamSpec", "TypeVar", "Tensor", "TypeAlias",
           "Iterable", "Sequence", "cast", "overload", "DType", "Size", "TYPE_CHECKING", "NamedTuple", "Dict", "List",
           "Tuple", "Module", "Parameter", "Number", "BroadcastingList1", "BroadcastingList2", "BroadcastingList3",
           "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "dtype", "Iterator", "deprecated",
           "defaultdict", "Self", "SupportsFloat", "TypedDict", "override", "annotations", "ScalingType",
           "SwizzleType", "reproducibility_notes", "sparse_support_notes", "tf32_notes"}
EXTRA = {"optim": {"from_optax"}}  # facade's own additions


@pytest.mark.parametrize("path", ["nn", "nn.functional", "nn.init", "nn.utils", "optim", "optim.lr_scheduler",
                                  "nn.attention"])
def test_namespace_matches_torch(path):
    theirs, ours = _resolve(torch, path), _resolve(facade, path)
    missing = {n for n in _public(theirs) if not hasattr(ours, n)}
    assert missing == set(MISSING.get(path, {})), f"torch.{path}: missing {sorted(missing)}"
    extra = {n for n in _public(ours) if not hasattr(theirs, n) and not inspect.ismodule(getattr(ours, n))}
    extra -= EXTRA.get(path, set())  # (submodules may differ: torch deletes torch.optim.adam from the namespace)
    assert not extra, f"facade.{path} has names torch.{path} lacks: {sorted(extra)}"


def _signature(obj):
    """(name, kind, default) per parameter; callables as defaults compared by name (F.relu is not torch's)."""
    out = []
    for p in inspect.signature(obj).parameters.values():
        d = p.default
        out.append((p.name, p.kind, d.__name__ if callable(d) else repr(d)))
    return out


@pytest.mark.parametrize("name", sorted(set(torch.nn.modules.__all__) - set(MISSING["nn"])))
def test_module_class_path_name_and_signature(name):
    theirs = getattr(torch.nn, name)
    ours = getattr(facade.nn, name)
    assert ours.__name__ == theirs.__name__
    deep = importlib.import_module(theirs.__module__.replace("torch", "facade", 1))
    assert getattr(deep, name) is ours, f"{theirs.__module__}.{name} is not facade's {name}"
    assert ours.__module__ == theirs.__module__.replace("torch", "facade", 1)
    if name not in ("Container", "NLLLoss2d"):  # torch's are deprecated (*args, **kwargs) shims
        assert _signature(ours) == _signature(theirs)


def _functions(mod):
    for n in sorted(dir(mod)):
        f = getattr(mod, n)
        if not n.startswith("_") and inspect.isfunction(f):
            yield n


@pytest.mark.parametrize("path", ["nn.functional", "nn.init", "nn.utils"])
def test_function_signatures(path):
    theirs, ours = _resolve(torch, path), _resolve(facade, path)
    differ = []
    for n in _functions(theirs):
        if n in MISSING.get(path, {}) or n in _TYPING:
            continue
        sig = _signature(getattr(theirs, n))
        if [k for _, k, _ in sig] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
            continue  # torch's boolean_dispatch wrappers (max_pool2d ...) show only (*args, **kwargs)
        if _signature(getattr(ours, n)) != sig:
            differ.append(n)
    assert not differ, f"signatures differ from torch.{path}: {differ}"
