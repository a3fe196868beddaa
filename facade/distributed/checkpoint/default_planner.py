"""torch.distributed.checkpoint.default_planner: DefaultSavePlanner and DefaultLoadPlanner, taken for their
options. facade plans every save and load itself (state_dict_saver.py, state_dict_loader.py); a planner of
another class, whose methods would change the plan, raises NotImplementedError."""

from __future__ import annotations

__all__ = ["DefaultSavePlanner", "DefaultLoadPlanner"]


class DefaultSavePlanner:
    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, dedup_replicated_tensors=None,
                 dedup_save_to_lowest_rank=False, enable_plan_caching=False):
        self.flatten_state_dict, self.flatten_sharded_tensors = flatten_state_dict, flatten_sharded_tensors
        self.dedup_save_to_lowest_rank = dedup_save_to_lowest_rank


class DefaultLoadPlanner:
    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, allow_partial_load=False):
        self.flatten_state_dict, self.flatten_sharded_tensors = flatten_state_dict, flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load


def resolve(planner, default, api):
    if planner is None:
        return default()
    if type(planner) is not default:
        raise NotImplementedError(f"{api}(planner={type(planner).__name__}(...)): facade plans checkpoints itself "
                                  f"and takes only the options of a {default.__name__}; custom planners are not "
                                  "supported")
    return planner
