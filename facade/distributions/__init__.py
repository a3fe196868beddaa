"""torch.distributions: importable now so that libraries importing it at the top (transformers'
modeling_utils does) load; the distributions issue delivers it. Until then every distribution and
transform class raises NotImplementedError naming the torch API when constructed, and every
function when called."""

from __future__ import annotations

from .._unsupported import unsupported, unsupported_class
from . import constraints

_OWNER = "torch.distributions is the distributions issue"
_CLASSES = (
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
    "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric",
    "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace",
    "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
    "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform", "VonMises", "Weibull",
    "Wishart", "TransformedDistribution", "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
    "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform",
    "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
)
_FUNCTIONS = ("biject_to", "kl_divergence", "register_kl", "transform_to")

__all__ = ["constraints", *_CLASSES, *_FUNCTIONS]

globals().update({n: unsupported_class(f"torch.distributions.{n}", _OWNER) for n in _CLASSES})
globals().update({n: unsupported(f"torch.distributions.{n}", _OWNER) for n in _FUNCTIONS})


def __getattr__(name):
    raise AttributeError(f"module 'torch.distributions' has no attribute '{name}': facade does not support "
                         f"torch.distributions.{name} yet ({_OWNER})")
