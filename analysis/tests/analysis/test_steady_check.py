"""The steady check: completions and the per-bucket median R in the steady window's first third against its last, on
synthetic runs whose answers are known on paper (steady, warming up, R drifting at a constant completion rate,
exponential service times) and on a real sample-server cell whose JIT was still warming after the trim."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, machine_repairman, make_run, table
from littlegrid.analysis.queueing import laws
from littlegrid.findings import findings
from littlegrid.summarize import analyze
from littlegrid.summary.model import Trend

N, Z = 20, 100  # users, think ms
FIXTURES = Path(__file__).parent / "fixtures"


def analyze_cell(tmp_path, samples, warmup_fixed=False, **cell):
    spec = {"id": "users=20", "axes": {"users": N}, "samples": samples, "users": N, "think_ms": Z,
            "think_dist": "constant"} | cell
    summary = analyze([make_run(tmp_path / "run", [spec])], warmup_fixed=warmup_fixed)
    return summary, {c.name: c for c in summary.cells[0].checks}["steady"]


def open_arrivals(rate_per_s, elapsed_at, seconds, threads=10):
    """An open workload: an arrival every 1/λ s, handed round-robin to `threads` threads (each busy at most
    elapsed_at(...) ms of every threads/λ s, so none overlaps itself); elapsed_at(ms since T0) -> elapsed ms."""
    step = 1000.0 / rate_per_s
    starts = [T0 + round(k * step) for k in range(int(seconds * rate_per_s))]
    return table([(t, elapsed_at(t - T0), f"Thread Group 1-{k % threads + 1}") for k, t in enumerate(starts)],
                 threads)


def closed_drifting(users, think_ms, elapsed_at, seconds):
    """Closed-loop threads at uniform phases: a request of elapsed_at(ms since T0) ms, then think_ms."""
    rows = []
    for i in range(users):
        t = T0 + i * (think_ms + elapsed_at(0)) // users
        while t + elapsed_at(t - T0) <= T0 + 1000 * seconds:
            rows.append((t, elapsed_at(t - T0), f"Thread Group 1-{i + 1}"))
            t += elapsed_at(t - T0) + think_ms
    return table(rows, users)


def doubling(ms: int) -> int:
    """R from 50 ms at the cell's start to 100 ms at its end (30 s): it doubles through the window."""
    return 50 + round(50 * ms / 30_000)


# ---------------------------------------------------------------- completions

def test_a_steady_closed_loop_completes_as_many_in_the_first_third_as_in_the_last(tmp_path):
    _, steady = analyze_cell(tmp_path, closed_loop(N, 100, Z, duration_s=30))
    assert steady.passed is True
    assert steady.value == pytest.approx(N / 0.2, rel=0.02) and steady.expected == pytest.approx(N / 0.2, rel=0.02)
    assert steady.rel_error < 0.02 and "steady." in steady.explanation
    # every request took 100 ms: the median R of every second is 100 ms, no order to test
    assert "100 ms in the window's first third and 100 ms in its last" in steady.explanation


def test_a_window_holding_a_warm_up_fails_with_both_rates_and_says_what_to_do(tmp_path):
    """Requests take 200 ms for the first 12 s, then 100 ms: X = 20/0.3 s = 66.7/s, then 20/0.2 s = 100/s. Trimmed
    only by the fixed floor (--warmup-fixed), the window (2 s to 29 s) has its first third (9 s) in the slow part and
    its last in the fast part; found from the data, the warm-up is the 12 s and the mixed second after them (MSER,
    one-second batches), and the window is steady."""
    slow = closed_loop(N, 200, Z, duration_s=12)
    fast = closed_loop(N, 100, Z, duration_s=18, start_ms=T0 + 12_000)
    found, settled = analyze_cell(tmp_path / "found", pd.concat([slow, fast], ignore_index=True))
    assert 12 <= found.cells[0].window.warmup_detected_s <= 13 and settled.passed is True  # 12 holds both paces
    summary, steady = analyze_cell(tmp_path, pd.concat([slow, fast], ignore_index=True), warmup_fixed=True)
    assert steady.passed is False
    assert steady.expected == pytest.approx(66.7, rel=0.05) and steady.value == pytest.approx(100, rel=0.03)
    assert steady.rel_error == pytest.approx(0.4, abs=0.06)
    assert "the throughput rose through the window" in steady.explanation and "warmup_s" in steady.explanation
    assert "R fell through the window" in steady.explanation  # 200 ms, then 100 ms: R drifted too
    validity = [f for f in findings(summary) if f.kind == "validity" and "not steady" in f.statement]
    assert len(validity) == 1 and validity[0].cells == ("users=20",)


