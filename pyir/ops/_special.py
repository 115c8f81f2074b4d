"""Special functions in plain numpy (no scipy), float64 in and out: log-gamma, digamma,
polygamma, the modified Bessel functions I0/I1 (optionally scaled by exp(-|x|)), erfinv and
the regularized upper incomplete gamma function. Series, recurrences and asymptotic
expansions, accurate to float64 rounding in practice. The kernels of pyir/ops/math_ext.py
and pyir/ops/math.py use them.
"""

from __future__ import annotations

import math

import numpy as np

from .unary_math import erf

_lgamma_scalar = np.frompyfunc(math.lgamma, 1, 1)


def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| elementwise (inf at the poles 0, -1, ...), in float64."""
    x = np.asarray(x, np.float64)
    out = np.full(x.shape, np.inf)
    ok = ~((x <= 0) & (x == np.floor(x)))
    out[ok] = np.asarray(_lgamma_scalar(x[ok]), np.float64)
    return out


def _hurwitz_zeta(s: int, a: np.ndarray) -> np.ndarray:
    """zeta(s, a) = sum_k 1/(a+k)^s for integer s >= 2 and a > 0 (Euler-Maclaurin)."""
    a = np.array(a, np.float64)
    total = np.zeros_like(a)
    while True:  # shift every point above 10 by the recurrence
        small = a < 10
        if not small.any():
            break
        total[small] += a[small] ** -s
        a[small] += 1
    bernoulli = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
    tail = a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    rising, fact = float(s), 2.0
    for k, b in enumerate(bernoulli, start=1):
        tail += b / fact * rising * a ** (-s - 2 * k + 1)
        rising *= (s + 2 * k - 1) * (s + 2 * k)
        fact *= (2 * k + 1) * (2 * k + 2)
    return total + tail


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) = d/dx ln Gamma(x), in float64 (-inf at 0 and NaN at the negative integers, as
    Paddle; reflection below 0.5)."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    neg = x < 0.5
    y = np.where(neg, 1.0 - x, x)
    acc = np.zeros_like(y)
    while True:
        small = y < 10
        if not small.any():
            break
        acc[small] -= 1.0 / y[small]
        y[small] += 1
    inv2 = 1.0 / (y * y)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 * (1 / 132)))))
    out = acc + np.log(y) - 0.5 / y - series
    with np.errstate(divide="ignore", invalid="ignore"):
        reflected = out - np.pi / np.tan(np.pi * x)
    out = np.where(neg, reflected, out)
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(x == 0, -np.inf, np.where(pole, np.nan, out))  # Paddle's values


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma (n >= 0), in float64, for x > 0 (reflection below)."""
    if n == 0:
        return digamma(x)
    x = np.asarray(x, np.float64)
    sign = -1.0 if n % 2 == 0 else 1.0
    pos = x > 0
    out = np.full(x.shape, np.nan)
    out[pos] = sign * math.factorial(n) * _hurwitz_zeta(n + 1, x[pos])
    if (~pos).any():  # shift up: psi_n(x) = psi_n(x + m) - (-1)^n n! sum 1/(x+k)^(n+1)
        xs = x[~pos]
        m = np.ceil(-xs) + 1
        acc = sign * math.factorial(n) * _hurwitz_zeta(n + 1, xs + m)
        for k in range(int(m.max())):
            use = k < m
            with np.errstate(divide="ignore"):
                acc = acc + np.where(use, sign * math.factorial(n) * (xs + k) ** -(n + 1.0), 0)
        out[~pos] = np.where(xs == np.floor(xs), sign * np.inf, acc)  # poles, as Paddle
    return out


def bessel_i(order: int, x: np.ndarray, scaled: bool) -> np.ndarray:
    """Modified Bessel I_order(x) (order 0 or 1), times exp(-|x|) when `scaled`; float64.

    Power series up to |x| = 30, the asymptotic expansion beyond."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = np.empty_like(ax)
    near = ax <= 30
    if near.any():
        h = ax[near] / 2
        term = h ** order / math.factorial(order)
        total = term.copy()
        for k in range(1, 120):
            term = term * h * h / (k * (k + order))
            total += term
        out[near] = total * np.exp(-ax[near]) if scaled else total
    if (~near).any():
        z = ax[~near]
        mu, term, total = 4.0 * order * order, np.ones_like(z), np.ones_like(z)
        for k in range(1, 20):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * z)
            total += term
        base = total / np.sqrt(2 * np.pi * z)
        with np.errstate(over="ignore"):
            out[~near] = base if scaled else base * np.exp(z)
    return np.where(x < 0, -out, out) if order == 1 else out


def erfinv(x: np.ndarray) -> np.ndarray:
    """The inverse error function in float64: a rational first guess, then Newton steps."""
    x = np.asarray(x, np.float64)
    w = -np.log(np.clip((1.0 - x) * (1.0 + x), 1e-300, None))
    guess = np.where(
        w < 5.0,
        _poly(w - 2.5, [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                        0.00021858087, -0.00125372503, -0.00417768164, 0.246640727,
                        1.50140941]),
        _poly(np.sqrt(np.maximum(w, 5.0)) - 3.0,
              [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]))
    y = guess * x
    inside = np.abs(x) < 1
    y = np.where(inside, y, 0.0)
    for _ in range(3):
        step = (erf(y) - x) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
        y = np.where(inside, y - step, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        edge = np.where(np.abs(x) == 1, np.sign(x) * np.inf, np.nan)
    return np.where(inside, y, edge)


def _poly(t, coefs):
    out = np.full_like(t, coefs[0])
    for c in coefs[1:]:
        out = out * t + c
    return out




def gammaincc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma function
    (a > 0, x >= 0; NaN elsewhere): the series of P = 1 - Q below x = a + 1, Lentz's continued
    fraction of Q above."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        front = np.exp(-x + a * np.log(x) - lgamma(a))
    series = valid & (x < a + 1)
    if series.any():
        av, xv = a[series], x[series]
        term = 1.0 / av
        total = term.copy()
        for k in range(1, 2000):
            term = term * xv / (av + k)
            total += term
            if (np.abs(term) < np.abs(total) * 1e-17).all():
                break
        out[series] = 1.0 - total * front[series]
    fraction = valid & ~series
    if fraction.any():
        av, xv = a[fraction], x[fraction]
        tiny = 1e-300
        b = xv + 1.0 - av
        c = np.full_like(b, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, 2000):
            an = -i * (i - av)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            step = d * c
            h = h * step
            if (np.abs(step - 1.0) < 1e-16).all():
                break
        out[fraction] = np.where(np.isinf(xv), 0.0, front[fraction] * h)
    return np.where(valid & (x == 0), 1.0, out)
