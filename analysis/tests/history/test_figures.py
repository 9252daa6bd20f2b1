"""A cell's figures with their within-run intervals: the bootstrap's (the comparison's replicates) around the
summary's own figure, and the error rate's Wilson interval, known on paper."""

import math

import numpy as np
import pytest

from littlegrid import summary as summary_file
from littlegrid.summary import plain
from littlegrid.history.figures import RESOLUTION_SE_MS, Z95, cell_figures, interval, run_figures, wilson
from littlegrid.summary.model import Cell
from summary_contract import complete
from history_runs import queue_cell, run_folder


def test_wilson_known_answers():
    lo, hi, se = wilson(0, 100)  # no failure in 100: upper end z²/(n + z²), not 0
    assert lo == pytest.approx(0, abs=1e-12) and hi == pytest.approx(Z95 ** 2 / (100 + Z95 ** 2)) and se == pytest.approx(hi / 2 / Z95)
    lo, hi, _ = wilson(50, 100)  # symmetric about 1/2: centre 0.5, half-width z·√(1/4n + z²/4n²)/(1 + z²/n)
    half = Z95 * math.sqrt(0.25 / 100 + Z95 ** 2 / 40_000) / (1 + Z95 ** 2 / 100)
    assert (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    assert wilson(0, 0) == (None, None, None)


def test_the_interval_of_replicates_is_their_percentiles_and_sd():
    lo, hi, se = interval(np.arange(1001.0))
    assert (lo, hi) == pytest.approx((25.0, 975.0)) and se == pytest.approx(np.arange(1001.0).std(ddof=1))
    assert interval(None) == (None, None, None) and interval(np.array([np.nan, 1.0])) == (None, None, None)


def test_every_cell_has_each_figure_inside_its_interval_and_the_same_seed_gives_the_same(tmp_path):
    summary = summary_file.read(run_folder(tmp_path, "r1", error_every=50) / "summary.json")
    figures = run_figures(summary)
    assert [(f.cell, f.metric) for f in figures] == [(c, m) for c in ("rate=10", "rate=20") for m in (
        "throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "error_rate")]
    for f in figures:
        stats = next(c.overall for c in summary.cells if c.id == f.cell)
        assert f.value == getattr(stats, f.metric) and f.samples == stats.count
        assert f.lo <= f.value <= f.hi and f.se > 0
    assert run_figures(summary) == figures


def test_a_percentile_is_known_to_the_millisecond_not_better():
    """JMeter's elapsed is whole milliseconds: a percentile the bootstrap never moves (every request 152 ms) is still
    only known to ±0.5 ms, whose rounding error has the standard deviation 1/√12 ms. A zero standard error gave
    the acceptance run's interval "+26.3% to +26.3%"."""
    cell = Cell.model_validate(plain(complete(queue_cell(20.0, 50.0, seed=3, constant_ms=152), Cell)))
    figures = {f.metric: f for f in cell_figures(cell)}
    assert RESOLUTION_SE_MS == pytest.approx(1 / math.sqrt(12))
    for key in ("p50_ms", "p90_ms", "p99_ms"):
        assert figures[key].value == 152 and figures[key].se == pytest.approx(RESOLUTION_SE_MS)
    assert figures["mean_ms"].se < RESOLUTION_SE_MS  # a mean of thousands averages its rounding away
