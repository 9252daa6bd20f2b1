"""Known answers of the warm-up rule (MSER-5 confirmed by a t test), the batch-means intervals and the stopping
rule (analysis/steady_state.py)."""

import numpy as np
import pytest

from littlegrid.analysis import steady_state as ss


def _poisson_seconds(rng, rate_per_s, seconds, r_ms=20.0):
    counts = rng.poisson(rate_per_s, seconds).astype(float)
    return counts, counts * r_ms


def test_a_start_up_ramp_is_cut_where_it_ends():
    """X climbing 50 → 120/s over the first 20 s, then steady: the warm-up found is 20 s (four MSER batches)."""
    rng = np.random.default_rng(7)
    counts, sums = _poisson_seconds(rng, 120.0, 90)
    counts[:20] = rng.poisson(np.linspace(50, 120, 20)).astype(float)
    sums[:20] = counts[:20] * 20.0
    found = ss.warmup(counts, sums)
    assert found.settled and found.by == "completions"
    assert 15 <= found.seconds <= 25


def test_a_slow_start_in_response_time_alone_is_cut():
    """An open workload's warm-up shows in R (X is the arrivals'): 200 ms for 15 s, then 20 ms."""
    rng = np.random.default_rng(8)
    counts, sums = _poisson_seconds(rng, 100.0, 90)
    sums[:15] = counts[:15] * 200.0
    found = ss.warmup(counts, sums)
    assert found.settled and found.by == "response time" and found.seconds == 15


def test_noise_alone_is_no_warm_up_and_the_floor_stands():
    rng = np.random.default_rng(9)
    counts, sums = _poisson_seconds(rng, 100.0, 120)
    found = ss.warmup(counts, sums, floor_s=5.0)
    assert found.settled and found.seconds == 5.0 and found.by == "floor"


def test_a_trend_to_the_end_never_settles():
    """X rising through the whole cell (an overload's queue, a leak): MSER's minimum sits at its search's end."""
    seconds = np.arange(120, dtype=float)
    counts = 50 + seconds
    found = ss.warmup(counts, counts * 10.0, floor_s=2.0)
    assert not found.settled and found.seconds == 2.0 and found.detected_s is None


def test_too_few_seconds_are_not_judged():
    assert ss.mser_truncation(np.ones(19)) is None


def test_constant_series_has_zero_half_width():
    p = ss.precision(np.full(60, 50.0), np.full(60, 50.0 * 30))
    assert p.throughput_per_s == 50.0 and p.throughput_rel == 0.0 and p.mean_ms == 30.0 and p.mean_rel == 0.0
    assert p.batches >= ss.STOP_BATCHES


def test_half_width_of_poisson_counts_matches_the_formula():
    """iid Poisson(100) seconds: X's relative half-width is about t·√(100/T)/100; over many windows its average
    lies within 15% of 1.96·0.1/√T (t with 9 degrees of freedom and the batch sd's bias pull it a little)."""
    rng = np.random.default_rng(10)
    rels = [ss.precision(*_poisson_seconds(rng, 100.0, 100)).throughput_rel for _ in range(300)]
    expected = 1.96 * 10 / 100 / np.sqrt(100)
    assert np.mean(rels) == pytest.approx(expected, rel=0.15)


def test_no_answers_no_interval():
    p = ss.precision(np.zeros(30), np.zeros(30))
    assert p.mean_ms is None and p.throughput_rel is None


def test_t_quantile_known_values():
    assert ss.t_quantile(9) == pytest.approx(2.262157, abs=1e-6)
    assert ss.t_quantile(2) == pytest.approx(4.302653, abs=1e-6)


def test_the_rule_waits_for_min_s_and_for_precision_then_answers():
    rng = np.random.default_rng(11)
    counts, sums = _poisson_seconds(rng, 400.0, 200)
    rule = ss.Rule(precision=0.02, min_s=20, max_s=300, warmup_floor_s=5, cooldown_s=2)
    assert not ss.judge(counts[:20], sums[:20], rule).answered  # window 13 s < min_s
    verdict = ss.judge(counts, sums, rule)
    assert verdict.answered, verdict.why
    assert verdict.precision.throughput_rel <= rule.target_rel and verdict.precision.mean_rel <= rule.target_rel
    assert rule.target_rel == pytest.approx(0.02 / 1.02)


def test_the_rule_does_not_answer_while_not_precise():
    rng = np.random.default_rng(12)
    counts, sums = _poisson_seconds(rng, 5.0, 60)  # 5/s: X known to about ±15% in a minute
    verdict = ss.judge(counts, sums, ss.Rule(precision=0.02, min_s=10, max_s=120))
    assert not verdict.answered and "not yet" in verdict.why
