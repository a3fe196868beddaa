"""torch.distributed._functional_collectives: importable (libraries import it when torch.distributed is
available); the traceable functional collectives raise NotImplementedError naming the torch API. The
eager collectives are facade.distributed's."""

from .._unsupported import unsupported

_OWNER = "functional collectives are not built; use the eager torch.distributed collectives"
_NAMES = ("all_reduce", "all_gather_tensor", "reduce_scatter_tensor", "wait_tensor", "all_to_all_single",
          "all_to_all_single_autograd", "broadcast", "all_reduce_coalesced")
__all__ = list(_NAMES)
globals().update({n: unsupported(f"torch.distributed._functional_collectives.{n}", _OWNER) for n in _NAMES})
