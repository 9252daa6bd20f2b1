"""Bootstrap: exact nearest-rank on counts, intervals that cover known changes, verdicts, reproducibility."""

import numpy as np
import pytest

from littlegrid import bootstrap
from littlegrid.bootstrap import Delta, Latencies


def test_nearest_rank_on_counts_is_the_exact_percentile_of_the_samples():
    lat = Latencies.from_samples(np.arange(1, 11))
    assert [bootstrap.nearest_rank(lat.values_ms, lat.counts, q)[0] for q in (0.5, 0.9, 0.91, 1.0)] == [5, 9, 10, 10]


def test_nearest_rank_tells_p9999_from_p99999_with_one_outlier_in_ten_thousand():
    lat = Latencies.from_samples(np.array([1] * 10_000 + [100_000]))
    assert lat.n == 10_001 and list(lat.values_ms) == [1, 100_000]
    assert bootstrap.nearest_rank(lat.values_ms, lat.counts, 0.9999)[0] == 1
    assert bootstrap.nearest_rank(lat.values_ms, lat.counts, 0.99999)[0] == 100_000


def test_replicates_of_a_sample_centre_on_its_statistics():
    rng = np.random.default_rng(5)
    lat = Latencies.from_samples(np.round(rng.exponential(20, 20_000)))
    reps = bootstrap.replicate_latencies(lat, [0.9], bootstrap.rng_for(1, "x"), reps=400)
    assert reps["mean"].mean() == pytest.approx(lat.values_ms @ lat.counts / lat.n, rel=0.005)
    # standard error of the mean of an exponential: mean/√n = 20/√20000 ≈ 0.141 ms
    assert reps["mean"].std() == pytest.approx(20 / np.sqrt(20_000), rel=0.2)
    assert np.median(reps[0.9]) == pytest.approx(bootstrap.nearest_rank(lat.values_ms, lat.counts, 0.9)[0], rel=0.02)


def test_a_twenty_percent_slower_service_gets_an_interval_around_twenty_percent():
    rng = np.random.default_rng(9)
    a = Latencies.from_samples(np.round(rng.gamma(4, 10, 30_000)))
    b = Latencies.from_samples(np.round(rng.gamma(4, 12, 30_000)))
    ra = bootstrap.replicate_latencies(a, [0.9], bootstrap.rng_for(1, "A"), 500)
    rb = bootstrap.replicate_latencies(b, [0.9], bootstrap.rng_for(1, "B"), 500)
    d = bootstrap.delta(float(bootstrap.nearest_rank(a.values_ms, a.counts, 0.9)[0]),
                        float(bootstrap.nearest_rank(b.values_ms, b.counts, 0.9)[0]), ra[0.9], rb[0.9])
    assert d.rel_lo < 0.2 < d.rel_hi and d.rel_hi - d.rel_lo < 0.05
    assert bootstrap.verdict(d, higher_is_better=False, min_effect=0.02) == "worse"


def test_throughput_interval_from_per_second_completions_covers_a_ten_percent_gain():
    rng = np.random.default_rng(2)
    a, b = rng.poisson(100, 300), rng.poisson(110, 300)
    ra = bootstrap.replicate_throughput(a, bootstrap.rng_for(1, "A"), 1000)
    rb = bootstrap.replicate_throughput(b, bootstrap.rng_for(1, "B"), 1000)
    d = bootstrap.delta(a.mean(), b.mean(), ra, rb)
    assert d.rel_lo < 0.1 < d.rel_hi and d.rel_lo > 0.02
    assert bootstrap.verdict(d, higher_is_better=True, min_effect=0.02) == "better"


def test_verdict_needs_the_whole_interval_beyond_the_minimum_effect():
    assert bootstrap.verdict(Delta(1, 1.1, 0.1, 0.01, 0.2), False, 0.02) == "same"  # straddles +2 %
    assert bootstrap.verdict(Delta(1, 1.1, 0.1, 0.03, 0.2), False, 0.02) == "worse"
    assert bootstrap.verdict(Delta(1, 0.9, -0.1, -0.2, -0.03), True, 0.02) == "worse"
    assert bootstrap.verdict(Delta(1, 0.9, -0.1, -0.2, -0.03), False, 0.02) == "better"
    assert bootstrap.verdict(Delta(1, 0.9, -0.1, None, None), False, 0.02) == "unknown"


def test_the_same_seed_gives_the_same_replicates_and_another_seed_others():
    lat = Latencies.from_samples(np.arange(1, 1000))
    one = bootstrap.replicate_latencies(lat, [0.99], bootstrap.rng_for(7, "cell"), 200)
    two = bootstrap.replicate_latencies(lat, [0.99], bootstrap.rng_for(7, "cell"), 200)
    other = bootstrap.replicate_latencies(lat, [0.99], bootstrap.rng_for(8, "cell"), 200)
    assert np.array_equal(one[0.99], two[0.99]) and not np.array_equal(one["mean"], other["mean"])
