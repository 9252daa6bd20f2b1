"""Change points (history/changepoints.py: E-divisive means with Hunter's t test, split and merge) give the same
change points as Apache Otava's own `otava.analysis.compute_change_points` on the same series, and the known answers
of plain steps; the gate's significance level is looser than Otava's default and says why."""

import numpy as np
import pytest

from littlegrid.history.changepoints import GATE_PVALUE, MAX_PVALUE, change_points


def series(rng, n, steps):
    x = rng.normal(100, 3, n)
    for _ in range(steps):
        at = int(rng.integers(1, n))
        x[at:] += rng.normal(0, 10)
    return x


def test_the_same_change_points_as_otava_on_the_same_series():
    """Otava (apache-otava 0.8.0, installed by the build without its dependencies: only numpy and scipy are used by
    its change-point code) on 120 drawn series of 3 to 70 points with 0 to 3 steps, whole-millisecond ones among
    them, at three significance levels and three sliding windows (the longer series cross windows)."""
    from otava.analysis import compute_change_points

    rng = np.random.default_rng(5)
    found = 0
    for trial in range(120):
        x = series(rng, int(rng.integers(3, 71)), int(rng.integers(0, 4)))
        if trial % 3 == 0:
            x = np.round(x)
        pvalue = float(rng.choice([0.001, 0.01, 0.05]))
        window = int(rng.choice([10, 30, 50]))
        mine = change_points(x, window=window, max_pvalue=pvalue)
        theirs, _ = compute_change_points(list(x), window_len=window, max_pvalue=pvalue)
        assert [c.index for c in mine] == [c.index for c in theirs], (trial, list(x))
        for a, b in zip(mine, theirs):
            assert a.pvalue == pytest.approx(float(b.stats.pvalue), rel=1e-6, abs=1e-12)
            assert (a.mean_before, a.mean_after) == pytest.approx((b.stats.mean_1, b.stats.mean_2))
        found += len(mine)
    assert found > 40  # the series have steps to find, not only flat noise


def test_a_step_is_found_where_it_is_and_noise_alone_gives_none():
    rng = np.random.default_rng(1)
    flat = rng.normal(100, 1, 12)
    assert change_points(flat, max_pvalue=GATE_PVALUE) == []
    step = flat.copy()
    step[7:] += 10
    [point] = change_points(step, max_pvalue=GATE_PVALUE)
    assert point.index == 7 and (point.n_before, point.n_after) == (7, 5)
    assert point.mean_after - point.mean_before == pytest.approx(10 + flat[7:].mean() - flat[:7].mean())
    assert point.magnitude() == pytest.approx(point.mean_after / point.mean_before - 1)


def test_flat_levels_of_whole_milliseconds_still_show_their_step():
    """Two levels of a p90 that the millisecond resolution keeps flat: each side has no spread, the step is clear
    (a pooled t of ±∞); one flat level is no step."""
    [point] = change_points([152.0] * 4 + [192.0] * 3, max_pvalue=GATE_PVALUE)
    assert point.index == 4 and point.pvalue == 0.0
    assert change_points([152.0] * 7, max_pvalue=GATE_PVALUE) == []


def test_short_series_have_no_change_points_and_the_levels_are_ordered():
    assert change_points([1.0, 2.0]) == []
    assert GATE_PVALUE > MAX_PVALUE


def test_segment_moments_are_numpys_to_the_last_bit():
    """The t test's means and standard deviations are summed in numpy's pairwise order, so they are np.mean's and
    np.std's (as Otava computes them) exactly, on segments short and long (the three branches of the summation)."""
    from littlegrid.history.changepoints import _moments

    rng = np.random.default_rng(65)
    for n in [*range(1, 40), 127, 128, 129, 200, 263, 600]:
        a = rng.normal(0, 1, n) * 10.0 ** rng.integers(-3, 8, n)
        assert _moments(a.tolist()) == (float(np.mean(a)), float(np.std(a)) if n >= 2 else 0.0, n), n
