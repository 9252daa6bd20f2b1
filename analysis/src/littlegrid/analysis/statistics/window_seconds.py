"""The window's samples second by second, counted block by block: completions per second, the block length,
the per-block exact histograms the summary keeps (blocks.BlockHistograms) and the per-second ones a capacity
search resamples (histogram.SecondHistograms).

Memory (issue 36): a few integers per second (completions, their elapsed sum, failures), and the distinct
(unit, elapsed) pairs, where a unit is one second up to blocks.UNITS_MAX seconds and blocks.second_unit(seconds)
seconds beyond: at most UNITS_MAX units × the distinct values in each, however long the window. The blocks are
whole units (blocks.block_length), so they come out exactly as from the samples; never rows."""

from __future__ import annotations

import numpy as np

from littlegrid.analysis.reading.histogram import ExactHistogram, HistogramAccumulator, SecondHistograms
from littlegrid.analysis.reading.int_sort import pair_counts
from littlegrid.analysis.statistics.rowblock import Block
from littlegrid.analysis.steady.blocks import BlockHistograms, block_length, second_unit
from littlegrid.analysis.steady.window import SteadyWindow

VALUE_BITS = 36  # elapsed < 2**36 ms (the reader drops anything longer than a year): key = unit · 2**36 + elapsed


class WindowSecondsAccumulator:
    def __init__(self, window: SteadyWindow) -> None:
        self.start_ms = window.start_ms
        self.seconds = max(1, int((window.end_ms - window.start_ms) // 1000))
        self.unit = second_unit(self.seconds)
        self.n = np.zeros(self.seconds, np.int64)
        self.elapsed_sum = np.zeros(self.seconds, np.int64)
        self.failures = np.zeros(self.seconds, np.int64)
        self._pairs = HistogramAccumulator()  # (unit, elapsed) keys

    def add(self, block: Block) -> None:
        inside = block.samples_in_window
        samples = block.samples
        end = samples["end_ms"].to_numpy()[inside]
        elapsed = samples["elapsed_ms"].to_numpy(dtype=np.int64)[inside]
        # a last partial second joins the one before (histogram.completions_per_second's rule)
        second = ((end - self.start_ms) // 1000).astype(np.int64).clip(0, self.seconds - 1)
        failed = block.sample_classes.notna().to_numpy()[inside]
        # each row added to its own second (ufunc.at: exact integer sums, and no pass over the window's seconds,
        # which are millions in a JTL spanning months while a block's rows are a few)
        np.add.at(self.n, second, 1)
        np.add.at(self.elapsed_sum, second, elapsed)
        np.add.at(self.failures, second[failed], 1)
        if self.unit > 1:
            second //= self.unit  # from here on the unit
        counted = pair_counts(second, elapsed)  # a block spans few seconds and elapsed values: no sort
        if counted is not None:
            units, values, counts = counted
            self._pairs.add_histogram(ExactHistogram((units << VALUE_BITS) + values, counts))
            return
        second <<= VALUE_BITS
        second += elapsed
        self._pairs.add(second)

    def _pairs_at(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(unit, index into `values`, count) of every (unit, elapsed) pair that occurred."""
        h = self._pairs.result()
        return h.values >> VALUE_BITS, np.searchsorted(values, h.values & ((1 << VALUE_BITS) - 1)), h.counts

    def block_histograms(self, elapsed: ExactHistogram) -> BlockHistograms:
        """What BlockHistograms.from_samples gives for the window's samples: blocks of block_length seconds
        (from the per-second means; whole units), each an exact histogram over the cell histogram's values."""
        block = block_length(self.n, self.elapsed_sum)  # integer sums: memory_length divides only the busy seconds
        blocks = max(1, self.seconds // block)
        unit, index, counts = self._pairs_at(elapsed.values)
        dense = np.zeros((blocks, len(elapsed.values)), np.int64)
        np.add.at(dense, (np.minimum(unit * self.unit // block, blocks - 1), index), counts)
        return BlockHistograms(elapsed.values.astype(float), dense, block)

    def second_histograms(self, elapsed: ExactHistogram) -> SecondHistograms:
        """One exact histogram per second (and the failures per second), as SecondHistograms.from_samples; a
        window longer than blocks.UNITS_MAX seconds gets one per unit (second_unit seconds), its failures summed
        by unit likewise (a capacity search's probes are minutes long: theirs are per second)."""
        unit, index, counts = self._pairs_at(elapsed.values)
        units = -(-self.seconds // self.unit)
        dense = np.zeros((units, len(elapsed.values)), np.int64)
        dense[unit, index] = counts
        failures = np.add.reduceat(self.failures, np.arange(0, self.seconds, self.unit)) if self.unit > 1 \
            else self.failures.copy()
        return SecondHistograms(elapsed.values.astype(float), dense, failures)
