"""The read-ahead (jtl/read_ahead.py, report_read_ahead.py): a large CSV parsed from the process's start is claimed
by the block reader's first stream of it and gives the very blocks a read without it gives; anything else (other
columns, other options) is dropped and read as usual; it parses no further than its bound; a stop never passes
for the file's end; and `littlegrid report FILE` alone starts it, with the columns the analysis reads."""

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from analysis_synthetic import closed_loop, write_jtl
from littlegrid import cli
from littlegrid.analysis.reading.fields import ANALYZED_FIELDS, LABEL_FIELDS
from littlegrid.commands import report_read_ahead
from littlegrid.jtl import ALWAYS_READ, blocks as jtl_blocks, read_ahead
from littlegrid.jtl.arrow_csv import arrow_types, wanted_inputs
from littlegrid.jtl.sniff import sniff

BLOCK = 1 << 16  # pyarrow's block: a batch of ~550 rows, so a file of 20,000 rows is many batches
FIELDS = frozenset(ANALYZED_FIELDS) | ALWAYS_READ


@pytest.fixture(autouse=True)
def no_read_ahead_left():
    yield
    read_ahead.shutdown()


@pytest.fixture(scope="module")
def jtl(tmp_path_factory) -> Path:
    """20 threads of 20 ms requests and 30 ms think time for 60 s: about 24,000 rows, 2.9 MB."""
    return write_jtl(closed_loop(20, 20, 30, 60), tmp_path_factory.mktemp("ahead") / "closed.jtl")


def _blocks(path: Path, fields=FIELDS):
    reader = jtl_blocks.BlockReader([path], one_piece_bytes=0, block_rows=5000, block_size=BLOCK)
    tables = [t.copy() for t in reader.blocks(fields)]
    return tables, reader.reading


def _same(a, b) -> None:
    (tables_a, reading_a), (tables_b, reading_b) = a, b
    assert len(tables_a) == len(tables_b) > 3
    for x, y in zip(tables_a, tables_b):
        pd.testing.assert_frame_equal(x, y)
    assert (reading_a.rows_read, reading_a.rows_skipped, reading_a.warnings) == (
        reading_b.rows_read, reading_b.rows_skipped, reading_b.warnings)


def test_a_claimed_read_ahead_gives_the_blocks_a_read_without_it_gives(jtl):
    plain = _blocks(jtl)
    read_ahead.start(jtl, sniff(jtl), FIELDS, BLOCK)
    ahead = read_ahead._started
    _same(_blocks(jtl), plain)
    assert ahead.claimed and read_ahead._started is None


def test_a_read_ahead_of_other_columns_is_stopped_and_the_file_read_as_usual(jtl):
    plain = _blocks(jtl)
    read_ahead.start(jtl, sniff(jtl), None, BLOCK)  # every column: not what the analysis reads
    ahead = read_ahead._started
    _same(_blocks(jtl), plain)
    assert not ahead.claimed and ahead._stopped and read_ahead._started is None


def test_rows_pyarrow_cannot_split_are_counted_as_without_it(jtl, tmp_path):
    lines = jtl.read_text(encoding="utf-8").splitlines(keepends=True)
    broken = tmp_path / "broken.jtl"
    broken.write_text("".join(lines[:9000] + ["1700000000000,12,GET /\n"] + lines[9000:]), encoding="utf-8")
    plain = _blocks(broken)
    assert plain[1].skipped_total == 1
    read_ahead.start(broken, sniff(broken), FIELDS, BLOCK)
    _same(_blocks(broken), plain)


def test_it_parses_no_further_than_its_bound_until_claimed(jtl, monkeypatch):
    monkeypatch.setattr(read_ahead, "ROWS_AHEAD", 3000)
    read_ahead.start(jtl, sniff(jtl), FIELDS, BLOCK)
    ahead = read_ahead._started
    deadline = time.monotonic() + 10
    while ahead._rows < 3000 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # time for many more batches, were it not bounded
    with ahead._ready:
        kept = ahead._rows
        batch_rows = max(b.num_rows for b, _ in ahead._items)
    assert 3000 <= kept < 3000 + batch_rows and not ahead._done
    read_ahead.shutdown()
    assert not ahead._thread.is_alive()


