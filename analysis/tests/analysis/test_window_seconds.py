"""A long window is counted in units of seconds and at most MAX_BLOCKS blocks (issue 36): what the summary keeps is
exactly what the samples themselves give under the same rule, and nothing else in the summary changes.

The limits are shrunk (16 units, 8 blocks) so that a ten-minute file is a "long" window."""

import json

import numpy as np

from analysis_synthetic import closed_loop, write_jtl
from littlegrid import summary
from littlegrid.analysis.reading.histogram import ExactHistogram, SecondHistograms
from littlegrid.analysis.statistics.rowblock import Frame, ThreadIds, make_block
from littlegrid.analysis.statistics.window_seconds import WindowSecondsAccumulator
from littlegrid.analysis.steady import blocks as blocks_mod
from littlegrid.analysis.steady.blocks import BlockHistograms, block_length, second_unit
from littlegrid.analysis.steady.window import steady_window
from littlegrid.jtl import blocks as jtl_blocks, read_jtl
from littlegrid.summarize import analyze


def _ten_minutes(tmp_path):
    rng = np.random.default_rng(11)
    samples = closed_loop(10, 100, 150, duration_s=600)
    samples["elapsed_ms"] = np.rint(80 * np.exp(0.6 * rng.standard_normal(len(samples)))).astype(np.int64) + 1
    samples["end_ms"] = samples.start_ms + samples.elapsed_ms
    return write_jtl(samples.sort_values("end_ms", kind="stable"), tmp_path / "ten-minutes.jtl")


def _shrunk(monkeypatch):
    monkeypatch.setattr(blocks_mod, "UNITS_MAX", 16)
    monkeypatch.setattr(blocks_mod, "MAX_BLOCKS", 8)


def test_the_block_length_is_whole_units_and_at_most_max_blocks_blocks(monkeypatch):
    _shrunk(monkeypatch)
    n = np.full(600, 10)
    length = block_length(n, n * 50.0)
    assert second_unit(600) == 38 and length % 38 == 0 and 600 // length <= 8
    assert length == 76  # ceil(600 / 8) = 75 seconds, rounded up to whole units of 38
    assert block_length(np.full(100, 10), np.full(100, 500.0)) % second_unit(100) == 0


def test_a_long_window_in_units_gives_the_blocks_and_the_unit_histograms_of_the_samples(tmp_path, monkeypatch):
    _shrunk(monkeypatch)
    table = read_jtl(_ten_minutes(tmp_path)).samples
    window = steady_window(table, 1, 1)
    frame = Frame(window=window, transactions=frozenset(), series_labels=(), rows=len(table), blocks=5)
    acc, threads = WindowSecondsAccumulator(window), ThreadIds()
    cuts = np.linspace(0, len(table), 6).astype(int)
    for a, b in zip(cuts[:-1], cuts[1:]):
        acc.add(make_block(table.iloc[a:b], frame, threads, False))
    assert acc.unit > 1
    inside = (table.end_ms >= window.start_ms) & (table.end_ms <= window.end_ms)
    elapsed = ExactHistogram.of(table.elapsed_ms[inside].to_numpy())
    want = BlockHistograms.from_samples(table.elapsed_ms.to_numpy(), table.end_ms.to_numpy(), window.start_ms,
                                        window.end_ms)
    got = acc.block_histograms(elapsed)
    assert got.seconds == want.seconds and got.seconds % acc.unit == 0 and len(got.counts) <= 8
    assert np.array_equal(got.counts, want.counts)
    assert np.array_equal(got.counts.sum(axis=0), elapsed.counts)  # every sample, exactly
    # the capacity search's histograms: one per unit, the per-second ones summed by unit
    per_second = SecondHistograms.from_samples(table.elapsed_ms.to_numpy(), table.end_ms.to_numpy(),
                                               window.start_ms, window.end_ms)
    starts = np.arange(0, len(per_second.counts), acc.unit)
    got = acc.second_histograms(elapsed)
    assert np.array_equal(got.counts, np.add.reduceat(per_second.counts, starts, axis=0))
    assert acc.n.tolist() == per_second.counts.sum(axis=1).tolist()  # completions stay per second


def _figures(result) -> dict:
    return json.loads(summary.dumps(result))


def test_counting_a_long_window_in_units_changes_no_figure_but_the_blocks_length(tmp_path, monkeypatch):
    path = str(_ten_minutes(tmp_path))
    unbounded = _figures(analyze([path], by_label=True))
    with monkeypatch.context() as m:
        _shrunk(m)
        m.setattr(jtl_blocks, "ONE_PIECE_BYTES", 0)  # read in blocks, once
        m.setattr(jtl_blocks, "BLOCK_ROWS", 3000)
        m.setattr(jtl_blocks, "BLOCK_BYTES", 1 << 16)
        bounded = _figures(analyze([path], by_label=True))
    blocks = [c["histogram"].pop("blocks") for c in (unbounded["cells"][0], bounded["cells"][0])]
    # each figure's interval is drawn from the blocks (analysis/statistics/intervals.py): its figure is the same, its width
    # follows the blocks' length
    intervals = [c.pop("intervals") for c in (unbounded["cells"][0], bounded["cells"][0])]
    for key, held in intervals[0].items():
        if isinstance(held, dict):
            assert held["value"] == intervals[1][key]["value"] and intervals[1][key]["se"] is not None
    for figures in (unbounded, bounded):
        figures.pop("generated", None)
    assert bounded == unbounded  # every percentile, series, count and check
    assert blocks[0]["seconds"] < blocks[1]["seconds"] and len(blocks[1]["index"]) <= 8
    values = unbounded["cells"][0]["histogram"]["elapsed_ms"]["counts"]
    for kept in blocks:  # both hold every sample of the window
        total = np.zeros(len(values), np.int64)
        for index, counts in zip(kept["index"], kept["counts"]):
            total[index] += counts
        assert total.tolist() == values
