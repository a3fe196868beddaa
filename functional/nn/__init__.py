"""Pure JAX neural-network functions with torch.nn.functional's semantics, one file per family.

Stateful parts (running statistics, dropout's random key) are explicit arguments and results."""

from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .misc import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pool import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
