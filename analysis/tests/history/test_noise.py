"""The run-to-run noise: σ_b² = var(ln v) − mean((se/v)²) over at least K_MIN comparable runs, and the interval of a
difference widened by √2·t·σ_b in quadrature; known answers on paper."""

import math

import pytest

from littlegrid.history import noise
from littlegrid.history.store import Figure


def fig(value, se, metric="p90_ms"):
    return Figure("c", {}, metric, value, None, None, se, 1000)


def test_the_between_run_spread_is_what_the_runs_differ_by_beyond_their_own_intervals():
    # ln values 0, ln 1.1, ln 1.2 (×100): their sample variance minus the mean within-run variance (se/v)²
    runs = [fig(100.0, 2.0), fig(110.0, 2.2), fig(120.0, 2.4)]
    logs = [math.log(v) for v in (100, 110, 120)]
    mean = sum(logs) / 3
    expected = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2 - 0.02 ** 2)
    got = noise.between_runs(runs)
    assert got.runs == 3 and got.between_sd == pytest.approx(expected)
    assert got.t() == pytest.approx(4.302652729911275)  # Student's t, 97.5%, 2 degrees of freedom


def test_runs_that_differ_no_more_than_their_own_intervals_have_no_between_run_spread():
    assert noise.between_runs([fig(100.0, 10.0), fig(101.0, 10.0), fig(100.5, 10.0)]).between_sd == 0.0


def test_fewer_than_k_min_usable_runs_measure_nothing_and_only_the_last_k_max_count():
    short = noise.between_runs([fig(100.0, 1.0), fig(200.0, 1.0), fig(None, None), fig(150.0, None)])
    assert (short.runs, short.measured) == (2, False)
    old_outlier = [fig(1000.0, 1.0)] + [fig(100.0 + i % 2, 1.0) for i in range(noise.K_MAX)]
    assert noise.between_runs(old_outlier).between_sd < 0.01  # the outlier is older than the last K_MAX runs


def test_the_error_rate_spreads_in_points_not_on_the_log_scale():
    runs = [fig(0.0, 0.001, "error_rate"), fig(0.01, 0.001, "error_rate"), fig(0.02, 0.001, "error_rate")]
    assert noise.between_runs(runs).between_sd == pytest.approx(math.sqrt(0.0001 - 0.000001))


def test_the_half_width_adds_the_noise_in_quadrature():
    assert noise.half_width(0.05, noise.Noise(2, None), 1.96) == pytest.approx(0.098)
    measured = noise.Noise(3, 0.04)
    assert noise.half_width(0.05, measured, 1.96) == pytest.approx(
        math.hypot(0.098, 4.302652729911275 * math.sqrt(2) * 0.04))
