"""A precise cell: its answers counted per completion second as the JTL grows, the stopping rule asked as it runs,
JMeter told to stop through its own command port, and the record of why the cell stopped. JMeter is stood in for by
tests/run/fake_jmeter.py, which writes a known JTL faster than real time and listens on its port as JMeter does."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from littlegrid.analysis.steady.steady_state import Rule, judge
from littlegrid.jtl import read_jtl
from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX
from littlegrid.render import words
from littlegrid.run import stopping
from littlegrid.run.answered import RunningSeconds, Seconds
from littlegrid.run.cell_run import run_cell
from littlegrid.run.live.counts import EarlierStart
from littlegrid.run.stopping import Stop, Watcher, fixed_stop, free_udp_port, port_properties, precise_conditions

FAKE = Path(__file__).parent / "fake_jmeter.py"
PLAN = Path(__file__).parent / "fixtures" / "tiny.jmx"
SECOND_S = 0.1  # real seconds per JTL second in the fake
# the watcher is asked once a JTL second, as the runner asks it once a second of a real cell (stopping.CHECK_S);
# run_cell's loop wakes that often when a watcher asks it to (cell_run.POLL_S)
CHECK_S = SECOND_S
# a host shared by several test runs may wake the runner this late
HOST_LATE_S = 0.5
# the JTL seconds a stop may come after the first judgement that could answer: the real time between two checks and
# the host's lateness, and one JTL second for a late write. The bound is in real time: 0.7 s now (7 JTL seconds of
# 0.1 s); it was 1.2 s (6 of 0.2 s) when the loop woke only every 0.5 s whatever the watcher's check_s
LATE = round((CHECK_S + HOST_LATE_S) / SECOND_S) + 1
STOP_KEYS = {"rule", "reason", "at_s", "precision_asked", "x_rel", "r_rel", "warmup_s", "why", "slo"}


class StandInJMeter:
    """A JMeter whose command runs fake_jmeter.py in `mode`, with the properties and options the runner gives."""

    version = "5.6.3"

    def __init__(self, tmp_path: Path, mode: str = "steady"):
        self.mode, self.commands = mode, tmp_path / f"commands-{mode}.txt"
        self.home = tmp_path

    def command(self, plan, *, jtl=None, log=None, properties=None, remote_hosts=None, heap="1g", extra=None,
                remote_exit=True):
        return ([sys.executable, str(FAKE), "-l", str(jtl), "--mode", self.mode, "--second-s", str(SECOND_S),
                 "--commands", str(self.commands)]
                + [f"-J{k}={v}" for k, v in (properties or {}).items()] + list(extra or []))

    def received(self) -> list[str]:
        return self.commands.read_text().splitlines() if self.commands.exists() else []


def frame(rows) -> tuple[pd.DataFrame, pd.Series]:
    """(start, end, elapsed, failed) rows as the samples schema and their error classes."""
    df = pd.DataFrame(rows, columns=["start_ms", "end_ms", "elapsed_ms", "failed"])
    classes = pd.Series([("http_5xx" if f else None) for f in df["failed"]], dtype="object")
    return df.drop(columns="failed"), classes


def test_answers_are_counted_in_the_second_they_completed_from_the_first_start_and_failures_left_out():
    tally = RunningSeconds()
    # first start at 10_000: second 0 is [10_000, 11_000); ends 10_900 and 11_000 fall in seconds 0 and 1
    tally.add(*frame([(10_000, 10_900, 900, False), (10_500, 11_000, 500, False), (10_600, 11_200, 600, True)]))
    tally.add(*frame([(11_900, 12_100, 200, False), (12_000, 13_500, 1_500, False)]))
    # the latest end read (13_500) is in second 3: seconds 0 and 1 are complete, 2 may still get a late row
    counts, sums = tally.series()
    assert counts.tolist() == [1, 1] and sums.tolist() == [900, 500]
    counts, sums = tally.series(final=True)  # JMeter has exited: every whole second (3), the partial 4th left out
    assert counts.tolist() == [1, 1, 1] and sums.tolist() == [900, 500, 200]
    assert tally.samples == 5
    with pytest.raises(EarlierStart):  # a slow first request written late: the seconds would shift
        tally.add(*frame([(9_000, 13_600, 4_600, False)]))
    assert tally.samples == 5  # nothing of that batch counted


def test_transaction_controller_parents_are_no_answers_as_in_the_analysis_series():
    """A parent row wraps the requests already counted: counted again it would double X in the rule's series and
    halve its mean R's weight, so the runner would judge another series than the analysis reports."""
    samples, classes = frame([(0, 400, 400, False), (0, 900, 900, False), (0, 950, 950, True), (0, 1_000, 1_000, True),
                              (1_000, 1_100, 100, False), (2_000, 3_500, 1_500, False)])
    samples["response_message"] = pd.array(["OK", f"{TRANSACTION_MESSAGE_PREFIX}2, number of failing samples : 0",
                                            "boom", f"{TRANSACTION_MESSAGE_PREFIX}1, number of failing samples : 1",
                                            "OK", "OK"], dtype="string")
    tally = RunningSeconds()
    tally.add(samples, classes)
    s = tally.seconds(final=True)
    assert s.counts.tolist() == [1, 1, 0] and s.sums_ms.tolist() == [400, 100, 0] and s.failed.tolist() == [1, 0, 0]
    assert tally.samples == 6  # every row read is counted as read


