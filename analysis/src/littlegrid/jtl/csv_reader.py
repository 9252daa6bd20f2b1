"""Reads a CSV JTL into raw sample columns: pyarrow in blocks when the file is clean, csv-module row by row when not."""

from __future__ import annotations

import contextlib
import io
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from littlegrid.jtl import read_ahead
from littlegrid.jtl.arrow_csv import DEFAULT_BLOCK_SIZE, USE_THREADS, batches, file_stream, wanted_inputs
from littlegrid.jtl.arrow_csv import arrow_types as _arrow_types, memory_pool as _memory_pool, release as _release
from littlegrid.jtl.csv_rows import read_rows  # the slow exact path, for damaged files only
from littlegrid.jtl.int_buffers import SLACK, IntBuffers
from littlegrid.jtl.raw_csv import RAW_NAMES, RawCsv, truncation_warning
from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.sniff import Sniffed
from littlegrid.jtl.split import record_boundary, record_start_after
from littlegrid.usererror import UserError

PARALLEL_MIN_BYTES = 64 << 20  # smaller files: a second stream's start-up outweighs the gain
MAX_LOCATED = 1000  # more short rows than this: the row-by-row path finds them


def read_csv(path: Path, sniffed: Sniffed, skips: SkipLog, block_size: int = DEFAULT_BLOCK_SIZE,
             fields=None) -> RawCsv:
    """Fast path first; the exact row-by-row path when pyarrow cannot convert a value or a row in the
    middle has the wrong number of fields (then the line numbers of the bad rows are known)."""
    wanted = wanted_inputs(sniffed, fields)
    invalid: list[str] = []
    try:
        frame = _read_arrow(path, sniffed, wanted, block_size, invalid)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, OSError, EOFError):
        return read_rows(path, sniffed, wanted, skips)
    warnings = []
    first_line = 2 if sniffed.header else 1
    line_of = lambda rows: rows + first_line  # noqa: E731
    if invalid:  # rows pyarrow could not split into the header's fields
        truncated = not sniffed.gzip and _is_last_record(path, invalid[-1][0])
        middle = invalid[:-1] if truncated else invalid
        if middle:
            lines = None if sniffed.gzip or len(middle) > MAX_LOCATED else _locate(path, [m[0] for m in middle])
            if lines is None:
                return read_rows(path, sniffed, wanted, skips)
            for (_, actual, expected), line in zip(middle, lines):
                skips.add(f"malformed row ({actual} fields, expected {expected})", line)
            # Good rows after a skipped one sit one line further down: shift their line numbers.
            records = np.asarray(lines) - first_line
            steps = records - np.arange(len(records))
            line_of = lambda rows: rows + first_line + np.searchsorted(steps, rows, side="right")  # noqa: E731
        if truncated:
            warnings.append(truncation_warning(1))
    # Line numbers = record numbers unless a quoted value spans lines (checked only if a row is reported).
    exact = lambda: not any(frame[c].str.contains("\n", regex=False).any()  # noqa: E731
                            for c in ("response_message", "failure_message", "url") if c in frame)
    return RawCsv(frame, skips, warnings, exact_lines=exact, line_of=line_of)


