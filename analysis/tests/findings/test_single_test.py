"""What a single test shows (findings/single_test.py): a latency shift is the per-bucket median R moving beyond
SHIFT between the window's first and last thirds, with Kendall's test; a test whose medians stay within it is not
tested at all (scipy.stats, 1-2 s to import, stays unimported)."""

import pytest

from littlegrid.analysis import curves
from littlegrid.findings import single_test
from typed_cells import cell


def with_medians(p50: list[float | None]):
    """A cell whose series has these per-second medians, every second inside the window."""
    n = len(p50)
    return cell({"id": "jtl", "series": {"t0_ms": 0, "bucket_s": 1, "window_start_s": 0.0, "window_end_s": float(n),
                                         "t_s": [float(i) for i in range(n)], "p50_ms": p50}})


def test_medians_rising_beyond_the_shift_are_a_latency_shift_with_kendalls_test():
    # 9 buckets rising 10, 11 ... 18 ms (one without samples): thirds 10, 11, 12 | 13, 14, 15 | 16, 17, 18
    c = with_medians([10.0, 11.0, 12.0, None, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0])
    assert curves.thirds(c) == (11.0, 17.0)
    found = single_test.latency_shift(c)
    assert found.kind == "latency_shift" and dict(found.figures) == {"first_ms": 11.0, "last_ms": 17.0, "tau": 1.0}
    t = curves.trend(c)
    assert (t.buckets, t.tau, t.first_ms, t.last_ms, t.rising) == (9, 1.0, 11.0, 17.0, True) and t.p < 0.01


def test_medians_within_the_shift_are_not_tested(monkeypatch):
    def no_test(cell):
        raise AssertionError("Kendall's test run for medians within the shift")

    monkeypatch.setattr(single_test, "trend", no_test)
    c = with_medians([10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 10.0, 11.0, 11.5])
    assert curves.thirds(c) == (10.0, 11.0) and single_test.latency_shift(c) is None  # 1.1x < 1.2x
    assert curves.thirds(with_medians([10.0] * 5)) is None  # fewer than TREND_MIN_BUCKETS: nothing to test
    assert single_test.latency_shift(with_medians([10.0] * 5)) is None


@pytest.mark.parametrize("p50", [[0.0] * 6 + [5.0] * 3, [5.0] * 6 + [0.0] * 3])
def test_a_third_with_a_zero_median_is_no_shift(p50):
    assert single_test.latency_shift(with_medians(p50)) is None