def test_the_tally_grows_past_its_first_size_without_losing_a_count():
    tally = RunningSeconds()
    tally.add(*frame([(0, 500 + 1000 * s, 10, False) for s in range(200)]))
    counts, sums = tally.series(final=True)
    assert len(counts) == 199 and counts.sum() == 199 and sums.sum() == 1990


def test_the_stop_record_is_the_summarys_own_with_the_contracts_keys():
    precise = Stop(rule="precise", reason="precise", at_s=23.0, precision_asked=0.02, x_rel=0.014, r_rel=0.019,
                   warmup_s=5.0, why="…")
    assert set(precise.model_dump()) == STOP_KEYS
    assert fixed_stop(30).model_dump() == {"rule": "duration", "reason": "duration", "at_s": None,
                                           "precision_asked": None, "x_rel": None, "r_rel": None, "warmup_s": None,
                                           "why": "ran duration_s (30 s)", "slo": None}


def series_of(rule: Rule, mode: str, seconds: int):
    """The fake's first `seconds` as the watcher counts them: (counts, sums_ms)."""
    sys.path.insert(0, str(FAKE.parent))
    import fake_jmeter

    rows = [r for second in range(seconds + 1) for r in fake_jmeter.rows_of(second, mode)]
    tally = RunningSeconds()
    tally.add(*frame([(start, start + elapsed, elapsed, False) for start, elapsed in rows]))
    counts, sums = tally.series(final=True)
    return counts[:seconds], sums[:seconds]


def first_answer(rule: Rule, mode: str = "steady") -> int | None:
    """The fewest leading seconds of the fake's series that judge answers (the series as the watcher counts it, while
    JMeter runs: no cool-down in it)."""
    sys.path.insert(0, str(FAKE.parent))
    import fake_jmeter

    rows = [r for second in range(int(rule.max_s)) for r in fake_jmeter.rows_of(second, mode)]
    tally = RunningSeconds()
    tally.add(*frame([(start, start + elapsed, elapsed, False) for start, elapsed in rows]))
    counts, sums = tally.series(final=True)
    return next((n for n in range(1, len(counts) + 1) if judge(counts[:n], sums[:n], rule, running=True).answered),
                None)


