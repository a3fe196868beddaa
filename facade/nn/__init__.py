"""torch.nn: modules, parameters, init, functional and utils, in torch's module tree."""

from . import functional, init, modules, parameter, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
