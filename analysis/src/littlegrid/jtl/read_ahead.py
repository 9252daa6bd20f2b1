"""A large CSV JTL parsed from the start of the process, before the analysis modules are imported.

`littlegrid report` of one large file spends its first second importing pandas, pydantic and the package on one
core while the other idles. start() opens pyarrow's stream of the file on a thread at once (this module, and what
it imports, need no pandas) and keeps its record batches, at most ROWS_AHEAD rows of them; the block reader's
first stream of that file claims them (claim(): same file, same columns, types and options, else the read-ahead
is stopped and the reader opens its own stream), so the figures are those of any other read. Of a 5 M-row file,
650-710 k rows were parsed when the analysis's pass started (docs/report.md)."""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path

from littlegrid.jtl.arrow_csv import DEFAULT_BLOCK_SIZE, arrow_types, batches, file_stream, memory_pool, wanted_inputs

ONE_PIECE_BYTES = 256 << 20  # smaller inputs are read in one piece (jtl.blocks): nothing to read ahead
ROWS_AHEAD = 1_500_000  # parsed before anyone claims them, at most (~150 MB of batches, about a second of parse)
ROWS_CLAIMED = 100_000  # parsed ahead of the claimer, at most, once it reads them (its own chunks do the rest)

_started: "ReadAhead | None" = None
_running: list["ReadAhead"] = []  # every one started, claimed or not, until shutdown()


def start(path: Path, sniffed, fields, block_size: int = DEFAULT_BLOCK_SIZE) -> None:
    """Start parsing `path` (a plain CSV JTL, as sniffed) for a reader of the samples-table columns `fields`."""
    global _started
    discard()
    wanted = wanted_inputs(sniffed, fields)
    _started = ReadAhead(Path(path), sniffed, wanted, arrow_types(sniffed, wanted), block_size)
    _running.append(_started)


def claim(path: Path, sniffed, wanted, types, block_size: int) -> "ReadAhead | None":
    """The read-ahead of this very stream (the whole file from its start, these columns, types and block size),
    handed over once; None when there is none. One started for anything else is stopped."""
    global _started
    ahead, _started = _started, None
    if ahead is None:
        return None
    if ahead.key == _key(Path(path), sniffed, wanted, types, block_size):
        ahead.claimed = True
        return ahead
    ahead.stop()
    return None


def discard() -> None:
    """Stop a read-ahead nobody claimed (its rows are dropped)."""
    global _started
    ahead, _started = _started, None
    if ahead is not None:
        ahead.stop()


def shutdown() -> None:
    """Stop every read-ahead and wait for its thread: the interpreter must not finalize under a parse in flight."""
    discard()
    while _running:
        _running.pop().stop(wait=True)


def _key(path: Path, sniffed, wanted, types, block_size: int) -> tuple:
    stat = path.stat()
    return (str(path.resolve()), stat.st_size, stat.st_mtime_ns, tuple(sniffed.names), sniffed.delimiter,
            bool(sniffed.header), tuple(wanted), tuple((n, str(t)) for n, t in types.items()), block_size)


class ReadAhead:
    """pyarrow's record batches of one file, parsed on a thread into a bounded queue, with the rows it could not
    split (pyarrow's invalid-row handler) given with the batch it found them in."""

    def __init__(self, path: Path, sniffed, wanted, types, block_size: int) -> None:
        self.key = _key(path, sniffed, wanted, types, block_size)
        self.claimed = False
        self.memory = memory_pool()
        self._ready = threading.Condition()
        self._items: deque = deque()
        self._rows, self._limit = 0, ROWS_AHEAD
        self._done, self._stopped, self._error = False, False, None
        self._invalid: list = []
        self._thread = threading.Thread(target=self._parse, args=(path, sniffed, wanted, types, block_size),
                                        name="littlegrid-read-ahead", daemon=True)
        self._thread.start()

    def _on_invalid(self, row):
        self._invalid.append((row.text, row.actual_columns, row.expected_columns))
        return "skip"

    def _parse(self, path, sniffed, wanted, types, block_size) -> None:
        try:
            with file_stream(path, self.memory) as stream:
                for batch in batches(stream, sniffed, wanted, types, block_size, sniffed.header, self._on_invalid,
                                     self.memory):
                    bad, self._invalid = self._invalid, []
                    with self._ready:
                        self._items.append((batch, bad))
                        self._rows += batch.num_rows
                        self._ready.notify_all()
                        while self._rows >= self._limit and not self._stopped:
                            self._ready.wait()
                        if self._stopped:
                            return
        except BaseException as error:  # raised to the claimer, in order, after the batches before it
            with self._ready:
                self._error = error
        finally:
            with self._ready:
                self._done = True
                self._ready.notify_all()

    def batches(self, invalid: list):
        """The batches in file order, as `batches` (arrow_csv) would give them; the rows pyarrow could not split
        are added to `invalid` as the batch they were found in is taken."""
        with self._ready:
            self._limit = ROWS_CLAIMED
            self._ready.notify_all()
        while True:
            with self._ready:
                while not self._items and not self._done and not self._stopped:
                    self._ready.wait()
                if self._items:
                    batch, bad = self._items.popleft()
                    self._rows -= batch.num_rows
                    self._ready.notify_all()
                elif self._error is not None:
                    raise self._error
                elif self._stopped:  # its batches were dropped (shutdown): never taken for the file's end
                    raise RuntimeError(f"{self.key[0]}: the read-ahead was stopped before the end of the file")
                else:
                    return
            invalid.extend(bad)
            yield batch
            del batch

    def stop(self, wait: bool = False) -> None:
        """Stop parsing (after the batch in flight) and drop the batches kept; `wait`: until the thread ended."""
        with self._ready:
            self._stopped = True
            self._items.clear()
            self._ready.notify_all()
        if wait:
            self._thread.join()
