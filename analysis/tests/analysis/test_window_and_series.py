"""The steady window (trimmed from the first sample) and the per-second series on a point budget."""

import numpy as np
import pytest

from analysis_synthetic import T0, table
from littlegrid.analysis.statistics.series import time_series
from littlegrid.analysis.steady.window import EmptyWindow, in_window, steady_window


def test_warm_up_is_trimmed_from_the_first_samples_start_and_cool_down_from_the_last_samples_end():
    late_start = T0 + 3500  # e.g. a Groovy timer compiling before the first sample
    samples = table([(late_start + 100 * i, 50, "t") for i in range(100)], 1)
    w = steady_window(samples, warmup_s=2, cooldown_s=1)
    assert w.start_ms == late_start + 2000 and w.end_ms == late_start + 9950 - 1000
    assert w.length_s == pytest.approx(6.95)
    kept = in_window(samples, w)
    assert w.samples_trimmed_before + len(kept) + w.samples_trimmed_after == 100
    assert w.samples_trimmed_before == 20 and w.samples_trimmed_after == 10  # by completion time
    assert kept["end_ms"].min() >= w.start_ms and kept["end_ms"].max() <= w.end_ms


def test_nothing_trimmed_keeps_every_sample_including_the_last_one():
    samples = table([(T0, 10, "t"), (T0 + 20, 10, "t")], 1)
    assert len(in_window(samples, steady_window(samples, 0, 0))) == 2


def test_trimming_more_than_the_run_lasted_leaves_no_window():
    samples = table([(T0, 10, "t"), (T0 + 1000, 10, "t")], 1)
    with pytest.raises(EmptyWindow, match="span 1.010 s"):
        steady_window(samples, 1, 0.5)


def test_the_series_counts_completions_per_second_with_exact_percentiles_per_second():
    rows = [(T0 + 1000 * s + 5 * i, 1 + i, "t") for s in range(5) for i in range(100)]  # all end within their second
    samples = table(rows, 3)
    w = steady_window(samples, 1, 1)
    s = time_series(samples, np.zeros(len(samples), dtype=bool), w, 1, None, None)
    assert s["bucket_s"] == 1 and s["t_s"][:5] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert s["throughput"][:4] == [100.0] * 4 and s["p50_ms"][1] == 50 and s["p99_ms"][1] == 99
    assert s["active_threads"][0] == 3 and s["in_flight"][0] is None
    assert s["window_start_s"] == 1.0


def test_a_long_cell_is_downsampled_to_the_point_budget_in_whole_seconds_per_point():
    rows = [(T0 + 500 * i, 10, "t") for i in range(2 * 3600)]  # one hour, 2 per second
    samples = table(rows, 1)
    s = time_series(samples, np.zeros(len(samples), dtype=bool), steady_window(samples, 0, 0), 1, None, None,
                    budget=600)
    assert s["bucket_s"] == 6 and len(s["t_s"]) <= 600
    assert s["throughput"][1] == pytest.approx(2.0)  # still per second
