"""Realised think time per thread, and its distribution against the exponential and JMeter's Poisson timer."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import table
from littlegrid.analysis.steady.window import steady_window
from littlegrid.analysis.workload.think_fits import (EXACT_KS_MAX_N, expected_exponential, expected_poisson,
                                                     exponential_cdf_measured, ks_exponential, ks_p_value)
from littlegrid.analysis.workload.think_gaps import realised_gaps
from littlegrid.analysis.workload.think_time import think_time_stats


def measured_loop(gap_sampler, n_gaps, elapsed_ms=20.0, threads=4, seed=11):
    """Threads whose true (continuous) times are written as JMeter does: ms-truncated start and end."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(threads):
        now = 1_700_000_000_000.0 + rng.random() * 100
        for _ in range(n_gaps // threads + 1):
            start, end = now, now + elapsed_ms * rng.uniform(0.5, 1.5)
            rows.append((int(start), int(end) - int(start), f"Thread Group 1-{t + 1}"))
            now = end + gap_sampler(rng)
    return table(rows, threads)


def stats_of(samples, dist=None, offset=0.0):
    window = steady_window(samples, 0, 0)
    return think_time_stats(realised_gaps(samples, window), dist, offset)


def test_the_gap_is_the_next_start_minus_the_previous_end_of_the_same_thread():
    samples = table([(0, 10, "a"), (5, 10, "b"), (30, 10, "a"), (100, 10, "b"), (45, 5, "a")], 2)
    gaps = realised_gaps(samples, steady_window(samples, 0, 0))
    assert sorted(gaps["gap_ms"].tolist()) == [5, 20, 85]  # a: 30−10, 45−40; b: 100−15


def test_threads_of_different_engines_with_the_same_name_are_different_threads():
    samples = table([(0, 10, "Thread Group 1-1"), (0, 10, "Thread Group 1-1"), (50, 10, "Thread Group 1-1"),
                     (70, 10, "Thread Group 1-1")], 1)
    samples["host"] = pd.Categorical(["gen1", "gen2", "gen1", "gen2"])
    gaps = realised_gaps(samples, steady_window(samples, 0, 0))
    assert sorted(gaps["gap_ms"].tolist()) == [40, 60]


def test_only_gaps_after_samples_completing_in_the_window_are_counted():
    samples = table([(0, 10, "a"), (20, 10, "a"), (40, 10, "a"), (60, 10, "a")], 1)
    window = steady_window(samples, 0.015, 0.015)  # [15, 55]: samples ending at 30 and 50
    assert realised_gaps(samples, window)["gap_ms"].tolist() == [10, 10]


def test_the_measured_exponential_cdf_is_that_of_floor_of_gap_plus_a_uniform_fraction():
    rng = np.random.default_rng(5)
    g = rng.exponential(7.0, 400_000)
    measured = np.floor(g + rng.random(g.size))
    ks = np.arange(0, 40)
    empirical = np.searchsorted(np.sort(measured), ks, side="right") / g.size
    assert np.max(np.abs(empirical - exponential_cdf_measured(ks, 7.0))) < 0.003


def test_the_measured_exponentials_mean_is_the_gaps_mean_so_a_long_true_exponential_is_not_rejected():
    # E[floor(g + f)] = E[g] for a uniform fraction f (Σ_k P(G > k) = μ under exponential_cdf_measured): the null's
    # mean is the measured mean. A 0.5 ms shift of μ = 100 ms moves the CDF by up to 0.0018, which 2 M gaps reject
    # (the 5% critical distance there is 0.00096), so a biased estimate fails here and the exact one does not.
    rng = np.random.default_rng(11)
    g = rng.exponential(100.0, 2_000_000)
    measured = np.floor(g + rng.random(g.size)).astype(np.int64)
    ks = ks_exponential(measured)
    assert ks["mean_ms"] == pytest.approx(measured.mean(), abs=1e-9)
    assert ks["p"] > 0.01


def test_true_exponential_think_time_has_cv_1_and_ks_does_not_reject_the_exponential():
    t = stats_of(measured_loop(lambda r: r.exponential(50.0), 20_000))
    assert t["gaps"] >= 20_000 and t["mean_ms"] == pytest.approx(50.0, rel=0.03)
    assert t["cv"] == pytest.approx(1.0, abs=0.03)
    assert t["ks_exponential"]["p"] > 0.01
    assert t["ks_poisson"] is None  # asked only for JMeter's Poisson timer


def test_jmeters_poisson_timer_has_cv_near_one_over_root_lambda_and_is_rejected_as_exponential():
    t = stats_of(measured_loop(lambda r: r.poisson(50.0), 20_000), "poisson")
    assert t["cv"] == pytest.approx(1 / np.sqrt(50.0), rel=0.1)
    assert t["ks_exponential"]["p"] < 1e-12 and t["ks_exponential"]["d"] > 0.3
    poisson = t["ks_poisson"]
    assert poisson["p"] > 0.01 and poisson["d"] < 0.02
    assert poisson["lambda_ms"] == pytest.approx(50.0, rel=0.02) and poisson["dof"] > 10


def test_the_poisson_fit_takes_the_timer_offset_into_account():
    t = stats_of(measured_loop(lambda r: 300 + r.poisson(20.0), 8_000), "poisson", offset=300)
    assert t["ks_poisson"]["offset_ms"] == 300 and t["ks_poisson"]["p"] > 0.01
    assert t["ks_poisson"]["lambda_ms"] == pytest.approx(20.0, rel=0.03)


def test_exponential_gaps_are_rejected_as_poisson():
    t = stats_of(measured_loop(lambda r: r.exponential(50.0), 5_000), "poisson")
    assert t["ks_poisson"]["p"] < 1e-6


def test_the_histogram_counts_every_gap_up_to_the_999th_percentile_and_the_rest_as_overflow():
    t = stats_of(measured_loop(lambda r: r.exponential(50.0), 5_000))
    h = t["histogram"]
    assert sum(h["counts"]) + h["overflow"] == t["gaps"] and 0 < h["overflow"] <= 0.002 * t["gaps"] + 1
    assert len(h["edges_ms"]) == len(h["counts"]) + 1


def test_a_run_with_a_19_hour_pause_between_two_sessions_is_tested_without_an_integer_grid_over_the_pause():
    gaps = np.sort(np.concatenate((np.random.default_rng(8).poisson(50, 2000), [19 * 3600 * 1000])))
    t = think_time_stats(pd.DataFrame({"key": "a", "gap_ms": gaps, "cycle_ms": gaps + 10}), "poisson")
    assert t["gaps"] == 2001 and t["ks_exponential"]["d"] > 0.3
    assert t["ks_poisson"]["p"] < 1e-6  # the pause drags the fitted mean to 34 s: nothing like Poisson


@pytest.mark.parametrize("n", [10_001, 40_000, 1_000_000])
def test_the_ks_p_value_beyond_the_exact_range_stays_within_0_0014_of_scipys_exact_kstwo(n):
    from scipy.stats import kstwo
    for p in (0.999, 0.9, 0.5, 0.2, 0.05, 0.01, 0.001, 1e-6):
        d = float(kstwo.isf(p, n))
        assert ks_p_value(d, n) == pytest.approx(p, abs=0.0014), (n, p)


def test_up_to_the_exact_range_the_ks_p_value_is_scipys_kstwo():
    from scipy.stats import kstwo
    assert ks_p_value(0.03, EXACT_KS_MAX_N) == float(kstwo.sf(0.03, EXACT_KS_MAX_N))
    assert ks_p_value(0.2, 25) == float(kstwo.sf(0.2, 25))


def test_moments_are_exact_sums_whatever_the_sets_and_their_order():
    from fractions import Fraction
    import math
    from littlegrid.analysis.workload.think_moments import Moments, sum_of_squares

    values = np.array([-3, 0, 7, 2**41, 12, 5, 5, 2**20 + 3], dtype=np.int64)  # a negative gap, a huge one
    assert sum_of_squares(values) == sum(int(x) ** 2 for x in values.tolist())
    beyond = np.array([2**50, -(2**43), 1], dtype=np.int64)  # past the split: summed as Python integers
    assert sum_of_squares(beyond) == 2**100 + 2**86 + 1
    whole = Moments.of(values)
    n, total = len(values), int(values.sum())
    assert (whole.n, whole.total) == (n, total)
    mean = Fraction(total, n)
    assert whole.sd() == math.sqrt(sum((Fraction(int(x)) - mean) ** 2 for x in values.tolist()) / (n - 1))
    orders = [values[:3], values[3:5], values[5:]], [values[5:], values[:3], values[3:5]], [values[i:i + 1] for i in range(n)]
    for parts in orders:
        merged = Moments()
        for part in parts:
            merged = merged.merge(Moments.of(part))
        assert merged == whole and merged.sd() == whole.sd()
    assert Moments.of(np.array([4])).sd() is None and Moments().mean() is None


def test_the_exponential_expected_counts_are_those_of_the_ks_null_on_whole_millisecond_bins():
    # mean 50 ms, bins of 10 ms, 1000 gaps. A bin [a, b) holds the whole ms a … b−1, and the null of whole-ms gaps
    # has P(G ≤ k) = 1 − c·e^(−k/50) with c = 50·(1 − e^(−1/50)), so a bin from a ≥ 1 expects
    # 1000·c·(e^(−(a−1)/50) − e^(−(b−1)/50)) = 1000·(e^(−a/50) − e^(−b/50))·50·(e^(1/50) − 1), and [0, 10) 1000·(1 − c·e^(−9/50))
    c = 50 * (1 - math.exp(-1 / 50))
    counts = expected_exponential([0, 10, 20, 30], 1000, {"d": 0.01, "p": 0.5, "mean_ms": 50.0})
    assert counts == pytest.approx([1000 * (1 - c * math.exp(-9 / 50)),
                                    1000 * c * (math.exp(-9 / 50) - math.exp(-19 / 50)),
                                    1000 * c * (math.exp(-19 / 50) - math.exp(-29 / 50))], rel=1e-12)
    assert counts[1] == pytest.approx(1000 * (math.exp(-10 / 50) - math.exp(-20 / 50)), rel=0.011)  # the continuous one
    assert expected_exponential([0, 10], 1000, {"d": None, "p": None, "mean_ms": -3.0}) is None  # no test, no null


def test_the_poisson_expected_counts_are_shifted_by_the_timer_offset_and_count_whole_milliseconds():
    # offset 5 ms + Poisson(λ = 10): P(pause = 15 ms) = P(K = 10) = e^-10 10^10 / 10!
    edges = list(range(0, 60))
    counts = expected_poisson(edges, 1000, {"lambda_ms": 10.0, "offset_ms": 5})
    assert counts[15] == pytest.approx(1000 * math.exp(-10) * 10**10 / math.factorial(10), rel=1e-9)
    assert sum(counts[:5]) == 0 and sum(counts) == pytest.approx(1000, rel=1e-6)
    wide = expected_poisson([5, 10, 20], 1000, {"lambda_ms": 10.0, "offset_ms": 5})  # K = 0 … 4, then 5 … 14
    pmf = [math.exp(-10) * 10**k / math.factorial(k) for k in range(15)]
    assert wide == pytest.approx([1000 * sum(pmf[:5]), 1000 * sum(pmf[5:])], rel=1e-9)
    assert expected_poisson(edges, 1000, None) is None  # no Poisson timer
    assert expected_poisson(edges, 1000, {"lambda_ms": -1.0, "offset_ms": 5}) is None  # mean below the offset


def test_the_think_time_block_stores_the_expected_counts_beside_the_realised_histogram():
    gaps = np.sort(np.random.default_rng(3).poisson(40, 3000) + 7)
    t = think_time_stats(pd.DataFrame({"key": "a", "gap_ms": gaps, "cycle_ms": gaps + 10}), "poisson", 7)
    h, n = t["histogram"], t["gaps"]
    assert len(h["expected_exponential"]) == len(h["expected_poisson"]) == len(h["counts"])
    lam = t["ks_poisson"]["lambda_ms"]
    assert lam == pytest.approx(gaps.mean() - 7)
    for a, b, got in zip(h["edges_ms"][:-1], h["edges_ms"][1:], h["expected_poisson"]):
        k = range(int(a) - 7, int(b) - 7)  # the whole ms a … b−1, less the offset
        want = n * sum(math.exp(i * math.log(lam) - lam - math.lgamma(i + 1)) for i in k if i >= 0)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    mu = t["ks_exponential"]["mean_ms"]
    edges = h["edges_ms"]
    assert h["expected_exponential"] == pytest.approx(
        [n * (exponential_cdf_measured(b - 1, mu) - exponential_cdf_measured(a - 1, mu)) for a, b in zip(edges, edges[1:])])
    plain = think_time_stats(pd.DataFrame({"key": "a", "gap_ms": gaps, "cycle_ms": gaps + 10}))
    assert plain["histogram"]["expected_poisson"] is None and plain["histogram"]["expected_exponential"]
