"""iter_jtl: a file too large for one table comes in chunks that add up to what read_jtl gives."""

import numpy as np
import pytest

from littlegrid.jtl import iter_jtl, read_jtl
from littlegrid.usererror import UserError


@pytest.fixture
def long_file(fixture, tmp_path):
    header, *rows = fixture("default-header.jtl").read_text().split("\n")
    single_line = [r for r in rows if r.count(",") == 16]  # the rows without an embedded line break
    body = "".join(f"{1700000000000 + 10 * i}{single_line[i % 3][13:]}\n" for i in range(60_000))
    path = tmp_path / "long.jtl"
    path.write_text(header + "\n" + body)
    return path


def test_chunks_add_up_to_the_whole_table(long_file):
    chunks = list(iter_jtl(long_file, chunk_rows=20_000, block_size=1 << 16))
    assert len(chunks) >= 3
    assert all(len(c.samples) >= 20_000 for c in chunks[:-1])
    whole = read_jtl(long_file)
    starts = np.concatenate([c.samples.start_ms.to_numpy() for c in chunks])
    assert starts.tolist() == whole.samples.start_ms.tolist()
    assert sum(c.samples.latency_ms.sum() for c in chunks) == whole.samples.latency_ms.sum()
    assert all(list(c.samples.columns) == list(whole.samples.columns) for c in chunks)


def test_chunked_reading_skips_degenerate_rows_with_their_lines(fixture):
    path = fixture("zero-timestamps.jtl")
    (chunk,) = iter_jtl(path, chunk_rows=10)
    assert len(chunk.samples) == 1 and chunk.rows_skipped[0].first_lines == (f"{path}:2", f"{path}:4")


def test_chunked_reading_refuses_a_value_it_cannot_convert(fixture):
    with pytest.raises(UserError, match="read the file in one piece"):
        list(iter_jtl(fixture("malformed-middle-rows.jtl")))


def test_later_chunks_keep_their_text_columns(long_file):
    # the reader handed later chunks no labels, threads or codes (their text columns were emptied by the first)
    chunks = list(iter_jtl(long_file, chunk_rows=20_000, block_size=1 << 16))
    whole = read_jtl(long_file).samples
    labels = [label for c in chunks for label in c.samples.label.astype(str)]
    assert len(chunks) >= 3 and labels == whole.label.astype(str).tolist()
    assert chunks[-1].samples.thread.notna().all()
