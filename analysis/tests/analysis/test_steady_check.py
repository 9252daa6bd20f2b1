"""The steady check: completions in the steady window's first third against its last, on synthetic closed runs
whose throughput is known on paper, steady or warming up (a server whose requests get faster part-way through)."""

import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run
from littlegrid.analysis import laws
from littlegrid.summarize import analyze
from littlegrid.findings import findings

N, Z = 20, 100  # users, think ms


def analyze_cell(tmp_path, samples):
    run = make_run(tmp_path / "run", [{"id": "users=20", "axes": {"users": N}, "samples": samples, "users": N,
                                       "think_ms": Z, "think_dist": "constant"}])
    summary = analyze([run])
    return summary, {c.name: c for c in summary.cells[0].checks}["steady"]


def test_a_steady_closed_loop_completes_as_many_in_the_first_third_as_in_the_last(tmp_path):
    _, steady = analyze_cell(tmp_path, closed_loop(N, 100, Z, duration_s=30))
    assert steady.passed is True
    assert steady.value == pytest.approx(N / 0.2, rel=0.02) and steady.expected == pytest.approx(N / 0.2, rel=0.02)
    assert steady.rel_error < 0.02 and "steady." in steady.explanation


def test_a_window_holding_a_warm_up_fails_with_both_rates_and_says_what_to_do(tmp_path):
    """Requests take 200 ms for the first 12 s, then 100 ms: X = 20/0.3 s = 66.7/s, then 20/0.2 s = 100/s. The
    window (2 s to 29 s) has its first third (9 s) in the slow part and its last in the fast part."""
    slow = closed_loop(N, 200, Z, duration_s=12)
    fast = closed_loop(N, 100, Z, duration_s=18, start_ms=T0 + 12_000)
    summary, steady = analyze_cell(tmp_path, pd.concat([slow, fast], ignore_index=True))
    assert steady.passed is False
    assert steady.expected == pytest.approx(66.7, rel=0.05) and steady.value == pytest.approx(100, rel=0.03)
    assert steady.rel_error == pytest.approx(0.4, abs=0.06)
    assert "the throughput rose through the window" in steady.explanation and "warmup_s" in steady.explanation
    validity = [f for f in findings(summary) if f.kind == "validity" and "not steady" in f.statement]
    assert len(validity) == 1 and validity[0].cells == ("users=20",)


@pytest.mark.parametrize("first, last, passed", [
    (1000, 1000, True),
    (1000, 1090, True),    # 9%: within the 10% floor
    (1000, 1150, True),    # 14%: beyond the floor, within 4 standard errors (4·√2150/1075 = 17.3%)
    (10000, 11500, False),  # 14% of ten times as many: beyond both (4·√21500/10750 = 5.5%)
    (100, 130, True),      # 26% of few: 4·√230/115 = 53% of noise allowed
    (10, 5, None),         # 15 completions: too few to tell
])
def test_the_allowance_is_the_floor_or_four_standard_errors_of_the_counts(first, last, passed):
    check = laws.steady("c", first, last, 10.0, 0.10)
    tol = max(0.10, 4 * (first + last) ** 0.5 / ((first + last) / 2))
    if passed is None:
        assert check.passed is None and "too few" in check.explanation
        return
    assert check.tolerance == pytest.approx(tol) and check.rel_error == pytest.approx(abs(last - first) / ((first + last) / 2))
    assert check.passed is passed


def test_without_three_whole_buckets_in_the_window_it_is_not_made():
    assert laws.steady("c", None, None, None, 0.10).passed is None
