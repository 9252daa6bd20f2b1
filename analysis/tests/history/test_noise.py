"""The run-to-run noise (history/noise.py): σ_b pooled over a series' cells on known answers, a failed run's
run-wide shift taken out rather than the run, the prior combined as a scaled inverse-χ² prior (default, or an
earlier series of the grid), a history whose σ̂_b is 0 not trusted alone, and the median's variance factor."""

import math

import numpy as np
import pytest

from littlegrid.history import noise
from littlegrid.history.store import Figure


def fig(value, se, metric="p90_ms", cell="c"):
    return Figure(cell, {}, metric, value, None, None, se, 1000)


def run(values, se=0.0, metric="p90_ms"):
    """One run's figures by cell and metric: values per cell (c0, c1, …), each with the relative standard error se."""
    return {f"c{i}": {metric: fig(v, se * v, metric, f"c{i}")} for i, v in enumerate(values)}


def test_the_spread_is_pooled_over_cells_on_the_log_scale_less_the_within_run_variance():
    """Three runs of two cells: half the squared successive differences of ln v, over the four differences, less the
    mean within-run variance (2%)²; each cell's three runs weigh 2·2²/(3·3 − 4) = 1.6 degrees of freedom (the von
    Neumann ratio's)."""
    a, b = [100.0, 110.0, 105.0], [200.0, 190.0, 230.0]
    runs = [run([x, y], se=0.02) for x, y in zip(a, b)]
    ss = sum((np.diff(np.log(v)) ** 2).sum() / 2 for v in (np.array(a), np.array(b)))
    got = noise.pooled("p90_ms", [runs], [[False] * 3])
    assert (got.df, got.runs, got.cells) == (pytest.approx(3.2), 3, 2)
    assert got.var == pytest.approx(ss / 4 - 0.02 ** 2) and got.within_var == pytest.approx(0.02 ** 2)
    assert got.sd == pytest.approx(math.sqrt(ss / 4 - 0.02 ** 2))


def test_a_slow_creep_inside_a_level_reads_as_little_noise():
    """Successive differences, not the spread around a mean: a cell creeping 1% a run for eight runs has a spread of
    2.4% around its mean but successive steps of 1%: its σ̂ is about 0.7% (1%/√2)."""
    runs = [run([100.0 * 1.01 ** i, 200.0 * 1.01 ** i]) for i in range(8)]
    got = noise.pooled("p90_ms", [runs], [[False] * 8])
    assert got.sd == pytest.approx(math.log(1.01) / math.sqrt(2), rel=1e-6)


def test_segments_between_pins_each_have_their_own_levels():
    """A pinned run starts a new level: 100 → 150 is a deliberate change, not noise."""
    before = [run([100.0]), run([101.0])]
    after = [run([150.0]), run([151.5])]
    got = noise.pooled("p90_ms", [before, after], [[False, False], [False, False]])
    assert got.df == 2
    assert got.var == pytest.approx(((math.log(101) - math.log(100)) ** 2 + (math.log(151.5) - math.log(150)) ** 2) / 4)


def test_a_failed_run_counts_in_the_spread_with_its_own_shift_taken_out():
    """A false alarm is noise and must widen the next estimate, not leave it; a real regression must not count as
    noise: its run-wide shift (the median over cells of its distance from the others) is taken out, its scatter
    around that shift kept, one degree of freedom spent on the shift."""
    steady = [run([100.0, 200.0, 300.0]), run([102.0, 198.0, 303.0]), run([99.0, 202.0, 297.0])]
    slower = run([130.0, 266.0, 385.0])  # +30%, +33%, +28%: a shift of about +30% with a little scatter
    kept = noise.pooled("p90_ms", [steady + [slower]], [[False, False, False, True]])
    cells = np.log([[r[c]["p90_ms"].value for r in steady + [slower]] for c in ("c0", "c1", "c2")])
    shift = np.median([row[3] - np.median(row[:3]) for row in cells])
    cells[:, 3] -= shift
    assert kept.df == pytest.approx(3 * 2 * 3 ** 2 / (3 * 4 - 4) - 1) and kept.runs == 4
    assert kept.var == pytest.approx(sum((np.diff(row) ** 2).sum() / 2 for row in cells) / 9)
    assert kept.sd < 0.02  # its scatter around +30% (±2%), not its 30%


