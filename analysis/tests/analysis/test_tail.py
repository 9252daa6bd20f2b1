"""Latency PDF on log bins, exact CCDF points, Hill tail index and the verdict against an exponential tail."""

import numpy as np
import pytest

from littlegrid.analysis.reading.histogram import ExactHistogram
from littlegrid.analysis.reading.tail import ccdf, log_pdf, tail_index


def test_the_log_binned_pdf_integrates_to_one_and_has_whole_millisecond_edges():
    values = np.sort(np.random.default_rng(1).lognormal(4, 1, 20_000).astype(np.int64))
    pdf = log_pdf(ExactHistogram.of(values))
    edges, density = np.array(pdf["edges_ms"]), np.array(pdf["density"])
    assert np.all(edges == np.round(edges)) and np.all(np.diff(edges) >= 1)
    assert (density * np.diff(edges)).sum() == pytest.approx(1.0)
    assert edges[0] == values[0] and edges[-1] == values[-1] + 1


def test_a_pdf_bin_holds_exactly_the_samples_between_its_edges():
    values = np.sort(np.array([0, 0, 1, 5, 5, 5, 100, 1000], dtype=np.int64))
    pdf = log_pdf(ExactHistogram.of(values))
    edges, density = np.array(pdf["edges_ms"]), np.array(pdf["density"])
    counts = np.rint(density * np.diff(edges) * len(values)).astype(int)
    assert counts.sum() == 8 and edges[0] == 0
    assert counts[np.searchsorted(edges, 5, side="right") - 1] == 3


def test_a_narrow_distribution_gets_one_bin_per_millisecond_and_a_wide_one_log_bins_within_the_limits():
    # the littles-law run at N = 10: 2,152 samples of 100-103 ms were 1 log bin; now one per millisecond
    narrow = np.sort(np.random.default_rng(2).choice([100, 101, 102, 103], 2152, p=[0.5, 0.3, 0.15, 0.05]))
    pdf = log_pdf(ExactHistogram.of(narrow))
    assert pdf["edges_ms"] == [100.0, 101.0, 102.0, 103.0, 104.0]
    assert [round(d * 2152) for d in pdf["density"]] == np.bincount(narrow - 100).tolist()
    # 0.6 of a decade (100-400 ms): 12 bins by 20 per decade, raised to the minimum of 30
    wide = np.sort(np.random.default_rng(3).integers(100, 400, 5000))
    assert len(log_pdf(ExactHistogram.of(wide))["density"]) == 30
    # 5 decades: capped at 120
    widest = np.sort(np.random.default_rng(4).integers(1, 100_000, 5000))
    assert len(log_pdf(ExactHistogram.of(widest))["density"]) <= 120


def test_ccdf_points_are_exact_fractions_at_or_above_sample_values_within_the_budget():
    values = np.sort(np.random.default_rng(2).exponential(50, 100_000).astype(np.int64))
    c = ccdf(ExactHistogram.of(values), budget=100)
    assert len(c["x_ms"]) <= 102
    for x, p in zip(c["x_ms"], c["p"]):
        assert p == np.count_nonzero(values >= x) / len(values)
    assert c["x_ms"][0] == values[0] and c["p"][0] == 1.0
    assert c["x_ms"][-1] == values[-1] and c["p"][-1] == pytest.approx(1 / len(values))


def test_hill_recovers_the_index_of_a_pareto_tail_and_calls_it_heavier_than_exponential():
    rng = np.random.default_rng(3)
    values = np.sort((10 * (1 - rng.random(200_000)) ** (-1 / 2.5)).astype(np.int64) + 0)
    t = tail_index(ExactHistogram.of(values))
    assert t["k"] == int(np.sqrt(len(values)))
    assert t["hill_alpha"] == pytest.approx(2.5, rel=0.15)
    assert t["verdict"].startswith("heavier")


def test_an_exponential_tail_is_called_consistent_with_exponential():
    values = np.sort(np.random.default_rng(4).exponential(100, 50_000).astype(np.int64))
    assert tail_index(ExactHistogram.of(values))["verdict"] == "consistent with an exponential tail"


def test_a_bounded_tail_is_called_lighter_than_exponential():
    values = np.sort(np.random.default_rng(5).uniform(100, 20_000, 50_000).astype(np.int64))
    assert tail_index(ExactHistogram.of(values))["verdict"] == "lighter than exponential"


def test_the_tail_is_not_estimated_from_fewer_than_100_samples():
    t = tail_index(ExactHistogram.of(np.arange(50)))
    assert t["hill_alpha"] is None and t["verdict"].startswith("not estimated")
