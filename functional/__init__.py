"""Pure JAX functions with PyTorch semantics.

Every function takes jax arrays plus static Python values and returns jax arrays; all
work under `jax.jit`, `jax.grad` and `jax.vmap`. Argument names and defaults are torch's.
Inputs arrive already promoted to a common dtype (the facade applies torch's promotion).
"""

from . import linalg  # noqa: F401  (its names clash with torch.* ones: norm, det ...; use functional.linalg.X)
from .core import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
