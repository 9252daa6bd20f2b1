"""The window's thirds and the trend of R through them (analysis/steady/trend.py): known answers worked out on paper, and
Kendall's test held to scipy's."""

import math

import numpy as np
import pytest

from littlegrid.analysis.steady import trend
from littlegrid.summary.model import Series
from summary_contract import typed


def series(p50, *, start=0.0, end=None, bucket_s=1, throughput=None) -> Series:
    n = len(p50)
    return typed({"t0_ms": 0, "bucket_s": bucket_s, "window_start_s": start,
                  "window_end_s": float(n * bucket_s) if end is None else end,
                  "t_s": [float(i * bucket_s) for i in range(n)], "p50_ms": p50,
                  "throughput": throughput if throughput is not None else [1.0] * n}, Series)


def test_the_thirds_are_the_buckets_wholly_inside_the_window_a_third_of_them_at_each_end():
    # window 1.5 s to 9.5 s over 1 s buckets: buckets 2..8 lie wholly inside (7), thirds of ⌊7/3⌋ = 2 buckets
    t = trend.window_thirds(series([1.0] * 11, start=1.5, end=9.5))
    assert (t.inside, t.first, t.last, t.seconds) == ((2, 3, 4, 5, 6, 7, 8), (2, 3), (7, 8), 2.0)
    assert trend.window_thirds(series([1.0] * 4, start=0.5, end=3.5)) is None  # 2 whole buckets: no thirds


def test_completions_of_each_third_are_the_rates_times_the_bucket():
    # 2 s buckets, window 0 to 12 s: 6 buckets, thirds of 2 buckets (4 s): 3+4 = 7/s·2 s = 14, 9+9 = 18/s·2 s = 36
    s = series([1.0] * 6, bucket_s=2, throughput=[3.0, 4.0, 5.0, 6.0, 9.0, 9.0])
    assert trend.completions(s) == (14.0, 36.0, 4.0)
    assert trend.completions(None) == (None, None, None)


def test_the_median_interval_is_the_order_statistics_with_at_least_95_percent_coverage():
    # ten values: [v(2), v(9)] covers 1 − 2·(1 + 10)/1024 = 97.9%; [v(3), v(8)] only 1 − 2·56/1024 = 89.1%
    assert trend.median_interval(range(1, 11)) == (5.5, 2.0, 9.0, pytest.approx(1 - 22 / 1024))
    # four values: even min to max covers only 1 − 2/16 = 87.5%, and says so
    assert trend.median_interval([4, 1, 3, 2]) == (2.5, 1.0, 4.0, 0.875)


def test_kendalls_tau_of_a_rising_run_is_one_and_of_alternating_values_near_zero():
    tau, p = trend.kendall([1, 2, 3, 4, 5, 6])
    # S = 15 of 15 pairs, var = 6·5·17/18 = 28.33: z = 15/√28.33 = 2.818, p = erfc(z/√2) = 0.00483
    assert tau == 1.0 and p == pytest.approx(math.erfc(15 / math.sqrt(6 * 5 * 17 / 18) / math.sqrt(2)))
    assert p == pytest.approx(0.00483, abs=1e-5)
    assert trend.kendall([5, 5, 5, 5]) == (None, None)  # all alike: no order to test


@pytest.mark.parametrize("seed", range(4))
def test_kendalls_test_matches_scipys_asymptotic_method_with_ties(seed):
    from scipy import stats

    rng = np.random.default_rng(seed)
    values = rng.integers(100, 110, size=40) + np.linspace(0, 3 * (seed - 1), 40).round()  # ties, and a trend
    expected = stats.kendalltau(np.arange(40), values, method="asymptotic")
    tau, p = trend.kendall(values)
    assert tau == pytest.approx(expected.statistic, abs=1e-12) and p == pytest.approx(expected.pvalue, rel=1e-9)


