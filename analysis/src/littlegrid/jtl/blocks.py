"""A cell's JTL files as blocks of rows, in bounded memory, as often as the analysis asks, and their ends.

Files that together fit ONE_PIECE_BYTES are read once, in one piece (read_jtl), and every pass gets that one
block: small files cost no second read. Larger files are read BLOCK_ROWS rows at a time (an XML file about as
many samples, a block ending between top-level samples), so memory holds one block's table whatever the file's
length. The blocks add up to read_jtl's table, row for row: sub-results whose parent closed the previous block
are still found (assemble's carried parents), and the Reading after a pass (rows read, skips, notes, transaction
labels) is what read_jtl would give, with two differences a CSV read in pieces cannot avoid: a row pyarrow cannot
split is counted without its line number; a file with a value pyarrow cannot convert is read in one piece
instead (read_jtl's row-by-row path needs the whole file). ends() reads the first and last rows of each file, for
the analysis to guess before its one pass what only a whole pass can tell.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid.jtl import ALWAYS_READ, read_jtl
from littlegrid.jtl.schema import THREAD_NUMBER_SUFFIX
from littlegrid.jtl.assemble import assemble, parents_warning, transaction_warning
from littlegrid.jtl.csv_reader import DEFAULT_BLOCK_SIZE, NotInChunks, _is_last_record, iter_csv_chunks, read_end
from littlegrid.jtl.raw_csv import truncation_warning
# ~2 M rows of a default CSV: its table (~150 bytes a row) stays near 300 MB; the read-ahead starts only above it
from littlegrid.jtl.read_ahead import ONE_PIECE_BYTES
from littlegrid.jtl.reading import Reading, SkipLog
from littlegrid.jtl.schema import COLUMNS, CSV_TO_COLUMN
from littlegrid.jtl.sniff import is_gzip, sniff
from littlegrid.jtl import xml_reader
from littlegrid.jtl.xml_reader import iter_xml
from littlegrid.usererror import UserError, at

BLOCK_BYTES = DEFAULT_BLOCK_SIZE  # bytes pyarrow parses at a time (tests shrink it, with BLOCK_ROWS, for many blocks)
TAIL_BYTES = 4 << 20  # each end of each file ends() reads: ~30 k rows of a default CSV
# the first block is smaller: the analysis waits for it with nothing to do (0.44 s for 500,000 rows, 0.1 for these)
FIRST_BLOCK_ROWS = 100_000
BLOCK_ROWS = 250_000  # 2026-11-27, median of 4: at 5 M rows as fast as 500 k (7.96 s, 8.19 s) at 509 MiB, not 622; 100 M rows at 731 MiB, not 1,004


class BlockReader:
    """The JTL files of one cell, handed out block by block (`blocks()`), as often as the analysis asks.

    read_options: read_jtl's keywords (columns, delimiter, timestamp_format, timestamp_is_start,
    include_subsamples). After each complete pass, `reading` is that pass's Reading without its table
    (`samples` empty): rows read, skips, notes, absent columns, format, transaction labels.
    """

    def __init__(self, paths, read_options: dict | None = None, one_piece_bytes: int | None = None,
                 block_rows: int | None = None, block_size: int | None = None, left_out_groups: tuple = ()):
        self.paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
        if not self.paths:
            raise UserError("no JTL files given")
        self.options = dict(read_options or {})
        self.block_rows = BLOCK_ROWS if block_rows is None else block_rows  # None: the module's (tests shrink it)
        self.block_size = BLOCK_BYTES if block_size is None else block_size
        for path in self.paths:
            if not path.exists():
                raise at(str(path), None, "no such file")
            if path.is_dir():
                raise at(str(path), None, "is a directory, not a JTL file")
        limit = ONE_PIECE_BYTES if one_piece_bytes is None else one_piece_bytes
        # a gzip JTL's text is about four times its size on disk (csv_reader._size's ratio)
        self.one_piece = sum(p.stat().st_size * (4 if is_gzip(p) else 1) for p in self.paths) <= limit
        self._whole: Reading | None = None  # the one-piece read, kept for the next pass
        self._in_one_piece: set[Path] = set()  # CSV files with a value pyarrow cannot convert
        self.reading: Reading | None = None
        self.blocks_read = 0
        self.transactions_seen: set[str] = set()  # Transaction Controller labels in the blocks handed out so far
        # thread groups whose rows are no part of the load (a plan's setUp and tearDown groups), by thread name
        self._left_out = (re.compile(r"(?:^|-)(?:" + "|".join(re.escape(g) for g in left_out_groups) + ")"
                                     + THREAD_NUMBER_SUFFIX + "$") if left_out_groups else None)
        self.rows_left_out = 0  # in the last complete pass

    def _load_only(self, table: pd.DataFrame) -> pd.DataFrame:
        """The table without the rows of the left-out thread groups (decided once per distinct thread name)."""
        if self._left_out is None or not len(table):
            return table
        threads = table["thread"].astype("category")
        names = threads.cat.categories
        drop_codes = [i for i, name in enumerate(names) if self._left_out.search(str(name))]
        if not drop_codes:
            return table
        mask = threads.cat.codes.isin(drop_codes).to_numpy()
        self.rows_left_out += int(mask.sum())
        return table[~mask].reset_index(drop=True)

    def blocks(self, fields=None) -> Iterator[pd.DataFrame]:
        """The cell's rows, block by block in file order (files in the order given), with the table columns
        `fields` filled (the others all-null); rows of the left-out thread groups are not handed out (counted in
        rows_left_out). One block when the files fit one piece."""
        self.rows_left_out = 0
        for table in self._blocks(fields):
            yield self._load_only(table)

    def _blocks(self, fields=None) -> Iterator[pd.DataFrame]:
        if self.one_piece:
            if self._whole is None or (fields is not None and not set(fields) <= self._fields):
                self._whole = read_jtl(self.paths, fields=fields, **self.options)
                self._fields = set(COLUMNS) if fields is None else set(fields) | ALWAYS_READ
            self.reading = Reading(samples=self._whole.samples.iloc[:0], rows_read=self._whole.rows_read,
                                   rows_skipped=self._whole.rows_skipped, warnings=list(self._whole.warnings),
                                   absent_columns=list(self._whole.absent_columns), format=self._whole.format,
                                   transaction_labels=self._whole.transaction_labels)
            self.blocks_read = 1
            self.transactions_seen = set(self._whole.transaction_labels)
            yield self._whole.samples
            return
        yield from self._pieces(fields)

    def _pieces(self, fields) -> Iterator[pd.DataFrame]:
        fields = None if fields is None else frozenset(fields) | ALWAYS_READ
        pass_ = _Pass()
        self.reading, self.blocks_read = None, 0
        self.transactions_seen = pass_.transactions
        for path in self.paths:
            sniffed = sniff(path, self.options.get("columns"), self.options.get("timestamp_format"),
                            self.options.get("delimiter"))
            if path in self._in_one_piece:
                yield from pass_.whole(self._read_whole(path, fields))
                self.blocks_read += 1
                continue
            if sniffed.kind == "xml":  # expat holds the GIL: a producer thread would only take turns with us
                for table in self._xml_blocks(path, sniffed, pass_):
                    self.blocks_read += 1
                    yield table
                continue
            try:
                for table in self._csv_blocks(path, sniffed, fields, pass_):
                    self.blocks_read += 1
                    yield table
            except _NotInPieces:
                # a value pyarrow cannot convert, or a gzip that breaks off: read_jtl's row-by-row path reads it
                self._in_one_piece.add(path)
                if self.blocks_read:  # the caller has seen blocks of this pass already: it must begin again
                    raise ReadAgain(f"{path}: read in one piece") from None
                yield from pass_.whole(self._read_whole(path, fields))
                self.blocks_read += 1
        self.reading = pass_.reading()

    def _read_whole(self, path: Path, fields) -> Reading:
        return read_jtl(path, fields=fields, block_size=self.block_size, **self.options)

    def _csv_blocks(self, path: Path, sniffed, fields, pass_: "_Pass") -> Iterator[pd.DataFrame]:
        file = _File(path, sniffed, pass_)
        carried = pd.DataFrame({"parent": np.array([], object), "thread": np.array([], object),
                                "start": np.array([], np.int64), "parent_end": np.array([], np.int64)})
        bad_rows: list = []
        # pyarrow parses the next chunk on another thread (without the GIL) while this one is assembled and analysed
        chunks = prefetched(iter_csv_chunks(path, sniffed, self.block_size, self.block_rows, fields,
                                            min(FIRST_BLOCK_ROWS, self.block_rows)))
        while True:
            try:
                raw, first_line, bad = next(chunks)
            except StopIteration:
                break
            except NotInChunks:
                raise _NotInPieces() from None
            bad_rows += bad
            done = self._assemble(raw, file.source, file.skips, sniffed,
                                  lambda rows, first=first_line: rows + first, carried)
            carried = done.parents
            yield file.add(done, _absent(done.absent, fields, sniffed))
        if bad_rows:  # a run killed mid-write leaves a short last record: a note, not a skipped row
            truncated = not sniffed.gzip and _is_last_record(path, bad_rows[-1][0])
            for _, actual, expected in bad_rows[:-1] if truncated else bad_rows:
                file.skips.add(f"malformed row ({actual} fields, expected {expected}; line unknown when read in "
                               "blocks)", None)
            if truncated:
                file.notes.append(f"{file.source}: {truncation_warning(1)}")
        file.close()

    def _xml_blocks(self, path: Path, sniffed, pass_: "_Pass") -> Iterator[pd.DataFrame]:
        """An XML file about block_rows samples at a time (xml_reader.iter_xml), as read_jtl assembles it whole:
        every column is read (XML has no columns to skip); a column is absent when no block has it."""
        file = _File(path, sniffed, pass_)
        include_subsamples = self.options.get("include_subsamples", False)
        for raw, warnings, line_of in iter_xml(path, sniffed, file.skips, include_subsamples, self.block_rows):
            file.notes += warnings
            done = self._assemble(raw, file.source, file.skips, sniffed, line_of)
            yield file.add(done, done.absent)
        file.close()

    def _assemble(self, raw, source: str, skips: SkipLog, sniffed, line_of, carried=None):
        """Raw columns into table rows, as read_jtl does: a CSV's sub-results are found by label (its parents
        carried from the previous block), an XML's by nesting."""
        return assemble(raw, source, skips, timestamp_format=sniffed.timestamp_format,
                        timestamp_is_start=self.options.get("timestamp_is_start", True),
                        include_subsamples=self.options.get("include_subsamples", False),
                        detect_subresults=sniffed.kind != "xml", line_of=line_of, carried_parents=carried)

    def ends(self, fields=None, nbytes: int | None = None) -> "Ends | None":
        """The first and last rows of every file (its first and last `nbytes`: jtl.csv_reader.read_end), for a
        guess of what only a whole pass can tell (the first sample's start, the last one's end, the transaction
        labels, rows per label) before that pass; None when a file cannot be read so (gzip, read in one
        piece, no record start found, unreadable). Its rows are a guess too: the cuts are not checked against
        the quotes before them, and a sub-result whose parent is before a cut is kept."""
        nbytes = TAIL_BYTES if nbytes is None else nbytes  # read at call time: tests shrink it
        tables, transactions, rows, nbytes_read = [], set(), 0, 0
        for path in self.paths:
            sniffed = sniff(path, self.options.get("columns"), self.options.get("timestamp_format"),
                            self.options.get("delimiter"))
            if path in self._in_one_piece:
                return None
            for head in (True, False):
                source, skips = str(path), SkipLog(str(path))
                try:
                    if sniffed.kind == "xml":
                        got = self._xml_end(path, sniffed, nbytes, head)
                        if got is None:
                            return None
                        (raw, _, line_of), taken = got
                    else:
                        got = read_end(path, sniffed, nbytes,
                                       None if fields is None else frozenset(fields) | ALWAYS_READ, head)
                        if got is None:
                            return None
                        (raw, taken), line_of = got, (lambda rows: rows)
                    done = self._assemble(raw, source, skips, sniffed, line_of)
                except UserError:
                    return None
                if not len(done.samples):
                    return None
                tables.append(self._load_only(done.samples))
                transactions |= done.transaction_labels
                rows += len(done.samples)
                nbytes_read += taken
        # rows per byte of the ends, times every file's bytes: think time sizes its spill by it
        estimate = int(rows * sum(p.stat().st_size for p in self.paths) / max(nbytes_read, 1)) + 1
        return Ends(tables=tables, transactions=frozenset(transactions), rows_estimate=estimate)

    def _xml_end(self, path: Path, sniffed, nbytes: int, head: bool):
        """(read_xml's tuple, bytes it took) for an XML file's first samples (its first block of expat input) or
        its last ones (xml_reader.read_tail); None for a gzip file or no samples found."""
        include_subsamples = self.options.get("include_subsamples", False)
        size = path.stat().st_size
        if sniffed.gzip:
            return None
        if head:
            blocks = iter_xml(path, sniffed, SkipLog(str(path)), include_subsamples, block_rows=1)
            try:
                return next(blocks), min(size, xml_reader.CHUNK)
            finally:
                blocks.close()
        got = xml_reader.read_tail(path, sniffed, nbytes, include_subsamples)
        return None if got is None else (got, min(size, nbytes))


