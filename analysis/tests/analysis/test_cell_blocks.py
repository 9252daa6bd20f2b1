"""A cell read in blocks is the cell read in one piece: every figure of the summary, whatever the block size.

The second pass's accumulators keep counts, not rows (issue 17); these tests shrink the blocks so that real JTLs
and synthetic runs cross many block boundaries, and compare the whole summary against the one-piece analysis.
Only think time's SD and CV may differ, in the last digit (their sums run in another order)."""

import json

import numpy as np
import pytest

from analysis_synthetic import closed_loop, make_run
from littlegrid import summary
from littlegrid.analysis.arrivals import InterarrivalAccumulator
from littlegrid.analysis.blocks import BlockHistograms
from littlegrid.analysis.histogram import ExactHistogram, SecondHistograms
from littlegrid.analysis.rowblock import Frame, ThreadIds, make_block
from littlegrid.analysis.window import steady_window
from littlegrid.analysis.window_seconds import WindowSecondsAccumulator
from littlegrid.analyze import analyze
from littlegrid.jtl import blocks as jtl_blocks
from littlegrid.jtl import read_jtl

LAST_DIGIT = {"sd_ms", "cv"}  # think time's: summed in another order (docs/analysis.md, "One pass, bounded memory")


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
        return analyze(inputs, **kw)


def _assert_same(one_piece, blocks):
    a, b = _figures(one_piece), _figures(blocks)
    assert a.keys() == b.keys()
    differ = {k for k in a if a[k] != b[k]}
    assert all(k.rsplit(".", 1)[-1] in LAST_DIGIT for k in differ), sorted(differ)[:5]
    for k in differ:
        assert b[k] == pytest.approx(a[k], rel=1e-12), k


@pytest.mark.parametrize("name", ["insta-rzd-errors-large.jtl", "karang-tc-commas.jtl", "xplorin-distributed-2servers.csv",
                                  "ssun86-report-tab.jtl", "perfplugin-filewithtransactions.csv", "apache-sample_log1.jtl",
                                  "amisha-results-clean.csv"])
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