def _locate(path: Path, texts: list[str]) -> list[int] | None:
    """Line numbers of rows given by their text, in file order, found with one scan of the bytes
    (re-reading 5 M rows with the csv module would take ~100 s); None if they cannot be told apart."""
    import mmap

    wanted: dict[bytes, int] = {}
    for text in texts:
        key = text.rstrip("\r\n").encode()
        wanted[key] = wanted.get(key, 0) + 1
    with open(path, "rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
        positions = []
        for key, count in wanted.items():
            def whole_line(start):  # the text is the entire line, not the start of a longer one
                return data[start + len(key):start + len(key) + 1] in (b"", b"\n", b"\r")

            found = [0] if data[:len(key)] == key and whole_line(0) else []
            at = data.find(b"\n" + key)
            while at >= 0:
                if whole_line(at + 1):
                    found.append(at + 1)
                at = data.find(b"\n" + key, at + 1)
            if len(found) != count:  # the same text elsewhere too: only the row-by-row path can tell
                return None
            positions += found
        lines, line, done = [], 1, 0
        for position in sorted(positions):
            line += data[done:position].count(b"\n")
            done = position
            lines.append(line)
    return lines


def _read_arrow(path, sniffed, wanted, block_size, invalid) -> dict[str, pd.Series]:
    """The whole file as one chunk: a large plain file in two halves parsed at once (pyarrow's streaming
    reader uses one core), anything else in one stream."""
    size = _size(path, sniffed)
    cut = None
    if USE_THREADS and not sniffed.gzip and size >= PARALLEL_MIN_BYTES and (os.cpu_count() or 1) > 1:
        cut = record_boundary(path, size // 2, sniffed.timestamp_format is None, sniffed.delimiter)
    if cut is None:
        return next(_arrow_chunks(path, sniffed, wanted, block_size, invalid, chunk_rows=None))
    types = _arrow_types(sniffed, wanted)
    later_invalid: list = []
    memory = _memory_pool()
    with ThreadPoolExecutor(max_workers=1) as pool:
        later = pool.submit(_collect_all, file_stream(path, memory, cut, size), sniffed, wanted, block_size,
                            later_invalid, False, size - cut, types, memory)
        # the first half reserves room for the whole file, so the second half's rows are copied in after it
        buffers, texts = _collect_all(file_stream(path, memory, 0, cut), sniffed, wanted, block_size, invalid,
                                      sniffed.header, size, types, memory)
        later_buffers, later_texts = later.result()
    _release(memory)
    invalid += later_invalid
    buffers.extend(later_buffers)
    for name, blocks in later_texts.items():
        texts[name] += blocks
    return _columns(buffers, texts, types)


def _collect_all(stream, sniffed, wanted, block_size, invalid, header, size, types, memory):
    with stream:
        return next(_collect(stream, sniffed, wanted, block_size, invalid, None, header, size, types, memory))


def _arrow_chunks(path, sniffed, wanted, block_size, invalid, chunk_rows: int | None, first_rows: int | None = None):
    """Raw columns every `chunk_rows` rows (None: once, at the end; the first chunk after `first_rows`, when
    given). Memory stays near the size of one
    chunk's table plus one block."""
    types = _arrow_types(sniffed, wanted)
    ahead = None if sniffed.gzip else read_ahead.claim(path, sniffed, wanted, types, block_size)
    memory = _memory_pool() if ahead is None else ahead.memory
    stream = None if ahead is not None else file_stream(path, memory, compressed=sniffed.gzip)
    with stream if stream is not None else contextlib.nullcontext():
        for buffers, texts in _collect(stream, sniffed, wanted, block_size, invalid, chunk_rows, sniffed.header,
                                       _size(path, sniffed), types, memory, first_rows, ahead):
            yield _columns(buffers, texts, types)
    _release(memory)


def _collect(stream, sniffed, wanted, block_size, invalid, chunk_rows, header, size, types, memory, first_rows=None,
             ahead=None):
    """Stream blocks of `block_size` bytes, moving each block's numbers into NumPy pieces as it arrives;
    yield (integer buffers, text blocks) every `chunk_rows` rows (None: once, at the end; the first time after
    `first_rows`, when given). `size`: the bytes the buffers should expect room for. `ahead`: a read-ahead of
    this stream (read_ahead.claim), whose batches are taken instead of parsing `stream`."""
    def on_invalid(row):
        invalid.append((row.text, row.actual_columns, row.expected_columns))
        return "skip"

    ints = {n: ("int32" if t == pa.int32() else "int64") for n, t in types.items() if pa.types.is_integer(t)}
    times = sniffed.timestamp_format is None
    text_names = [n for n in wanted if n not in ints]  # the consumer empties `texts`: the next chunk's come from here
    buffers, texts, rows = IntBuffers(ints, times), {n: [] for n in text_names}, 0
    limit = first_rows or chunk_rows
    parsed = (ahead.batches(invalid) if ahead is not None
              else batches(stream, sniffed, wanted, types, block_size, header, on_invalid, memory))
    for batch in parsed:
        if buffers.capacity == 0:  # size the buffers from the first block's rows per byte
            estimate = int(size / block_size * batch.num_rows * SLACK) + batch.num_rows
            buffers.reserve(min(estimate, limit + 2 * batch.num_rows) if chunk_rows else estimate)
        named = dict(zip(batch.schema.names, batch.columns))
        buffers.append({n: named[n] for n in ints}, batch.num_rows)
        for name in texts:
            texts[name].append(named[name])
        rows += batch.num_rows
        del batch, named
        if chunk_rows is not None and rows >= limit:
            yield buffers, texts
            buffers, texts, rows, limit = IntBuffers(ints, times), {n: [] for n in text_names}, 0, chunk_rows
    if chunk_rows is None or rows:
        yield buffers, texts


def _size(path: Path, sniffed: Sniffed) -> int:
    """Bytes to parse: the file size (gzip: four times the compressed size, a JTL's usual ratio)."""
    return path.stat().st_size * (4 if sniffed.gzip else 1)


def _columns(buffers: IntBuffers, texts: dict[str, list], types) -> dict[str, pd.Series]:
    """Raw columns of one chunk, named as in the table."""
    columns = {RAW_NAMES.get(name, name): series for name, series in buffers.finish().items()}
    for name in list(texts):
        column = pa.chunked_array(texts.pop(name), type=types[name])
        if pa.types.is_dictionary(column.type):
            columns[RAW_NAMES[name]] = column.to_pandas()  # categorical; block dictionaries unified here
        elif pa.types.is_boolean(column.type):
            columns[RAW_NAMES[name]] = column.to_pandas(types_mapper={pa.bool_(): pd.BooleanDtype()}.get)
        else:  # zero-copy: the text stays in Arrow memory
            columns[RAW_NAMES[name]] = pd.Series(pd.arrays.ArrowStringArray(column))
    return columns


class NotInChunks(UserError):
    """A file the chunked path cannot read, which read_jtl reads whole: a value pyarrow cannot convert (the row by
    row path skips and counts it), or a gzip that breaks off (the row by row path keeps the rows before the break,
    which a chunk's parse loses with its block)."""


def iter_csv_chunks(path: Path, sniffed: Sniffed, block_size: int, chunk_rows: int, fields=None,
                    first_rows: int | None = None):
    """(raw columns, first data line of the chunk, rows pyarrow could not split) per chunk of a clean
    file (only the columns feeding `fields`, when given), the first one after `first_rows` rows when given. A
    value pyarrow cannot convert, or a compressed stream that breaks off, is refused (NotInChunks): the exact
    row-by-row path needs the whole file."""
    wanted = wanted_inputs(sniffed, fields)
    invalid: list[str] = []
    first_record = 0
    try:
        for columns in _arrow_chunks(path, sniffed, wanted, block_size, invalid, chunk_rows, first_rows):
            bad, invalid[:] = list(invalid), []
            rows = len(columns["elapsed_ms"])  # the consumer empties `columns`
            yield columns, first_record + (2 if sniffed.header else 1), bad
            first_record += rows
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError) as error:
        raise NotInChunks(f"{path}: a value cannot be read after record {first_record} ({str(error)[:120]}); read "
                          "the file in one piece (read_jtl) to skip and count bad rows") from None
    except OSError as error:
        if not sniffed.gzip:  # the disk's or the file system's: not the file's content
            raise
        raise NotInChunks(f"{path}: the compressed stream breaks off after record {first_record} ({error}); read "
                          "the file in one piece (read_jtl) to keep the rows before the break") from None


def read_end(path: Path, sniffed: Sniffed, nbytes: int, fields=None, head: bool = False
             ) -> tuple[dict[str, pd.Series], int] | None:
    """The raw columns of a plain CSV file's last records (head: its first ones), from (to) the first record start
    after its last (first) `nbytes` bytes, the whole file when it is no larger, and how many bytes they took; None
    when the file is gzip (no seeking), has no record start there, or pyarrow cannot read them. A guess: the cut is
    found without counting the quotes before it (split.record_start_after), so the caller must not take these rows
    for the file's."""
    if sniffed.gzip:
        return None
    size = path.stat().st_size
    epoch = sniffed.timestamp_format is None
    if size <= nbytes:
        start, end = 0, size
    elif head:
        start, end = 0, record_start_after(path, nbytes, epoch, sniffed.delimiter)
    else:
        start, end = record_start_after(path, size - nbytes, epoch, sniffed.delimiter), size
    if start is None or end is None:
        return None
    wanted = wanted_inputs(sniffed, fields)
    types = _arrow_types(sniffed, wanted)
    try:
        with file_stream(path, None, start, end) as stream:
            buffers, texts = next(_collect(stream, sniffed, wanted, DEFAULT_BLOCK_SIZE, [], None,
                                           sniffed.header and start == 0, end - start, types, None))
            return _columns(buffers, texts, types), end - start
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, OSError):
        return None


def _is_last_record(path: Path, text: str) -> bool:
    """True when `text` is the end of the file: a run killed mid-write leaves a short last record."""
    with open(path, "rb") as stream:
        stream.seek(0, io.SEEK_END)
        size = stream.tell()
        stream.seek(max(0, size - len(text.encode()) - 4096))
        tail = stream.read().decode("utf-8", errors="replace").rstrip("\r\n")
    return tail.endswith(text.rstrip("\r\n"))