@dataclass(frozen=True)
class Ends:
    """What BlockReader.ends() found at the start and the end of the files."""

    tables: list[pd.DataFrame]  # per file, its first rows and its last rows, in the samples schema
    transactions: frozenset[str]  # Transaction Controller labels among them
    rows_estimate: int  # the cell's rows, from the ends' bytes per row


def prefetched(blocks: Iterator, depth: int = 1) -> Iterator:
    """The same items, produced `depth` ahead in a thread: pyarrow parses the next block (without the GIL) while
    the caller analyses this one, the two cores' worth of work a file read in one piece gets from its two halves.
    An exception in the producer is raised here, in order; a consumer that stops early stops the producer."""
    items: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def produce():
        try:
            for item in blocks:
                while not stop.is_set():
                    try:
                        items.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            items.put((done, None))
        except BaseException as error:  # handed to the consumer, which raises it
            items.put((done, error))

    worker = threading.Thread(target=produce, name="littlegrid-block-reader", daemon=True)
    worker.start()
    try:
        while True:
            item, error = items.get()
            if item is done:
                if error is not None:
                    raise error
                return
            yield item
            del item
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting on a full queue
            try:
                items.get_nowait()
            except queue.Empty:
                pass
            worker.join(timeout=0.1)


class _NotInPieces(Exception):
    """A CSV file pyarrow cannot convert: read it in one piece."""


