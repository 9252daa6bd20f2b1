"""The closed-system law and workload fidelity on synthetic runs whose answers are known on paper."""

import pytest

from analysis_synthetic import closed_loop, make_run
from littlegrid.summarize import analyze

N, S, Z = 20, 100, 100  # users, elapsed ms, think ms


def analyze_cell(tmp_path, samples, think_ms=Z, users=N, **cell):
    run = make_run(tmp_path / "run", [{"id": "users=20", "axes": {"users": users}, "samples": samples,
                                       "users": users, "think_ms": think_ms, "think_dist": "constant", **cell}])
    summary = analyze([run])
    return summary.cells[0]


def checks(cell):
    return {c.name: c for c in cell.checks}


def test_n_threads_with_fixed_elapsed_and_gaps_give_x_equal_n_over_s_plus_z_and_pass_both_closed_checks(tmp_path):
    cell = analyze_cell(tmp_path, closed_loop(N, S, Z, duration_s=30))
    assert cell.overall.throughput_per_s == pytest.approx(N / ((S + Z) / 1000), rel=0.01)
    assert cell.overall.mean_ms == S
    assert cell.think_time.mean_ms == Z
    c = checks(cell)
    assert c["closed_law"].passed and c["closed_law"].rel_error < 0.01
    assert c["workload"].passed and c["think_time"].passed and c["users"].passed


def test_half_the_threads_stopping_halfway_fails_the_consistency_check(tmp_path):
    samples = closed_loop(N, S, Z, duration_s=30, stop_s=lambda i: 15 if i >= N // 2 else 30)
    c = checks(analyze_cell(tmp_path, samples))
    assert c["closed_law"].passed is False
    assert c["closed_law"].value == pytest.approx(0.75 * N, rel=0.05)  # half the threads for half the window
    assert "not all active" in c["closed_law"].explanation


def test_a_generator_starved_run_with_gaps_30_percent_long_passes_consistency_and_fails_workload_fidelity(tmp_path):
    c = checks(analyze_cell(tmp_path, closed_loop(N, S, int(Z * 1.3), duration_s=30)))
    assert c["closed_law"].passed is True
    assert c["think_time"].passed is False and c["think_time"].value == 130
    assert c["workload"].passed is False
    assert c["workload"].value == pytest.approx(N * (S + Z) / (S + 1.3 * Z), rel=0.01)


def test_n_counts_every_engine_and_all_threads_is_per_engine(tmp_path):
    samples = closed_loop(10, S, Z, duration_s=30, engines=2)
    cell = analyze_cell(tmp_path, samples, users=10, engines=2)
    assert cell.users.model_dump() == {"n": 20, "plan_users": 10, "engines": 2, "all_threads_max": 10, "threads_seen": 20,
                             "basis": "plan users × engines"}
    assert checks(cell)["closed_law"].passed and checks(cell)["users"].passed


def test_forgetting_the_second_engine_fails_the_closed_law_and_the_users_check(tmp_path):
    samples = closed_loop(10, S, Z, duration_s=30, engines=2)
    c = checks(analyze_cell(tmp_path, samples, users=10, engines=1))
    assert c["closed_law"].passed is False and c["closed_law"].value == pytest.approx(20, rel=0.02)
    assert c["users"].passed is False


def test_the_closed_law_tolerance_grows_for_a_window_too_short_to_settle(tmp_path):
    cell = analyze_cell(tmp_path, closed_loop(2, 500, 1500, duration_s=12), think_ms=1500, users=2)
    law = checks(cell)["closed_law"]
    expected_error = 2 * 2.0 / (cell.window.length_s * 2 ** 0.5)
    assert law.tolerance == pytest.approx(3 * expected_error)



def test_workload_fidelity_allows_for_the_chance_in_a_random_think_times_mean_but_not_for_a_slow_generator(tmp_path):
    # one user, exponential think of mean 100 ms: over ~600 gaps the realised mean wanders by ±4 ms (1 s.e.)
    # (the chance allowed is the asked distribution's: the manifest says the think time is exponential, as drawn)
    exp = closed_loop(1, 50, lambda rng: rng.exponential(100.0), duration_s=100)
    c = checks(analyze_cell(tmp_path / "a", exp, think_ms=100, users=1, think_dist="exponential"))
    assert c["workload"].tolerance > 0.05 and c["workload"].passed
    slow = closed_loop(1, 50, lambda rng: 20 + rng.exponential(100.0), duration_s=100)  # 20 ms of overhead a cycle
    c = checks(analyze_cell(tmp_path / "b", slow, think_ms=100, users=1, think_dist="exponential"))
    assert c["workload"].passed is False and c["think_time"].passed is False


def test_a_think_time_excess_of_a_millisecond_on_a_short_cycle_is_named_as_generator_overhead(tmp_path):
    # 5 ms asked, 6 ms realised on a 10 ms service: 1 ms is 6.7% of the 15 ms cycle, JMeter's own work
    c = checks(analyze_cell(tmp_path / "a", closed_loop(N, 10, 6, duration_s=20), think_ms=5))
    assert c["think_time"].passed is False and c["think_time"].value == 6
    assert "1.0 ms more per cycle" in c["think_time"].explanation
    assert "JMeter's own work between samples" in c["think_time"].explanation
    # 30 ms more is not overhead: the generator did not deliver
    c = checks(analyze_cell(tmp_path / "b", closed_loop(N, S, Z + 30, duration_s=30)))
    assert "did not deliver the workload" in c["think_time"].explanation
