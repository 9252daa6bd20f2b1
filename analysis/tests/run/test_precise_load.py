"""`[cell] until = "precise"` with real JMeter against a local HTTP stub: a cell at a high rate is stopped early
through JMeter's own command port, one at a low rate that the closed law keeps from an answer runs to max_s (as short
a max_s as still shows it: SLOW_MAX_S), and both JTLs end complete.

A load test: run it under the machine's exclusive load lock, e.g.
`flock ~/.littlegrid-load.lock pytest -m integration tests/run/test_precise_load.py`.
"""

import json
from pathlib import Path

import pytest

from littlegrid.analysis.steady.steady_state import MSER_BATCH_S, closed_law_edge, judge, min_batches
from littlegrid.analysis.steady.window import window_error
from littlegrid.jtl import read_jtl
from littlegrid.run.answered import LATE_S, RunningSeconds
from littlegrid.run.runner import run_grid
from littlegrid.run.stopping import CHECK_S

pytestmark = pytest.mark.integration
MAX_S = 150  # the fast cell's ceiling: a loaded host has stopped it as late as 57 s
PRECISION = 0.05
MIN_S = 10
SLOW_THINK_S = 1.0  # the slow cell: N = 1 thinking a constant 1 s (the tiny plan's timer is constant)
# The slow cell's closed law: over a window of T s its edge error is 3·window_error(R+Z, T, N) = 6·(R+Z)/(T·√N),
# more than the law's 2% tolerance for every T under LAW_WINDOW_S = 300 s, as R+Z is at least Z whatever the host
# does. So the rule cannot answer it before then, and any max_s well under that shows the cell running to max_s.
# What it must still hold is a verdict with its figures: MSER's warm-up search judges 4 batches of 5 s at one answer
# a second (20 s), a warm-up may take up to half the seconds judged, and the window after it must hold min_s; the
# larger of those, and START_SLACK_S for a host that delays the first sample (JMeter's start takes 3-6 s on this
# 2-core host, loaded or not), is all the cell needs to reach max_s with a verdict (it was three times the larger,
# 60 s: 40 of them idle).
LAW_TOLERANCE = 0.02
LAW_WINDOW_S = 3 * window_error(SLOW_THINK_S, 1.0, 1) / LAW_TOLERANCE
START_SLACK_S = 10
SLOW_MAX_S = max(min_batches(MSER_BATCH_S) * MSER_BATCH_S, 2 * MIN_S) + START_SLACK_S


def precise_grid(target_grid, path: Path, port: int, think_ms: int, max_s: int) -> Path:
    grid = target_grid(path, port, users=(1,), think_ms=(think_ms,), duration_s=max_s)
    grid.write_text(grid.read_text().replace(
        f"duration_s = {max_s}\n", f'until = "precise"\nprecision = "{PRECISION:.0%}"\nmin_s = {MIN_S}\nmax_s = {max_s}\n'))
    return grid


def test_a_high_rate_cell_stops_when_precise_through_jmeters_command_port(tmp_path, jmeter, http_target, target_grid):
    # one thread without think time: tens to hundreds of answers a second from the stub (as the shared host allows),
    # X and R known to ±5% as soon as the rule's window holds its batches (a 60 s cell on a loaded host stopped at
    # 57 s with ±1.3%: batches of 5 s for R's autocorrelation)
    grid = precise_grid(target_grid, tmp_path / "precise.toml", http_target, 0, MAX_S)
    run = run_grid(grid, out=tmp_path / "reports", run_id="precise", jmeter_heap="256m")
    fast = run / "cells" / "users=1,think_ms=0"
    fm = json.loads((fast / "manifest.json").read_text())
    assert fm["status"] == "complete" and fm["exit_code"] == 0

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
    assert_complete_jtl(fast, fm)


def test_a_low_rate_cell_the_closed_law_keeps_from_an_answer_runs_to_max_s(tmp_path, jmeter, http_target, target_grid):
    # a closed loop of N = 1 and R+Z ≈ 1 s, whose closed law asks 300 s of window, five times max_s
    assert LAW_WINDOW_S >= 5 * SLOW_MAX_S, (LAW_WINDOW_S, SLOW_MAX_S)
    grid = precise_grid(target_grid, tmp_path / "precise.toml", http_target, int(SLOW_THINK_S * 1000), SLOW_MAX_S)
    run = run_grid(grid, out=tmp_path / "reports", run_id="precise", jmeter_heap="256m")
    slow = run / "cells" / "users=1,think_ms=1000"
    sm = json.loads((slow / "manifest.json").read_text())
    assert sm["status"] == "complete" and sm["exit_code"] == 0

    late = sm["stop"]
    assert late["reason"] == "max_s", late
    # its thread group ended at max_s; the last answer came a think time before its end and the partial last second
    # is left out
    assert SLOW_MAX_S - 7 <= late["at_s"] <= SLOW_MAX_S
    assert "Command:" not in (slow / "jmeter.out").read_text()  # nothing was sent to it
    # the record is the rule applied to the finished JTL's whole seconds, under the rule the runner gave the cell
    # (its manifest's N); the closed law's window error kept it from an answer
    counts, sums = whole_seconds(slow / "results.jtl")
    rule = _rule(grid, sm)
    verdict = judge(counts, sums, rule)
    assert late["why"] == verdict.why
    assert rule.users == 1 and rule.law_tolerance == LAW_TOLERANCE
    assert closed_law_edge(rule, verdict.precision) > rule.law_tolerance
    assert_complete_jtl(slow, sm)


def assert_complete_jtl(cell: Path, m: dict) -> None:
    jtl = cell / "results.jtl"
    assert jtl.read_bytes().endswith(b"\n")
    reading = read_jtl(jtl)
    assert reading.skipped_total == 0 and len(reading.samples) == m["samples"]


def whole_seconds(jtl: Path):
    from littlegrid.analysis.reading.error_classes import classify

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
