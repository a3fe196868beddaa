"""torch.func: composable function transforms, run by JAX's (jax.grad, jax.vjp, jax.jvp, jax.jacrev, jax.jacfwd,
jax.hessian, jax.vmap).

A transform wraps the Tensors it is given around JAX arrays (tracers while JAX traces), calls the function, and
unwraps what it returns; the whole transform is then one facade op, so its results take part in ordinary autograd
(`backward()` through `vmap(grad(f))` works) and transforms nest (`vmap(grad(f))`, `grad(grad(f))`,
`jacrev(jacfwd(f))`). Tensors the function reads from a closure (module parameters) are constants to the transform,
as in torch, but outer autograd still reaches those that require grad.

The rule for what a transform traces: Tensor values are traced; Python values, shapes and control flow run once,
in Python, each call. So code that needs a Tensor's value (`.item()`, `if tensor:`) raises JAX's concretization
error inside a transform, as it does under torch.func.

vmap's `randomness`: 'error' (the default) makes a draw from the default generator raise torch's error; 'same'
draws one value shared by the batch; 'different' draws independently per batch element. Explicit generators are
not mapped (their draws are shared).

Bridge to JAX, without copies:

- `to_jax(tensor)`: the `jax.Array` a Tensor holds (a view is materialised first).
- `from_jax(array)`: a Tensor holding `array`, on the torch device the array lives on.
- `jax_function(module)`: `(fn, params)`, `fn(params, *inputs)` a pure JAX function of the module's parameter and
  buffer arrays (for jax.jit / jax.grad / jax.vmap, flax and optax code); `jax_function(fn)` for a plain function.
  The other way, `torch.optim.from_optax(params, transform)` makes any optax transformation a torch optimizer.
"""

from __future__ import annotations

import functools

from .._device import of_array
from .._tensor import Tensor
from ._bridge import jax_function
from ._module import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vmap", "replace_all_batch_norm_modules_", "functionalize", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "rearrange", "vjp", "functional_call", "stack_module_state", "debug_unwrap",
           "to_jax", "from_jax", "jax_function"]


def to_jax(tensor):
    """The jax.Array behind `tensor` (no copy; a view is gathered from its base once)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_jax(): expected a Tensor, got {type(tensor).__name__}")
    return tensor._arr()


def from_jax(array):
    """A Tensor holding the jax.Array `array` itself (no copy), on the device the array lives on."""
    import jax

    if not isinstance(array, jax.Array):
        raise TypeError(f"from_jax(): expected a jax.Array, got {type(array).__name__}")
    return Tensor._from_array(array, of_array(array))


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: the same function. Every facade op is already a pure JAX function and in-place
    writes rebind arrays, so there is nothing to remove; `remove` is checked as torch does."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """torch.func.debug_unwrap: a transform's Tensor is already a plain Tensor here."""
    return tensor


def rearrange(tensor, pattern, **axes_lengths):
    """torch.func.rearrange needs first-class dimensions (functorch.dim), which facade does not provide."""
    raise NotImplementedError("torch.func.rearrange (functorch.dim first-class dimensions) is not supported; "
                              "use permute/reshape, or einops on the Tensor's jax array (facade.func.to_jax)")
