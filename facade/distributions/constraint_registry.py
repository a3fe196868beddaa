"""torch.distributions.constraint_registry: biject_to(constraint) / transform_to(constraint), a transform
from unconstrained space onto the constraint's region, dispatched on the constraint's type."""

from __future__ import annotations

import numbers

from . import constraints
from . import transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A registry from Constraint subclasses to factories `constraint -> Transform`."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(*kinds):
    """Register a factory for these constraint kinds in both registries (in torch's order)."""
    def deco(factory):
        for registry in (biject_to, transform_to):
            for kind in kinds:
                registry.register(kind, factory)
        return factory
    return deco


_both(constraints.real)(lambda c: T.identity_transform)
biject_to.register(constraints.independent,
                   lambda c: T.IndependentTransform(biject_to(c.base_constraint), c.reinterpreted_batch_ndims))
transform_to.register(constraints.independent,
                      lambda c: T.IndependentTransform(transform_to(c.base_constraint), c.reinterpreted_batch_ndims))
_both(constraints.positive, constraints.nonnegative)(lambda c: T.ExpTransform())
# registered after positive, as in torch: biject_to(positive) is exp followed by the affine shift by 0
_both(constraints.greater_than, constraints.greater_than_eq)(
    lambda c: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(c.lower_bound, 1)]))
_both(constraints.less_than)(lambda c: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(c.upper_bound, -1)]))


@_both(constraints.interval, constraints.half_open_interval)
def _transform_to_interval(c):
    lower_is_0 = isinstance(c.lower_bound, numbers.Number) and c.lower_bound == 0
    upper_is_1 = isinstance(c.upper_bound, numbers.Number) and c.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(c.lower_bound, c.upper_bound - c.lower_bound)])


biject_to.register(constraints.simplex, lambda c: T.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: T.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: T.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: T.PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite, lambda c: T.PositiveDefiniteTransform())
