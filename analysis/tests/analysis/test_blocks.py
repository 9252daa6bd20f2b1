"""Blocks of seconds: the block-length rule, a window's histograms per block, the summary's copy of them, and the
intervals compare draws from them covering a queue's p90 where one-by-one resampling does not."""

import numpy as np

from littlegrid.analysis.reading.histogram import read_cell_histogram
from littlegrid.analysis.statistics import resample
from littlegrid.analysis.steady.blocks import BlockHistograms, block_length
from littlegrid.summary.model import Blocks
from analysis_synthetic import open_mm2_window


def test_the_block_length_is_the_cube_root_of_the_window_for_independent_seconds_and_longer_for_a_queue_s_memory():
    rng = np.random.default_rng(3)
    n = np.full(64, 20)
    assert block_length(n, n * rng.normal(50, 5, 64)) == 4  # T^(1/3), φ ≈ 0
    level = np.cumsum(rng.normal(0, 20, 64)) + 500  # a wandering level: φ near 1
    assert 4 < block_length(n, n * level) <= 64 // 3
    assert block_length(n, n * (np.arange(64) * 10 + 100.0)) == 64 // 3  # a ramp: capped, three blocks at least
    assert block_length(np.full(2, 5), np.full(2, 50)) == 1  # two seconds: blocks of one


def test_blocks_hold_the_window_s_samples_by_block_of_seconds_with_the_seconds_left_over_in_the_last():
    # a 10-s window of independent seconds: block_length 2 (round(10^(1/3))), 5 blocks
    seconds = np.arange(10)
    elapsed = np.tile([4, 6], 10) + np.repeat(seconds % 3, 2)  # per-second means 5, 6, 7, 5, ...: little memory
    end = np.repeat(seconds * 1000 + 100, 2)
    h = BlockHistograms.from_samples(np.append(elapsed, [99, 99]), np.append(end, [-1, 10_001]), 0, 10_000)
    assert h.seconds == 2 and h.counts.shape == (5, len(h.values_ms)) and h.n == 20  # 99 ms twice: outside
    assert h.values_ms.tolist() == [4, 5, 6, 7, 8]
    assert h.counts[0].tolist() == [1, 1, 1, 1, 0]  # seconds 0 and 1: (4, 6) and (5, 7)
    # 11 whole seconds in blocks of 2: the 11th second joins the fifth block
    odd = BlockHistograms.from_samples(np.full(11, 7), np.arange(11) * 1000 + 500, 0, 11_000)
    assert odd.seconds == 2 and odd.counts[:, 0].tolist() == [2, 2, 2, 2, 3]  # equal means: φ = 0


def test_a_wide_range_of_values_is_counted_pair_by_pair_to_the_same_histograms(monkeypatch):
    from littlegrid.analysis.steady import blocks
    rng = np.random.default_rng(4)
    elapsed, end = rng.integers(1, 5000, 2000), rng.integers(0, 20_000, 2000)
    dense = BlockHistograms.from_samples(elapsed, end, 0, 20_000)
    monkeypatch.setattr(blocks, "DENSE_LIMIT", 10)  # as if blocks × value range were beyond the dense table
    sparse = BlockHistograms.from_samples(elapsed, end, 0, 20_000, np.unique(elapsed))
    assert np.array_equal(dense.values_ms, sparse.values_ms) and np.array_equal(dense.counts, sparse.counts)
    assert dense.counts.sum() == 2000 and dense.seconds == sparse.seconds


def test_the_summary_keeps_the_blocks_sparse_and_refuses_blocks_that_do_not_add_up_to_the_cell_histogram():
    h = BlockHistograms.from_samples(np.array([1, 1, 2, 9, 9, 9]), np.array([100, 1200, 2100, 3100, 4500, 5500]),
                                     0, 6000)
    kept = h.as_summary()
    assert kept["seconds"] == h.seconds and sum(map(sum, kept["counts"])) == 6
    assert all(len(i) == len(c) and 0 not in c for i, c in zip(kept["index"], kept["counts"]))
    values, counts = np.array([1.0, 2.0, 9.0]), np.array([2, 1, 3])
    back = BlockHistograms.from_summary(Blocks.model_validate(kept), values, counts)
    assert np.array_equal(back.counts, h.counts) and back.seconds == h.seconds
    assert BlockHistograms.from_summary(Blocks.model_validate(kept), values, np.array([2, 1, 4])) is None  # one more
    assert BlockHistograms.from_summary(None, values, counts) is None  # a cell without blocks
    for index in ([[-1]] + kept["index"][1:], [[7]] + kept["index"][1:]):  # an index outside the cell's values
        assert BlockHistograms.from_summary(Blocks.model_validate(kept | {"index": index}), values, counts) is None


def test_a_real_jmeter_cell_s_blocks_add_up_to_its_histogram(corpus_summary):
    cell = corpus_summary("insta-rzd-errors-large.jtl").cells[0]
    lat, per_second = read_cell_histogram(cell)
    h = BlockHistograms.from_summary(cell.histogram.blocks, lat.values_ms, lat.counts)
    assert h is not None and h.n == cell.overall.count
    assert len(h.counts) == len(per_second) // h.seconds


def test_stored_blocks_cover_a_queues_p90_where_resampling_requests_one_by_one_does_not():
    """Open M/M/2, S = 50 ms, λ = 22/s (ρ = 0.55), 60 windows of 60 s against the exact p90 of time in system:
    the blocks a summary keeps, drawn with replacement, cover it as the capacity search's moving blocks do."""
    from littlegrid.analysis.modelling import mmcn
    truth = mmcn.open_response_percentile_ms(0.9, 22.0, 2, 50.0)  # 160.6 ms
    rng = np.random.default_rng(11)
    covered = {"stored blocks": 0, "one by one": 0}
    for _ in range(60):
        elapsed, end = open_mm2_window(rng, 22.0, 50.0, 60)
        h = BlockHistograms.from_samples(elapsed, end, 0, 60_000)
        lat = resample.Latencies(h.values_ms, h.counts.sum(axis=0))
        for how, reps in (("stored blocks", resample.replicate_latencies_in_stored_blocks(h, [0.9], rng)[0.9]),
                          ("one by one", resample.replicate_latencies(lat, [0.9], rng)[0.9])):
            lo, hi = np.quantile(reps, [0.025, 0.975])
            covered[how] += bool(lo <= truth <= hi)
    print(f"\ncoverage of p90 = {truth:.1f} ms by 95 % intervals: {covered} of 60")
    assert covered["stored blocks"] >= 0.8 * 60 and covered["one by one"] <= 0.7 * 60