class ReadAgain(Exception):
    """A file turned out to need reading in one piece after the pass had handed out blocks: begin the pass
    again (the reader remembers the file)."""


def _count_labels(samples: pd.DataFrame, counts: dict[str, int]) -> None:
    labels = samples["label"]
    for name, n in zip(labels.cat.categories, np.bincount(labels.cat.codes.to_numpy() + 1,
                                                          minlength=len(labels.cat.categories) + 1)[1:]):
        if n:
            counts[str(name)] = counts.get(str(name), 0) + int(n)


_COUNTED = re.compile(r"^(.*?: )(\d+)( .*)$", re.S)


def merge_notes(notes: list[str]) -> list[str]:
    """Per-block notes as one file's: notes that differ only by their leading count ("f: 12 sub-result rows
    ... dropped") are summed, the others kept once, in first-seen order."""
    out: dict[tuple, int | None] = {}
    for note in notes:
        m = _COUNTED.match(note)
        key = (m.group(1), m.group(3)) if m else (note,)
        if m:
            out[key] = (out.get(key) or 0) + int(m.group(2))
        else:
            out.setdefault(key, None)
    return [key[0] if n is None else f"{key[0]}{n}{key[1]}" for key, n in out.items()]


def _absent(absent, fields, sniffed) -> list[str]:
    """read_jtl's rule: an unread column is absent only if the file lacks it."""
    if fields is None:
        return list(absent)
    in_file = {CSV_TO_COLUMN[n] for n in sniffed.names if n in CSV_TO_COLUMN}
    return [c for c in absent if c in fields or c not in in_file]


