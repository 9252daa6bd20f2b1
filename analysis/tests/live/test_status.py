"""Live figures: the running cell's, from a JTL read in pieces, equal the analysis' on the same rows; a finished
cell's row is its summary entry."""

import json
import time
from pathlib import Path

import numpy as np

from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.statistics.series import POINT_BUDGET, time_series
from littlegrid.analysis.statistics.stats import sample_stats
from littlegrid.analysis.steady.window import in_window, steady_window
from littlegrid.jtl import read_jtl
from littlegrid.run.live import status as st
from littlegrid.run.live.view import LiveView
from littlegrid.summarize import analyze
from live_known import series_by_hand, whole_rows
from runs import write_jtl, write_run

REAL = "perfaction-basic.jtl"  # JMeter 5 default columns, 3 threads, real response times (corpus SOURCES.md)
ERRORS = "amisha-results-clean.csv"  # 5,000 rows over 90 s, half of them failures
LONG = "shnyr-cyrillic.jtl"  # 159 rows over 19 hours, Cyrillic labels
TRANSACTIONS = "perfplugin-filewithtransactions.csv"  # Transaction Controllers; rows not in start or end order


def grow(source: bytes, target: Path, cuts: list[int], rows: st.CellRows, check=None) -> list[int]:
    """Append `source` to `target` in pieces ending at `cuts` (mid-line on purpose), reading after each;
    check(complete_bytes) after each read, complete_bytes: the whole lines written so far."""
    new, done = [], 0
    for cut in cuts + [len(source)]:
        with target.open("ab") as f:
            f.write(source[done:cut])
        done = cut
        new.append(rows.update())
        if check is not None:
            check(source[: source.rfind(b"\n", 0, done) + 1])
    return new


