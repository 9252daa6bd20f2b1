"""Grid models with answers known on paper: M/M/c//N, USL recovery, asymptotic bounds, knee, SLO capacity."""

import math

import numpy as np
import pytest

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves, mmcn, models, usl
from littlegrid.summary.model import Cell
from summary_contract import typed


def test_machine_repairman_with_one_server_matches_the_closed_form():
    # c = 1: p0 = 1 / Σ_{n=0..N} N!/(N−n)! (S/Z)^n and X = (1 − p0)/S
    for users, s, z in ((1, 50.0, 100.0), (2, 1.0, 1.0), (5, 20.0, 80.0), (30, 10.0, 100.0)):
        p0 = 1 / sum(math.factorial(users) / math.factorial(users - n) * (s / z) ** n for n in range(users + 1))
        assert mmcn.throughput_per_s(users, 1, s, z) == pytest.approx((1 - p0) / s * 1000, rel=1e-12)


def test_two_users_two_servers_is_each_user_cycling_alone():
    # N = c: no queueing, X = N/(S+Z); with S = Z = 1 ms that is 1000/s; and the hand-computed p = (1, 2, 1)/4
    assert mmcn.throughput_per_s(2, 2, 1.0, 1.0) == pytest.approx(1000.0)
    assert mmcn.stationary(2, 2, 1.0, 1.0) == pytest.approx([0.25, 0.5, 0.25])
    assert mmcn.throughput_per_s(2, 1, 1.0, 1.0) == pytest.approx(800.0)  # p = (1, 2, 2)/5, X = 4/5 per ms


def test_mmcn_approaches_its_asymptotes_and_handles_zero_think_time_and_large_n():
    assert mmcn.throughput_per_s(8, 2, 50.0, 0.0) == pytest.approx(40.0)  # c/S, everyone at the server
    assert mmcn.throughput_per_s(500, 2, 50.0, 100.0) == pytest.approx(40.0, rel=1e-9)
    assert mmcn.throughput_per_s(1, 2, 50.0, 100.0) == pytest.approx(1000 / 150)
    assert mmcn.response_ms(1, 2, 50.0, 100.0) == pytest.approx(50.0)


def test_a_usl_curve_with_known_sigma_and_kappa_is_recovered_within_2_percent():
    n = np.array([1, 2, 4, 8, 16, 24, 32, 48, 64])
    x = usl.usl(n, 120.0, 0.04, 0.0008)
    noisy = x * (1 + 0.002 * np.random.default_rng(9).standard_normal(n.size))
    for data in (x, noisy):
        fit = usl.fit(n, data)
        assert fit["ok"] and fit["r2"] > 0.999
        assert fit["sigma"] == pytest.approx(0.04, rel=0.02)
        assert fit["kappa"] == pytest.approx(0.0008, rel=0.02)
        assert fit["lambda"] == pytest.approx(120.0, rel=0.02)
        assert fit["n_peak"] == pytest.approx(math.sqrt(0.96 / 0.0008), rel=0.02)


def test_the_usl_fit_is_refused_with_a_reason_under_four_distinct_user_counts():
    fit = usl.fit([1, 2, 4, 4], [10, 19, 30, 31])
    assert fit["ok"] is False and "3 distinct" in fit["reason"] and fit["sigma"] is None
    assert fit["points"] == []  # no fit, no line to draw


def test_the_usl_curve_is_x_of_n_at_evenly_spaced_loads_from_the_lightest_to_the_heaviest():
    # λ = 100/s, σ = 0.1, κ = 0.01 on N = 1 … 11 in 6 points (a step of 2): X(N) = 100·N / (1 + 0.1(N−1) + 0.01·N(N−1))
    points = usl.curve(100.0, 0.1, 0.01, 1.0, 11.0, count=6)
    assert [p["load"] for p in points] == pytest.approx([1, 3, 5, 7, 9, 11])
    assert [p["x"] for p in points] == pytest.approx([100.0, 300 / 1.26, 500 / 1.6, 700 / 2.02, 900 / 2.52, 1100 / 3.1])


def test_the_fitted_usl_stores_its_curve_between_the_measured_loads_through_the_fitted_parameters():
    n = [2, 4, 8, 16, 32]
    fit = usl.fit(n, usl.usl(n, 50.0, 0.05, 0.002))
    points = fit["points"]
    assert len(points) == usl.CURVE_POINTS and points[0]["load"] == 2 and points[-1]["load"] == 32
    lam, sigma, kappa = fit["lambda"], fit["sigma"], fit["kappa"]
    for p in points:
        load = p["load"]
        assert p["x"] == pytest.approx(lam * load / (1 + sigma * (load - 1) + kappa * load * (load - 1)), rel=1e-12)