def test_completions_that_drift_at_a_constant_r_fail_on_the_completions(tmp_path):
    """R stays 100 ms while the think time falls from 200 ms to 100 ms at 12 s: X = 20/0.3 = 66.7/s, then 100/s
    (the window trimmed by the fixed floor only, as above)."""
    slow = closed_loop(N, 100, 200, duration_s=12)
    fast = closed_loop(N, 100, 100, duration_s=18, start_ms=T0 + 12_000)
    _, steady = analyze_cell(tmp_path, pd.concat([slow, fast], ignore_index=True), warmup_fixed=True)
    assert steady.passed is False and "the throughput rose through the window" in steady.explanation
    assert steady.expected == pytest.approx(66.7, rel=0.05) and steady.value == pytest.approx(100, rel=0.03)
    assert "R rose" not in steady.explanation and "R fell" not in steady.explanation


@pytest.mark.parametrize("first, last, tolerance, rel, passed", [
    # rel = |C_last − C_first| / mean; tolerance = max(10%, 4·√(C_first + C_last) / mean)
    (1000, 1000, 0.17889, 0.0, True),          # 4·√2000/1000 = 17.9%
    (1000, 1090, 0.17499, 0.08612, True),      # 90/1045 = 8.6% within 4·√2090/1045 = 17.5%
    (1000, 1150, 0.17253, 0.13953, True),      # 150/1075 = 14.0% within 4·√2150/1075 = 17.3%
    (10000, 11500, 0.10, 0.13953, False),      # 14.0% of ten times as many: 4·√21500/10750 = 5.5%, so the 10% floor
    (100, 130, 0.52750, 0.26087, True),        # 30/115 = 26% of few: 4·√230/115 = 52.8% of noise allowed
])
def test_the_allowance_is_the_floor_or_four_standard_errors_of_the_counts(first, last, tolerance, rel, passed):
    check = laws.steady("c", first, last, 10.0, 0.10)
    assert check.tolerance == pytest.approx(tolerance, abs=5e-5) and check.rel_error == pytest.approx(rel, abs=5e-5)
    assert check.passed is passed
    assert (check.value, check.expected) == (last / 10.0, first / 10.0)


def test_too_few_completions_or_no_three_whole_buckets_make_no_check():
    few = laws.steady("c", 10, 5, 10.0, 0.10)  # 15 completions: too few to tell
    assert few.passed is None and "too few" in few.explanation
    assert laws.steady("c", None, None, None, 0.10).passed is None


# ---------------------------------------------------------------- response time, on paper

def trend_of(first, last, p, *, first_range=None, last_range=None, tau=0.8) -> Trend:
    lo_f, hi_f = first_range or (first - 1, first + 1)
    lo_l, hi_l = last_range or (last - 1, last + 1)
    return Trend(buckets=27, tau=tau, p=p, first_ms=first, last_ms=last, rising=last > first, first_low_ms=lo_f,
                 first_high_ms=hi_f, last_low_ms=lo_l, last_high_ms=hi_l, interval_level=0.96)


@pytest.mark.parametrize("trend, rel, passed, words", [
    # rel = larger / smaller third's median − 1, against 20%; beyond noise: p < 0.01 and the intervals apart
    (trend_of(100, 200, 1e-6), 1.0, False, "R rose through the window"),           # doubled
    (trend_of(100, 50, 1e-6, tau=-0.8), 1.0, False, "R fell through the window"),  # halved: 100/50 − 1, too
    (trend_of(109, 103, 1e-5, tau=-0.8), 6 / 103, True, "a drift beyond noise, within the tolerance"),  # 5.8%
    (trend_of(100, 150, 0.05), 0.5, True, "within noise: p ≥ 0.01"),  # not ordered in time
    (trend_of(100, 150, 1e-4, first_range=(80, 130), last_range=(120, 170)), 0.5, True,
     "within noise: the thirds' intervals overlap"),
    (trend_of(0, 3, 1e-6), 3.0, False, "R rose"),  # whole ms: a 0 ms median counts as 1 ms, (3 − 0)/1
])
def test_r_drifts_when_ordered_in_time_with_the_thirds_apart_and_beyond_the_tolerance(trend, rel, passed, words):
    check = laws.steady("c", 1000, 1000, 10.0, 0.10, trend, 0.20)
    assert check.passed is passed and words in check.explanation
    if passed:  # the completions carry the figures: 100/s both
        assert (check.value, check.expected, check.rel_error, check.tolerance) == \
            (100.0, 100.0, 0.0, pytest.approx(0.17889, abs=5e-5))
    else:  # R alone drifted: its figures
        assert (check.value, check.expected, check.rel_error, check.tolerance) == \
            (trend.last_ms, trend.first_ms, pytest.approx(rel), 0.20)


def test_without_completions_to_compare_r_still_decides():
    check = laws.steady("c", None, None, None, 0.10, trend_of(100, 200, 1e-6), 0.20)
    assert check.passed is False and (check.value, check.expected) == (200, 100)
    assert laws.steady("c", None, None, None, 0.10, Trend(buckets=4, tau=None, p=None, first_ms=None,
                                                           last_ms=None, rising=False), 0.20).passed is None


# ---------------------------------------------------------------- response time, from JTLs

