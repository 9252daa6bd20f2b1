"""The comparison stage: cells paired by the axes both runs have, and its refusals."""

import pytest

from littlegrid.comparison.deltas import compare_runs, pair_cells
from littlegrid.summary.model import Cell
from littlegrid.usererror import UserError
from summary_contract import typed


def cells(*data: dict) -> list[Cell]:
    return [typed(c, Cell) for c in data]


def run(*data: dict):
    """A summary holding these cells, every other field blank."""
    return typed({"cells": list(data)})


def test_cells_pair_on_the_axes_both_runs_have_and_the_rest_are_listed():
    a = cells({"id": "a1", "axes": {"users": 1, "think_ms": 0}}, {"id": "a2", "axes": {"users": 2, "think_ms": 0}})
    b = cells({"id": "b1", "axes": {"users": 1, "think_ms": 0, "threads": 10}},
              {"id": "b3", "axes": {"users": 3, "think_ms": 0, "threads": 10}})
    pairs, only_a, only_b = pair_cells(a, b)
    assert [(x.id, y.id) for x, y in pairs] == [("a1", "b1")]
    assert [c.id for c in only_a] == ["a2"] and [c.id for c in only_b] == ["b3"]
    twins = cells({"id": "b1", "axes": {"users": 1, "think_ms": 0, "threads": 10}},
                  {"id": "b2", "axes": {"users": 1, "think_ms": 0, "threads": 100}})
    pairs, _, _ = pair_cells(a, twins)
    assert pairs == []  # ambiguous: A's cell matches two of B's


def test_a_margin_outside_0_to_1_is_refused_in_one_line():
    for bad in (5, 0, -0.1):
        with pytest.raises(UserError, match=f"--margin {bad}: give a fraction between 0 and 1"):
            compare_runs(run(), run(), margin=bad)
    empty = compare_runs(run(), run())
    assert empty.rows == [] and empty.counts == {"worse": 0, "better": 0, "equivalent": 0, "undecided": 0,
                                                 "unknown": 0}


def test_the_result_carries_its_settings_and_words_so_the_page_computes_nothing():
    result = compare_runs(run(), run(), margin=0.1)
    assert (result.margin, result.margin_text, result.interval_words) == (0.1, "±10%", "")
    assert result.metric_names == ["X", "mean R", "p50", "p90", "p99"]
    assert result.verdict_words["equivalent"] == "equivalent within ±10%"
    assert result.verdict_words["not_shown_different"] == "not shown different"
    assert compare_runs(run(), run()).margin == 0.05  # the documented default when nothing states one


def _queue_cell(seed: int) -> dict:
    """A summary cell of 60 s of an open M/M/2 at ρ = 0.55, with its exact histogram and blocks of seconds."""
    import numpy as np

    from analysis_synthetic import open_mm2_window
    from littlegrid.analysis.steady.blocks import BlockHistograms
    from littlegrid.analysis.reading.histogram import ExactHistogram, cell_histogram, completions_per_second
    from littlegrid.analysis.statistics.stats import nearest_rank

    elapsed, end = open_mm2_window(np.random.default_rng(seed), 22.0, 50.0, 60)
    elapsed, end = elapsed[end <= 60_000], end[end <= 60_000]  # the steady window's samples, as analyze keeps
    window = {"start_ms": 0, "end_ms": 60_000}
    ordered = np.sort(elapsed)
    overall = {"count": len(elapsed), "mean_ms": float(elapsed.mean()), "throughput_per_s": len(elapsed) / 60}
    overall |= {f"p{p}_ms": float(nearest_rank(ordered, p)) for p in (50, 90, 99)}
    histogram = cell_histogram(ExactHistogram.of(elapsed),
                               completions_per_second(end, window["start_ms"], window["end_ms"])) | {
        "blocks": BlockHistograms.from_samples(elapsed, end, 0, 60_000).as_summary()}
    return {"id": "c", "axes": {}, "window": window, "overall": overall, "histogram": histogram}


def test_latency_intervals_resample_blocks_of_seconds_and_say_so_when_the_blocks_disagree():
    a, b = _queue_cell(1), _queue_cell(2)
    with_blocks = compare_runs(run(a), run(b)).rows[0]
    assert with_blocks.note == "" and (with_blocks.a, with_blocks.b) == ("c", "c")

    def disagreeing(c):  # one sample more in the first block than the histogram has: the blocks cannot be used
        blocks = c["histogram"]["blocks"]
        first = [blocks["counts"][0][0] + 1] + blocks["counts"][0][1:]
        return {**c, "histogram": c["histogram"] | {"blocks": blocks | {"counts": [first] + blocks["counts"][1:]}}}

    without = [disagreeing(c) for c in (a, b)]
    one_by_one = compare_runs(run(without[0]), run(without[1])).rows[0]
    assert one_by_one.note.count("resample requests one by one") == 2
    width = {name: next(m.rel_hi - m.rel_lo for m in row.metrics if m.key == "p90_ms")
             for name, row in (("blocks", with_blocks), ("one by one", one_by_one))}
    # requests queued behind one burst are correlated: blocks widen the interval (here by about 1.5x)
    assert width["blocks"] > 1.2 * width["one by one"], width
