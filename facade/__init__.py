"""facade: the PyTorch API over pure JAX functions. `import facade as torch`."""

import jax as _jax

_jax.config.update("jax_enable_x64", True)  # torch has int64 and float64; every creation names its dtype

import sys as _sys  # noqa: E402

from . import (  # noqa: E402
    _creation,  # noqa: E402
    _dtype,  # noqa: E402
    _random,
    _table,  # noqa: E402
    autograd,  # noqa: E402
    random,
)
from ._creation import (  # noqa: E402,F401
    arange,
    as_tensor,
    asarray,
    empty,
    empty_like,
    empty_strided,
    eye,
    from_numpy,
    full,
    full_like,
    get_default_device,
    linspace,
    logspace,
    ones,
    ones_like,
    range,
    scalar_tensor,
    set_default_device,
    tensor,
    zeros,
    zeros_like,
)
from ._device import device  # noqa: E402,F401
from ._dtype import (  # noqa: E402,F401
    bfloat16,
    bool,
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from ._random import (  # noqa: E402,F401
    Generator,
    bernoulli,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    poisson,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from ._tensor import Size, Tensor  # noqa: E402,F401
from ._tensor_str import set_printoptions  # noqa: E402,F401
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402,F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: E402,F401

globals().update(_dtype.ALIASES)
globals().update(_creation.LEGACY_CPU)
strided = "torch.strided"
__version__ = "2.13.0"

from . import cuda, hub, linalg, nn, serialization, special  # noqa: E402  (nothing in nn calls an op at import)
from .serialization import load, save  # noqa: E402

_table.install(Tensor, {"torch": _sys.modules[__name__], "torch.linalg": linalg, "torch.special": special,
                        "torch.nn.functional": nn.functional})
_random.install(Tensor)

from . import optim, utils  # noqa: E402,F401  (after install: utils.data uses torch.stack and friends)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def numel(input):
    return input.numel()
