"""torch.distributions over facade ops: distributions with sample/rsample/log_prob/entropy/moments/cdf,
argument validation, kl_divergence with torch's registry dispatch, transforms and biject_to/transform_to.
Names not delivered here are importable and raise NotImplementedError naming the torch API."""

from __future__ import annotations

from .._unsupported import unsupported_class
from . import constraints, kl, transforms  # noqa: F401  (submodules, not in torch's __all__)
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform

_OWNER = "not delivered by the distributions issue"
_MISSING = (
    "Binomial", "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "HalfCauchy", "InverseGamma",
    "Kumaraswamy", "LKJCholesky", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "NegativeBinomial", "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "VonMises", "Weibull",
    "Wishart", "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "StackTransform",
)
globals().update({n: unsupported_class(f"torch.distributions.{n}", _OWNER, (Transform,) if n.endswith("Transform")
                                       else (Distribution,)) for n in _MISSING})

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "ComposeTransform",
    "Dirichlet", "Distribution", "ExpTransform", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel",
    "HalfNormal", "Independent", "IndependentTransform", "Laplace", "LogNormal", "LowerCholeskyTransform",
    "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
    "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform", "TransformedDistribution",
    "Uniform", "biject_to", "identity_transform", "kl_divergence", "register_kl", "transform_to",
    *_MISSING,
]


def __getattr__(name):
    raise AttributeError(f"module 'torch.distributions' has no attribute '{name}'")