def cell(users, x, r, think=0.0, p90=None, axes=None, server=None, think_dist="exponential", cell_id=None) -> Cell:
    """A cell with the figures the models read, every other field blank."""
    return typed({"id": cell_id or f"users={users}", "axes": axes or {"users": users, "think_ms": think},
                  "users": {"n": users}, "intended": {"think_ms": think, "think_dist": think_dist},
                  "overall": {"count": 100, "throughput_per_s": x, "mean_ms": r, "p90_ms": p90},
                  "window": {"length_s": 30.0}, "server": server, "checks": []}, Cell)


def test_bounds_from_the_grid_use_d_equal_s_and_d_max_equal_s_over_c():
    members = [cell(5, 49, 101), cell(10, 98, 102), cell(20, 99, 200)]
    b = models.bounds(members, Service(10, 100.0, "const"))
    assert (b.d_ms, b.d_max_ms, b.n_star) == (100.0, 10.0, 10.0)
    assert [p.x_upper for p in b.points] == [50.0, 100.0, 100.0]
    assert [p.r_lower_ms for p in b.points] == [100.0, 100.0, 200.0]


def test_estimated_bounds_take_d_from_the_servers_own_time_when_the_lightest_cell_already_queues():
    # the thread-pool-proxy run, blocking mode with 10 threads: at N = 20 R = 208 ms, 100 ms of it in the
    # server and 108 ms in front of it; X levels at 97.5/s. D = 100 ms gives N* = 9.75, R = 208 ms would give 20.3
    members = [cell(20, 95.7, 208.0), cell(80, 97.5, 820.0)]
    b = models.bounds(members, None)
    assert b.d_ms == 208.0 and b.basis.startswith("estimated: D = R at the lightest cell")
    members = [cell(20, 95.7, 208.0, server={"service_mean_ms": 100.4, "busy_threads_mean": 9.96, "threads_max": 10}),
               cell(80, 97.5, 820.0, server={"service_mean_ms": 100.9, "busy_threads_mean": 9.96, "threads_max": 10})]
    b = models.bounds(members, None)
    assert b.d_ms == 100.4 and b.basis.startswith("estimated: D = R_server at the lightest cell (its thread")
    assert b.n_star == pytest.approx(100.4 / (1000 / 97.5))
    assert [p.r_lower_ms for p in b.points] == pytest.approx([20 * 1000 / 97.5, 80 * 1000 / 97.5])
    # negative control, the transform run: 0.36 ms in the servlet of R = 4.27 ms, 1.4 of 10 threads busy: the
    # rest is the client's and Tomcat's own work, part of D, so R stays D
    members[0] = cell(20, 95.7, 208.0, server={"service_mean_ms": 0.36, "busy_threads_mean": 1.43, "threads_max": 10})
    assert models.bounds(members, None).d_ms == 208.0


def test_the_knee_is_the_last_n_within_90_percent_of_the_contention_free_line():
    members = [cell(5, 49, 101), cell(10, 98, 102), cell(20, 99, 200), cell(40, 99, 400)]
    b = models.bounds(members, Service(10, 100.0, "const"))
    assert models.knee(members, b).load == 10


def test_slo_capacity_interpolates_between_the_last_passing_and_first_failing_n():
    members = [cell(5, 0, 0, p90=100), cell(10, 0, 0, p90=200), cell(20, 0, 0, p90=400)]
    p90 = {m.id: m.overall.p90_ms for m in members}
    slos = [("p90 < 300ms", "90", 300.0, True), ("p90 <= 50ms", "90", 50.0, False), ("p90 <= 1s", "90", 1000.0, False)]
    rows = models.slo_capacity(members, [5, 10, 20], slos, lambda cid, p: p90[cid])
    assert [(r.max_load, r.how) for r in rows] == [(15, "interpolated"), (None, "none"), (20, "measured")]


def test_the_mmcn_prediction_is_made_only_for_exponential_think_and_service():
    c = cell(4, 30.0, 60.0, think=100.0)
    row = models.mmcn_prediction(c, Service(2, 50.0, "exp"))
    assert row.predicted_x == pytest.approx(mmcn.throughput_per_s(4, 2, 50.0, 100.0))
    assert row.rel_error == pytest.approx(abs(30.0 - row.predicted_x) / row.predicted_x)
    assert models.mmcn_prediction(c, Service(2, 50.0, "const")) is None
    assert models.mmcn_prediction(cell(4, 30.0, 60.0, think=100.0, think_dist="poisson"), Service(2, 50.0, "exp")) is None


