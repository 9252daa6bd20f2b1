"""Open M/M/c time in system: Erlang C, the sojourn tail and its quantiles, against closed forms and a simulation."""

import math

import numpy as np
import pytest

from littlegrid.analysis.modelling import mmcn


def test_erlang_c_matches_the_closed_forms_for_one_and_two_servers():
    assert mmcn.erlang_c(10.0, 1, 50.0) == pytest.approx(0.5)  # M/M/1: P(wait) = ρ
    assert mmcn.erlang_c(20.0, 2, 50.0) == pytest.approx(1 / 3)  # M/M/2: 2ρ²/(1 + ρ), ρ = 0.5
    with pytest.raises(ValueError):
        mmcn.erlang_c(40.0, 2, 50.0)  # λ·S = c: no steady state


def test_mm1_time_in_system_is_exponential_with_rate_mu_minus_lambda():
    # S = 50 ms, λ = 10/s: μ − λ = 0.01 per ms, so p90 = ln 10 / 0.01 = 230.26 ms
    assert mmcn.open_response_percentile_ms(0.9, 10.0, 1, 50.0) == pytest.approx(100 * math.log(10), rel=1e-9)
    # the largest λ with p90 < 300 ms: μ − ln 10 / 300 ms
    assert mmcn.open_capacity_per_s(0.9, 300.0, 1, 50.0) == pytest.approx(1000 * (0.02 - math.log(10) / 300), rel=1e-9)


def test_the_erlang_two_branch_is_continuous_with_the_general_tail():
    # c = 2, λ = 1/S makes θ = 2μ − λ = μ: the hypoexponential tail degenerates to the Erlang-2 one
    at = mmcn.open_sojourn_survival(120.0, 20.0, 2, 50.0)
    near = mmcn.open_sojourn_survival(120.0, 20.0 + 1e-6, 2, 50.0)
    assert at == pytest.approx(near, rel=1e-6)
    # closed form at θ = μ: (1 − P_W)·e^{−μt} + P_W·e^{−μt}(1 + μt), P_W = 1/3, μt = 2.4
    assert at == pytest.approx(math.exp(-2.4) * (2 / 3 + (1 + 2.4) / 3), rel=1e-12)


def test_mm2_quantiles_match_a_fifo_simulation():
    rng = np.random.default_rng(7)
    n, rate, service = 200_000, 30.0, 50.0  # ρ = 0.75
    arrivals = np.cumsum(rng.exponential(1000.0 / rate, n))
    services = rng.exponential(service, n)
    free = [0.0, 0.0]  # when each of the two servers next falls idle; FIFO takes the earliest
    sojourn = np.empty(n)
    for i in range(n):
        j = 0 if free[0] <= free[1] else 1
        start = max(arrivals[i], free[j])
        free[j] = start + services[i]
        sojourn[i] = free[j] - arrivals[i]
    steady = sojourn[n // 10:]
    for q in (0.5, 0.9, 0.99):
        assert mmcn.open_response_percentile_ms(q, rate, 2, service) == pytest.approx(np.quantile(steady, q), rel=0.03), q
    # the mean from the model's Little form: R = S + P_W / (cμ − λ)
    p_wait = mmcn.erlang_c(rate, 2, service)
    assert steady.mean() == pytest.approx(service + p_wait / (2 / service - rate / 1000), rel=0.03)