def test_a_series_that_shifted_unseen_is_cut_at_its_change_point_not_read_as_noise():
    runs = [run([100.0 + d, 200.0 + 2 * d]) for d in (0.0, 1.0, -1.0, 0.5, 0.0, -0.5)]
    runs += [run([120.0 + d, 240.0 + 2 * d]) for d in (0.0, 1.0, -1.0, 0.5, 0.0, -0.5)]
    got = noise.pooled("p90_ms", [runs], [[False] * 12])
    assert got.sd < 0.01  # the 20% level change is a level, the spread around each level is under 1%


def test_the_prior_and_the_measured_spread_combine_as_degrees_of_freedom_weigh():
    sd0, df0 = noise.DEFAULTS["p90_ms"]
    alone = noise.combine("p90_ms", None)
    assert (alone.between_sd, alone.df, alone.source, alone.prior_from) == (sd0, df0, "prior", "default")
    measured = noise.Spread("p90_ms", 0.05 ** 2, 12, 3, 6, 0.0001)
    both = noise.combine("p90_ms", measured)
    assert both.between_sd == pytest.approx(math.sqrt((df0 * sd0 ** 2 + 12 * 0.05 ** 2) / (df0 + 12)))
    assert both.df == df0 + 12 and both.source == "measured"
    # a small history that measured nothing beyond its within-run noise (σ̂_b² ≤ 0) does not get the gate to trust
    # within-run intervals alone: the prior holds the spread up
    quiet = noise.combine("p90_ms", noise.Spread("p90_ms", -0.0001, 4, 3, 2, 0.0002))
    assert quiet.between_sd == pytest.approx(math.sqrt((df0 * sd0 ** 2 - 4 * 0.0001) / (df0 + 4)))
    assert quiet.between_sd > 0.6 * sd0 and quiet.source == "prior and measured"


def test_an_earlier_series_of_the_grid_is_the_prior_once_it_has_measured_enough():
    earlier = noise.Spread("p90_ms", 0.03 ** 2, 30, 6, 6, 0.0001)
    got = noise.combine("p90_ms", None, earlier)
    assert (got.prior_sd, got.prior_df) == (pytest.approx(0.03), noise.MAX_PRIOR_DF)  # weighs as at most 12
    assert got.prior_from == "series of 6 runs" and "from this grid's series of 6 runs" in got.words("%")
    thin = noise.Spread("p90_ms", 0.03 ** 2, noise.MIN_PRIOR_DF - 1, 2, 3, 0.0001)
    assert noise.combine("p90_ms", None, thin).prior_from == "default"


def test_the_words_say_the_spread_and_where_it_came_from():
    got = noise.combine("p90_ms", noise.Spread("p90_ms", 0.023 ** 2, 12, 3, 6, 0.0001))
    sd0, df0 = noise.DEFAULTS["p90_ms"]
    assert got.words("%") == (f"σ_b {got.between_sd * 100:.2g}% (prior {sd0 * 100:.2g}%, this project's default, "
                              f"{df0} df; measured 2.3% over 12 df from 3 runs)")
    assert noise.combine("error_rate", None).words("points").startswith("σ_b 0.1 points")


def test_the_error_rate_spreads_in_points_not_on_the_log_scale():
    runs = [run([0.0], metric="error_rate"), run([0.01], metric="error_rate"), run([0.02], metric="error_rate")]
    for r, se in zip(runs, (0.001, 0.001, 0.001)):
        r["c0"]["error_rate"] = fig(r["c0"]["error_rate"].value, se, "error_rate", "c0")
    got = noise.pooled("error_rate", [runs], [[False] * 3])
    assert got.var == pytest.approx(0.00005 - 0.000001)  # steps of 1 point: (0.01² + 0.01²)/2 over 2 steps


def test_the_median_of_k_runs_varies_as_the_order_statistics_say():
    assert noise.median_factor(1) == 1.0 and noise.median_factor(2) == 0.5
    assert noise.median_factor(3) == pytest.approx(0.4487, abs=2e-4)  # a known value of the median of 3 normals
    assert noise.median_factor(40) == pytest.approx(math.pi / 80)
    rng = np.random.default_rng(3)
    for k in (3, 4, 5):
        drawn = np.median(rng.standard_normal((200_000, k)), axis=1).var()
        assert noise.median_factor(k) == pytest.approx(drawn, rel=0.02)


def test_the_degrees_of_freedom_of_a_difference_follow_welch_satterthwaite():
    n = noise.combine("p90_ms", None)
    assert n.effective_df(0.0, 0.01) == math.inf
    assert n.effective_df(0.01, 0.01) == pytest.approx(n.df)  # all of it estimated: the noise's own
    assert n.effective_df(0.005, 0.01) == pytest.approx(4 * n.df)  # half known: four times the df
