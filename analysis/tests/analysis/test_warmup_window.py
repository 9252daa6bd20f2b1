"""The steady window starts where the data's warm-up ends (survey.py, warmup_seconds.py, steady_state.warmup), the
grid's warmup_s its floor; the window's precision and the manifest's stop record reach the cell."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run, table, write_jtl
from littlegrid.analysis.steady import steady_state
from littlegrid.analysis.steady.warmup_seconds import WarmupSeconds
from littlegrid.analysis.steady.window import regular_edge_error
from littlegrid.render import words
from littlegrid.summarize import analyze
from littlegrid.usererror import UserError


def _warming_server(users=10, think_ms=50, cold_ms=200, warm_ms=50, warm_after_s=20, seconds=90):
    """A closed loop whose server answers in cold_ms until warm_after_s, then in warm_ms (a JIT compiling): X climbs
    from N/(cold+Z) = 40/s to N/(warm+Z) = 100/s at 20 s."""
    rows = []
    for i in range(users):
        t = T0 + i * (cold_ms + think_ms) // users
        while True:
            elapsed = cold_ms if t < T0 + warm_after_s * 1000 else warm_ms
            if t + elapsed > T0 + seconds * 1000:
                break
            rows.append((t, elapsed, f"Thread Group 1-{i + 1}"))
            t += elapsed + think_ms
    return table(rows, users)


def test_a_warming_server_starts_the_window_where_its_warm_up_ends(tmp_path):
    path = write_jtl(_warming_server(), tmp_path / "warming.jtl")
    w = analyze([str(path)], warmup_s=2).cells[0].window
    assert w.warmup_settled and w.warmup_by in ("completions", "response time") and w.warmup_floor_s == 2
    assert 20 <= w.warmup_s <= 25 and w.warmup_detected_s == w.warmup_s  # whole MSER batches of 5 s
    assert w.start_ms == T0 + int(w.warmup_s * 1000)


def test_warmup_fixed_trims_exactly_the_floor(tmp_path):
    path = write_jtl(_warming_server(), tmp_path / "warming.jtl")
    w = analyze([str(path)], warmup_s=2, warmup_fixed=True).cells[0].window
    assert w.warmup_s == 2 and w.start_ms == T0 + 2000 and w.warmup_by is None and w.warmup_floor_s == 2


def test_a_steady_cell_keeps_its_floor_and_says_no_longer_warm_up_was_found(tmp_path):
    run = make_run(tmp_path / "run", [{"id": "users=10", "axes": {"users": 10}, "users": 10, "think_ms": 100,
                                       "think_dist": "constant", "samples": closed_loop(10, 100, 100, 60)}])
    cell = analyze([run]).cells[0]
    w = cell.window
    assert w.warmup_s == 2 and w.warmup_by == "floor" and w.warmup_settled and w.warmup_detected_s == 0


def test_the_runs_trim_is_each_cells_own_when_their_warm_ups_differ(tmp_path):
    run = make_run(tmp_path / "run", [
        {"id": "users=10", "axes": {"users": 10}, "users": 10, "samples": _warming_server()},
        {"id": "users=20", "axes": {"users": 20}, "users": 20, "samples": closed_loop(20, 100, 100, 90)}])
    result = analyze([run])
    assert [c.window.warmup_s > 2 for c in result.cells] == [True, False]
    assert result.trim.warmup_s is None  # differs per cell: see each cell's window


def test_the_series_counts_successful_requests_by_completion_second_from_the_first_start():
    samples = table([(T0 + 300, 100, "t"), (T0 + 1200, 100, "t"), (T0 + 1500, 400, "t"), (T0 + 2100, 50, "t")], 1,
                    success=[True, True, False, True])
    seconds = WarmupSeconds()
    seconds.add(samples)
    counts, sums, unit = seconds.series(T0 + 300, T0 + 3300)  # seconds from the first start, 3 of them
    assert unit == 1 and counts.tolist() == [1, 2, 0] and sums.tolist() == [100, 150, 0]


def test_transaction_controller_parents_are_not_requests_of_the_series():
    samples = table([(T0, 100, "t"), (T0 + 10, 200, "t")], 1)
    samples["response_message"] = pd.array(["OK", "Number of samples in transaction : 1, number of failing "
                                                  "samples : 0"], dtype="string")
    seconds = WarmupSeconds()
    seconds.add(samples)
    counts, sums, _ = seconds.series(T0, T0 + 1000)
    assert counts.tolist() == [1] and sums.tolist() == [100]


def test_a_cell_longer_than_a_day_is_looked_at_in_units():
    seconds = WarmupSeconds()
    seconds.add(table([(T0 + 1000 * i, 10, "t") for i in range(0, 200_000, 1000)], 1))
    counts, _, unit = seconds.series(T0, T0 + 200_000_000)
    assert unit == 3 and len(counts) == 200_000 // 3 and counts.sum() == 200


def test_the_window_records_its_batch_means_precision(tmp_path):
    """A deterministic closed loop: 50 completions every second but the first (45: the threads start staggered) and
    mean R exactly 100 ms (±0); X's interval holds its window edges' error (N = 10 threads seen, cycle N/X)."""
    path = write_jtl(closed_loop(10, 100, 100, 60), tmp_path / "steady.jtl")
    cell = analyze([str(path)]).cells[0]
    p = cell.precision
    assert p.level == 0.95 and p.batches >= 10 and p.batch_s * p.batches <= p.window_s
    edge = 1.96 * regular_edge_error(10 / p.throughput_per_s, p.window_s, 10)
    assert p.throughput_per_s == pytest.approx(50.0, rel=0.01)
    assert p.edge_rel == pytest.approx(edge, rel=1e-3) and edge < p.throughput_rel < 0.01
    assert p.mean_ms == 100 and p.mean_rel == 0
    assert cell.stop is None  # a bare JTL: no runner stopped it


def test_the_windows_precision_counts_answered_requests_as_the_runners_rule_does(tmp_path):
    """A fifth of the requests fail: X's interval is of the answered ones (40/s of the 50/s completed), the series
    the runner's stopping rule judged (run/answered.py), and mean R is theirs."""
    samples = closed_loop(10, 100, 100, 60)
    samples["success"] = pd.array(np.arange(len(samples)) % 5 != 0, dtype="boolean")
    samples.loc[np.arange(len(samples)) % 5 == 0, "elapsed_ms"] = 10  # fast failures: not in mean R
    cell = analyze([str(write_jtl(samples, tmp_path / "failing.jtl"))]).cells[0]
    assert cell.overall.throughput_per_s == pytest.approx(50.0, rel=0.01)
    assert cell.precision.throughput_per_s == pytest.approx(40.0, rel=0.01) and cell.precision.mean_ms == 100


