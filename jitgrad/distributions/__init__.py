"""``jitgrad.distributions``: PyTorch's ``torch.distributions`` for numeric scripts.

Every density, entropy, moment and KL formula is written with jitgrad's differentiable
ops, so gradients flow through ``log_prob``, ``rsample``, ``entropy`` and ``kl_divergence``.
Random draws come from jitgrad's generator (``jitgrad.manual_seed``), not PyTorch's stream.
``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet`` and ``StudentT`` ``rsample`` refuse a gradient
with respect to a concentration (or ``df``): see ``gamma.py``.
"""

from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli, Binomial
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential, Poisson
from .gamma import Beta, Chi2, Gamma
from .gamma_derived import FisherSnedecor, InverseGamma
from .extreme_value import Gumbel, Pareto, Weibull
from .geometric import Geometric, NegativeBinomial
from .heavy_tails import Cauchy, HalfCauchy, HalfNormal, StudentT
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_wishart import LKJCholesky, Wishart
from .lowrank import LowRankMultivariateNormal
from .mixture import MixtureSameFamily
from .multiclass import Multinomial, OneHotCategorical, OneHotCategoricalStraightThrough
from .multivariate_normal import MultivariateNormal
from .normal import LogisticNormal, LogNormal, Normal
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed import TransformedDistribution
from .transforms import (
    AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform, ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
    SoftmaxTransform, SoftplusTransform, StackTransform, StickBreakingTransform, TanhTransform, Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .unit_interval import ContinuousBernoulli, Kumaraswamy

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
    "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
    "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
    "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto",
    "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT",
    "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to", "constraints", "kl_divergence",
    "register_kl", "transform_to", "transforms",
    *transforms.__all__,  # (PyTorch's torch.distributions re-exports its transforms too)
]