def test_grid_models_fit_one_curve_per_think_time():
    cells = [cell(n, float(usl.usl(n, 10.0, 0.05, 0.001)), 100.0, think=t, cell_id=f"users={n},think_ms={t}")
             for t in (0.0, 50.0) for n in (1, 2, 4, 8, 16)]
    _, built, checks = curves.build(cells, {}, [], lambda cid, p: None, {"mmcn": 0.05, "throughput_bound": 0.02})
    assert [k.think_ms for k in built] == [0.0, 50.0] and all(k.models.usl.ok for k in built)
    assert all(k.models.bounds is not None and k.models.mmcn == [] for k in built) and checks == []
    assert [k.label for k in built] == ["think_ms = 0.0", "think_ms = 50.0"]


def test_a_simulated_machine_repairman_run_matches_the_exact_model_and_a_wrong_server_count_does_not(tmp_path):
    from analysis_synthetic import machine_repairman, make_run
    from littlegrid.summarize import analyze
    cells = [{"id": f"users={n}", "axes": {"users": n}, "users": n, "think_ms": 100, "think_dist": "exponential",
              "samples": machine_repairman(n, 2, 50.0, 100.0, seconds=300, seed=n), "warmup_s": 0, "cooldown_s": 0,
              "server": {"server.tomcat.threads.max": 2}, "properties": {"path": "/io?ms=50&dist=exp"}}
             for n in (1, 2, 4, 8)]
    s = analyze([make_run(tmp_path / "run", cells)])
    rows = [r for k in s.curves for r in k.models.mmcn]
    assert [r.users for r in rows] == [1, 2, 4, 8]
    assert all(r.rel_error < 0.05 for r in rows), rows
    assert all(c.passed for c in s.checks if c.name == "mmcn")
    # the same measurements against a model with one server instead of two: the check must fail at high N
    wrong = models.mmcn_prediction(s.cells[3], Service(1, 50.0, "exp"))
    assert wrong.rel_error > 0.5



@pytest.mark.parametrize("gaps, se, trend, deviation", [
    # N = 1 and 8, each cell's mean R with standard error se; the margin is a quarter of the mean gap
    ((3.0, 3.0), 0.1, "constant", 1.959964 * 0.1),        # each 95% interval reaches 0.2 ms from 3: inside ±0.75
    ((3.0, 5.0), 0.1, "rises", 1.0 + 1.959964 * 0.1),     # 1.2 > ±1; 2 ms apart, beyond 3·√2·0.1 and ±1
    ((5.0, 3.0), 0.1, "falls", 1.0 + 1.959964 * 0.1),
    ((3.0, 3.5), 0.3, "not shown", 0.25 + 1.959964 * 0.3),  # 0.84 > ±0.81, and 0.5 apart within 3·√2·0.3, ±0.81
])
def test_the_gap_above_the_bound_is_constant_only_inside_its_margin_else_judged_by_its_pairs(gaps, se, trend,
                                                                                            deviation):
    got = models.gap_trend([1.0, 8.0], list(gaps), [se, se])
    assert got.margin_ms == pytest.approx(0.25 * sum(gaps) / 2)
    assert got.deviation_ms == pytest.approx(deviation)
    assert (got.pairs, got.trend) == (1, trend)


def test_a_gap_that_wanders_beyond_its_noise_is_neither_constant_nor_a_trend_and_a_slow_lightest_cell_falls():
    loads, se = [10.0, 20.0, 40.0, 80.0, 160.0], [0.07, 0.05, 0.035, 0.025, 0.018]
    # 2, 5.5, 1.5, 4, 2.5 ms: spread 4 ms, mean 3.1 (margin ±0.78); of the 10 pairs, 4 rise and 4 fall beyond
    # both their noise (≤ 0.26 ms) and the margin
    wander = models.gap_trend(loads, [2.0, 5.5, 1.5, 4.0, 2.5], se)
    assert (wander.trend, wander.pairs, wander.rising, wander.falling) == ("not shown", 10, 4, 4)
    # the lightest cell 6 ms slower (a warm-up), the rest apart by 0.1–0.2 ms, beyond their noise but within the
    # ±0.8 ms margin: the 4 pairs with the lightest fall, none rises
    slow = models.gap_trend(loads, [8.0, 2.1, 2.0, 1.9, 2.0], se)
    assert (slow.trend, slow.rising, slow.falling) == ("falls", 0, 4)
    # a gap that climbs faster than any line (past a knee) still rises: every pair beyond the ±7 ms margin
    climb = models.gap_trend([1.0, 2.0, 4.0, 8.0], [6.7, 10.0, 25.0, 70.0], [0.05] * 4)
    assert (climb.trend, climb.rising, climb.falling) == ("rises", 5, 0)
    # without standard errors no constancy is claimed
    bare = models.gap_trend([1.0, 8.0], [3.0, 3.0], [None, None])
    assert (bare.deviation_ms, bare.trend) == (None, "not shown")
