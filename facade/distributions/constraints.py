"""torch.distributions.constraints: the names exist (libraries import the module at the top); checking
a value against a constraint belongs to the distributions issue and raises NotImplementedError."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class

_OWNER = "torch.distributions is the distributions issue"

# torch's parameterised constraints are classes called with their bounds: here they raise when called
_FACTORIES = ("cat", "dependent_property", "greater_than", "greater_than_eq", "independent", "integer_interval",
              "interval", "half_open_interval", "less_than", "multinomial", "stack", "is_dependent")
_SINGLETONS = ("boolean", "corr_cholesky", "dependent", "lower_cholesky", "lower_triangular", "nonnegative",
               "nonnegative_integer", "one_hot", "positive", "positive_semidefinite", "positive_definite",
               "positive_integer", "real", "real_vector", "simplex", "square", "symmetric", "unit_interval")

__all__ = ["Constraint", "MixtureSameFamilyConstraint", *_FACTORIES, *_SINGLETONS]


class Constraint:
    """A region over which a variable is valid; `check(value)` is not supported yet."""

    is_discrete = False
    event_dim = 0

    def __init__(self, name: str = "Constraint"):
        self._name = name

    def check(self, value):
        raise NotImplementedError(f"torch.distributions.constraints.{self._name}.check is not supported by facade "
                                  f"yet ({_OWNER})")


MixtureSameFamilyConstraint = unsupported_class("torch.distributions.constraints.MixtureSameFamilyConstraint",
                                                _OWNER, (Constraint,))
globals().update({n: unsupported(f"torch.distributions.constraints.{n}", _OWNER) for n in _FACTORIES})
globals().update({n: Constraint(n) for n in _SINGLETONS})
