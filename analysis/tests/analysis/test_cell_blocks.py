"""A cell read in blocks is the cell read in one piece: every figure of the summary, whatever the block size.

The second pass's accumulators keep counts, not rows (issue 17); these tests shrink the blocks so that real JTLs
and synthetic runs cross many block boundaries, and compare the whole summary against the one-piece analysis.
Only think time's SD and CV may differ, in the last digit (their sums run in another order)."""

import json

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run, table, write_jtl
from littlegrid import summary
from littlegrid.analysis.reading.histogram import ExactHistogram, SecondHistograms
from littlegrid.analysis.statistics.rowblock import Frame, ThreadIds, make_block
from littlegrid.analysis.statistics.window_seconds import WindowSecondsAccumulator
from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.analysis.steady.window import steady_window
from littlegrid.analysis.workload.arrivals import InterarrivalAccumulator
from littlegrid.jtl import blocks as jtl_blocks, read_jtl, xml_reader
from littlegrid.summarize import analyze



def _flat(x, pre=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _flat(v, f"{pre}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _flat(v, f"{pre}[{i}]")
    else:
        yield pre, x


def _figures(result) -> dict:
    return dict(_flat(json.loads(summary.dumps(result))))


def _in_blocks(monkeypatch, inputs, rows=40, **kw):
    with monkeypatch.context() as m:
        m.setattr(jtl_blocks, "ONE_PIECE_BYTES", 0)
        m.setattr(jtl_blocks, "BLOCK_ROWS", rows)
        m.setattr(jtl_blocks, "BLOCK_BYTES", 1 << 16)  # the least read_jtl takes: files over 64 KiB in many blocks
        m.setattr(xml_reader, "CHUNK", 2048)  # an XML file's blocks end where expat's input does
        return analyze(inputs, **kw)


def _assert_same(one_piece, blocks):
    a, b = _figures(one_piece), _figures(blocks)
    assert a.keys() == b.keys()
    differ = {k for k in a if a[k] != b[k]}
    assert not differ, sorted(differ)[:5]  # every figure, think time's sd_ms and CVs too (exact sums)


@pytest.mark.parametrize("name", ["insta-rzd-errors-large.jtl", "karang-tc-commas.jtl", "xplorin-distributed-2servers.csv",
                                  "ssun86-report-tab.jtl", "perfplugin-filewithtransactions.csv", "apache-sample_log1.jtl",
                                  "amisha-results-clean.csv", "sonar-test-trans.jtl.xml", "ssun86-predict-nested.xml"])
def test_a_real_jtl_in_blocks_of_a_few_hundred_rows_gives_the_one_piece_summary(corpus, monkeypatch, name):
    path = str(corpus / name)
    blocks = _in_blocks(monkeypatch, [path], warmup_s=1, cooldown_s=1)
    _assert_same(analyze([path], warmup_s=1, cooldown_s=1), blocks)


def test_a_run_folder_in_blocks_gives_the_one_piece_summary(tmp_path, monkeypatch):
    samples = closed_loop(20, 100, 100, duration_s=30)
    run = make_run(tmp_path / "run", [{"id": "users=20", "axes": {"users": 20}, "samples": samples, "users": 20,
                                       "think_ms": 100, "think_dist": "constant"}])
    one_piece = analyze([run])
    _assert_same(one_piece, _in_blocks(monkeypatch, [run], rows=500))
    assert one_piece.cells[0].window.samples_trimmed_before > 0 and one_piece.cells[0].window.samples_trimmed_after > 0


def _blocks_of(path, k, by_label=False):
    """The Frame and k Blocks of a JTL, as the second pass builds them."""
    table = read_jtl(path).samples
    window = steady_window(table, 1, 1)
    frame = Frame(window=window, transactions=frozenset(), series_labels=(), rows=len(table), blocks=k)
    threads = ThreadIds()
    cuts = np.linspace(0, len(table), k + 1).astype(int)
    return table, window, [make_block(table.iloc[a:b], frame, threads, by_label) for a, b in zip(cuts[:-1], cuts[1:])]


def test_the_window_second_by_second_gives_the_block_and_second_histograms_of_the_samples(corpus):
    table, window, blocks = _blocks_of(corpus / "amisha-results-clean.csv", 7)  # 91 s, half of it failed
    acc = WindowSecondsAccumulator(window)
    for block in blocks:
        acc.add(block)
    inside = (table.end_ms >= window.start_ms) & (table.end_ms <= window.end_ms)
    elapsed = ExactHistogram.of(table.elapsed_ms[inside].to_numpy())
    want = BlockHistograms.from_samples(table.elapsed_ms.to_numpy(), table.end_ms.to_numpy(), window.start_ms,
                                        window.end_ms)
    got = acc.block_histograms(elapsed)
    assert got.seconds == want.seconds and np.array_equal(got.counts, want.counts)
    failed = np.concatenate([b.classes.notna().to_numpy() for b in blocks])
    want = SecondHistograms.from_samples(table.elapsed_ms.to_numpy(), table.end_ms.to_numpy(), window.start_ms,
                                         window.end_ms, failed=failed)
    got = acc.second_histograms(elapsed)
    assert np.array_equal(got.counts, want.counts) and np.array_equal(got.failures, want.failures)
    assert got.failures.sum() > 0
    assert acc.n.tolist() == want.counts.sum(axis=1).tolist()


def test_pairs_counted_over_their_box_give_the_same_second_histograms(tmp_path):
    # a closed loop of few elapsed values: each block's (second, elapsed) box is smaller than its rows, so
    # int_sort.pair_counts counts them instead of sorting (amisha's wide elapsed values take the sort)
    rng = np.random.default_rng(5)
    samples = closed_loop(20, 100, 50, duration_s=40)
    samples["elapsed_ms"] = rng.integers(90, 110, len(samples))
    samples["end_ms"] = samples.start_ms + samples.elapsed_ms
    path = write_jtl(samples, tmp_path / "few-values.jtl")
    table, window, blocks = _blocks_of(path, 4)
    acc = WindowSecondsAccumulator(window)
    for block in blocks:
        second = (block.samples.end_ms.to_numpy()[block.samples_in_window] - window.start_ms) // 1000
        assert (second.max() - second.min() + 1) * 20 <= block.samples_in_window.sum()  # the counted path
        acc.add(block)
    inside = (table.end_ms >= window.start_ms) & (table.end_ms <= window.end_ms)
    elapsed = ExactHistogram.of(table.elapsed_ms[inside].to_numpy())
    failed = np.concatenate([b.classes.notna().to_numpy() for b in blocks])
    want = SecondHistograms.from_samples(table.elapsed_ms.to_numpy(), table.end_ms.to_numpy(), window.start_ms,
                                         window.end_ms, failed=failed)
    got = acc.second_histograms(elapsed)
    assert np.array_equal(got.counts, want.counts) and got.counts.sum() == int(inside.sum())


def test_the_interarrival_cv_from_distinct_starts_is_the_cv_of_the_sorted_starts_gaps(corpus):
    table, window, blocks = _blocks_of(corpus / "insta-rzd-errors-large.jtl", 5)
    acc = InterarrivalAccumulator()
    for block in blocks:
        acc.add(block)
    inside = (table.end_ms >= window.start_ms) & (table.end_ms <= window.end_ms)
    gaps = np.diff(np.sort(table.start_ms[inside].to_numpy())).astype(float)
    cv, n = acc.result()
    assert n == int(inside.sum()) and (gaps == 0).any()
    assert cv == pytest.approx(gaps.std(ddof=1) / gaps.mean(), rel=1e-12)


def test_thread_ids_name_the_same_thread_in_every_block(corpus):
    table, _, blocks = _blocks_of(corpus / "xplorin-distributed-2servers.csv", 4)
    ids = np.concatenate([b.keys for b in blocks])
    pairs = list(zip(table.host.astype(str), table.thread.astype(str)))
    assert len(set(ids.tolist())) == len(set(pairs))
    assert all(len({p for p, i in zip(pairs, ids) if i == k}) == 1 for k in set(ids.tolist()))


def _passes(monkeypatch, inputs, rows=40, tail_bytes=None, **kw):
    """analyze() with the cell read in blocks of `rows` rows: (summary, how many passes read the files)."""
    passes: list[int] = []
    pieces = jtl_blocks.BlockReader._pieces

    def counted(self, *args, **kwargs):
        passes.append(1)
        return pieces(self, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(jtl_blocks.BlockReader, "_pieces", counted)
        if tail_bytes is not None:
            m.setattr(jtl_blocks, "TAIL_BYTES", tail_bytes)
        result = _in_blocks(m, inputs, rows=rows, **kw)
    return result, len(passes)


@pytest.mark.parametrize("name", ["insta-rzd-errors-large.jtl", "perfplugin-filewithtransactions.csv",
                                  "ssun86-predict-nested.xml", "sonar-test-trans.jtl.xml"])
def test_a_cell_whose_first_block_and_ends_tell_its_frame_is_read_once(corpus, monkeypatch, name):
    path = str(corpus / name)
    once, passes = _passes(monkeypatch, [path], by_label=True, warmup_s=1, cooldown_s=1)
    assert passes == 1
    _assert_same(analyze([path], by_label=True, warmup_s=1, cooldown_s=1), once)


def test_a_guess_the_whole_pass_contradicts_is_counted_again_under_the_cells_frame(tmp_path, monkeypatch):
    # the first sample written mid-file (as a merge of engines' files may): neither the first block nor the tail
    # holds it, so the guessed window starts too late
    ordered = closed_loop(20, 100, 100, duration_s=30)
    middle = len(ordered) // 2
    samples = pd.concat([ordered.iloc[1:middle], ordered.iloc[:1], ordered.iloc[middle:]]).reset_index(drop=True)
    path = str(write_jtl(samples, tmp_path / "reversed.jtl"))
    again, passes = _passes(monkeypatch, [path], rows=500, tail_bytes=3000, warmup_s=2, cooldown_s=2)
    assert passes == 2
    one_piece = analyze([path], warmup_s=2, cooldown_s=2)
    _assert_same(one_piece, again)
    assert again.cells[0].window.start_ms == int(samples.start_ms.min()) + 2000


def test_a_cell_of_two_engines_files_is_read_once_though_the_second_holds_the_first_sample(tmp_path, monkeypatch):
    # two engines' JTLs: the first sample is in the second file, which the first block does not reach
    samples = closed_loop(10, 100, 100, duration_s=30, engines=2)
    second = samples.thread.astype(str).str.startswith("engine-2-")
    early = samples[second].start_ms.min() - 50
    one = write_jtl(samples[~second], tmp_path / "engine-1.jtl")
    two = write_jtl(pd.concat([samples[second].head(1).assign(start_ms=early, end_ms=early + 100),
                               samples[second]]), tmp_path / "engine-2.jtl")
    paths = [str(one), str(two)]
    once, passes = _passes(monkeypatch, paths, rows=300, tail_bytes=3000, warmup_s=2, cooldown_s=2)
    assert passes == 1
    _assert_same(analyze(paths, warmup_s=2, cooldown_s=2), once)


def test_series_labels_guessed_in_another_order_are_listed_by_the_whole_cells_rows(tmp_path, monkeypatch):
    # A (2 users, 0-70 s) has twice B's rows in the first block and the tail; B (1 user, and 20 more for 50-55 s)
    # has more rows in the end
    a = closed_loop(2, 100, 100, duration_s=70, label="A")
    b = pd.concat([closed_loop(1, 100, 100, duration_s=70, label="B"),
                   closed_loop(20, 100, 100, duration_s=5, label="B", start_ms=T0 + 50_000)])
    b["thread"] = pd.Categorical("B " + b.thread.astype(str))  # threads of their own
    both = pd.concat([a, b]).sort_values("end_ms", kind="stable").reset_index(drop=True)
    path = str(write_jtl(both, tmp_path / "two-labels.jtl"))
    once, passes = _passes(monkeypatch, [path], rows=40, tail_bytes=3000, by_label=True)
    assert passes == 1  # the guess saw both labels: the same series, only their order was unknown
    assert (both.label == "A").sum() < (both.label == "B").sum()
    assert list(once.cells[0].label_series.labels) == ["B", "A"]
    _assert_same(analyze([path], by_label=True), once)


def test_thirty_labels_whose_top_twenty_change_after_the_first_block_are_read_once(tmp_path, monkeypatch):
    # labels L00..L29: the first 40% of the run favours the high ones, the rest (heavier) the low ones, so the
    # first block's top 20 is not the cell's; the guess keeps series for 60 labels and drops the extra ones
    rng = np.random.default_rng(3)
    n = 6000
    weights = np.where(np.arange(n)[:, None] < 0.4 * n, np.arange(30) + 1, 2 * (30 - np.arange(30)))
    choice = (rng.random(n)[:, None] < np.cumsum(weights, 1) / weights.sum(1, keepdims=True)).argmax(1)
    rows = [(T0 + 5 * i, 20 + i % 7, f"Thread Group 1-{i % 10 + 1}") for i in range(n)]
    samples = table(rows, 10).assign(label=pd.Categorical([f"L{c:02d}" for c in choice]))
    path = str(write_jtl(samples, tmp_path / "thirty-labels.jtl"))
    once, passes = _passes(monkeypatch, [path], rows=300, tail_bytes=2000, by_label=True)
    first_block = samples.label.iloc[:300].value_counts()
    assert set(first_block.index[:20]) != set(once.cells[0].label_series.labels)  # the guess ranked them otherwise
    assert passes == 1 and len(once.cells[0].label_series.labels) == 20
    _assert_same(analyze([path], by_label=True), once)


@pytest.mark.parametrize("tail_bytes", [120, 700, 2500])
def test_a_tail_cut_inside_a_quoted_line_break_costs_at_most_a_second_pass(corpus, monkeypatch, tail_bytes):
    path = str(corpus / "taurus-distributed-multiline-crlf.jtl")
    got, passes = _passes(monkeypatch, [path], rows=30, tail_bytes=tail_bytes, by_label=True)
    assert passes in (1, 2)
    _assert_same(analyze([path], by_label=True), got)
