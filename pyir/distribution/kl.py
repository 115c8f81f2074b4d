"""KL(p || q) formulas for same-family pairs, registered with register_kl."""

from __future__ import annotations

from .. import tensor as T
from ..eager import grad as tape_grad
from ._base import (
    Distribution,
    ExponentialFamily,
    in_dynamic_mode,
    lbeta,
    register_kl,
    sum_rightmost,
    xlogy,
)
from .continuous import Cauchy, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Bernoulli, Binomial, Categorical, Geometric, Poisson
from .gamma_family import Beta, Dirichlet, Exponential, Gamma
from .multivariate import Independent, LogNormal, MultivariateNormal, _solve_lower


def _same_batch(p, q, family: str) -> None:
    if tuple(p.batch_shape) != tuple(q.batch_shape):
        raise ValueError(f"KL divergence of two {family} distributions should share the same "
                         f"`batch_shape`, got {list(p.batch_shape)} and {list(q.batch_shape)}.")


def _bernoulli_terms(p, q):
    return xlogy(p, p) - xlogy(p, q) + xlogy(1.0 - p, 1.0 - p) - xlogy(1.0 - p, 1.0 - q)


@register_kl(Normal, Normal)
def _kl_normal(p, q):
    ratio = (p.scale / q.scale) ** 2.0
    gap = ((p.loc - q.loc) / q.scale) ** 2.0
    return 0.5 * (ratio + gap - 1.0 - T.log(ratio))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal(p, q):
    return _kl_normal(p._base, q._base)


@register_kl(Uniform, Uniform)
def _kl_uniform(p, q):
    inside = T.cast((q.low <= p.low) & (p.high <= q.high), p.dtype)
    return T.log(q.high - q.low) - T.log(p.high - p.low) - T.log(inside)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy(p, q):
    return (T.log((p.scale + q.scale) ** 2.0 + (p.loc - q.loc) ** 2.0)
            - T.log(4.0 * p.scale * q.scale))


@register_kl(Laplace, Laplace)
def _kl_laplace(p, q):
    gap = T.abs(p.loc - q.loc)
    return (T.log(q.scale) - T.log(p.scale) + gap / q.scale
            + p.scale / q.scale * T.exp(-gap / p.scale) - 1.0)


@register_kl(Exponential, Exponential)
def _kl_exponential(p, q):
    ratio = q.rate / p.rate
    return -T.log(ratio) + ratio - 1.0


@register_kl(Gamma, Gamma)
def _kl_gamma(p, q):
    a1, r1, a2, r2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * T.digamma(a1) - T.lgamma(a1) + T.lgamma(a2)
            + a2 * (T.log(r1) - T.log(r2)) + a1 * (r2 - r1) / r1)


@register_kl(Beta, Beta)
def _kl_beta(p, q):
    a1, b1, a2, b2 = p.alpha, p.beta, q.alpha, q.beta
    total = a1 + b1
    return (lbeta(a2, b2) - lbeta(a1, b1) + (a1 - a2) * T.digamma(a1)
            + (b1 - b2) * T.digamma(b1) + (a2 - a1 + b2 - b1) * T.digamma(total))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = T.sum(a, axis=-1, keepdim=True)
    return (T.lgamma(T.sum(a, axis=-1)) - T.lgamma(T.sum(b, axis=-1))
            - T.sum(T.lgamma(a), axis=-1) + T.sum(T.lgamma(b), axis=-1)
            + T.sum((a - b) * (T.digamma(a) - T.digamma(a0)), axis=-1))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli(p, q):
    return _bernoulli_terms(p.probs, q.probs)


@register_kl(Binomial, Binomial)
def _kl_binomial(p, q):
    return p.total_count * _bernoulli_terms(p.probs, q.probs)


@register_kl(Geometric, Geometric)
def _kl_geometric(p, q):
    # Paddle 3.3.1's formula (the Bernoulli one, without the 1/p factor of the exact KL)
    return _bernoulli_terms(p.probs, q.probs)


@register_kl(Poisson, Poisson)
def _kl_poisson(p, q):
    _same_batch(p, q, "poisson")
    return xlogy(p.rate, p.rate) - xlogy(p.rate, q.rate) - p.rate + q.rate


@register_kl(Categorical, Categorical)
def _kl_categorical(p, q):
    log_p, log_q = p._log_softmax(), q._log_softmax()
    return T.sum(T.exp(log_p) * (log_p - log_q), axis=-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    _same_batch(p, q, "Continuous Bernoulli")
    mean = p.mean
    cross = (mean * T.log(q.probs) + (1.0 - mean) * T.log1p(-q.probs)
             + q._log_constant())
    return -p.entropy() - cross


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariate_normal(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL divergence of two Multivariate Normal distributions should share "
                         "the same `batch_shape` and `event_shape`.")
    shape = list(T.broadcast_shape(list(p.scale_tril.shape), list(q.scale_tril.shape)))
    lower_q = T.expand(q.scale_tril, shape)
    ratio = _solve_lower(lower_q, T.expand(p.scale_tril, shape))
    gap = _solve_lower(lower_q, T.unsqueeze(T.expand(q.loc - p.loc, shape[:-1]), -1))
    k = float(p.event_shape[0])
    return (q._half_log_det() - p._half_log_det()
            + 0.5 * (T.sum(ratio ** 2.0, axis=[-2, -1])
                     + T.sum(T.squeeze(gap, -1) ** 2.0, axis=-1) - k))


@register_kl(Independent, Independent)
def _kl_independent(p, q):
    if p._reinterpreted_batch_rank != q._reinterpreted_batch_rank:
        raise NotImplementedError("kl_divergence: Independent distributions must reinterpret "
                                  "the same number of batch axes")
    from_base = _dispatch(p._base, q._base)
    return sum_rightmost(from_base, p._reinterpreted_batch_rank)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p, q):
    """Bregman divergence of the log normalizer (same family; eager: needs gradients)."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence: no formula for ({type(p).__name__}, "
                                  f"{type(q).__name__}); register one with register_kl")
    if not in_dynamic_mode():
        raise NotImplementedError("kl_divergence by Bregman divergence differentiates the log "
                                  "normalizer on the tape: call it in eager mode")
    p_nat = [n.detach() for n in p._natural_parameters]
    q_nat = q._natural_parameters
    for n in p_nat:
        n.stop_gradient = False
    p_norm = p._log_normalizer(*p_nat)
    grads = tape_grad([T.sum(p_norm)], p_nat, create_graph=True)
    result = q._log_normalizer(*q_nat) - p_norm
    for pn, qn, g in zip(p_nat, q_nat, grads):
        result = result - sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


def _dispatch(p: Distribution, q: Distribution):
    return p.kl_divergence(q)
