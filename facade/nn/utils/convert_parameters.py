"""torch.nn.utils.convert_parameters: parameters to one flat vector and back."""

from __future__ import annotations

from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old):
    if old is not None and param.device != old:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and concatenated into one vector (differentiable)."""
    device, vec = None, []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    from ... import cat  # installed by the op table after this module is imported

    return cat(vec)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of `vec` into the parameters' data (no autograd)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device, pointer = None, 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n


def _typename(obj):
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module == "builtins" else f"{module}.{name}"
