"""`[cell] until = "precise"` with real JMeter against a local HTTP stub: a cell at a high rate is stopped early
through JMeter's own command port, one at a low rate runs to max_s, and both JTLs end complete.

A load test: run it under the machine's exclusive load lock, e.g.
`flock ~/.littlegrid-load.lock pytest -m integration tests/run/test_precise_load.py`.
"""

import json
from pathlib import Path

import pytest

from littlegrid.analysis.steady_state import closed_law_edge, judge
from littlegrid.jtl import read_jtl
from littlegrid.run.answered import LATE_S, RunningSeconds
from littlegrid.run.runner import run_grid
from littlegrid.run.stopping import CHECK_S

pytestmark = pytest.mark.integration
MAX_S = 150
PRECISION = 0.05


def test_a_high_rate_cell_stops_when_precise_and_a_low_rate_one_runs_to_max_s(tmp_path, jmeter, http_target,
                                                                               target_grid):
    # one thread without think time: tens to hundreds of answers a second from the stub (as the shared host allows),
    # X and R known to ±5% as soon as the rule's window holds its batches (a 60 s cell on a loaded host stopped at
    # 57 s with ±1.3%: batches of 5 s for R's autocorrelation); one thread thinking 1 s (the tiny plan's timer is
    # constant): a closed loop of N = 1 and R+Z ≈ 1 s, whose closed law asks 3 × 2·(R+Z)/(T·√N) within 2%, a window of
    # 300 s, twice max_s, whatever its X and R
    grid = target_grid(tmp_path / "precise.toml", http_target, users=(1,), think_ms=(0, 1000), duration_s=MAX_S)
    text = grid.read_text().replace(f"duration_s = {MAX_S}\n",
                                    f'until = "precise"\nprecision = "{PRECISION:.0%}"\nmin_s = 10\nmax_s = {MAX_S}\n')
    grid.write_text(text)
    run = run_grid(grid, out=tmp_path / "reports", run_id="precise", jmeter_heap="256m")
    fast, slow = (run / "cells" / f"users=1,think_ms={z}" for z in (0, 1000))
    fm, sm = (json.loads((c / "manifest.json").read_text()) for c in (fast, slow))
    assert fm["status"] == sm["status"] == "complete" and fm["exit_code"] == sm["exit_code"] == 0

    stop = fm["stop"]
    assert stop["reason"] == "precise", stop
    # a window of at least min_s = 10 s whose first half holds 5 batches of at least 1 s (steady_state.STOP_BATCHES,
    # CONFIRM = 2), after the 1 s warm-up floor: at least 11 s
    assert 11 <= stop["at_s"] < MAX_S
    assert fm["load_s"] < MAX_S - 5  # ended by the stop, not at its plan's end (within ~2 s of max_s)
    assert stop["x_rel"] <= PRECISION and stop["r_rel"] <= PRECISION
    # after the decision JMeter wrote at most: the seconds not yet complete (LATE_S and the one of the latest end),
    # what came in while the next check was due (CHECK_S), and Shutdown's own second (threads end their sample)
    assert fm["load_s"] - stop["at_s"] <= LATE_S + 1 + CHECK_S + 1, (fm["load_s"], stop)
    assert "Command: Shutdown received" in (fast / "jmeter.out").read_text()

    late = sm["stop"]
    assert late["reason"] == "max_s", late
    # its thread group ended at max_s; the last answer came a think time before its end (Exp(1 s): beyond 5 s once in
    # e^5 ≈ 150 cells) and the partial last second is left out
    assert MAX_S - 7 <= late["at_s"] <= MAX_S
    assert "Command:" not in (slow / "jmeter.out").read_text()  # nothing was sent to it
    # the record is the rule applied to the finished JTL's whole seconds, under the rule the runner gave the cell
    # (its manifest's N); the closed law's window error alone kept it from an answer
    counts, sums = whole_seconds(slow / "results.jtl")
    rule = _rule(grid, sm)
    verdict = judge(counts, sums, rule)
    assert late["why"] == verdict.why
    assert rule.users == 1 and closed_law_edge(rule, verdict.precision) > rule.law_tolerance

    for cell, m in ((fast, fm), (slow, sm)):
        jtl = cell / "results.jtl"
        assert jtl.read_bytes().endswith(b"\n")
        reading = read_jtl(jtl)
        assert reading.skipped_total == 0 and len(reading.samples) == m["samples"]


def whole_seconds(jtl: Path):
    from littlegrid.analysis.error_classes import classify

    samples = read_jtl(jtl).samples
    tally = RunningSeconds()
    tally.add(samples, classify(samples))
    return tally.series(final=True)


def _rule(grid: Path, manifest: dict):
    """The rule the runner applied to a cell: the grid's, with the cell manifest's N (one user here)."""
    from littlegrid.run.grid_file import load_grid
    from littlegrid.run.stopping import cell_rule

    loaded = load_grid(grid)
    return cell_rule(loaded.timing.rule(), manifest, loaded.tolerances)
