"""Blocks of seconds: the block-length rule, and a window's exact histograms per block as the summary keeps them.

Requests that queue together share their fate (a burst lifts every response behind it), so a bootstrap that
resamples them one by one treats n correlated samples as n independent ones and its intervals are too narrow.
Resampling whole runs of seconds keeps the correlation inside each run. The capacity search resamples moving
blocks of its probes' per-second histograms (resample.replicate_latencies_in_blocks); a summary cannot keep one
histogram per second of a long cell, so it keeps one per block of `block_length` seconds and `compare` draws
those blocks with replacement (a non-overlapping block bootstrap, Carlstein 1986).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_PHI = 0.95  # a lag-1 autocorrelation above this is a trend, not a queue's memory: the cap T/3 takes over
DENSE_LIMIT = 1 << 24  # blocks × distinct values up to which the histograms are counted in one dense bincount
# A window's histograms are kept per unit of seconds, at most UNITS_MAX units (one second each up to UNITS_MAX
# seconds), and the blocks are whole units, at most MAX_BLOCKS of them: what a soak test of 60 hours keeps is
# what one of 17 minutes keeps (issue 36), and the blocks hold every sample, their counts exact.
UNITS_MAX = 1024
MAX_BLOCKS = 256


def second_unit(seconds: int) -> int:
    """The seconds one unit of a window of `seconds` gathers: 1 up to UNITS_MAX seconds, then enough that the
    window has at most UNITS_MAX units."""
    return max(1, -(-int(seconds) // UNITS_MAX))


def block_length(n_per_second: np.ndarray, sum_ms_per_second: np.ndarray) -> int:
    """The block length in seconds from the per-second counts and sums of elapsed: T^(1/3) scaled by the lag-1
    autocorrelation φ of the per-second mean response time, as Politis and White's rule gives it for an AR(1)
    series, (2φ/(1 − φ²))^(2/3)·T^(1/3), never below T^(1/3) and never above T/3 (three blocks at least); then
    long enough for at most MAX_BLOCKS blocks and rounded up to whole units (second_unit: a window longer than
    UNITS_MAX seconds is counted per unit), three blocks still kept where whole units allow. A queue
    near saturation keeps its backlog for seconds: the blocks must be longer than that memory for the interval
    to cover it. `sum_ms_per_second` may be the sums of any per-sample figure (failures: the per-second mean
    is then the error fraction)."""
    t = len(n_per_second)
    length = max(memory_length(n_per_second, sum_ms_per_second), -(-t // MAX_BLOCKS))
    unit = second_unit(t)
    whole = -(-length // unit) * unit
    return whole if whole <= t // 3 or whole == unit else whole - unit


def memory_length(n_per_second: np.ndarray, sum_ms_per_second: np.ndarray, floor: bool = True) -> int:
    """block_length's rule before any storage concern (units, MAX_BLOCKS): (2φ/(1 − φ²))^(2/3)·T^(1/3) seconds, φ
    the lag-1 autocorrelation of the per-second mean, never below T^(1/3) nor above T/3. The batch means of
    steady_state read it too: how long a queue's memory lasts does not depend on how a summary stores a window."""
    # counts and sums as they come, integers too: the mean is their true division, which is the division of their
    # float64 values, and only the busy seconds are divided (a window of months between two runs, 13.6 M seconds of
    # which 1,739 busy, spent 0.4 s converting every second to float64 first)
    n = np.asarray(n_per_second)
    t = len(n)
    base = t ** (1 / 3)
    busy = n > 0
    phi = 0.0
    # asked for every second judged of every simulated cell (steady_state.batch_size, twice): the same figures with
    # fewer array operations, every second busy taken whole and the mean as the sum over the count (what .mean() is)
    seconds_busy = int(np.count_nonzero(busy))
    if seconds_busy >= 4:
        sums = np.asarray(sum_ms_per_second)
        if seconds_busy < t:
            sums, n = sums[busy], n[busy]
        mean = np.true_divide(sums, n, dtype=float)
        x = mean - mean.sum() / seconds_busy
        denom = float(x @ x)
        phi = min(MAX_PHI, max(0.0, float(x[1:] @ x[:-1]) / denom)) if denom > 0 else 0.0
    scale = (2 * phi / (1 - phi * phi)) ** (2 / 3) if phi > 0 else 0.0
    least = round(base) if floor else 1
    return int(max(1, min(max(least, round(scale * base)), t // 3 or 1)))


@dataclass(frozen=True)
class BlockHistograms:
    """A window's response times as one exact histogram per block of `seconds` whole seconds of completion
    (blocks × distinct values; the seconds left over join the last block, as a last partial second joins the
    one before in completions_per_second)."""

    values_ms: np.ndarray  # sorted, distinct: the cell histogram's values
    counts: np.ndarray     # counts[b, i]: samples completing in block b with elapsed values_ms[i]
    seconds: int

    @classmethod
    def from_samples(cls, elapsed_ms, end_ms, start_ms: float, window_end_ms: float,
                     values_ms: np.ndarray | None = None) -> "BlockHistograms":
        """The samples ending inside [start_ms, window_end_ms] (the window's rule), in blocks of block_length
        seconds chosen from their own per-second means. `values_ms`: the window's distinct elapsed values when
        the caller has them (analyze does: the cell histogram's), saving a sort."""
        elapsed, end = np.asarray(elapsed_ms, np.int64), np.asarray(end_ms)
        inside = (end >= start_ms) & (end <= window_end_ms)
        if not inside.all():
            elapsed, end = elapsed[inside], end[inside]
        seconds = max(1, int((window_end_ms - start_ms) // 1000))
        # true division is exact at whole seconds (x·1000/1000 = x) and much faster than int64 floor division
        second = ((end - start_ms) / 1000.0).astype(np.int64).clip(0, seconds - 1)
        n = np.bincount(second, minlength=seconds)
        total = np.bincount(second, weights=elapsed, minlength=seconds)
        block = block_length(n, total)
        blocks = max(1, seconds // block)
        values = np.unique(elapsed) if values_ms is None else np.asarray(values_ms, np.int64)
        d = len(values)
        np.floor_divide(second, block, out=second)
        np.minimum(second, blocks - 1, out=second)
        width = int(values[-1] - values[0]) + 1 if d else 1
        if blocks * width <= DENSE_LIMIT:  # count by value itself, then keep the distinct values' columns
            key = second * width + (elapsed - values[0])
            counts = np.bincount(key, minlength=blocks * width).reshape(blocks, width)[:, values - values[0]]
        else:  # a long cell with a wide range of values: index them and count only the pairs that occur
            key = second * d + np.searchsorted(values, elapsed)
            keys, got = np.unique(key, return_counts=True)
            counts = np.zeros((blocks, d), np.int64)
            counts[keys // d, keys % d] = got
        return cls(values.astype(float), counts.astype(np.int64), block)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def as_summary(self) -> dict:
        """The summary's `histogram.blocks`: per block, the indexes into `elapsed_ms.values` it holds and their
        counts (sparse: a block holds few of the distinct values)."""
        rows = [np.flatnonzero(row) for row in self.counts]
        return {"seconds": self.seconds, "index": [r.tolist() for r in rows],
                "counts": [row[r].tolist() for row, r in zip(self.counts, rows)]}

    @classmethod
    def from_summary(cls, blocks, values_ms: np.ndarray, counts: np.ndarray) -> "BlockHistograms | None":
        """Read back from a cell's `histogram.blocks` (summary.model.Blocks); None when absent or when the blocks
        do not add up to the cell's histogram `counts` over `values_ms`."""
        if blocks is None or not blocks.index or len(blocks.index) != len(blocks.counts):
            return None
        dense = np.zeros((len(blocks.index), len(values_ms)), np.int64)
        try:
            for b, (index, got) in enumerate(zip(blocks.index, blocks.counts)):
                index = np.asarray(index, np.int64)
                if len(index) and index.min() < 0:
                    return None
                dense[b, index] = np.asarray(got, np.int64)
        except (IndexError, ValueError, TypeError):
            return None
        if not np.array_equal(dense.sum(axis=0), counts) or blocks.seconds < 1:
            return None
        return cls(np.asarray(values_ms, float), dense, blocks.seconds)