class _File:
    """What one file's blocks gather for the pass: skips, notes, transaction labels, rows per label, absent
    columns (those absent from every block). close() adds them to the pass, as read_jtl would say them."""

    def __init__(self, path: Path, sniffed, pass_: "_Pass") -> None:
        self.source, self.sniffed, self.pass_ = str(path), sniffed, pass_
        self.skips = SkipLog(self.source)
        self.notes = [f"{self.source}: {note}" for note in sniffed.notes]
        self.transactions: set[str] = set()
        self.label_rows: dict[str, int] = {}
        self.rows = 0  # samples kept, a null label's too (label_rows counts labels)
        self.absent: set[str] | None = None
        self.parents, self.parent_labels = 0, set()  # an XML's top-level Transaction Controller parents

    def add(self, done, absent) -> pd.DataFrame:
        """One assembled block: its table, counted."""
        if done.top_level_parents is not None:  # said once for the file, at close()
            count, labels = done.top_level_parents
            done.warnings.remove(parents_warning(self.source, count, labels))
            self.parents += count
            self.parent_labels |= labels
        self.transactions |= done.transaction_labels
        self.pass_.transactions |= done.transaction_labels
        _count_labels(done.samples, self.label_rows)
        self.notes += [w for w in done.warnings if "Transaction Controller rows kept" not in w]
        self.absent = set(absent) if self.absent is None else self.absent & set(absent)
        self.rows += len(done.samples)
        self.pass_.rows += len(done.samples)
        return done.samples

    def close(self) -> None:
        source, transactions = self.source, self.transactions
        if self.parent_labels:
            self.notes.append(parents_warning(source, self.parents, self.parent_labels))
        if transactions:
            self.notes.append(transaction_warning(source, sum(self.label_rows.get(t, 0) for t in transactions),
                                                  transactions))
        if self.rows == 0:
            if self.skips.total == 0:
                raise at(source, None, "no samples in the file")
            self.notes.append(f"{source}: no usable samples ({self.skips.total} rows skipped)")
        self.pass_.add_file(self.skips, self.notes, self.sniffed.describe(), transactions, self.absent or set())


