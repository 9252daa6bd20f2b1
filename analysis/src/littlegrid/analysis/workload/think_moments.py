"""Think time's gaps as exact sums: moments (mean, standard deviation) mergeable block by block, and the gaps of some
threads (GapSummary) in memory that grows with their distinct values, not their count."""

import functools
import math
from fractions import Fraction
from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.histogram import ExactHistogram, merged
from littlegrid.analysis.workload.think_gaps import no_gaps


@dataclass(frozen=True)
class Moments:
    """Count, sum and sum of squares of integer values, as exact integers: their mean and standard deviation.

    Sets of values merge by adding the three, so the figures are the same whatever the sets and the order they
    merge in (a cell read in one piece, in blocks, or from partitions by thread); Σ(x − mean)² is computed from
    the exact sums and rounded once (sd: once before the square root)."""

    n: int = 0
    total: int = 0
    squares: int = 0

    @classmethod
    def of(cls, values: np.ndarray) -> "Moments":
        n = len(values)
        if not n:
            return cls()
        values = np.asarray(values, dtype=np.int64)
        return cls(n, int(values.sum(dtype=np.int64)), sum_of_squares(values))

    def merge(self, other: "Moments") -> "Moments":
        return Moments(self.n + other.n, self.total + other.total, self.squares + other.squares)

    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    def sd(self) -> float | None:
        """The sample standard deviation (ddof 1): √((n·Σx² − (Σx)²) / (n·(n − 1)))."""
        if self.n < 2:
            return None
        return math.sqrt(Fraction(self.n * self.squares - self.total ** 2, self.n * (self.n - 1)))


SQUARE_SPLIT = 21  # x = high·2²¹ + low: each part's products stay below 2⁴² for |x| < 2⁴² ms (139 years)
SQUARE_ROWS = 1 << 20  # rows summed at a time: 2²⁰ products below 2⁴² add up below 2⁶² (no int64 overflow)


def sum_of_squares(values: np.ndarray) -> int:
    """Σx² of int64 values, exact (a Python integer), without a Python object per value."""
    magnitude = np.abs(values)
    if len(values) and int(magnitude.max()) >= 1 << (2 * SQUARE_SPLIT):
        return sum(int(x) * int(x) for x in values.tolist())
    total = 0
    low_mask = (1 << SQUARE_SPLIT) - 1
    for lo in range(0, len(values), SQUARE_ROWS):
        chunk = magnitude[lo:lo + SQUARE_ROWS]
        high, low = chunk >> SQUARE_SPLIT, chunk & low_mask
        total += ((int((high * high).sum()) << (2 * SQUARE_SPLIT)) + (int((high * low).sum()) << (SQUARE_SPLIT + 1))
                  + int((low * low).sum()))
    return total


@dataclass(frozen=True)
class GapSummary:
    """The gaps of some threads as think_time_stats reads them: in memory that grows with their distinct values
    and threads, not with their number. Summaries of the gaps of several sets of threads merge (`merged`)."""

    gaps: ExactHistogram
    gap_moments: Moments
    cycle_moments: Moments  # the cycles (elapsed + gap): their CV
    thread_keys: np.ndarray  # the threads with gaps, ascending
    thread_sums: np.ndarray  # Σ gap of each (int64)
    thread_counts: np.ndarray  # its gaps

    @classmethod
    def of(cls, gaps: pd.DataFrame) -> "GapSummary":
        """From a gaps table (realised_gaps, ThinkSequence.gaps): key, gap_ms, cycle_ms."""
        values = _whole(gaps["gap_ms"])
        keys, sums, counts = _per_thread_sums(gaps["key"].to_numpy(), values)
        return cls(ExactHistogram.of(values), Moments.of(values), Moments.of(_whole(gaps["cycle_ms"])), keys, sums,
                   counts)

    @classmethod
    def merged(cls, summaries: list["GapSummary"]) -> "GapSummary":
        """The summary of the gaps of all `summaries` (the same thread may appear in several)."""
        with_gaps = [s for s in summaries if s.gaps.n]
        if len(with_gaps) <= 1:
            return with_gaps[0] if with_gaps else cls.of(no_gaps(np.zeros(0, np.int64)))
        keys, inverse = np.unique(np.concatenate([s.thread_keys for s in with_gaps]), return_inverse=True)
        sums, counts = np.zeros(len(keys), np.int64), np.zeros(len(keys), np.int64)
        np.add.at(sums, inverse, np.concatenate([s.thread_sums for s in with_gaps]))
        np.add.at(counts, inverse, np.concatenate([s.thread_counts for s in with_gaps]))
        gap_moments = functools.reduce(Moments.merge, [s.gap_moments for s in with_gaps])
        cycle_moments = functools.reduce(Moments.merge, [s.cycle_moments for s in with_gaps])
        return cls(merged([s.gaps for s in with_gaps]), gap_moments, cycle_moments, keys, sums, counts)


def _whole(column: pd.Series) -> np.ndarray:
    """A gaps column as integers (an empty one may come as floats or objects)."""
    return column.to_numpy() if len(column) else np.zeros(0, np.int64)


def _per_thread_sums(keys: np.ndarray, gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(threads, Σ gap, gaps) per thread, without a pandas groupby of millions of gaps. realised_gaps gives the
    gaps grouped by key: sums over each run of equal keys (exact integers, no float copy of the gaps)."""
    if len(keys) == 0:
        return keys, np.zeros(0, np.int64), np.zeros(0, np.int64)
    if keys.dtype.kind not in "iu" or (keys[1:] < keys[:-1]).any():
        order = np.argsort(keys, kind="stable")
        keys, gaps = keys[order], gaps[order]
    firsts = np.concatenate(([0], np.flatnonzero(keys[1:] != keys[:-1]) + 1))
    return (keys[firsts], np.add.reduceat(gaps, firsts, dtype=np.int64),
            np.diff(np.append(firsts, len(keys))).astype(np.int64))
