"""torch.distributed.checkpoint.default_planner: the planners (raise when built)."""

from . import DefaultLoadPlanner, DefaultSavePlanner  # noqa: F401

__all__ = ["DefaultLoadPlanner", "DefaultSavePlanner"]
