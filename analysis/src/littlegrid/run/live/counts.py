"""The running cell's rows as counts: each batch of new rows goes into the analysis' own accumulators, so the live
figures are the summary's formulas over the rows read so far and memory does not grow with the rows.

The window so far is [first start + warm-up, last end read] (window.window_of, no cool-down: its end is not known
yet). Its statistics are SampleStatsAccumulator's over the rows that completed in it; the series over the whole
cell are a growing TimeSeriesAccumulator (series.py: buckets of 1 s, twice as wide whenever the cell outgrows the
point budget). Both are anchored at the first start: rows arrive in completion order, so a sample that started
before every row read so far can come later (a slow first request); the counts then cannot be moved, and
`EarlierStart` says the rows must be counted again from the file's start, anchored at that start (a second read of
what was read so far, never a different figure).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from littlegrid.analysis.statistics.rowblock import EngineNames
from littlegrid.analysis.statistics.series import POINT_BUDGET, TimeSeriesAccumulator
from littlegrid.analysis.statistics.stats import SampleStatsAccumulator
from littlegrid.analysis.steady.window import SteadyWindow, window_of


class EarlierStart(Exception):
    """A row started before the first start the counts are anchored at: count again from the file's start."""

    def __init__(self, start_ms: int):
        super().__init__(f"a sample started at {start_ms}, before the first start counted so far")
        self.start_ms = start_ms


class RunningCounts:
    """Counts of a running cell's samples (no Transaction Controller rows) read so far. Memory: the exact histogram
    of the window's elapsed times, error classes, two sums, and the series' budget of buckets × the distinct values
    in each; never rows. `first_start_ms`: the anchor when it is known from an earlier read. `engine_names`: the
    remote engines as the controller named them, whose allThreads the series adds up (as the analysis does)."""

    def __init__(self, warmup_s: float, engines: int | None, first_start_ms: int | None = None,
                 budget: int = POINT_BUDGET, engine_names: tuple = ()):
        self.warmup_s, self.engines, self.budget = float(warmup_s), engines, budget
        self.engine_names = EngineNames(engine_names)
        self._named = len(engine_names)
        self.first_start_ms = first_start_ms
        self.last_end_ms: int | None = None
        self.samples = 0
        self.trimmed_before = 0  # completed before the window's start (the warm-up)
        self.stats = SampleStatsAccumulator()
        self.series = None if first_start_ms is None else self._series(first_start_ms)

    def _series(self, t0_ms: int) -> TimeSeriesAccumulator:
        return TimeSeriesAccumulator.growing(t0_ms, self.engines, self.budget, named_engines=self._named)

    def add(self, samples: pd.DataFrame, classes: pd.Series) -> None:
        """One batch: samples in the samples schema and their error classes row for row (null: success). Raises
        EarlierStart, counting nothing, when one started before the anchor."""
        if len(samples) == 0:
            return
        start, end = samples["start_ms"].to_numpy(), samples["end_ms"].to_numpy()
        first = int(start.min())
        if self.first_start_ms is None:
            self.first_start_ms = first
            self.series = self._series(first)
        elif first < self.first_start_ms:
            raise EarlierStart(first)
        last = int(end.max())
        self.last_end_ms = last if self.last_end_ms is None else max(self.last_end_ms, last)
        self.samples += len(samples)
        failed = classes.notna().to_numpy()
        self.series.cover(last)
        self.series.add_rows(samples, failed, self.engine_names.codes(samples["thread"]) if self._named else None)
        # the window's end is the last end read, so a row is in it when it ends at or after the start (window_mask)
        inside = end >= self.first_start_ms + int(round(self.warmup_s * 1000))  # window_of's start
        self.trimmed_before += int(len(inside) - inside.sum())
        if inside.all():
            self.stats.add_rows(samples, classes)
        elif inside.any():
            self.stats.add_rows(samples[inside], classes[inside])

    def whole(self) -> SteadyWindow:
        """The cell so far, nothing trimmed (EmptyWindow before two distinct times were read)."""
        return window_of(self.first_start_ms, self.last_end_ms, 0.0, 0.0)

    def window(self) -> SteadyWindow:
        """The steady window so far, with the samples it trimmed before it (EmptyWindow during the warm-up)."""
        window = window_of(self.first_start_ms, self.last_end_ms, self.warmup_s, 0.0)
        return replace(window, samples_trimmed_before=self.trimmed_before)

    def series_result(self, server: pd.DataFrame | None, host: pd.DataFrame | None) -> dict:
        """TimeSeriesAccumulator.result up to the last end read."""
        return self.series.result(server, host, last_end_ms=self.last_end_ms)

    def stats_result(self, window_length_s: float) -> dict:
        """SampleStatsAccumulator.result: STATS of the window's samples."""
        return self.stats.result(window_length_s)