class _Pass:
    """What one pass over the files gathers for its Reading."""

    def __init__(self):
        self.rows = 0
        self.skips = SkipLog("")
        self.notes: list[str] = []
        self.absent: set[str] | None = None
        self.formats: list[str] = []
        self.transactions: set[str] = set()

    def add_file(self, skips: SkipLog, notes: list[str], fmt: str, transactions: set[str], absent) -> None:
        self.skips.merge(skips)
        self.notes += merge_notes(notes)
        self.formats.append(fmt)
        self.transactions |= transactions
        self.absent = set(absent) if self.absent is None else self.absent & set(absent)

    def whole(self, reading: Reading) -> Iterator[pd.DataFrame]:
        self.rows += len(reading.samples)
        self.skips.add_skips(reading.rows_skipped)
        self.notes += reading.warnings
        self.formats.append(reading.format)
        self.transactions |= set(reading.transaction_labels)
        file_absent = set(reading.absent_columns)
        self.absent = file_absent if self.absent is None else self.absent & file_absent
        yield reading.samples

    def reading(self) -> Reading:
        return Reading(samples=pd.DataFrame(), rows_read=self.rows + self.skips.total, rows_skipped=self.skips.skips(),
                       warnings=self.notes, absent_columns=[c for c in COLUMNS if c in (self.absent or set())],
                       format="; ".join(dict.fromkeys(self.formats)), transaction_labels=frozenset(self.transactions))
