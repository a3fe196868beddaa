"""torch.optim: optimizers as pure updates (optax or functional.optim) plus torch's stateful classes."""

from . import lr_scheduler, swa_utils  # noqa: F401
from ._optax import from_optax
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD", "from_optax", "lr_scheduler", "swa_utils"]
