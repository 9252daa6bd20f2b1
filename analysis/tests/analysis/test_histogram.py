"""Exact count histograms: distinct values and counts, completions per second, and the summary's copy of them
agreeing with the samples on a real JMeter JTL."""

import math

import numpy as np
import pytest

from littlegrid.analysis.reading import tail
from littlegrid.analysis.reading.histogram import (ExactHistogram, cell_histogram, completions_per_second,
                                                   read_cell_histogram, whole_seconds)
from littlegrid.analysis.statistics.resample import nearest_rank
from littlegrid.analysis.statistics.stats import nearest_rank as sorted_nearest_rank, percentile_of
from littlegrid.summary.model import Cell
from summary_contract import typed


def test_the_exact_histogram_holds_every_distinct_value_with_its_count_counted_or_sorted():
    h = ExactHistogram.of(np.array([7, 3, 10, 7, 5, 3, 7]))
    assert h.values.tolist() == [3, 5, 7, 10] and h.counts.tolist() == [2, 1, 3, 1] and h.n == 7
    wide = ExactHistogram.of(np.array([0, 86_400_000, 0]))  # a range far wider than the samples: sorted, not counted
    assert wide.values.tolist() == [0, 86_400_000] and wide.counts.tolist() == [2, 1]
    empty = ExactHistogram.of(np.array([], dtype=np.int64))
    assert empty.n == 0 and empty.mean() is None and percentile_of(empty, 90) is None
    merged = h.merge(ExactHistogram.of(np.array([1, 7, 12])))
    assert merged.values.tolist() == [1, 3, 5, 7, 10, 12] and merged.counts.tolist() == [1, 2, 1, 4, 1, 1]
    # ranks 1..7 of 3 3 5 7 7 7 10; below(x): samples < x; the k largest, ascending
    assert h.at_rank([1, 2, 3, 4, 6, 7]).tolist() == [3, 3, 5, 7, 7, 10]
    assert h.below([0, 3, 4, 7, 11]).tolist() == [0, 0, 2, 3, 7]
    assert h.largest(1).tolist() == [10] and h.largest(3).tolist() == [7, 7, 10] and h.largest(7).tolist() == \
        [3, 3, 5, 7, 7, 7, 10]
    assert h.mean() == 42 / 7
    with pytest.raises(TypeError, match="counts integers"):  # float times would be truncated silently
        ExactHistogram.of(np.array([1.5, 2.0]))


@pytest.mark.parametrize("seed", range(5))
def test_every_figure_read_from_the_histogram_is_the_figure_of_the_sorted_samples(seed):
    """Percentiles, mean, PDF bin counts, CCDF and the Hill tail against the samples themselves, sorted."""
    rng = np.random.default_rng(seed)
    samples = np.concatenate([rng.integers(40, 60, 3000), rng.pareto(1.5, 200).astype(np.int64) * 10 + 60])
    ordered = np.sort(samples)
    h = ExactHistogram.of(samples[::-1])
    assert h.mean() == float(ordered.mean())
    for p in ("50", "90", "99", "99.9", "100"):
        assert percentile_of(h, p) == sorted_nearest_rank(ordered, p)
    pdf = tail.log_pdf(h)
    edges = np.asarray(pdf["edges_ms"])
    assert (np.asarray(pdf["density"]) * np.diff(edges) * len(ordered)).round().astype(int).tolist() == \
        np.histogram(ordered, edges)[0].tolist()
    c = tail.ccdf(h)
    assert c["p"] == [float(np.mean(ordered >= x)) for x in c["x_ms"]]
    k = math.isqrt(len(ordered))
    top, u = ordered[-k:].astype(float), float(ordered[-k - 1])
    assert tail.tail_index(h)["hill_alpha"] == k / float(np.log(top / u).sum())


def test_completions_per_whole_second_of_the_window_with_the_last_partial_second_joining_the_one_before():
    # window [1000, 3500]: two whole seconds; 3400 ends in the partial third second and counts in the second
    ends = np.array([999, 1000, 1500, 1999, 2000, 2999, 3400, 3500, 3501])
    assert completions_per_second(ends, 1000, 3500).tolist() == [3, 4]
    assert completions_per_second(np.array([5]), 0, 400).tolist() == [1]  # under a second: one bin


