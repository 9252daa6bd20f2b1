"""Live figures: the running cell's, from a JTL read in pieces, equal the analysis' on the same rows; a finished
cell's row is its summary entry."""

import json
import time
from pathlib import Path

import numpy as np

from littlegrid.analysis.error_classes import classify
from littlegrid.analysis.series import time_series
from littlegrid.analysis.stats import sample_stats
from littlegrid.analysis.window import in_window, steady_window
from littlegrid.analyze import analyze
from littlegrid.jtl import read_jtl
from littlegrid.run.live import status as st
from littlegrid.run.live.view import LiveView
from runs import write_jtl, write_run

REAL = "perfaction-basic.jtl"  # JMeter 5 default columns, 3 threads, real response times (corpus SOURCES.md)


def grow(source: bytes, target: Path, cuts: list[int], rows: st.CellRows) -> list[int]:
    """Append `source` to `target` in pieces ending at `cuts` (mid-line on purpose), reading after each."""
    new, done = [], 0
    for cut in cuts + [len(source)]:
        with target.open("ab") as f:
            f.write(source[done:cut])
        done = cut
        new.append(rows.update())
    return new


def test_rows_read_in_pieces_cut_mid_line_are_the_rows_of_the_whole_file(corpus, tmp_path):
    source = (corpus / REAL).read_bytes()
    jtl = tmp_path / "results.jtl"
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl")
    cuts = [37, 500, 501, len(source) // 3 + 7, len(source) // 2 - 11, len(source) - 3]
    new = grow(source, jtl, cuts, rows)
    whole = read_jtl(corpus / REAL).samples
    assert new[0] == 0  # 37 bytes: not even the header's newline
    assert sum(new) == len(whole) == len(rows.samples()) and rows.rows_skipped == 0
    got = rows.samples()
    assert np.array_equal(got["start_ms"].to_numpy(), whole["start_ms"].to_numpy())
    assert np.array_equal(got["elapsed_ms"].to_numpy(), whole["elapsed_ms"].to_numpy())
    assert list(got["label"].astype(str)) == list(whole["label"].astype(str))
    assert not rows.warnings  # a truncated last line is never read, so never reported as damage


def test_the_running_cells_figures_are_the_analysis_formulas_on_the_rows_so_far(corpus, tmp_path):
    source = (corpus / REAL).read_bytes()
    jtl = tmp_path / "results.jtl"
    cut = source.rfind(b"\n", 0, 2 * len(source) // 3) + 20  # two thirds, ending inside a row
    jtl.write_bytes(source[:cut])
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl")
    rows.update()
    complete = tmp_path / "complete.jtl"
    complete.write_bytes(source[: source.rfind(b"\n", 0, cut) + 1])
    expected_rows = read_jtl(complete).samples
    live = st.running_cell(rows.samples(), None, None, warmup_s=2.0, engines=1)
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


def test_during_the_warm_up_there_are_series_but_no_steady_state_figures(tmp_path):
    jtl = tmp_path / "results.jtl"
    write_jtl(jtl, users=2, think_ms=5, service_ms=5, seconds=3, seed=1)
    rows = st.CellRows(jtl, tmp_path / "scratch.jtl")
    rows.update()
    live = st.running_cell(rows.samples(), None, None, warmup_s=10.0, engines=1)
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
