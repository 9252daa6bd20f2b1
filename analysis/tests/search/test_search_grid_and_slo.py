"""A search's inputs refused in one line before any load: the range axis of the grid file, and the SLO."""

import re
from pathlib import Path

import numpy as np
import pytest

from littlegrid.analysis.reading.histogram import SecondHistograms
from littlegrid.run.grid import SearchRange
from littlegrid.run.grid_file import load_grid
from littlegrid.search.slo import figures, parse_slo, slo_words
from littlegrid.usererror import UserError
from simulated import entry_of, in_seconds

PLAN = Path(__file__).parents[1] / "run" / "fixtures" / "tiny.jmx"
GRID = f"""
name = "search"
plan = "{PLAN}"
[target]
host = "127.0.0.1"
port = 8080
[axes]
think_ms = [0, 50]
"""


def grid_with(tmp_path, axes: str):
    path = tmp_path / "grid.toml"
    path.write_text(GRID + axes + "\n")
    return load_grid(path)


def test_a_range_table_is_a_search_axis_and_the_others_stay_lists(tmp_path):
    grid = grid_with(tmp_path, "users = { min = 1, max = 400 }")
    assert grid.ranges == {"users": SearchRange(1, 400, None)}
    assert grid.axes == {"think_ms": [0, 50]}
    assert grid_with(tmp_path, "users = { min = 2, max = 9, resolution = 2 }").ranges["users"].resolution == 2


def test_a_grid_with_a_range_is_not_run_cell_by_cell(tmp_path):
    with pytest.raises(UserError, match=r"users is a range .*littlegrid search"):
        grid_with(tmp_path, "users = { min = 1, max = 400 }").cells()


@pytest.mark.parametrize("axes, problem", [
    ("users = { min = 40, max = 4 }", r"grid.toml:\d+: \[axes\] users: min 40 is greater than max 4"),
    ("users = { min = 0, max = 4 }", r"min must be a whole number ≥ 1, got 0"),
    ("users = { min = 1.5, max = 4 }", r"min must be a whole number ≥ 1"),
    ("users = { max = 4 }", r"the range needs min"),
    ("users = { min = 1, max = 4, step = 1 }", r"unknown key 'step'"),
])
def test_a_bad_range_is_refused_in_one_line_naming_file_line_and_key(tmp_path, axes, problem):
    with pytest.raises(UserError, match=problem) as e:
        grid_with(tmp_path, axes)
    assert "\n" not in str(e.value)


def test_two_range_axes_are_refused(tmp_path):
    path = tmp_path / "grid.toml"
    path.write_text(GRID.replace("think_ms = [0, 50]", "think_ms = { min = 0, max = 50 }")
                    + "users = { min = 1, max = 4 }\n")
    with pytest.raises(UserError, match=r"only users or rate_per_s can be a range"):
        load_grid(path)


def test_an_slo_of_per_cell_upper_bounds_parses_and_and_splits():
    crits = parse_slo(["p99 <= 1s and error_rate < 1%"])
    assert [(c.metric, c.op, c.threshold) for c in crits] == [("p99", "<=", 1000.0), ("error_rate", "<", 0.01)]
    assert slo_words(crits[0]) == "p99 <= 1000 ms"


@pytest.mark.parametrize("text, why", [
    ("p90 < 300ms where users <= 40", "chooses cells"),
    ('p90 < 300ms label "login"', "label"),
    ("closed_law_error < 3%", "check of the data"),
    ("throughput > 100/s", "does not grow with the load"),
    ("p90 > 300ms", "upper bound"),
])
def test_a_criterion_that_is_not_a_per_cell_bound_is_refused_in_one_line(text, why):
    with pytest.raises(UserError, match=re.escape(why)) as e:
        parse_slo([text])
    assert str(e.value).startswith("--slo '") and "not a per-cell bound" in str(e.value)


def test_a_figure_is_the_summary_s_value_with_a_reproducible_bootstrap_interval():
    elapsed = np.sort(np.random.default_rng(7).exponential(100, 4000).astype(np.int64) + 1)
    p90 = float(elapsed[int(np.ceil(0.9 * len(elapsed))) - 1])
    entry = entry_of(p90_ms=p90, count=len(elapsed), error_rate=0.0)
    window = in_seconds(np.random.default_rng(8).permutation(elapsed), 40.0)  # independent: no queue between them
    (fig,) = figures(parse_slo(["p90 < 300ms"]), entry, window, "users=5")
    assert fig.value == p90 and fig.lo < p90 < fig.hi
    # the standard error of a p90 from 4,000 exponential samples: about S·√(0.9·0.1/n)/0.1 = 4.7 ms, so a 95 %
    # interval of about 18 ms; blocks of seconds of independent samples change nothing but the noise
    assert 10 < fig.hi - fig.lo < 30
    assert figures(parse_slo(["p90 < 300ms"]), entry, window, "users=5") == (fig,)


def test_an_error_rate_figure_resamples_the_window_s_failures_by_second():
    # 40 s at 50 requests per second; every request of seconds 10-13 fails (a burst), no other: 200 of 2,000
    end = np.repeat(np.arange(40) * 1000 + 500, 50)
    failed = (end >= 10_000) & (end < 14_000)
    window = SecondHistograms.from_samples(np.full(2000, 20), end, 0, 40_000, failed=failed)
    entry = entry_of(count=2000, error_rate=0.1)
    (fig,) = figures(parse_slo(["error_rate < 5%"]), entry, window, "users=5")
    assert fig.value == 0.1 and fig.threshold == 0.05 and fig.lo < 0.1 < fig.hi
    # one burst in the window: resampling its seconds can leave it out or take it twice, so the interval spans
    # far more than a binomial's ±1.3 points (√(0.1·0.9/2000) = 0.0067, ×1.96)
    assert fig.lo < 0.05 and fig.hi > 0.15
    clean = SecondHistograms.from_samples(np.full(2000, 20), end, 0, 40_000)
    (none,) = figures(parse_slo(["error_rate < 5%"]), entry_of(count=2000, error_rate=0.0), clean, "k")
    assert (none.lo, none.hi) == (0.0, 0.0)
