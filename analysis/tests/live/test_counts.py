"""The running cell's counts: closed-workload rows in completion order, fed batch by batch, give the figures of the
rows read whole, and what the counts hold does not grow with the rows."""

import pickle
from pathlib import Path

from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.statistics.series import POINT_BUDGET, time_series
from littlegrid.analysis.steady.window import steady_window
from littlegrid.jtl import read_jtl
from littlegrid.run.live import status as st
from littlegrid.run.live.counts import EarlierStart, RunningCounts
from live_known import closed_jtl, whole_rows


def feed(source: Path, target: Path, rows: st.CellRows, pieces: int) -> None:
    """Append `source` to `target` in `pieces` (cut mid-line), reading after each."""
    data = source.read_bytes()
    done = 0
    for k in range(1, pieces + 1):
        cut = len(data) if k == pieces else len(data) * k // pieces + 3
        with target.open("ab") as f:
            f.write(data[done:cut])
        done = cut
        rows.update()


def test_a_sample_that_started_first_and_ends_late_has_the_rows_counted_again_to_the_same_figures(tmp_path):
    # the first thread's first request starts before all others and lasts 25 s: its row comes ~25 s into the file,
    # after rows whose first start the counts were anchored at
    source = tmp_path / "whole.jtl"
    closed_jtl(source, threads=20, seconds=120, slow_first_ms=25_000)
    rows = st.CellRows(tmp_path / "results.jtl", tmp_path / "scratch.jtl", warmup_s=10.0)
    feed(source, tmp_path / "results.jtl", rows, pieces=8)
    assert rows.rereads == 1
    expected = whole_rows(source, 10.0)
    live = st.running_cell(rows, None, None)
    assert live["samples"] == expected["samples"] and live["window"] == expected["window"]
    assert live["figures"] == {k: expected["figures"][k] for k in st.FIGURES}
    assert {k: live["series"][k] for k in st.SERIES} == {k: expected["series"][k] for k in st.SERIES}


def test_an_earlier_start_is_refused_before_anything_of_its_batch_is_counted(tmp_path):
    source = tmp_path / "whole.jtl"
    closed_jtl(source, threads=3, seconds=20)
    samples = read_jtl(source).samples
    counts = RunningCounts(warmup_s=0.0, engines=1)
    later = samples[samples["start_ms"] > samples["start_ms"].min()]
    counts.add(later, classify(later))
    before = pickle.dumps(counts)
    try:
        counts.add(samples, classify(samples))
        raise AssertionError("an earlier start was counted")
    except EarlierStart as e:
        assert e.start_ms == int(samples["start_ms"].min())
    assert pickle.dumps(counts) == before


def test_a_cell_past_twice_the_point_budget_is_counted_in_the_smallest_power_of_two_seconds(tmp_path):
    # 2,700 s: 8 s buckets make 338 points; time_series with a budget of 375 points has the same axis
    source = tmp_path / "whole.jtl"
    closed_jtl(source, threads=4, seconds=2700)
    rows = st.CellRows(tmp_path / "results.jtl", tmp_path / "scratch.jtl", warmup_s=60.0)
    feed(source, tmp_path / "results.jtl", rows, pieces=5)
    samples = read_jtl(source).samples
    expected = time_series(samples, classify(samples).notna().to_numpy(), steady_window(samples, 0, 0), 1, None, None,
                           budget=375)
    live = st.running_cell(rows, None, None)
    assert live["series"]["bucket_s"] == expected["bucket_s"] == 8
    assert {k: live["series"][k] for k in st.SERIES} == {k: expected[k] for k in st.SERIES}
    assert live["figures"] == {k: whole_rows(source, 60.0)["figures"][k] for k in st.FIGURES}


def counted(tmp_path: Path, seconds: float) -> tuple[int, int, int]:
    """(rows, distinct elapsed values, bytes the counts hold) after a closed workload of `seconds` fed in 10 pieces."""
    source = tmp_path / f"whole-{seconds:g}.jtl"
    n = closed_jtl(source, threads=10, seconds=seconds)
    rows = st.CellRows(tmp_path / f"results-{seconds:g}.jtl", tmp_path / "scratch.jtl", warmup_s=30.0)
    feed(source, tmp_path / f"results-{seconds:g}.jtl", rows, pieces=10)
    assert rows.counts.samples == n
    return n, read_jtl(source).samples["elapsed_ms"].nunique(), len(pickle.dumps(rows.counts))


def test_what_the_counts_hold_does_not_grow_with_the_rows(tmp_path):
    # The same workload ten times as long: ten times the rows. The counts hold the window's distinct values and,
    # per bucket of the series (at most the point budget of them), the distinct values in it: wider buckets
    # hold more of them, up to all of the cell's, so they grow a little and then not at all.
    short_rows, short_distinct, short_bytes = counted(tmp_path, 1_500)
    long_rows, long_distinct, long_bytes = counted(tmp_path, 15_000)
    assert long_rows > 9 * short_rows
    assert long_bytes < 3 * short_bytes, (short_bytes, long_bytes)  # the old live view's rows: 10x
    for distinct, held in ((short_distinct, short_bytes), (long_distinct, long_bytes)):
        assert held < 16 * (POINT_BUDGET + 1) * distinct + (64 << 10)  # a key and a count per (bucket, value)
    assert long_bytes < long_rows * 8  # less than one integer a row (the old live view kept ~60 bytes a row)


def test_the_running_cell_adds_up_each_engines_allthreads_as_the_analysis_does():
    import pandas as pd

    from analysis_synthetic import T0, table

    a, b = "10.0.0.1:1099", "10.0.0.1:1099-b"  # b's name begins with a's: each row still goes to its own engine
    rows = [(T0 + (i * 100) // n + k * 100, 20, f"{engine}-Thread Group 1-{i + 1}")
            for engine, n in ((a, 4), (b, 3)) for i in range(n) for k in range(100)]
    samples = table(rows, 0)
    samples["all_threads"] = pd.array([3 if t.startswith(b + "-") else 4 for t in samples["thread"]], dtype="Int32")
    named = RunningCounts(warmup_s=0.0, engines=2, engine_names=(a, b))
    unnamed = RunningCounts(warmup_s=0.0, engines=2)
    for counts in (named, unnamed):
        counts.add(samples, classify(samples))
    last = int(samples["end_ms"].max())
    full = slice(1, 9)  # whole seconds in which every thread completed samples
    assert set(named.series.result(None, None, last)["active_threads"][full]) == {7.0}
    assert set(unnamed.series.result(None, None, last)["active_threads"][full]) == {8.0}  # the largest × engines
