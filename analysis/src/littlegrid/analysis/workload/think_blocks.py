"""The rows think time reads, spilled to partition files by thread: what lets think_time.ThinkTimeAccumulator
measure a cell read block by block (rowblock.py) in memory bounded by one partition, not the cell.

Think time follows each thread through its samples in start order, and a thread's rows are spread over every
block, so no block can be measured alone. A larger cell's rows go to partition files by thread (key % parts),
33 bytes a row, each block appended as it comes; the accumulator then measures one partition at a time: threads
are independent, so a partition that holds whole threads can be measured alone.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from littlegrid.analysis.statistics.rowblock import Block

# A partition's rows and the measurement's temporaries at once: some 70 bytes a row at the peak (71 MiB for
# partitions of 1 M rows of a 5 M-row cell, 234 MiB for the cell measured whole). Smaller partitions cost no
# time (the measurement of 5 M rows in 5 partitions took 0.9-1.1x the whole cell's), only files.
ROWS_PER_PARTITION = 1_000_000
# A partition holds whole threads: one longer than this is measured a slice of rows at a time (a cell of 50
# threads and 300 M rows has 6 M rows a thread), carrying each thread's last row into the next slice.
SLICE_ROWS = 1_000_000


def partitions_for(rows: int) -> int:
    """How many partitions a cell of `rows` rows is spilled to (read at call time: tests make them small)."""
    return max(1, math.ceil(rows / ROWS_PER_PARTITION))


@dataclass(frozen=True)
class ThreadRows:
    """The columns think time reads, for some rows of a cell (each thread's rows in file order)."""

    key: np.ndarray  # the thread, the same integer in every block
    start: np.ndarray  # int64 ms
    end: np.ndarray  # int64 ms
    idle: np.ndarray | None  # IdleTime, null as 0; None when every one is 0 or null
    is_transaction: np.ndarray  # bool: a Transaction Controller row

    @classmethod
    def of(cls, block: Block) -> ThreadRows:
        rows = block.everything
        idle = rows["idle_ms"].to_numpy(dtype=np.int64, na_value=0) if "idle_ms" in rows else None
        return cls(np.asarray(block.keys), rows["start_ms"].to_numpy(dtype=np.int64),
                   rows["end_ms"].to_numpy(dtype=np.int64), idle if idle is not None and idle.any() else None,
                   np.asarray(block.is_transaction, dtype=bool))

    def __len__(self) -> int:
        return len(self.key)

    @classmethod
    def concat(cls, first: ThreadRows, then: ThreadRows) -> ThreadRows:
        """`first`'s rows, then `then`'s (file order kept)."""
        idle = None if first.idle is None and then.idle is None else np.concatenate(
            [r.idle if r.idle is not None else np.zeros(len(r), np.int64) for r in (first, then)])
        return cls(np.concatenate((first.key, then.key)), np.concatenate((first.start, then.start)),
                   np.concatenate((first.end, then.end)), idle,
                   np.concatenate((first.is_transaction, then.is_transaction)))

    def last_of_each_thread(self) -> ThreadRows:
        """Each thread's last row by start (the last written of equal starts), by ascending thread: where its
        sequence goes on. Threads are numbered 0, 1, 2...: found without a sort (a sort of a 250,000-row block
        took 24 ms)."""
        keys, starts = self.key, self.start
        size = int(keys.max()) + 1 if len(keys) else 0
        latest = np.full(size, np.iinfo(np.int64).min, np.int64)
        np.maximum.at(latest, keys, starts)
        at_latest = np.flatnonzero(starts == latest[keys])
        last = np.full(size, -1, np.int64)
        np.maximum.at(last, keys[at_latest], at_latest)
        last = last[last >= 0]
        return ThreadRows(self.key[last], self.start[last], self.end[last],
                          None if self.idle is None else self.idle[last], self.is_transaction[last])


class ThreadPartitions:
    """Rows in `parts` partitions by thread (key % parts), one raw file of 33-byte records per partition in a
    temporary folder, appended block by block: a partition holds whole threads, each in file order. One file, not
    one per column: a block is written with one open and one write per partition, not five (the tests spill to
    thousands of small partitions). The folder goes with close(), or with the object."""

    COLUMNS = (("key", np.int64), ("start", np.int64), ("end", np.int64), ("idle", np.int64),
               ("is_transaction", np.bool_))
    RECORD = np.dtype(list(COLUMNS))  # packed: 33 bytes a row

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.folder = Path(tempfile.mkdtemp(prefix="littlegrid-think-"))
        self._remove = weakref.finalize(self, shutil.rmtree, self.folder, ignore_errors=True)

    def write(self, rows: ThreadRows) -> None:
        order, bounds = None, np.array([0, len(rows)])
        if self.parts > 1:
            part = rows.key % self.parts
            # a stable sort on the partition (a radix sort on 16 bits): each thread's rows keep their file order
            order = np.argsort(part.astype(np.uint16 if self.parts <= 2**16 else np.int64), kind="stable")
            bounds = np.concatenate(([0], np.cumsum(np.bincount(part, minlength=self.parts))))
        filled = np.flatnonzero(np.diff(bounds))
        records = np.empty(len(rows), self.RECORD)
        for name, dtype in self.COLUMNS:
            column = getattr(rows, name)
            records[name] = 0 if column is None else (column if order is None else column[order])
        for p in filled:
            with open(self._path(p), "ab") as f:
                records[bounds[p]:bounds[p + 1]].tofile(f)

    def rows_in(self, p: int) -> int:
        """How many rows partition p holds."""
        path = self._path(p)
        return path.stat().st_size // self.RECORD.itemsize if path.exists() else 0

    def read(self, p: int, idle: bool, lo: int = 0, hi: int | None = None) -> ThreadRows | None:
        """Partition p's rows lo..hi (all by default; None when it has none); `idle`: whether to read IdleTime (a
        positive one in the cell)."""
        path = self._path(p)
        if not path.exists():
            return None
        count = -1 if hi is None else hi - lo
        records = np.fromfile(path, self.RECORD, count=count, offset=lo * self.RECORD.itemsize)
        # each column contiguous, as the measurement reads it
        columns = {name: np.ascontiguousarray(records[name]) for name, _ in self.COLUMNS if name != "idle" or idle}
        del records
        return ThreadRows(idle=columns.pop("idle", None), **columns)

    def close(self) -> None:
        self._remove()

    def _path(self, p: int) -> Path:
        return self.folder / f"{p}.rows"