def _run_with_stop(tmp_path, stop):
    run = make_run(tmp_path / "run", [{"id": "users=10", "axes": {"users": 10}, "users": 10,
                                       "samples": closed_loop(10, 100, 100, 40)}])
    manifest = run / "cells" / "users=10" / "manifest.json"
    if stop is not ...:
        manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"stop": stop}))
    return run


def test_the_manifests_stop_record_reaches_the_cell(tmp_path):
    stop = {"rule": "precise", "reason": "max_s", "at_s": 120, "precision_asked": 0.02, "x_rel": 0.031,
            "r_rel": 0.026, "warmup_s": 5, "why": "±3.1% of X or mean R, not yet ±2.0%"}
    s = analyze([_run_with_stop(tmp_path, stop)]).cells[0].stop
    assert (s.rule, s.reason, s.at_s, s.precision_asked, s.x_rel, s.r_rel, s.warmup_s) == \
        ("precise", "max_s", 120, 0.02, 0.031, 0.026, 5)


def test_a_search_probe_stopped_on_its_slo_verdict_reads(tmp_path):
    """The runner's reasons are the contract's (summary.model.STOP_REASONS): a search probe's "slo" was refused."""
    stop = {"rule": "precise", "reason": "slo", "at_s": 36, "precision_asked": 0.02, "x_rel": 0.16, "r_rel": 0.15,
            "warmup_s": 2, "why": "p90 < 300ms clear"}
    s = analyze([_run_with_stop(tmp_path, stop)]).cells[0].stop
    assert (s.rule, s.reason, s.at_s) == ("precise", "slo", 36)


def test_a_precise_cells_window_starts_no_earlier_than_the_warm_up_its_stop_was_decided_on(tmp_path):
    """The runner answered on the window after 8 s; on the whole file the analysis finds only its 2 s floor. The
    window is the one the decision was made on: a window holding seconds the rule had cut as warm-up could fail
    the steady check the rule's own verdict passed (CI, N = 100 on 100 threads)."""
    stop = {"rule": "precise", "reason": "precise", "at_s": 30, "precision_asked": 0.02, "x_rel": 0.01,
            "r_rel": 0.01, "warmup_s": 8, "why": "X ±1.0% and mean R ±1.0% over 22 s"}
    run = _run_with_stop(tmp_path, stop)
    w = analyze([run]).cells[0].window
    assert (w.warmup_s, w.warmup_by, w.warmup_settled, w.warmup_floor_s) == (8, "stop", True, 2)
    assert w.start_ms == T0 + 8000 and w.warmup_detected_s == 0
    # asked for a warm-up of their own, the user gets theirs
    assert analyze([run], warmup_s=3).cells[0].window.warmup_s == 3
    assert analyze([run], warmup_s=3, warmup_fixed=True).cells[0].window.warmup_s == 3


@pytest.mark.parametrize("reason", ["max_s", "interrupted"])
def test_a_cell_nobody_answered_keeps_the_warm_up_found_on_its_file(tmp_path, reason):
    stop = {"rule": "precise", "reason": reason, "at_s": 30, "warmup_s": 8}
    w = analyze([_run_with_stop(tmp_path, stop)]).cells[0].window
    assert (w.warmup_s, w.warmup_by) == (2, "floor")


def test_an_older_manifest_without_a_stop_reads_as_a_fixed_duration(tmp_path):
    s = analyze([_run_with_stop(tmp_path, ...)]).cells[0].stop
    assert (s.rule, s.reason, s.at_s) == ("duration", "duration", None)


