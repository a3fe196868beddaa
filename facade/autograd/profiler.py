"""torch.autograd.profiler: the legacy profiler API, over facade.profiler."""

from __future__ import annotations

from ..profiler import EventList, FunctionEvent, record_function
from ..profiler import profile as _profile

__all__ = ["profile", "record_function", "EventList", "FunctionEvent"]


class profile(_profile):
    """`torch.autograd.profiler.profile(enabled=True, use_cuda=False, record_shapes=False, ...)`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules, use_cuda=use_cuda)
        self.enabled = enabled

    def __enter__(self):
        return super().__enter__() if self.enabled else self

    def __exit__(self, *exc):
        if self.enabled:
            super().__exit__(*exc)

    @property
    def function_events(self):
        return self.events()

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self.events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        return self.events().total_average()

    @property
    def self_cpu_time_total(self):
        return self.events().self_cpu_time_total
