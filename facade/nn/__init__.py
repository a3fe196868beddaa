"""torch.nn: modules, parameters, init, functional and utils, in torch's module tree."""

from . import attention, functional, init, modules, parallel, parameter, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .parallel import DataParallel  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