def test_a_stop_while_claimed_is_an_error_never_the_files_end(jtl):
    sniffed = sniff(jtl)
    read_ahead.start(jtl, sniffed, FIELDS, BLOCK)
    wanted = wanted_inputs(sniffed, FIELDS)
    ahead = read_ahead.claim(jtl, sniffed, wanted, arrow_types(sniffed, wanted), BLOCK)
    taken = ahead.batches([])
    assert next(taken).num_rows > 0
    ahead.stop(wait=True)
    with pytest.raises(RuntimeError, match="stopped before the end of the file"):
        list(taken)


@pytest.mark.parametrize("argv, starts", [
    (["report", "{jtl}"], True),
    (["report", "{jtl}", "-o", "out", "--warmup", "5", "--cooldown=2"], True),
    (["report", "{jtl}", "--by-label"], True),
    (["report", "{jtl}", "--columns", "a,b"], False),  # an option that changes the reading
    (["report", "{jtl}", "{jtl}"], False),
    (["analyze", "{jtl}"], False),
    (["report", "-o"], False),
])
def test_only_a_report_of_one_large_plain_csv_starts_it(jtl, monkeypatch, argv, starts):
    monkeypatch.setattr(read_ahead, "ONE_PIECE_BYTES", 1 << 20)
    report_read_ahead.start([a.format(jtl=jtl) for a in argv])
    ahead = read_ahead._started
    assert (ahead is not None) == starts
    if ahead is not None:
        wanted = ahead.key[6]
        assert "bytes" in wanted and "URL" not in wanted  # a JTL file is analysed by label; URL is never read


def test_a_file_the_report_reads_in_one_piece_or_a_gzip_starts_nothing(jtl, tmp_path, monkeypatch):
    report_read_ahead.start(["report", str(jtl)])  # 2.9 MB: one piece at the default limit
    assert read_ahead._started is None
    monkeypatch.setattr(read_ahead, "ONE_PIECE_BYTES", 1 << 10)
    gz = tmp_path / "closed.jtl.gz"
    gz.write_bytes(gzip.compress(jtl.read_bytes()))
    report_read_ahead.start(["report", str(gz)])
    assert read_ahead._started is None


def test_the_report_of_a_read_ahead_is_the_report_without_it(jtl, tmp_path, monkeypatch):
    """The command's own path: start(argv) then the report, as cli.entry does; the summary is the same as a report
    that read the file itself."""
    monkeypatch.setattr(read_ahead, "ONE_PIECE_BYTES", 1 << 20)
    monkeypatch.setattr(jtl_blocks, "ONE_PIECE_BYTES", 1 << 20)
    monkeypatch.setattr(jtl_blocks, "BLOCK_ROWS", 5000)
    argv = ["report", str(jtl), "-o", str(tmp_path / "ahead"), "--warmup", "5", "--cooldown", "5"]
    report_read_ahead.start(argv)
    ahead = read_ahead._started
    assert cli.main(argv) == 0 and ahead.claimed
    assert cli.main(["report", str(jtl), "-o", str(tmp_path / "plain"), "--warmup", "5", "--cooldown", "5"]) == 0
    with_it, without = (json.loads((tmp_path / d / "summary.json").read_text()) for d in ("ahead", "plain"))
    assert with_it["cells"] == without["cells"] and with_it["findings"] == without["findings"]
    assert with_it["cells"][0]["reading"]["rows_read"] == len(jtl.read_text().splitlines()) - 1  # every row, once


def test_the_console_script_starts_parsing_before_pandas_is_imported(jtl, monkeypatch):
    code = ("import sys; from littlegrid.commands import report_read_ahead; from littlegrid.jtl import read_ahead; "
            "read_ahead.ONE_PIECE_BYTES = 1 << 20; report_read_ahead.start(['report', sys.argv[1]]); "
            "print(read_ahead._started is not None, 'pandas' in sys.modules); read_ahead.shutdown()")
    out = subprocess.run([sys.executable, "-c", code, str(jtl)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]
