"""Exact finite-source M/M/c//N (machine-repairman with c servers): throughput and response time of a closed system."""

import math

import numpy as np


def stationary(users: int, servers: int, service_ms: float, think_ms: float) -> np.ndarray:
    """P(k requests at the server), k = 0..N, for N users with exponential think time Z and c exponential servers.

    Birth-death chain: up-rate (N−k)/Z, down-rate min(k, c)/S, so p_k ∝ Π_{j=1..k} ((N−j+1)/Z) / (min(j, c)/S).
    Computed in log space: for N in the hundreds the products overflow a float.
    """
    if users < 0 or servers < 1 or service_ms <= 0 or think_ms < 0:
        raise ValueError("need N ≥ 0, c ≥ 1, S > 0 and Z ≥ 0")
    if think_ms == 0:  # no thinking: everyone is always at the server
        p = np.zeros(users + 1)
        p[users] = 1.0
        return p
    k = np.arange(1, users + 1)
    log_terms = np.log(users - k + 1) - math.log(think_ms) - np.log(np.minimum(k, servers)) + math.log(service_ms)
    log_p = np.concatenate(([0.0], np.cumsum(log_terms)))
    return np.exp(log_p - np.logaddexp.reduce(log_p))


def throughput_per_s(users: int, servers: int, service_ms: float, think_ms: float) -> float:
    """X = Σ_k p_k · min(k, c) / S, in requests per second."""
    p = stationary(users, servers, service_ms, think_ms)
    busy = np.minimum(np.arange(users + 1), servers)
    return float((p * busy).sum() / service_ms * 1000.0)


def response_ms(users: int, servers: int, service_ms: float, think_ms: float) -> float:
    """R = N/X − Z (the closed law)."""
    x = throughput_per_s(users, servers, service_ms, think_ms)
    return users / x * 1000.0 - think_ms if x > 0 else float("nan")


def erlang_c(rate_per_s: float, servers: int, service_ms: float) -> float:
    """P(wait) in the open M/M/c queue (Erlang C), by the stable recursion on Erlang B: B_k = a·B_{k−1}/(k + a·B_{k−1})."""
    a = rate_per_s * service_ms / 1000.0  # offered load in erlangs
    if servers < 1 or a < 0 or a >= servers:
        raise ValueError("need c ≥ 1 and 0 ≤ λ·S < c (a stable queue)")
    b = 1.0
    for k in range(1, servers + 1):
        b = a * b / (k + a * b)
    rho = a / servers
    return b / (1 - rho + rho * b)


def open_sojourn_survival(t_ms: float, rate_per_s: float, servers: int, service_ms: float) -> float:
    """P(T > t) for the time in system T = W + S of open M/M/c.

    W is 0 with probability 1 − P_W and Exp(θ), θ = cμ − λ, otherwise; S is Exp(μ) and independent of W, so
    P(T > t) = (1 − P_W)·e^{−μt} + P_W·P(Exp(θ) + Exp(μ) > t), the hypoexponential tail (θ·e^{−μt} − μ·e^{−θt})/(θ − μ).
    """
    mu = 1.0 / service_ms
    theta = servers * mu - rate_per_s / 1000.0
    p_wait = erlang_c(rate_per_s, servers, service_ms)
    if abs(theta - mu) < 1e-12 * mu:  # the two rates coincide: Erlang-2 tail
        both = math.exp(-mu * t_ms) * (1 + mu * t_ms)
    else:
        both = (theta * math.exp(-mu * t_ms) - mu * math.exp(-theta * t_ms)) / (theta - mu)
    return (1 - p_wait) * math.exp(-mu * t_ms) + p_wait * both


def open_response_percentile_ms(q: float, rate_per_s: float, servers: int, service_ms: float) -> float:
    """The q-quantile (0 < q < 1) of the time in system of open M/M/c, by bisection on the survival function."""
    if not 0 < q < 1:
        raise ValueError("need 0 < q < 1")
    lo, hi = 0.0, service_ms
    while open_sojourn_survival(hi, rate_per_s, servers, service_ms) > 1 - q:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if open_sojourn_survival(mid, rate_per_s, servers, service_ms) > 1 - q else (lo, mid)
    return (lo + hi) / 2


def open_capacity_per_s(q: float, threshold_ms: float, servers: int, service_ms: float) -> float:
    """The largest arrival rate λ whose q-quantile of time in system in open M/M/c stays below threshold_ms.

    The quantile grows with λ; 0 when even an idle server's service-time quantile, −ln(1 − q)·S, exceeds the threshold.
    """
    if open_response_percentile_ms(q, 0.0, servers, service_ms) >= threshold_ms:
        return 0.0
    lo, hi = 0.0, servers * 1000.0 / service_ms  # the saturation rate c/S, where every quantile diverges
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if open_response_percentile_ms(q, mid, servers, service_ms) < threshold_ms else (lo, mid)
    return lo
