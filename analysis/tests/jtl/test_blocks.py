"""BlockReader: a cell's files block by block add up, row for row and note for note, to what read_jtl gives."""

import gzip
import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import closed_loop, write_jtl
from littlegrid.jtl import read_jtl
from littlegrid.jtl.blocks import BlockReader, ReadAgain, merge_notes
from littlegrid.usererror import UserError


def all_blocks(reader, fields=None):
    while True:
        try:
            return list(reader.blocks(fields))
        except ReadAgain:
            continue


def same_rows(blocks, whole: pd.DataFrame):
    for column in ("start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "all_threads"):
        got = np.concatenate([b[column].to_numpy(dtype=float, na_value=-1) for b in blocks])
        assert got.tolist() == whole[column].to_numpy(dtype=float, na_value=-1).tolist(), column
    for column in ("label", "thread", "response_code", "response_message", "success", "host"):
        got = [v for b in blocks for v in b[column].astype(str)]
        assert got == whole[column].astype(str).tolist(), column


def _same_reading(got, whole, path):
    """A pass's Reading says what read_jtl's does: rows, notes, absent columns, transactions, format, skips."""
    assert (got.rows_read, got.warnings, got.absent_columns, got.transaction_labels, got.format) == \
           (whole.rows_read, whole.warnings, whole.absent_columns, whole.transaction_labels, whole.format), path
    assert [(s.reason, s.count, s.first_lines) for s in got.rows_skipped] == \
           [(s.reason, s.count, s.first_lines) for s in whole.rows_skipped], path


def test_every_corpus_file_in_small_blocks_is_read_jtl_row_for_row(corpus):
    checked = 0
    for path in sorted(p for p in corpus.iterdir() if p.suffix != ".md"):
        try:
            whole = read_jtl(path)
        except UserError as e:
            with pytest.raises(UserError) as refused:
                all_blocks(BlockReader([path], one_piece_bytes=0, block_rows=37, block_size=1 << 16))
            assert str(refused.value) == str(e)
            continue
        reader = BlockReader([path], one_piece_bytes=0, block_rows=37, block_size=1 << 16)
        blocks = all_blocks(reader)
        same_rows(blocks, whole.samples)
        _same_reading(reader.reading, whole, path)
        checked += 1
    assert checked >= 20


def test_a_smaller_first_block_still_adds_up_to_read_jtl_row_for_row(corpus, monkeypatch):
    from littlegrid.jtl import blocks as blocks_module
    from littlegrid.jtl.sniff import sniff

    monkeypatch.setattr(blocks_module, "FIRST_BLOCK_ROWS", 10)  # the analysis starts on it; the rest are larger
    checked = 0
    for path in sorted(p for p in corpus.iterdir() if p.suffix != ".md"):
        try:
            if sniff(path, None, None, None).kind != "csv":  # an XML file's blocks are counted in samples
                continue
            whole = read_jtl(path)
        except UserError:
            continue
        reader = BlockReader([path], one_piece_bytes=0, block_rows=400, block_size=1 << 12)
        blocks = all_blocks(reader)
        if reader.blocks_read < 3 or reader._in_one_piece:
            continue
        assert len(blocks[0]) < len(blocks[1]), path  # ~a 4 KB batch, then 400 rows and more
        same_rows(blocks, whole.samples)
        _same_reading(reader.reading, whole, path)
        checked += 1
    assert checked >= 5


def test_a_subresult_whose_parent_closed_the_previous_block_is_still_dropped(corpus):
    # ssun86-report-tab: 100 parents, each followed by its two redirect sub-results; blocks of ~40 rows cut
    # between a parent and its sub-results
    path = corpus / "ssun86-report-tab.jtl"
    reader = BlockReader([path], one_piece_bytes=0, block_rows=1, block_size=1 << 16)
    blocks = all_blocks(reader)
    assert sum(len(b) for b in blocks) == 100 and all((b.label.astype(str) == "Predict API").all() for b in blocks)
    assert reader.reading.rows_skipped[0].count == 200


def test_files_that_fit_one_piece_are_read_once_and_handed_out_again(corpus):
    reader = BlockReader([corpus / "perfaction-basic.jtl"])
    first, second = all_blocks(reader), all_blocks(reader)
    assert reader.one_piece and len(first) == 1 and first[0] is second[0]


def test_notes_differing_by_their_count_are_summed():
    assert merge_notes(["f: 2 rows dropped", "g", "f: 3 rows dropped", "g"]) == ["f: 5 rows dropped", "g"]


def test_prefetched_items_come_in_order_and_the_producers_error_is_raised_in_its_place():
    from littlegrid.jtl.blocks import prefetched

    def items():
        yield from range(5)
        raise UserError("f.jtl:9: bad")

    got = []
    with pytest.raises(UserError, match="f.jtl:9: bad"):
        for item in prefetched(items()):
            got.append(item)
    assert got == [0, 1, 2, 3, 4]


def test_a_consumer_that_stops_early_stops_the_producer():
    import threading

    from littlegrid.jtl.blocks import prefetched
    made = []

    def items():
        for i in range(1000):
            made.append(i)
            yield i

    for item in prefetched(items()):
        if item == 2:
            break
    assert len(made) <= 5 and not any(t.name == "littlegrid-block-reader" for t in threading.enumerate())


def test_a_gzip_jtl_counts_four_times_its_size_towards_one_piece(corpus, tmp_path):
    import gzip
    plain = corpus / "apache-sample_log1.jtl"
    packed = tmp_path / "apache.jtl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    size = packed.stat().st_size
    assert BlockReader([packed], one_piece_bytes=4 * size).one_piece
    assert not BlockReader([packed], one_piece_bytes=4 * size - 1).one_piece
    blocks = all_blocks(BlockReader([packed], one_piece_bytes=0, block_rows=500, block_size=1 << 16))
    same_rows(blocks, read_jtl(plain).samples)


def test_a_file_without_a_label_column_has_its_samples_in_blocks_too(tmp_path):
    path = tmp_path / "unlabelled.jtl"  # the block reader counted samples by label: "no samples in the file"
    path.write_text("IdleTime,timeStamp,elapsed\n0,1700000000000,5\n0,1700000000010,7\n")
    reader = BlockReader([path], one_piece_bytes=0, block_rows=1, block_size=1 << 16)
    blocks = all_blocks(reader)
    same_rows(blocks, read_jtl(path).samples)
    assert sum(len(b) for b in blocks) == 2 and reader.reading.rows_read == 2


def test_a_gzip_that_breaks_off_in_blocks_keeps_the_rows_read_jtl_keeps_with_its_note(tmp_path):
    """A .gz copied while JMeter was still writing it. pyarrow's chunk ends with its block at the break, so the
    file is read in one piece, row by row, as read_jtl reads it: the rows before the break and one note, never a
    traceback (an OSError escaped the block reader before)."""
    plain = write_jtl(closed_loop(10, 20, 30, 30), tmp_path / "closed.jtl")  # 6,000 rows, past sniff's sample
    packed = gzip.compress(plain.read_bytes())
    cut = tmp_path / "cut.jtl.gz"
    cut.write_bytes(packed[: len(packed) * 3 // 4])
    whole = read_jtl(cut)
    assert any("compressed stream breaks off" in w for w in whole.warnings) and len(whole.samples) > 1000
    reader = BlockReader([cut], one_piece_bytes=0, block_rows=500, block_size=1 << 16)
    blocks = all_blocks(reader)
    same_rows(blocks, whole.samples)
    _same_reading(reader.reading, whole, cut)


@pytest.mark.parametrize("name", ["amisha-results-clean.csv", "perfplugin-filewithtransactions.csv",
                                  "mvnplugin-csv3-semicolon.csv", "taurus-distributed-multiline-crlf.jtl"])
def test_the_ends_are_the_files_first_and_last_rows(corpus, name):
    """(A file with sub-results can differ at a cut: a sub-result whose parent is before it is kept.)"""
    whole = read_jtl(corpus / name).samples
    ends = BlockReader([corpus / name], one_piece_bytes=0).ends(nbytes=3000)
    assert ends is not None and len(ends.tables) == 2
    first, last = ends.tables
    for rows in (first, last):
        assert 0 < len(rows) <= len(whole)  # a file of fewer than 3,000 bytes is its own head and tail
    same_rows([first], whole.iloc[:len(first)])
    same_rows([last], whole.iloc[len(whole) - len(last):])
    assert ends.rows_estimate == pytest.approx(len(whole), rel=0.5)  # bytes per row of the ends, times the file


@pytest.mark.parametrize("name", ["ssun86-predict-nested.xml", "sonar-test-trans.jtl.xml"])
def test_the_ends_of_an_xml_jtl_are_its_first_and_last_top_level_samples(corpus, monkeypatch, name):
    from littlegrid.jtl import xml_reader

    monkeypatch.setattr(xml_reader, "CHUNK", 4096)  # the head: what expat's first 4 KiB finish
    whole = read_jtl(corpus / name).samples
    ends = BlockReader([corpus / name], one_piece_bytes=0).ends(nbytes=20_000)
    first, last = ends.tables
    assert 0 < len(first) < len(whole) and 0 < len(last) < len(whole)
    same_rows([first], whole.iloc[:len(first)])
    same_rows([last], whole.iloc[len(whole) - len(last):])


def test_the_ends_know_the_transaction_labels_and_none_of_gzip(corpus, tmp_path):
    path = corpus / "perfplugin-filewithtransactions.csv"
    ends = BlockReader([path], one_piece_bytes=0).ends(nbytes=3000)
    assert ends.transactions and ends.transactions <= read_jtl(path).transaction_labels
    zipped = tmp_path / "x.jtl.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    assert BlockReader([zipped], one_piece_bytes=0).ends() is None  # no seeking in a gzip stream
    assert BlockReader([path, zipped], one_piece_bytes=0).ends() is None  # one file without: no guess


def test_transactions_seen_grow_block_by_block(corpus):
    path = corpus / "perfplugin-filewithtransactions.csv"
    reader = BlockReader([path], one_piece_bytes=0, block_rows=40)
    seen = [set(reader.transactions_seen) for _ in reader.blocks()]
    assert seen[-1] == set(read_jtl(path).transaction_labels) and not seen[0] > seen[-1]


@pytest.mark.parametrize("include_subsamples", [False, True])
def test_an_xml_jtl_in_blocks_is_read_jtl_row_for_row_nested_samples_and_a_cut_end_included(
        corpus, tmp_path, monkeypatch, include_subsamples):
    from littlegrid.jtl import xml_reader

    monkeypatch.setattr(xml_reader, "CHUNK", 2048)  # expat fed 2 KiB at a time: a block every few samples
    cut = tmp_path / "killed.xml"  # a run killed mid-write: the document ends inside a sample
    text = (corpus / "ssun86-predict-nested.xml").read_bytes()
    cut.write_bytes(text[:len(text) * 2 // 3])
    for path in [corpus / n for n in ("skruthi-responsedata.xml", "sonar-test-trans.jtl.xml",
                                      "ssun86-predict-nested.xml")] + [cut]:
        whole = read_jtl(path, include_subsamples=include_subsamples)
        reader = BlockReader([path], {"include_subsamples": include_subsamples}, one_piece_bytes=0, block_rows=5)
        blocks = all_blocks(reader)
        assert reader.blocks_read >= min(4, len(whole.samples) // 5), path
        same_rows(blocks, whole.samples)
        _same_reading(reader.reading, whole, path)
