"""``jitgrad.distributions``: PyTorch's ``torch.distributions`` for numeric scripts.

Every density, entropy, moment and KL formula is written with jitgrad's differentiable
ops, so gradients flow through ``log_prob``, ``rsample``, ``entropy`` and ``kl_divergence``.
Random draws come from jitgrad's generator (``jitgrad.manual_seed``), not PyTorch's stream.
``Gamma``/``Beta`` ``rsample`` differentiate with respect to ``rate`` only (see ``gamma.py``).
"""

from __future__ import annotations

from . import constraints
from .bernoulli import Bernoulli, Binomial
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential, Poisson
from .gamma import Beta, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import LogNormal, Normal
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Distribution", "Exponential", "Gamma",
    "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal", "Poisson", "Uniform",
    "constraints", "kl_divergence", "register_kl",
]
