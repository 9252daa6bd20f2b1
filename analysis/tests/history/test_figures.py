"""A run's figures as the history keeps them: read from the summary's own intervals (Cell.intervals, computed once
by the analysis), never computed again; a summary without them gives figures without an interval."""

from littlegrid import summary as summary_file
from littlegrid.history.figures import run_figures
from history_runs import run_folder


def test_the_history_reads_each_cells_figures_and_intervals_from_the_summary(tmp_path):
    summary = summary_file.read(run_folder(tmp_path, "r1", error_every=50) / "summary.json")
    figures = run_figures(summary)
    assert [(f.cell, f.metric) for f in figures] == [(c, m) for c in ("rate=10", "rate=20") for m in (
        "throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "error_rate")]
    for f in figures:
        cell = next(c for c in summary.cells if c.id == f.cell)
        held = getattr(cell.intervals, f.metric)
        assert (f.value, f.lo, f.hi, f.se) == (getattr(cell.overall, f.metric), held.lo, held.hi, held.se)
        assert f.samples == cell.overall.count


def test_an_older_summary_without_intervals_gives_figures_without_one(tmp_path):
    summary = summary_file.read(run_folder(tmp_path, "r1") / "summary.json")
    older = summary.model_copy(update={"cells": [c.model_copy(update={"intervals": None}) for c in summary.cells]})
    figures = run_figures(older)
    assert figures and all(f.value is not None and f.se is None and f.lo is None for f in figures)
