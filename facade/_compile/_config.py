"""torch._dynamo.config and counters: the switches and counts of facade's compile."""

from __future__ import annotations

import collections


class _Config:
    """torch._dynamo.config. `cache_size_limit` (alias `recompile_limit`): programs one compiled function keeps
    before it warns and runs the new case eagerly (torch's default, 8). `disable`: every compiled function runs its
    eager original. `log_recompiles`: print why each recompile happened (as TORCH_LOGS=recompiles does).
    `tracing` is facade's own: true while a compiled function is being traced."""

    def __init__(self):
        self.cache_size_limit = 8
        self.accumulated_cache_size_limit = 256
        self.disable = False
        self.log_recompiles = False
        self.suppress_errors = False
        self.verbose = False
        self.capture_scalar_outputs = False
        self.capture_dynamic_output_shape_ops = False
        self.automatic_dynamic_shapes = True
        self.assume_static_by_default = True
        self.optimize_ddp = True
        self.tracing = False

    @property
    def recompile_limit(self):
        return self.cache_size_limit

    @recompile_limit.setter
    def recompile_limit(self, value):
        self.cache_size_limit = value

    def patch(self, **changes):
        """Set options for a `with` block (torch's config.patch)."""
        import contextlib

        @contextlib.contextmanager
        def scope():
            old = {k: getattr(self, k) for k in changes}
            for k, v in changes.items():
                setattr(self, k, v)
            try:
                yield
            finally:
                for k, v in old.items():
                    setattr(self, k, v)

        return scope()


config = _Config()
# torch._dynamo.utils.counters' layout: counters["stats"]["unique_graphs"] (programs traced),
# counters["stats"]["recompiles"], counters["frames"]["total"] (compiled calls), counters["graph_break"][reason]
counters = collections.defaultdict(collections.Counter)
