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
