"""Issue 53's honest-intervals check on a real server: one configuration of the sample server run as repeated short
precise cells; each cell's stated 95% intervals of X and mean R cover the mean of all of them at about the stated
rate. The synthetic half of the check (M/M/1 streams with a known mean) is tests/analysis/test_steady_state.py.

About 5-8 minutes of load: run it alone, under the load lock,
    pytest -m acceptance tests/analysis/test_acceptance_precision.py
"""

from pathlib import Path

import numpy as np
import pytest

from littlegrid.run.jmeter import repo_root
from littlegrid.summarize import analyze

pytestmark = pytest.mark.acceptance
ROOT = repo_root(Path(__file__).parent)
REPS = 8

GRID = f'''name = "accept-precision"
plan = "{ROOT / 'plans' / 'closed.jmx'}"
description = "One configuration, {REPS} repeated precise cells: do their intervals cover each other at the stated rate?"

[server]
start = true
knobs = {{ "server.tomcat.threads.max" = 10 }}
warmup_s = 90  # the question is the intervals' coverage where the server is steady: its JIT goes on for minutes

[target]
path = "/"

[cell]
until = "precise"
precision = "2%"
min_s = 10
max_s = 120  # room for the rule to answer: this closed loop's memory can make batches of 8 s, and the
             # confirmation's 5 of them over the window's first half then need an 80-s window (a run of 2026-11-28
             # reached max_s 60 at ±0.5% in one cell of 8); the test is of the intervals the rule answers with
warmup_s = 1
cooldown_s = 2
rampup_s = 1
repetitions = {REPS}

[properties]
think_ms = 50
think_dist = "constant"

[axes]
users = [5]
'''


def test_repeated_precise_cells_cover_their_common_mean_at_about_the_stated_rate(runnable, tmp_path):
    """Eight cells of 5 users (S = 100 ms, Z = 50 ms: X ≈ 33/s, below the 10 threads' bound) stopped when X and mean R
    are known to ±2%. Against the mean of the eight (the best estimate of the configuration's true value; each cell's
    own share in it makes the cover a little likelier than 95%), 16 intervals are asked to cover: at 95% all but
    0.8 on average, 4 misses or more once in about 140 runs. So at least 13 of 16 must cover, and a cell's own interval
    must really be narrower than the 2% asked (it stopped on it). Without the server's 90-s warm-up (not recorded) the
    first run covered 11 of 16: R fell 104.9 → 102.6 ms across the eight cells, X rose 32.05 → 32.55/s, the JIT still
    compiling over minutes, a drift no interval of one cell can see (issue 52 met the same between runs)."""
    from littlegrid.run.runner import run_grid

    grid = tmp_path / "accept-precision.toml"
    grid.write_text(GRID)
    run = run_grid(grid, out=tmp_path / "reports", run_id="precision")
    summary = analyze([run])
    cells = summary.cells
    assert len(cells) == REPS and all(c.status == "complete" for c in cells)
    assert all(c.stop.reason == "precise" for c in cells), [c.stop for c in cells]
    x = np.array([c.precision.throughput_per_s for c in cells])
    r = np.array([c.precision.mean_ms for c in cells])
    x_rel = np.array([c.precision.throughput_rel for c in cells])
    r_rel = np.array([c.precision.mean_rel for c in cells])
    covered = int((np.abs(x - x.mean()) <= x_rel * x).sum() + (np.abs(r - r.mean()) <= r_rel * r).sum())
    print(f"X {x.round(2).tolist()} ±{(100 * x_rel).round(2).tolist()}%; mean R {r.round(1).tolist()} "
          f"±{(100 * r_rel).round(2).tolist()}%; {covered} of {2 * REPS} intervals cover the common mean; "
          f"stopped at {[c.stop.at_s for c in cells]} s")
    assert covered >= 2 * REPS - 3
    # the analysis' window is the runner's, give or take the stop's tail: its interval is within a hair of the asked
    assert (x_rel <= 0.025).all() and (r_rel <= 0.025).all()
