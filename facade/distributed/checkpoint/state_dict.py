"""torch.distributed.checkpoint.state_dict: raises NotImplementedError naming the torch API."""

from ..._unsupported import unsupported, unsupported_class
from . import OWNER

_FUNCTIONS = ("get_model_state_dict", "get_optimizer_state_dict", "get_state_dict", "set_model_state_dict",
              "set_optimizer_state_dict", "set_state_dict")
__all__ = ["StateDictOptions", *_FUNCTIONS]
StateDictOptions = unsupported_class("torch.distributed.checkpoint.state_dict.StateDictOptions", OWNER)
globals().update({n: unsupported(f"torch.distributed.checkpoint.state_dict.{n}", OWNER) for n in _FUNCTIONS})
