"""A running cell's answered requests second by second: what steady_state.judge reads while JMeter still runs.

Second i is [first start + i s, first start + (i+1) s); a request counts in the second its answer completed in
(its end), and only when it succeeded (no error class: the analysis' classify) and is a request (not a Transaction
Controller parent: warmup_seconds.requests, the analysis' own rule). `counts[i]` is how many,
`sums_ms[i]` the sum of their elapsed times: the series steady_state documents, anchored where the analysis
anchors its window (the first sample's start).

Beside them, per second: `failed`, the requests that completed and failed, and for each cut c of `above_ms` the
answers of elapsed ≥ c ms: what a capacity search's stopping condition reads of an error rate or a percentile
(search/early_stop.py).

Rows reach the JTL in about the order their samples ended, not exactly: each of JMeter's threads hands its sample
to the listener after it ends, and the writer flushes in blocks. So a second is complete, no later answer can
still land in it, only when a row ending at least LATE_S later has been read: the seconds before the one holding
the latest end read, less the one before that. When JMeter has exited the file is final, and every whole second is
complete; the last, partial second is left out as the analysis leaves it out of the window's seconds
(histogram.whole_seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.analysis.steady.warmup_seconds import requests
from littlegrid.run.live.counts import EarlierStart

LATE_S = 1  # whole seconds a row may be written after a row that ended later than it


@dataclass(frozen=True)
class Seconds:
    """The complete seconds of a running cell: answered requests, their elapsed sums, failures, and for each cut
    (ms) the answers at or above it, per second from the first start."""

    counts: np.ndarray
    sums_ms: np.ndarray
    failed: np.ndarray
    above: dict[int, np.ndarray]
    final: bool = False  # JMeter has exited: the file's last seconds are its cool-down (while it runs, none is)


class RunningSeconds:
    """(Not analysis.steady.outage.AnsweredSeconds, which counts what the server answered, failures below 500 included, for
    the silences.) Counts and elapsed sums of the answered requests per completion second, from the first start on, the failures,
    and the answers at or above each of `above_ms`; memory: a few integers per second. `first_start_ms`: the anchor,
    when a re-read knows it."""

    def __init__(self, first_start_ms: int | None = None, above_ms: tuple[int, ...] = ()):
        self.first_start_ms = first_start_ms
        self.last_end_ms: int | None = None
        self.cuts = tuple(int(c) for c in above_ms)
        # rows: answered, elapsed sum, failed, then one per cut
        self._table = np.zeros((3 + len(self.cuts), 64), np.int64)
        self.samples = 0  # every row counted, answered or not

    def add(self, samples: pd.DataFrame, classes: pd.Series) -> None:
        """One batch of rows (the samples schema) and their error classes (null: answered). Raises EarlierStart,
        counting nothing, when a row started before the anchor: the seconds would shift under the counts."""
        if len(samples) == 0:
            return
        start = samples["start_ms"].to_numpy(np.int64)
        first = int(start.min())
        if self.first_start_ms is None:
            self.first_start_ms = first
        elif first < self.first_start_ms:
            raise EarlierStart(first)
        end = samples["end_ms"].to_numpy(np.int64)
        last = int(end.max())
        self.last_end_ms = last if self.last_end_ms is None else max(self.last_end_ms, last)
        self.samples += len(samples)
        second = (end - self.first_start_ms) // 1000
        self._grow(int(second.max()) + 1)
        size = self._table.shape[1]
        request = requests(samples)  # Transaction Controller parents are no answers: the analysis' series
        answered = classes.isna().to_numpy() & request
        elapsed = samples["elapsed_ms"].to_numpy(np.int64)
        self._table[0] += np.bincount(second[answered], minlength=size)
        self._table[1] += np.bincount(second[answered], weights=elapsed[answered], minlength=size).astype(np.int64)
        self._table[2] += np.bincount(second[request & ~answered], minlength=size)
        for j, cut in enumerate(self.cuts):
            slow = answered & (elapsed >= cut)
            self._table[3 + j] += np.bincount(second[slow], minlength=size)

    def _grow(self, seconds: int) -> None:
        if seconds > self._table.shape[1]:
            size = max(seconds, 2 * self._table.shape[1])
            grown = np.zeros((self._table.shape[0], size), np.int64)
            grown[:, : self._table.shape[1]] = self._table
            self._table = grown

    def complete_seconds(self, final: bool = False) -> int:
        """How many leading seconds no later row can still change: while JMeter runs, those ending LATE_S before the
        second of the latest end read; once the file is final (`final`), every whole second."""
        if self.first_start_ms is None or self.last_end_ms is None:
            return 0
        whole = (self.last_end_ms - self.first_start_ms) // 1000  # the second the latest end falls in
        return int(max(0, whole if final else whole - LATE_S))

    def series(self, final: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(counts, sums_ms) of the complete seconds."""
        seconds = self.seconds(final)
        return seconds.counts, seconds.sums_ms

    def seconds(self, final: bool = False) -> Seconds:
        """Every per-second series of the complete seconds."""
        n = self.complete_seconds(final)
        self._grow(n)
        t = self._table[:, :n].copy()
        return Seconds(t[0], t[1], t[2], {cut: t[3 + j] for j, cut in enumerate(self.cuts)}, final)