def watched_cell(tmp_path: Path, mode: str, duration_s: int, rule: Rule):
    folder = tmp_path / mode
    folder.mkdir()
    jmeter = StandInJMeter(tmp_path, mode)
    port = free_udp_port()
    watcher = Watcher(folder / "results.jtl", rule, precise_conditions(rule), check_s=CHECK_S)
    try:
        outcome = run_cell(jmeter, PLAN, folder, {"duration_s": duration_s}, duration_s=duration_s,
                           controller_options=[f"-J{k}={v}" for k, v in port_properties(port).items()],
                           command_port=port, watcher=watcher)
    finally:
        watcher.close()
    return outcome, jmeter, port, folder / "results.jtl"


def assert_complete_jtl(jtl: Path, samples: int) -> None:
    """Every row whole (the header's 7 fields), the last line ended, and the reader skips nothing."""
    text = jtl.read_text()
    assert text.endswith("\n")
    assert all(line.count(",") == 6 for line in text.splitlines())
    reading = read_jtl(jtl)
    assert reading.skipped_total == 0 and len(reading.samples) == samples


def test_an_answered_cell_is_stopped_through_jmeters_port_with_its_jtl_complete(tmp_path):
    rule = Rule(precision=0.02, min_s=10, max_s=120, warmup_floor_s=2, cooldown_s=1)
    outcome, jmeter, port, jtl = watched_cell(tmp_path, "steady", 120, rule)
    assert outcome.status == "complete" and outcome.exit_code == 0
    stop = outcome.stop
    # on paper: R is 200 ms for 10 s, then 20 ms, so the warm-up is 10 s (MSER batches of one second: 50 answers
    # each). The series has no memory (no lag-1 correlation), so the rule's batches are a tenth of the window, at least
    # 1 s, and it asks at least 5 of them over the window's first half too (steady_state.STOP_BATCHES, CONFIRM = 2).
    # X alternates 51 and 49 a second: over 5 batches of 1 s its half-width is t₄·1.4/√5/50 = ±3.5%, and ±2/1.02 %
    # holds over 8 s (t₇); the interval stated is the wider of a window's and its first half's ÷ √2, so the first half
    # must hold over its own first half too: a first half of 10 s, a window of 20 s. While JMeter runs no second
    # judged is a cool-down (that comes after the stop), so 30 complete seconds answer (judge over the fake's own
    # series agrees), LATE at most after it
    assert first_answer(rule) == 30
    assert "not yet over the window's first 9 s" in judge(*series_of(rule, "steady", 29), rule, running=True).why
    # the same 30 seconds of a finished file: its last second is the cool-down, left out, and 29 do not answer
    assert "not yet over the window's first 9 s" in judge(*series_of(rule, "steady", 30), rule).why
    assert stop.reason == "precise" and stop.rule == "precise" and 30 <= stop.at_s <= 30 + LATE, stop
    assert stop.warmup_s == 10 and stop.precision_asked == 0.02
    assert stop.x_rel < 0.02 and stop.r_rel < 0.02
    received = jmeter.received()
    assert received and received[0] == f"Shutdown {port}"  # the graceful command first, on the cell's own port
    assert "StopTestNow" not in " ".join(received)
    assert_complete_jtl(jtl, outcome.samples)
    # it stopped within the second in progress of the first Shutdown, well before its 120 s
    last_second = (read_jtl(jtl).samples["end_ms"].max() - 1_700_000_000_000) // 1000
    assert stop.at_s <= last_second < 120 - 10