@pytest.mark.parametrize("rate", [20, 50, 200])
def test_an_open_workload_whose_r_doubles_at_a_constant_rate_is_not_steady(tmp_path, rate):
    """λ arrivals a second for 30 s, R = 50 + 50·t/30 s ms: the completions stay λ in every third (their check
    alone passed). The window, 2 s to about 29.1 s, holds 27 whole buckets: thirds of 9, 2-11 s and 20-29 s, whose
    middle seconds' medians are R(6.5 s) = 60.8 ms and R(24.5 s) = 90.8 ms: 91/61 − 1 = 49% against 20%."""
    threads = max(10, rate // 5)  # each thread's next arrival 200 ms on, after its 100 ms at most
    samples = open_arrivals(rate, doubling, 30, threads)
    summary, steady = analyze_cell(tmp_path, samples, users=threads, think_ms=None, think_dist=None,
                                   properties={"rate_per_s": rate, "threads": threads})
    assert summary.cells[0].intended.workload == "open"
    assert steady.passed is False and "R rose through the window" in steady.explanation
    assert (steady.expected, steady.value, steady.tolerance) == (61.0, 91.0, 0.20)
    assert steady.rel_error == pytest.approx(30 / 61)
    # completions end R(t) after their arrival, R growing 1/600 s a second: λ/(1 + 1/600) completions a second,
    # the same in both thirds
    assert "(9 s each, 0% apart" in steady.explanation and "the throughput" not in steady.explanation
    t = summary.cells[0].trend
    assert t.tau > 0.9 and t.p < 1e-9 and t.last_low_ms > t.first_high_ms


@pytest.mark.parametrize("users, think_ms", [(20, 2000), (10, 1000)])
def test_a_closed_workload_with_a_long_think_time_whose_r_doubles_is_not_steady(tmp_path, users, think_ms):
    """20 users thinking 2 s, R from 50 ms to 100 ms: X = 20/2.05 s = 9.76/s, then 20/2.1 s = 9.52/s, 2.4% less
    (10 users, 1 s: 9.52/s, then 9.09/s, 4.5% less), which the completions' 10% floor cannot see. The last request
    ends by 30 s, so the window (2 s to under 29 s) holds 26 whole buckets: thirds of 8, 2-10 s and 20-28 s, whose
    middles give R(6 s) = 60 ms and R(24 s) = 90 ms."""
    samples = closed_drifting(users, think_ms, doubling, 30)
    summary, steady = analyze_cell(tmp_path, samples, id=f"users={users}", axes={"users": users}, users=users,
                                   think_ms=think_ms)
    assert steady.passed is False and "R rose through the window" in steady.explanation
    assert "the throughput" not in steady.explanation  # the completions held
    assert (steady.expected, steady.value, steady.rel_error) == (60.0, 90.0, 0.5)
    validity = [f for f in findings(summary) if f.kind == "validity" and "not steady" in f.statement]
    assert len(validity) == 1 and "R rose through the window" in validity[0].statement
    assert validity[0].cells == (f"users={users}",)


@pytest.mark.parametrize("servers", [20, 2])  # exponential service alone; and queueing for two servers behind it
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_steady_cell_with_exponential_service_times_passes(tmp_path, servers, seed):
    """M/M/c//20 with S = 50 ms and Z = 100 ms, both exponential: the median R of each second scatters (with c = 2 the
    queue makes its median about 0.38 s), but nothing drifts: over seeds 1-10 Kendall p ≥ 0.035 and the thirds stay
    within 1.22× (c = 2) and 1.15× (c = 20), always within noise or the tolerance."""
    samples = machine_repairman(N, servers, 50, 100, 30, seed=seed)
    summary, steady = analyze_cell(tmp_path, samples, think_dist="exponential")
    t = summary.cells[0].trend
    assert t.buckets >= 25 and t.p is not None  # R was compared
    assert steady.passed is True and "Kendall τ" in steady.explanation


def test_a_real_cell_whose_jit_warms_a_little_after_the_trim_passes(tmp_path):
    """The sample server's CI grid (users=5, think_ms=0, 4 s trimmed): its per-second median R falls from 108.5 ms in
    the window's first third to 103 ms in its last, in order (Kendall τ = −0.83, p = 6e-5) and with the thirds'
    intervals apart (107-110 ms, 103-103 ms): a drift beyond noise, but of 5.3%, within the 20% tolerance."""
    summary = analyze([str(FIXTURES / "jit-warm-up-after-trim.jtl")], warmup_s=4, cooldown_s=1)
    (cell,) = summary.cells
    t = cell.trend
    assert (t.buckets, t.first_ms, t.last_ms, t.first_low_ms, t.first_high_ms, t.last_low_ms, t.last_high_ms) == \
        (14, 108.5, 103.0, 107.0, 110.0, 103.0, 103.0)
    assert t.tau == pytest.approx(-0.83, abs=0.005) and t.p == pytest.approx(6.0e-5, rel=0.01)
    steady = {c.name: c for c in cell.checks}["steady"]
    assert steady.passed is True and "a drift beyond noise, within the tolerance" in steady.explanation
    assert "5% apart against 20% allowed" in steady.explanation