def cuts_of(source: bytes, pieces: int) -> list[int]:
    return [len(source) * k // pieces + 7 for k in range(1, pieces)]


def assert_live_is_whole_rows(rows: st.CellRows, complete: bytes, tmp_path: Path, warmup_s: float) -> None:
    """The running cell's figures, window and series equal the whole-rows path over the complete lines so far."""
    so_far = tmp_path / "so-far.jtl"
    so_far.write_bytes(complete)
    expected = whole_rows(so_far, warmup_s)
    live = st.running_cell(rows, None, None)
    assert live["samples"] == expected["samples"]
    assert live["window"] == expected["window"]
    if expected["figures"] is None:
        assert live["figures"] is None
    else:
        assert live["figures"] == {k: expected["figures"][k] for k in st.FIGURES}
    if expected["series"] is None:
        assert live["series"] is None
        return
    points = len(expected["series"]["t_s"]) * expected["series"]["bucket_s"]  # seconds on the whole-rows axis
    bucket_s = live["series"]["bucket_s"]  # the smallest power of two seconds within the point budget
    assert bucket_s & (bucket_s - 1) == 0 and -(-points // bucket_s) <= POINT_BUDGET
    assert bucket_s == 1 or -(-points // (bucket_s // 2)) > POINT_BUDGET
    if bucket_s == expected["series"]["bucket_s"]:  # up to twice the budget in seconds: time_series' axis
        assert {k: live["series"][k] for k in st.SERIES} == {k: expected["series"][k] for k in st.SERIES}
    by_hand = series_by_hand(so_far, bucket_s)
    assert {k: live["series"][k] for k in by_hand} == by_hand


def test_rows_read_in_pieces_cut_mid_line_are_counted_as_the_rows_of_the_whole_file(corpus, tmp_path):
    source = (corpus / REAL).read_bytes()
    jtl = tmp_path / "results.jtl"
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl")
    cuts = [37, 500, 501, len(source) // 3 + 7, len(source) // 2 - 11, len(source) - 3]
    new = grow(source, jtl, cuts, rows)
    whole = read_jtl(corpus / REAL).samples
    assert new[0] == 0  # 37 bytes: not even the header's newline
    assert sum(new) == len(whole) == rows.counts.samples and rows.rows_skipped == 0
    assert not rows.warnings  # a truncated last line is never read, so never reported as damage
    assert_live_is_whole_rows(rows, source, tmp_path, 0.0)


def test_the_running_cells_figures_are_the_analysis_formulas_on_the_rows_so_far(corpus, tmp_path):
    source = (corpus / REAL).read_bytes()
    jtl = tmp_path / "results.jtl"
    cut = source.rfind(b"\n", 0, 2 * len(source) // 3) + 20  # two thirds, ending inside a row
    jtl.write_bytes(source[:cut])
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl", warmup_s=2.0)
    rows.update()
    complete = tmp_path / "complete.jtl"
    complete.write_bytes(source[: source.rfind(b"\n", 0, cut) + 1])
    expected_rows = read_jtl(complete).samples
    live = st.running_cell(rows, None, None)
    window = steady_window(expected_rows, 2.0, 0.0)
    steady = in_window(expected_rows, window)
    expected = sample_stats(steady, classify(expected_rows)[steady.index], window.length_s)
    assert live["samples"] == len(expected_rows)
    for key in ("count", "errors", "throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms"):
        assert live["figures"][key] == expected[key], key
    series = time_series(expected_rows, classify(expected_rows).notna().to_numpy(), steady_window(expected_rows, 0, 0),
                         1, None, None)
    for key in ("t_s", "throughput", "errors", "p50_ms", "p90_ms", "p99_ms", "active_threads"):
        assert live["series"][key] == series[key], key
    assert live["series"]["window_start_s"] == 2.0


def test_a_real_jtl_with_failures_fed_in_pieces_gives_after_each_the_figures_of_its_rows_read_whole(corpus, tmp_path):
    # known answers: the whole-rows path (every row kept, then the analysis' functions), after every piece
    source = (corpus / ERRORS).read_bytes()
    rows = st.CellRows(tmp_path / "results.jtl", tmp_path / "scratch.jtl", warmup_s=20.0)
    grow(source, tmp_path / "results.jtl", cuts_of(source, 7), rows,
         lambda complete: assert_live_is_whole_rows(rows, complete, tmp_path, 20.0))
    live = st.running_cell(rows, None, None)
    assert live["figures"]["errors"] > 0 and live["window"]["samples_trimmed_before"] > 0


def test_a_cell_longer_than_the_point_budget_has_power_of_two_buckets_with_the_rows_exact_figures(corpus, tmp_path):
    # 19 hours: 1 s buckets would be 69,523 points; 128 s buckets are 544 (time_series' own would be 116 s)
    source = (corpus / LONG).read_bytes()
    rows = st.CellRows(tmp_path / "results.jtl", tmp_path / "scratch.jtl", warmup_s=3600.0)
    grow(source, tmp_path / "results.jtl", cuts_of(source, 4), rows,
         lambda complete: assert_live_is_whole_rows(rows, complete, tmp_path, 3600.0))
    assert st.running_cell(rows, None, None)["series"]["bucket_s"] == 128


def test_transaction_controller_rows_are_left_out_as_the_analysis_leaves_them_out(corpus, tmp_path):
    source = (corpus / TRANSACTIONS).read_bytes()
    rows = st.CellRows(tmp_path / "results.jtl", tmp_path / "scratch.jtl", warmup_s=10.0)
    grow(source, tmp_path / "results.jtl", cuts_of(source, 5), rows,
         lambda complete: assert_live_is_whole_rows(rows, complete, tmp_path, 10.0))
    assert rows.transactions == {"HP", "Scenario", "Search"}
    assert rows.counts.samples == 313 - sum(1 for line in source.decode().splitlines()
                                            if "Number of samples in transaction" in line)


def test_during_the_warm_up_there_are_series_but_no_steady_state_figures(tmp_path):
    jtl = tmp_path / "results.jtl"
    write_jtl(jtl, users=2, think_ms=5, service_ms=5, seconds=3, seed=1)
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl", warmup_s=10.0)
    rows.update()
    live = st.running_cell(rows, None, None)
    assert live["figures"] is None and "warm-up" in live["note"]
    assert len(live["series"]["t_s"]) >= 3 and sum(live["series"]["throughput"]) > 0


def test_a_growing_metrics_csv_is_read_to_its_last_complete_line(tmp_path):
    path = tmp_path / "server-metrics.csv"
    path.write_text("time_ms,busy_threads,in_flight\n1000,3,4\n2000,5,6\n3000,1")  # "1" may become "12"
    metrics = st.MetricsRows(path)
    frame = metrics.frame()
    assert frame["busy_threads"].tolist() == [3, 5]
    with path.open("a") as f:
        f.write("2,7\n")
    assert metrics.frame()["busy_threads"].tolist() == [3, 5, 12]


def test_a_finished_cells_row_has_the_figures_analyze_writes_for_it(tmp_path):
    run = write_run(tmp_path / "run", users=(2, 8), think_ms=(0, 20), seconds=8.0)
    result = analyze([run])
    for entry in result.cells:
        row = st.finished_row(st.analyze_finished(run, entry.id))
        for key in ("throughput_per_s", "error_rate", "mean_ms", "p50_ms", "p90_ms", "p99_ms"):
            assert row[key] == getattr(entry.overall, key), (entry.id, key)
        assert row["users"] == entry.users.n
        # the per-cell checks; the grid-level ones (throughput bound, models) need every cell
        per_cell = [c for c in entry.checks if c.name != "throughput_bound"]
        assert [(c["name"], c["passed"]) for c in row["checks"]] == [(c.name, c.passed) for c in per_cell]
    curves = st.grid_curves([st.analyze_finished(run, c.id) for c in result.cells])
    assert [c["name"] for c in curves] == ["think_ms = 0", "think_ms = 20"]  # the analysis's curves and labels
    assert curves[0]["x"] == [2.0, 8.0] and curves[0]["x_name"] == "N"


def test_the_view_joins_finished_and_running_cells_in_one_status(tmp_path):
    run = write_run(tmp_path / "run", users=(2,), think_ms=(0,), seconds=6.0)
    view = LiveView(update_s=0.1)
    view.run_started(run, ["users=2,think_ms=0", "users=4,think_ms=0"], "test")
    folder = run / "cells" / "users=4,think_ms=0"
    write_jtl(tmp_path / "whole.jtl", users=4, think_ms=0, service_ms=10, seconds=6, seed=5)
    data = (tmp_path / "whole.jtl").read_bytes()
    folder.mkdir()
    (folder / "results.jtl").write_bytes(data[: len(data) // 2])
    view.cell_started("users=4,think_ms=0", folder, index=1, duration_s=6, warmup_s=1)
    view.refresh()
    first = json.loads(view.status_json())
    assert first["run"] == {"id": "run", "title": "test", "state": "running", "cells_total": 2, "cells_finished": 1}
    assert first["cells"][0]["id"] == "users=2,think_ms=0" and first["cells"][0]["throughput_per_s"] > 0
    assert first["cell"]["id"] == "users=4,think_ms=0" and first["cell"]["figures"]["count"] > 0
    with (folder / "results.jtl").open("ab") as f:
        f.write(data[len(data) // 2:])
    time.sleep(0.002)
    view.refresh()
    second = json.loads(view.status_json())
    assert second["cell"]["samples"] > first["cell"]["samples"] and second["updated_ms"] > first["updated_ms"]
    view.close()
    assert not view._scratch.exists()  # nothing left behind, and nothing was ever written in the run folder
    assert sorted(p.name for p in folder.iterdir()) == ["results.jtl"]


def test_an_earlier_slow_refresh_never_publishes_over_a_newer_one(tmp_path, monkeypatch):
    # The updater's refresh is still analysing a finished cell when the next cell starts and another refresh runs:
    # the newer picture (cell b running) must be the one served, whichever recomputation ends last.
    import threading
    import time

    from littlegrid.run.live import status as st

    view = LiveView(update_s=60)  # no updater thread: the two refreshes below are the only ones
    entered, gate = threading.Event(), threading.Event()

    def slow_analysis(run_dir, cell_id):
        entered.set()
        gate.wait(5)
        return None

    monkeypatch.setattr(st, "analyze_finished", slow_analysis)
    view.run_started(tmp_path, ["a", "b"])
    view.cell_finished("a")
    earlier = threading.Thread(target=view.refresh)
    earlier.start()
    assert entered.wait(5)
    view.cell_started("b", tmp_path / "b", index=2, duration_s=10)
    newer = threading.Thread(target=view.refresh)
    newer.start()
    time.sleep(0.3)  # unserialised, the newer refresh would have published by now, and the earlier one after it
    gate.set()
    earlier.join(5)
    newer.join(5)
    assert json.loads(view.status_json())["cell"]["id"] == "b"
