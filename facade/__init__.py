"""facade: the PyTorch API over pure JAX functions. `import facade as torch`."""

import jax as _jax

_jax.config.update("jax_enable_x64", True)  # torch has int64 and float64; every creation names its dtype

from . import _cache, _xla  # noqa: E402

_cache.configure()  # JAX's persistent compilation cache, before anything compiles
_xla.configure()  # XLA flags for fast compiles of small programs, before JAX starts a backend

import sys as _sys  # noqa: E402

from . import (  # noqa: E402
    _creation,
    _dtype,  # noqa: E402
    _layout,
    _random,
    _table,  # noqa: E402
    autograd,  # noqa: E402
    random,
)
from ._creation import (  # noqa: E402,F401
    arange,
    as_tensor,
    asarray,
    bartlett_window,
    blackman_window,
    empty,
    empty_like,
    empty_strided,
    eye,
    from_numpy,
    full,
    full_like,
    get_default_device,
    hamming_window,
    hann_window,
    kaiser_window,
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
    binomial,
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
globals().update({d.name: d for d in (*_dtype.ALL, *_dtype.PLACEHOLDERS)})
globals().update(_creation.LEGACY_CPU)
globals().update(_layout.LAYOUTS)  # torch.strided, torch.sparse_coo ...
globals().update(_layout.MEMORY_FORMATS)  # torch.channels_last ...

# ------------------------------------------------------------ constants, layouts, version
from math import e, inf, nan, pi

from . import version
from ._layout import layout, memory_format
from .torch_version import TorchVersion as _TorchVersion

__version__ = _TorchVersion(version.__version__)
newaxis = None

# ------------------------------------------------------------ submodules that define ops (none calls one at import)
from . import _quantized, cuda, fft, futures, hub, linalg, nn, serialization, sparse, special
from ._misc import *
from ._quantized import *  # quantize_per_tensor, torch.qscheme ...
from ._sym import *
from .futures import Future
from .serialization import load, save
from .sparse import sparse_coo_tensor, spmm
from .sparse._compressed import *  # sparse_csr_tensor ...
from .sparse._extra import *  # smm, values_copy ...
from .storage import LEGACY as _LEGACY_STORAGES, TypedStorage, UntypedStorage, is_storage

globals().update(_LEGACY_STORAGES)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def numel(input):
    return input.numel()


# ------------------------------------------------------------ the op table onto torch.*, Tensor, submodules
sparse._install(Tensor)
_quantized._install(Tensor)
_table.install(Tensor, {"torch": _sys.modules[__name__], "torch.linalg": linalg, "torch.special": special,
                        "torch.fft": fft, "torch.nn.functional": nn.functional})
_random.install(Tensor)

# ------------------------------------------------------------ after install (utils.data uses torch.stack ...)
from . import optim, overrides, profiler, testing, utils
from . import func  # noqa: E402  (torch.func; torch.autograd.functional is built on it)
from .autograd import functional as _autograd_functional  # noqa: E402,F401
from .func import vmap  # noqa: E402
from .utils import dlpack as _dlpack  # noqa: E402
from .utils.dlpack import from_dlpack  # noqa: E402
from ._compile import compile
from . import __config__, accelerator, amp, backends, compiler, cpu, distributed, jit, mps, multiprocessing, onnx, xpu
from . import _dynamo, distributions, export, fx, library  # transformers imports them at the top
from . import _extras
from ._checks import *  # torch._check ...
from ._config import *  # threads, matmul precision, determinism ...
from ._extras import *  # anomaly flags, Stream/Event, fork/wait, legacy norms ...
from ._extras2 import *  # histogramdd, SyncBatchNorm's batch_norm_* kernels
from ._ops import ops
from .amp import GradScaler, autocast
from .amp import _state as _amp_state

globals().update({n: getattr(_amp_state, n) for n in _amp_state.__all__})  # torch.is_autocast_enabled ...
_extras.install(Tensor)


def install():
    """Make `import torch` (and `torch.X.Y`, `torchvision`) resolve to facade in this process, as the runner
    `python -m facade` does: call it at the top of a notebook or script, before anything imports real torch."""
    from .__main__ import install_torch_alias

    install_torch_alias()
