"""Exact nearest-rank percentiles and the per-cell STATS block."""

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import table
from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.statistics.stats import nearest_rank, sample_stats, stats_by_label


def test_ten_thousand_samples_of_1ms_and_one_of_100s_give_p9999_1ms_and_p99999_100s():
    values = np.sort(np.array([1] * 10_000 + [100_000], dtype=np.int64))
    assert nearest_rank(values, "99.99") == 1
    assert nearest_rank(values, "99.999") == 100_000
    assert nearest_rank(values, 99.99) == 1  # floats are read through their decimal text, not their binary value


def test_nearest_rank_is_the_smallest_value_with_at_least_p_percent_at_or_below_it():
    values = np.array([15, 20, 35, 40, 50])  # the textbook example
    assert [nearest_rank(values, p) for p in (5, 30, 40, 50, 100)] == [15, 20, 20, 35, 50]
    assert nearest_rank(np.array([], dtype=np.int64), 50) is None
    with pytest.raises(ValueError):
        nearest_rank(values, 0)


def test_stats_count_every_completion_in_throughput_and_give_the_successes_only_rate_beside_it():
    rows = [(i * 100, 10 * (i + 1), "t1") for i in range(10)]
    ok = [True] * 8 + [False] * 2
    samples = table(rows, 1, success=ok, codes=["200"] * 8 + ["503", "404"])
    stats = sample_stats(samples, classify(samples), window_length_s=2.0)
    assert stats["count"] == 10 and stats["errors"] == 2 and stats["error_rate"] == 0.2
    assert stats["errors_by_class"] == {"http_4xx": 1, "http_5xx": 1}
    assert stats["throughput_per_s"] == 5.0 and stats["successes_per_s"] == 4.0
    assert stats["mean_ms"] == 55.0 and stats["min_ms"] == 10 and stats["max_ms"] == 100
    assert (stats["p50_ms"], stats["p90_ms"], stats["p99_ms"], stats["p999_ms"]) == (50, 90, 100, 100)
    assert stats["latency_mean_ms"] == 55.0 and stats["connect_mean_ms"] == 0.0


def test_an_empty_window_gives_zero_counts_and_no_figures():
    samples = table([], 1)
    stats = sample_stats(samples, classify(samples), 1.0)
    assert stats["count"] == 0 and stats["mean_ms"] is None and stats["p99_ms"] is None
    assert stats["pdf"] == {"edges_ms": [], "density": []}


def test_stats_by_label_split_the_samples_and_share_the_window_length():
    a = table([(0, 10, "t1"), (20, 10, "t1")], 1, label="a")
    b = table([(40, 30, "t1")], 1, label="b")
    samples = pd.concat([a, b], ignore_index=True)
    samples["label"] = samples["label"].astype("category")
    by_label = stats_by_label(samples, classify(samples), 1.0)
    assert list(by_label) == ["a", "b"]
    assert by_label["a"]["count"] == 2 and by_label["b"]["mean_ms"] == 30 and by_label["b"]["throughput_per_s"] == 1


from fractions import Fraction  # noqa: E402

from hypothesis import given, strategies as st  # noqa: E402


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300),
       st.decimals(min_value="0.001", max_value="100", places=3))
def test_the_nearest_rank_value_has_at_least_p_percent_at_or_below_it_and_fewer_strictly_below(values, p):
    data = np.sort(np.array(values, dtype=np.int64))
    r = nearest_rank(data, str(p))
    share = Fraction(str(p)) / 100 * len(data)
    assert np.count_nonzero(data <= r) >= share > np.count_nonzero(data < r)
