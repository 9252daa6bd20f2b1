"""A cell's figures with their within-run intervals (analysis/statistics/intervals.py, Cell.intervals): the bootstrap's over
blocks of seconds around the summary's own figure, a percentile's standard error never below the millisecond, and
the error rate's Wilson interval, known on paper."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from littlegrid.analysis.statistics.intervals import RESOLUTION_SE_MS, Z, from_replicates, of_cell, wilson
from littlegrid.summary import plain
from littlegrid.summary.model import Cell
from summary_contract import complete

sys.path.insert(0, str(Path(__file__).parents[1] / "history"))
from history_runs import queue_cell  # noqa: E402


def test_wilson_known_answers():
    lo, hi, se = wilson(0, 100)  # no failure in 100: upper end z²/(n + z²), not 0
    assert lo == pytest.approx(0, abs=1e-12) and hi == pytest.approx(Z ** 2 / (100 + Z ** 2))
    assert se == pytest.approx(hi / 2 / Z)
    lo, hi, _ = wilson(50, 100)  # symmetric about 1/2: centre 0.5, half-width z·√(1/4n + z²/4n²)/(1 + z²/n)
    half = Z * math.sqrt(0.25 / 100 + Z ** 2 / 40_000) / (1 + Z ** 2 / 100)
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    assert wilson(0, 0) == (None, None, None)


def test_the_interval_of_replicates_is_their_percentiles_and_sd():
    got = from_replicates(500.0, np.arange(1001.0), percentile=False)
    assert (got.lo, got.hi) == pytest.approx((25.0, 975.0)) and got.se == pytest.approx(np.arange(1001.0).std(ddof=1))
    assert from_replicates(1.0, None, False).se is None
    assert from_replicates(1.0, np.array([np.nan, 1.0]), False).lo is None


def cell(**options) -> Cell:
    return Cell.model_validate(plain(complete(queue_cell(20.0, 50.0, seed=3, **options), Cell)))


def test_every_figure_lies_inside_its_interval_and_the_same_seed_gives_the_same():
    c = cell(error_every=50)
    got = of_cell(c)
    for key in ("throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "error_rate"):
        figure = getattr(got, key)
        assert figure.value == getattr(c.overall, key)
        assert figure.lo <= figure.value <= figure.hi and figure.se > 0
    assert of_cell(c) == got
    # the error rate's interval is Wilson's on the cell's own counts: 1 in 50 failed
    assert (got.error_rate.lo, got.error_rate.hi, got.error_rate.se) == wilson(c.overall.errors, c.overall.count)


def test_a_percentile_is_known_to_the_millisecond_not_better():
    """JMeter's elapsed is whole milliseconds: a percentile the bootstrap never moves (every request 152 ms) is still
    only known to ±0.5 ms, whose rounding error has the standard deviation 1/√12 ms. A zero standard error gave
    an acceptance run's interval "+26.3% to +26.3%"."""
    got = of_cell(cell(constant_ms=152))
    assert RESOLUTION_SE_MS == pytest.approx(1 / math.sqrt(12))
    for key in ("p50_ms", "p90_ms", "p99_ms"):
        assert getattr(got, key).value == 152 and getattr(got, key).se == pytest.approx(RESOLUTION_SE_MS)
    assert got.mean_ms.se < RESOLUTION_SE_MS  # a mean of thousands averages its rounding away


def test_a_cell_without_a_window_histogram_has_no_intervals():
    c = cell()
    assert of_cell(c.model_copy(update={"histogram": None})) is None