def test_the_trend_tests_the_buckets_with_samples_and_takes_each_thirds_median():
    # 12 buckets, one empty: thirds of 4 buckets, 10 11 12 13 | ... | 20 21 22 (one None); Kendall over 11 values
    t = trend.trend(series([10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, None, 20.0, 21.0, 22.0]))
    assert (t.buckets, t.tau, t.first_ms, t.last_ms, t.rising) == (11, 1.0, 11.5, 21.0, True) and t.p < 0.01
    # the first third's interval is its whole range (4 values cover 87.5%); the last third has 3 values: 75%
    assert (t.first_low_ms, t.first_high_ms, t.last_low_ms, t.last_high_ms, t.interval_level) == \
        (10.0, 13.0, 20.0, 22.0, 0.75)


def test_fewer_than_six_buckets_with_samples_test_nothing():
    t = trend.trend(series([10.0, None, 11.0, None, 12.0, 13.0, 14.0, None]))
    assert (t.buckets, t.tau, t.p, t.first_ms, t.rising) == (5, None, None, None, False)
    assert trend.trend(None) is None


# ---------------------------------------------------------------- one drift rule, read by every stage

def _drifting(rng, n, start, growth, noise, step=None):
    """n one-second medians from `start`, growing by `growth` of it over the window (a ramp, or a step halfway when
    step), with Gaussian noise of `noise` ms (whole ms, as JMeter's elapsed)."""
    t = np.arange(n) / max(n - 1, 1)
    shape = (t >= 0.5).astype(float) if step else t
    return [float(max(0.0, round(v))) for v in start * (1 + growth * shape) + rng.normal(0, noise, n)]


def test_no_constructed_cell_reads_steady_beside_r_rose_or_a_latency_shift():
    """Hundreds of constructed windows (ramps and steps of R from −40% to +80%, noise from none to a third of R,
    6 to 40 buckets): the steady check's R half, the latency-shift finding and an open cell's `rising` all say what
    the one rule (trend.drift) says, so no cell is "steady: pass" beside "R rose" or a shift."""
    from littlegrid.analysis.queueing import laws
    from littlegrid.findings import single_test
    from littlegrid.summary.model import Cell

    rng = np.random.default_rng(62)
    seen = {"rose": 0, "fell": 0, None: 0}
    for _ in range(400):
        n = int(rng.integers(6, 41))
        p50 = _drifting(rng, n, float(rng.choice([2, 20, 100])), float(rng.uniform(-0.4, 0.8)),
                        float(rng.uniform(0, 0.33)) * 20, step=bool(rng.integers(2)))
        s = series(p50)
        t = trend.trend(s, 0.20)
        check = laws.steady("c", None, None, None, 0.10, t, 0.20)
        shift = single_test.latency_shift(typed({"id": "c", "status": "complete", "series": s.model_dump(),
                                                   "trend": t.model_dump()}, Cell))
        seen[t.drift] += 1
        assert t.drift == trend.drift(t, 0.20).way
        assert (check.passed is False) == (t.drift is not None), check.explanation
        assert (shift is not None) == (t.drift is not None)
        assert t.rising == (t.drift == "rose")
        if check.passed:
            assert "R rose" not in check.explanation and "R fell" not in check.explanation
        if shift is not None:
            assert f"Response time {t.drift} through the test" in shift.statement
    assert min(seen.values()) >= 20, seen  # each verdict met often enough to mean something


def test_the_drift_rule_needs_order_in_time_thirds_apart_and_a_change_beyond_the_tolerance():
    rising = trend.trend(series([10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]))
    assert (rising.drift, rising.rising) == ("rose", True)
    assert trend.drift(rising, 0.60).way is None  # 17/11 − 1 = 55%: within a 60% tolerance
    # the same change, out of order in time: the thirds differ but Kendall's test finds no order
    shuffled = trend.trend(series([10.0, 18.0, 11.0, 17.0, 12.0, 16.0, 13.0, 15.0, 14.0]))
    assert shuffled.drift is None and not shuffled.rising
    falling = trend.trend(series([18.0, 17.0, 16.0, 15.0, 14.0, 13.0, 12.0, 11.0, 10.0]))
    assert (falling.drift, falling.rising) == ("fell", False)