def test_the_summary_keeps_what_it_reads_back_and_refuses_a_histogram_that_disagrees_with_the_count():
    h = cell_histogram(ExactHistogram.of(np.array([1, 1, 2, 9])),
                       completions_per_second(np.array([100, 200, 1100, 1900]), 0, 2000))
    assert h == {"elapsed_ms": {"values": [1, 2, 9], "counts": [2, 1, 1]},
                 "completions_per_s": {"seconds": 2, "second": [0, 1], "count": [2, 2]}}
    lat, per_second = read_cell_histogram(stored(h, 4))
    assert lat.values_ms.tolist() == [1.0, 2.0, 9.0] and lat.counts.tolist() == [2, 1, 1] and lat.n == 4
    assert per_second.tolist() == [2, 2]
    assert read_cell_histogram(stored(h, 5)) is None
    assert read_cell_histogram(stored(None, 4)) is None
    # sparse: the seconds without a completion are not written, and are zeros when read back
    h = cell_histogram(ExactHistogram.of(np.array([1, 2])), completions_per_second(np.array([100, 4200]), 0, 6000))
    assert h["completions_per_s"] == {"seconds": 6, "second": [0, 4], "count": [1, 1]}
    assert read_cell_histogram(stored(h, 2))[1].tolist() == [1, 0, 0, 0, 1, 0]
    outside = h | {"completions_per_s": {"seconds": 6, "second": [0, 6], "count": [1, 1]}}
    assert read_cell_histogram(stored(outside, 2)) is None


def stored(histogram: dict | None, count: int) -> Cell:
    """A summary's cell holding `histogram` (blocks left blank) and `count` samples, every other field blank."""
    h = None if histogram is None else histogram | {"blocks": {"seconds": 1, "index": [], "counts": []}}
    return typed({"histogram": h, "overall": {"count": count}}, Cell)


def test_a_real_jmeter_cell_s_histogram_gives_its_exact_percentiles_mean_and_throughput(corpus_summary):
    cell = corpus_summary("insta-rzd-errors-large.jtl").cells[0]
    lat, per_second = read_cell_histogram(cell)
    values, counts = lat.values_ms, lat.counts
    o = cell.overall
    assert int(counts.sum()) == o.count
    for q, key in ((0.5, "p50_ms"), (0.9, "p90_ms"), (0.99, "p99_ms")):
        assert nearest_rank(values, counts, q)[0] == getattr(o, key)
    assert float(counts @ values) / o.count == pytest.approx(o.mean_ms, rel=1e-12)
    assert int(per_second.sum()) == o.count  # every window sample, the last partial second's too
    # two sessions 158 days apart: 13.6 M seconds of window, a few thousand with completions; only those are written
    completions = cell.histogram.completions_per_s
    assert completions.seconds == len(per_second) == int(cell.window.length_s) == 13_654_950
    assert len(completions.second) == np.count_nonzero(per_second) <= o.count
    assert len(cell.histogram.model_dump_json()) < 500_000  # 41 MB when every second was written


def test_second_histograms_bin_the_window_by_the_second_each_sample_completed_in():
    from littlegrid.analysis.reading.histogram import SecondHistograms
    elapsed = np.array([5, 7, 5, 9, 5, 3])
    end = np.array([1000, 1999, 2000, 2500, 3200, 999])  # 999 is before the window, 3200 after it
    h = SecondHistograms.from_samples(elapsed, end, 1000, 3000)
    # two whole seconds; 2500 and the window's end fall in the last one (completions_per_second's rule)
    assert list(h.values_ms) == [5, 7, 9] and h.counts.tolist() == [[1, 1, 0], [1, 0, 1]]
    assert h.n == 4 and h.latencies().counts.tolist() == [2, 1, 1]
    assert h.failures.tolist() == [0, 0]  # no flags: every sample succeeded
    failed = np.array([True, False, True, True, True, True])  # 3200 and 999 fall outside the window
    assert SecondHistograms.from_samples(elapsed, end, 1000, 3000, failed=failed).failures.tolist() == [1, 2]


def test_histograms_merged_two_at_a_time_or_many_or_block_by_block_count_every_sample_once():
    from littlegrid.analysis.reading.histogram import HistogramAccumulator, merged
    rng = np.random.default_rng(7)
    for _ in range(100):
        parts = [rng.integers(-50, int(rng.integers(1, 200)), int(rng.integers(1, 300))) for _ in range(4)]
        want = ExactHistogram.of(np.concatenate(parts))
        hs = [ExactHistogram.of(p) for p in parts]
        accumulated = HistogramAccumulator()
        for p in parts:
            accumulated.add(p)
        for got in (merged(hs[:2] + [merged(hs[2:])]), merged(hs), hs[0].merge(hs[1]).merge(merged(hs[2:])),
                    accumulated.result()):
            assert got.values.tolist() == want.values.tolist() and got.counts.tolist() == want.counts.tolist()


def test_whole_seconds_leaves_out_the_last_bin_that_a_partial_second_lengthened():
    # completions_per_second over a 19.99 s window: 19 bins, the last spanning 1.99 s (150 + 148 completions)
    ends = np.concatenate([np.linspace(1000 * i + 1, 1000 * i + 999, 150) for i in range(20)])
    per_second = completions_per_second(ends, 0.0, 19_990.0)
    assert len(per_second) == 19 and per_second[-1] > 290 and set(per_second[:-1]) == {150}
    assert whole_seconds(per_second, 19.99).tolist() == [150] * 18
    assert whole_seconds(per_second, 19.0).tolist() == per_second.tolist()  # a whole-second window: all bins full
    assert whole_seconds(per_second, None).tolist() == per_second.tolist()
