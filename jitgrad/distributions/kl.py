"""``kl_divergence(p, q)`` and ``register_kl``: a table of KL formulas keyed by the pair of
distribution types, dispatched to the most specific registered pair (by the types' method
resolution order, ``p``'s type first; when ordering by ``q`` first picks another formula, a
``RuntimeWarning`` says the pair is ambiguous)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

from ..autograd import grad
from ..ops.compare import where
from ..ops.decompositions import cholesky
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential, Poisson
from .extreme_value import Gumbel, Pareto
from .gamma import Beta, Gamma
from .geometric import Geometric
from .heavy_tails import Cauchy, HalfNormal
from .independent import Independent
from .laplace import Laplace
from .multiclass import OneHotCategorical
from .lowrank import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .normal import Normal
from .transformed import TransformedDistribution
from .uniform import Uniform
from .unit_interval import ContinuousBernoulli
from .utils import euler_constant, sum_rightmost

KLFormula = Callable[[Any, Any], Tensor]
_KL_REGISTRY: dict[tuple[type, type], KLFormula] = {}
_KL_MEMOIZE: dict[tuple[type, type], KLFormula | None] = {}

__all__ = ["kl_divergence", "register_kl"]


def register_kl(type_p: type, type_q: type) -> Callable[[KLFormula], KLFormula]:
    """Decorator: ``fn(p, q)`` computes ``KL(p || q)`` for ``p`` of ``type_p`` and ``q`` of
    ``type_q`` (and their subclasses, unless a more specific pair is registered)."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"register_kl(): expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn: KLFormula) -> KLFormula:
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn

    return decorator


def _dispatch(type_p: type, type_q: type) -> KLFormula | None:
    pairs = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not pairs:
        return None
    p_rank, q_rank = type_p.__mro__.index, type_q.__mro__.index
    by_p = min(pairs, key=lambda pq: (p_rank(pq[0]), q_rank(pq[1])))
    by_q = min(pairs, key=lambda pq: (q_rank(pq[1]), p_rank(pq[0])))
    if _KL_REGISTRY[by_p] is not _KL_REGISTRY[by_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({by_p[0].__name__}, {by_q[1].__name__})", RuntimeWarning, stacklevel=3)
    return _KL_REGISTRY[by_p]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batched over the (broadcast) batch shapes."""
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch(*key)
    fn = _KL_MEMOIZE[key]
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and "
                                  f"q type {type(q).__name__}")
    return fn(p, q)


def _inf_where(mask: Tensor, t: Tensor) -> Tensor:
    return where(mask, math.inf, t)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    """The same transforms of two base distributions: the bases' KL (``LogNormal``'s)."""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)  # type: ignore[arg-type]


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    def softplus(x: Tensor) -> Tensor:  # log(1 + e^x), finite for large |x|
        return x.clamp(min=0) + (-x.abs()).exp().log1p()

    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones = where(p.probs == 0, 0.0, _inf_where(q.probs == 0, ones))
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros = where(p.probs == 1, 0.0, _inf_where(q.probs == 1, zeros))
    return ones + zeros


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + (-p.probs).log1p()
            - q._cont_bern_log_norm() - (-q.probs).log1p())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _inf_where((q.probs == 0).expand_as(t), t)
    return where((p.probs == 0).expand_as(t), 0.0, t).sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    a_p, a_q = p.concentration, q.concentration
    return (a_q * (p.rate / q.rate).log() + a_q.lgamma() - a_p.lgamma()
            + (a_p - a_q) * a_p.digamma() + (q.rate - p.rate) * (a_p / p.rate))


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    a_p, b_p, a_q, b_q = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    return (q._log_beta() - p._log_beta() + (a_p - a_q) * a_p.digamma() + (b_p - b_q) * b_p.digamma()
            + (a_q - a_p + b_q - b_p) * (a_p + b_p).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    total_p, total_q = p.concentration.sum(-1), q.concentration.sum(-1)
    log_norms = total_p.lgamma() - total_q.lgamma() - (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    expected_logs = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return log_norms + ((p.concentration - q.concentration) * expected_logs).sum(-1)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (-ratio.log() + shift + ratio * euler_constant + (-shift + (1 + ratio).lgamma()).exp()
            - (1 + euler_constant))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _inf_where(p.scale < q.scale, result)  # p's support reaches below q's


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    shift = (p.loc - q.loc).abs() / q.scale
    return -scale_ratio.log() + shift + scale_ratio * (-shift / scale_ratio).exp() - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


def _scale_tril(d: MultivariateNormal | LowRankMultivariateNormal) -> Tensor:
    """The (unbroadcast) lower Cholesky factor of the covariance (a low-rank one's, dense)."""
    if isinstance(d, MultivariateNormal):
        return d._unbroadcasted_scale_tril
    W, D = d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag
    return cholesky(W @ W.mT + D.diag_embed())


@register_kl(MultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_mvn(p: Any, q: Any) -> Tensor:
    """``KL`` of two Gaussians from their covariances' Cholesky factors (a low-rank
    covariance is factored densely here)."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes "
                         f"cannot be computed (got {tuple(p.event_shape)} and {tuple(q.event_shape)})")
    n = p.event_shape[0]
    Lp, Lq = _scale_tril(p), _scale_tril(q)
    half_log_det = Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    # tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2: the Mahalanobis norms of Lp's columns, summed
    trace = batch_mahalanobis(Lq.unsqueeze(-3), Lp.mT).sum(-1)
    shift = batch_mahalanobis(Lq, q.loc - p.loc)  # (locs carry the full batch shapes)
    return half_log_det + 0.5 * (trace + shift - n)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the log normalizer (one family only)."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "be computed using Bregman divergences")
    p_thetas = [t.detach().requires_grad_() for t in p._natural_params]
    q_thetas = q._natural_params
    p_normalizer = p._log_normalizer(*p_thetas)
    gradients = grad(p_normalizer.sum(), p_thetas, create_graph=True)
    result = q._log_normalizer(*q_thetas) - p_normalizer
    for p_theta, q_theta, g in zip(p_thetas, q_thetas, gradients):
        result = result - sum_rightmost((q_theta - p_theta) * g, len(q.event_shape))
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
