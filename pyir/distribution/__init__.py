"""paddle.distribution: probability distributions, transforms and KL divergences.

Every method is built from pyir tensor functions, so it runs eagerly (gradients flow
through `rsample` and `log_prob` to the parameters) and builds ops in static mode.

Example:
    >>> from pyir.distribution import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
"""

from . import kl as _kl_formulas  # noqa: F401 - registers the KL formulas
from ._base import Distribution, ExponentialFamily, kl_divergence, register_kl
from .continuous import Cauchy, Gumbel, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Bernoulli, Binomial, Categorical, Geometric, Multinomial, Poisson
from .gamma_family import Beta, Chi2, Dirichlet, Exponential, Gamma, StudentT
from .multivariate import Independent, LKJCholesky, LogNormal, MultivariateNormal
from .transform import (
                                    ChainTransform,
                                    IndependentTransform,
                                    ReshapeTransform,
                                    StackTransform,
                                    Transform,
                                    TransformedDistribution,
)
from .transform_elementwise import (
                                    AbsTransform,
                                    AffineTransform,
                                    ExpTransform,
                                    PowerTransform,
                                    SigmoidTransform,
                                    SoftmaxTransform,
                                    StickBreakingTransform,
                                    TanhTransform,
)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical",
    "Cauchy", "ChainTransform", "Chi2", "ContinuousBernoulli", "Dirichlet", "Distribution",
    "ExpTransform", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel",
    "Independent", "IndependentTransform", "LKJCholesky", "Laplace", "LogNormal",
    "Multinomial", "MultivariateNormal", "Normal", "Poisson", "PowerTransform",
    "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
    "StickBreakingTransform", "StudentT", "TanhTransform", "Transform",
    "TransformedDistribution", "Uniform", "kl_divergence", "register_kl",
]