@pytest.mark.parametrize("stop, problem", [({"rule": "soon", "reason": "precise"}, "rule precise or duration"),
                                           ({"rule": "precise", "reason": "precise", "x_rel": "tight"},
                                            '"stop".x_rel must be a number')])
def test_a_broken_stop_record_is_one_line_naming_the_manifest(tmp_path, stop, problem):
    with pytest.raises(UserError, match="manifest.json") as e:
        analyze([_run_with_stop(tmp_path, stop)])
    assert problem in str(e.value) and "\n" not in str(e.value)


PRECISE_STOP = Path(__file__).parent / "fixtures" / "precise-stop"  # README.md there: where it came from


def _precise_stop_run(tmp_path, stop):
    """The sample server's cell N = 10 on 100 threads, stopped by the runner's rule at 27 s on the warm-up it
    found, 8 s (JMeter 5.6.3, the main job, 2026-11-29), as a run folder whose cell manifest holds `stop`."""
    run = make_run(tmp_path / "run", [{"id": "users=10", "axes": {"users": 10}, "users": 10, "warmup_s": 1,
                                       "cooldown_s": 2, "samples": closed_loop(10, 100, 0, 5)}])
    cell = run / "cells" / "users=10"
    shutil.copyfile(PRECISE_STOP / "results.jtl", cell / "results.jtl")
    manifest = json.loads((cell / "manifest.json").read_text())
    (cell / "manifest.json").write_text(json.dumps(manifest | {"samples": 2680, "stop": stop}))
    return run


def test_a_precise_cells_warm_up_is_looked_for_over_the_seconds_its_rule_judged(tmp_path):
    """The rule answered at 27 s with MSER-5's cut at 8 s on the completions; over the file less its 2-s
    cool-down (26 s: the stop's tail was 1.4 s) MSER's cut moves (the cell was once reported "never settled, only
    the 1 s floor trimmed" though 8 s were). Over the seconds the rule judged the analysis finds what the rule
    found."""
    stop = {"rule": "precise", "reason": "precise", "at_s": 27.0, "precision_asked": 0.02, "x_rel": 0.0038,
            "r_rel": 0.0088, "warmup_s": 8.0, "why": "X ±0.4% and mean R ±0.9% over 19 s (6 batches of 3 s)"}
    cell = analyze([_precise_stop_run(tmp_path / "precise", stop)]).cells[0]
    w = cell.window
    assert (w.warmup_s, w.warmup_settled, w.warmup_by, w.warmup_detected_s) == (8, True, "completions", 8)
    assert words.warmup(w) == "warm-up 8 s found by MSER-5 on completions"
    # and the window ends with the seconds it judged: the file's tail after them, 1.382 s, is the cool-down, so
    # the analysis' interval is the rule's own over those seconds, figure for figure (steady_state.precision; the
    # record's X ±0.381%, mean R ±0.884% came from the rule before its interval held the window's first half, and
    # mean R its warm-up's immaterial drift: this rule would not have answered at 27 s)
    assert (w.length_s, w.cooldown_s, w.cooldown_by) == (19, 1.382, "stop")
    assert words.cooldown(w) == "1.38 s cool-down, the file's tail after the seconds the runner's rule judged"
    p = cell.precision
    assert (p.window_s, p.batches, p.batch_s) == (19, 6, 3)
    assert p.throughput_rel == pytest.approx(0.013841297191129694, rel=1e-9)
    assert p.mean_rel == pytest.approx(0.00884556804599634, rel=1e-9) and p.drift_rel == steady_state.MATERIAL_BIAS
    # a cool-down the user asks trims the end; the warm-up is still the one found over the judged seconds
    asked = analyze([_precise_stop_run(tmp_path / "asked", stop)], cooldown_s=3).cells[0].window
    assert (asked.warmup_s, asked.warmup_by, asked.cooldown_s, asked.cooldown_by) == (8, "completions", 3, None)
    # the same file, nothing answered on it (stopped at max_s): its own seconds less the cool-down, 26 s, settle
    # later, MSER's minimum over them at 13 s (before MSER looked over the whole series, only its first half was
    # looked at, and the minimum there sat at its end: "never settled")
    unanswered = analyze([_precise_stop_run(tmp_path / "max_s", stop | {"reason": "max_s"})]).cells[0].window
    assert (unanswered.warmup_s, unanswered.warmup_settled, unanswered.warmup_by) == (13, True, "completions")


def test_a_decided_warm_up_the_file_does_not_settle_on_is_the_runners_not_the_floor():
    """Should the analysis' seconds not settle where the rule's did, the 8 s trimmed are the runner's, and said
    so: not "never settled, only the floor trimmed" (the validity finding reads by "floor")."""
    counts = np.linspace(10, 100, 40)  # climbing to the end: no steady state on these seconds
    found = steady_state.warmup(counts, counts * 100, 1.0)
    assert not found.settled and found.by == "floor"
    decided = steady_state.warmup(counts, counts * 100, 1.0, decided_s=8)
    assert (decided.seconds, decided.by, decided.settled) == (8, "stop", False)
