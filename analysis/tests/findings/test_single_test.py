"""What a single test shows (findings/single_test.py): a latency shift is the per-bucket median R moving beyond
SHIFT between the window's first and last thirds, with Kendall's test (the cell's trend, analysis/steady/trend.py); a test
whose medians stay within it has none."""

import pytest

from littlegrid.analysis.steady import trend
from littlegrid.findings import single_test
from typed_cells import cell


def with_medians(p50: list[float | None]):
    """A cell whose series has these per-second medians, every second inside the window, with the trend the cell
    stage gives it."""
    n = len(p50)
    made = cell({"id": "jtl", "series": {"t0_ms": 0, "bucket_s": 1, "window_start_s": 0.0, "window_end_s": float(n),
                                         "t_s": [float(i) for i in range(n)], "p50_ms": p50}})
    return made.model_copy(update={"trend": trend.trend(made.series)})


def test_medians_rising_beyond_the_shift_are_a_latency_shift_with_kendalls_test():
    # 10 buckets rising 10, 11 ... 18 ms (one without samples): thirds of 3 buckets, 10, 11, 12 | 16, 17, 18
    c = with_medians([10.0, 11.0, 12.0, None, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0])
    found = single_test.latency_shift(c)
    assert found.kind == "latency_shift" and dict(found.figures) == {"first_ms": 11.0, "last_ms": 17.0, "tau": 1.0}
    t = c.trend
    assert (t.buckets, t.tau, t.first_ms, t.last_ms, t.rising) == (9, 1.0, 11.0, 17.0, True) and t.p < 0.01


def test_medians_within_the_shift_are_no_latency_shift():
    c = with_medians([10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 11.5])
    assert (c.trend.first_ms, c.trend.last_ms) == (10.0, 11.0) and single_test.latency_shift(c) is None  # 1.1x < 1.2x
    few = with_medians([10.0] * 5)  # fewer than TREND_MIN_BUCKETS: nothing to test
    assert few.trend.first_ms is None and single_test.latency_shift(few) is None


@pytest.mark.parametrize("p50", [[0.0] * 6 + [5.0] * 3, [5.0] * 6 + [0.0] * 3])
def test_a_third_with_a_zero_median_is_no_shift(p50):
    assert single_test.latency_shift(with_medians(p50)) is None