def test_a_cell_never_answered_runs_to_max_s_and_records_the_precision_it_had(tmp_path):
    rule = Rule(precision=0.01, min_s=5, max_s=15, warmup_floor_s=0, cooldown_s=0)
    outcome, jmeter, port, jtl = watched_cell(tmp_path, "noisy", 15, rule)
    stop = outcome.stop
    assert first_answer(rule, "noisy") is None  # no prefix of its 15 s is answered
    assert outcome.status == "complete" and stop.reason == "max_s"
    # the last row ends 14.2 s after the first start: 14 whole seconds judged, the partial 15th left out
    assert stop.at_s == 14
    assert stop.why == "±50.2% of X or mean R, not yet ±1.0%" and stop.x_rel == pytest.approx(0.502, abs=5e-4)
    assert jmeter.received() == []  # nothing was sent: JMeter ended at its duration
    assert_complete_jtl(jtl, outcome.samples)
    assert words.stopped(outcome.stop) == "max_s reached at 14 s with X ±50.19 %, mean R ±11.65 % (±1 % asked)"
    short = Watcher(jtl, rule, precise_conditions(rule))  # 9 s: too few for MSER-5 at 50 answers a second
    short.rows.update()
    seconds = short.rows.counts.seconds(final=True)
    assert precise_conditions(rule)[0][1](Seconds(seconds.counts[:9], seconds.sums_ms[:9], seconds.failed[:9], {})).why \
        == "9 s, too few to look for a warm-up (MSER-5 needs 10 s here)"
    short.close()


def test_a_jmeter_deaf_to_shutdown_gets_stoptestnow_after_the_grace(tmp_path, monkeypatch):
    monkeypatch.setattr(stopping, "SHUTDOWN_GRACE_S", 0.6)
    # what is asked here is how JMeter is told to stop, not when: a rule the fake's series answers at 10 s (±5%, no
    # warm-up floor) rather than the 30 s of the rule above. Untold, the stubborn fake would run its 120 s
    rule = Rule(precision=0.05, min_s=10, max_s=120, warmup_floor_s=0, cooldown_s=1)
    assert first_answer(rule) == 10
    outcome, jmeter, port, jtl = watched_cell(tmp_path, "stubborn", 120, rule)
    received = jmeter.received()
    commands = [line.split()[0] for line in received]
    assert commands[0] == "Shutdown" and commands[-1] == "StopTestNow" and commands.count("StopTestNow") == 1
    assert commands.count("Shutdown") >= 1 and all(line.endswith(f" {port}") for line in received)
    assert outcome.status == "complete" and outcome.stop.reason == "precise"
    assert_complete_jtl(jtl, outcome.samples)


def test_two_cells_get_two_command_ports():
    ports = {free_udp_port() for _ in range(5)}
    assert len(ports) >= 2 and all(p > 1000 for p in ports)  # JMeter ignores a port of 1000 or less


# -- through the runner: the manifest's stop record and the console line ------------------------------------------
@pytest.fixture
def target():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def grid_file(tmp_path: Path, port: int, cell: str) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(f'name = "g"\nplan = "{PLAN}"\n[target]\nhost = "127.0.0.1"\nport = {port}\n[cell]\n{cell}\n'
                    "[axes]\nusers = [5]\n")
    return path


def run_with(tmp_path, monkeypatch, grid: Path, mode: str = "steady"):
    from littlegrid.run import runner

    jmeter = StandInJMeter(tmp_path, mode)
    monkeypatch.setattr(runner, "find_jmeter", lambda: jmeter)
    monkeypatch.setattr(runner, "java_version", lambda: "openjdk version 17 (fake)")
    monkeypatch.setattr(stopping, "CHECK_S", CHECK_S)
    folder = runner.run_grid(grid, out=tmp_path / "reports", run_id="r")
    return json.loads((folder / "cells" / "users=5" / "manifest.json").read_text())


