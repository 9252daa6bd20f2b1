"""Chart data: significant-digit rounding, curves aligned on one x, downsampling that keeps the spikes."""

import math

import pytest

from littlegrid.render import charts


def test_sig_rounds_to_four_significant_digits_and_turns_non_finite_into_gaps():
    assert charts.sig(123456.7) == 123500
    assert charts.sig(0.000123456) == 0.0001235
    assert charts.sig(2.0) == 2 and isinstance(charts.sig(2.0), int)
    assert charts.sig(0) == 0
    assert charts.sig(math.nan) is None and charts.sig(math.inf) is None and charts.sig(None) is None
    assert charts.sig(True) is None  # a boolean is not a measurement


def test_align_puts_each_curve_on_the_union_of_x_with_gaps_where_it_has_no_point():
    x, ys = charts.align([([1, 2, 5], [10, 20, 50]), ([2, 3], [200, 300])])
    assert x == [1, 2, 3, 5]
    assert ys == [[10, 20, None, 50], [None, 200, 300, None]]


def test_align_for_log_axes_drops_points_at_or_below_zero():
    x, ys = charts.align([([0, 1, 10], [0.5, 0.1, 0.0]), ([10, 100], [0.01, 0.001])], positive=True)
    assert x == [1, 10, 100]
    assert ys == [[0.1, None, None], [None, 0.01, 0.001]]


def test_downsample_keeps_short_series_whole():
    t, cols = charts.downsample([0, 1, 2], {"throughput": [5, 6, 7]}, budget=10)
    assert t == [0, 1, 2] and cols == {"throughput": [5, 6, 7]}


def test_downsample_averages_rates_but_keeps_the_worst_percentile_of_each_bucket():
    t = list(range(3600))
    throughput = [100.0] * 3600
    p99 = [10.0] * 3600
    p99[1234] = 5000.0  # a one-second spike must survive a 12× reduction
    out_t, cols = charts.downsample(t, {"throughput": throughput, "p99_ms": p99}, budget=300, peak=["p99_ms"])
    assert len(out_t) == 300 and out_t[:2] == [0, 12]
    assert cols["throughput"] == [100.0] * 300
    assert max(cols["p99_ms"]) == 5000.0 and cols["p99_ms"].count(5000.0) == 1


def test_downsample_skips_missing_values_and_leaves_empty_buckets_as_gaps():
    _, cols = charts.downsample(list(range(6)), {"in_flight": [None, None, 2, 4, None, None]}, budget=3)
    assert cols["in_flight"] == [None, 3.0, None]


def test_chart_refuses_a_series_whose_length_does_not_match_x():
    with pytest.raises(ValueError, match="has 2 values for 3 x"):
        charts.chart("c", "t", "x", "y", [1, 2, 3], [charts.series("s", [1, 2])])