def test_the_cell_manifest_records_why_a_precise_cell_stopped_and_the_console_says_it(tmp_path, monkeypatch, target,
                                                                                      capsys):
    grid = grid_file(tmp_path, target, 'until = "precise"\nprecision = "2%"\nmin_s = 10\nmax_s = 120\nwarmup_s = 2\n'
                                       "cooldown_s = 1")
    manifest = run_with(tmp_path, monkeypatch, grid)
    stop = manifest["stop"]
    assert set(stop) == STOP_KEYS
    assert stop["rule"] == "precise" and stop["reason"] == "precise" and 30 <= stop["at_s"] <= 30 + LATE
    assert stop["precision_asked"] == 0.02 and stop["warmup_s"] == 10 and stop["x_rel"] < 0.02
    assert (manifest["until"], manifest["precision"], manifest["min_s"], manifest["max_s"]) == ("precise", 0.02, 10,
                                                                                                120)
    assert manifest["status"] == "complete" and manifest["duration_s"] == 120  # the plan's bound
    out = capsys.readouterr().out
    assert f"users=5  complete  {words.stopped(Stop.model_validate(stop))}  " in out  # the report's own words
    assert "expected time: at most about" in out


def test_a_fixed_cell_records_that_it_ran_its_duration(tmp_path, monkeypatch, target):
    grid = grid_file(tmp_path, target, "duration_s = 5\nwarmup_s = 1\ncooldown_s = 1")
    manifest = run_with(tmp_path, monkeypatch, grid)
    assert manifest["stop"] == {"rule": "duration", "reason": "duration", "at_s": None, "precision_asked": None,
                                "x_rel": None, "r_rel": None, "warmup_s": None, "why": "ran duration_s (5 s)",
                                "slo": None}
    assert manifest["until"] == "duration" and "max_s" not in manifest


def test_the_rule_is_the_grids(tmp_path):
    """precise_conditions asks steady_state.judge under the grid's rule, nothing else."""
    rule = Rule(precision=0.05, min_s=10, max_s=60)
    [(name, condition)] = precise_conditions(rule)
    counts, sums = np.full(40, 50.0), np.full(40, 1000.0)
    seconds = Seconds(counts, sums, np.zeros(40), {})
    assert name == "precise" and condition(seconds) == judge(counts, sums, rule)


def test_a_cells_rule_carries_its_closed_workloads_n_and_the_grids_closed_law_tolerance():
    """N is the cell manifest's users, as the analysis reads it: the suite's plans' property, or the load groups'
    threads of a user's own plan (own_plan.manifest_fields: 3 + 4 threads). An open or spike workload has none, nor
    an N the plan evaluates itself; the tolerance is the grid's [tolerances] closed_law, else the default."""
    rule = Rule(precision=0.02, min_s=10, max_s=60)
    closed = stopping.cell_rule(rule, {"workload": "closed", "users": 100, "think_ms": 0}, {"closed_law": 0.03})
    assert (closed.users, closed.law_tolerance, closed.precision) == (100.0, 0.03, 0.02)
    assert stopping.cell_rule(rule, {"workload": "closed", "users": 10}, {}).law_tolerance == 0.02
    own = {"workload": "closed", "users": 7, "load_groups": {"Browse": 3, "Buy": 4}}
    assert stopping.cell_rule(rule, own, {}).users == 7.0
    assert stopping.cell_rule(rule, {"workload": "open", "users": 10, "rate_per_s": 50}, {}).users is None
    assert stopping.cell_rule(rule, {"workload": "spike", "users": 10}, {}).users is None
    assert stopping.cell_rule(rule, {"workload": "closed", "users": "${__P(n)}"}, {}).users is None
    assert stopping.cell_rule(rule, {"workload": "open", "users": None}, {}).users is None


def test_failures_and_answers_above_each_cut_are_counted_per_second():
    tally = RunningSeconds(above_ms=(100, 300))
    tally.add(*frame([(0, 50, 50, False), (0, 400, 400, False), (0, 300, 300, False), (0, 900, 900, True),
                      (1_000, 1_100, 100, False), (2_000, 3_500, 1_500, False)]))
    s = tally.seconds(final=True)
    assert s.counts.tolist() == [3, 1, 0] and s.failed.tolist() == [1, 0, 0]
    assert s.above[100].tolist() == [2, 1, 0] and s.above[300].tolist() == [2, 0, 0]  # "at or above" the cut
