"""Exact count histograms of a cell's steady window: every distinct elapsed value with its count, and the
completions in each whole second. JMeter writes elapsed in whole milliseconds, so the counts lose nothing:
any percentile, the mean and a bootstrap (multinomial draws over the values) come out as from the samples.

The summary keeps one per cell (`histogram`, docs/contracts.md §5), so a comparison resamples without
reading a JTL again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from littlegrid.analysis.reading.int_sort import counts_of

CHUNK = 1 << 20


@dataclass(frozen=True)
class ExactHistogram:
    """Integer samples as every distinct value (ascending) with its count: the exact core every percentile, mean,
    PDF, CCDF and tail figure of a set of samples is read from. Two histograms merge into the histogram of both
    sets, so samples may arrive block by block; nothing read from it differs from reading the sorted samples."""

    values: np.ndarray  # int64, ascending, distinct
    counts: np.ndarray  # int64, > 0

    @classmethod
    def of(cls, samples) -> "ExactHistogram":
        """The histogram of a 1-D integer array: counted over its range when that is no wider than the array
        (int_sort.counts_of: no sort), else np.unique's sort."""
        samples = np.asarray(samples)
        if samples.dtype.kind not in "iu":
            raise TypeError(f"an exact histogram counts integers, not {samples.dtype}")
        counted = counts_of(samples)
        if counted is not None:
            low, counts = counted
            present = np.flatnonzero(counts)
            return cls((present + low).astype(np.int64), counts[present].astype(np.int64))
        values, counts = np.unique(samples.astype(np.int64), return_counts=True)
        return cls(values, counts.astype(np.int64))

    def merge(self, other: "ExactHistogram") -> "ExactHistogram":
        return merged([self, other])

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def mean(self) -> float | None:
        """Σ v·c / n from the exact integer sum (what the mean of the samples is whenever it is exact)."""
        n = self.n
        if not n:
            return None
        if len(self.values) and max(abs(int(self.values[0])), abs(int(self.values[-1]))) * n < 2**63:
            return int(self.values @ self.counts) / n
        return sum(int(v) * int(c) for v, c in zip(self.values, self.counts)) / n

    def at_rank(self, ranks) -> np.ndarray:
        """The value of the samples at 1-based ranks (rank r: the r-th smallest), as int64."""
        cumulative = np.cumsum(self.counts)
        return self.values[np.searchsorted(cumulative, np.asarray(ranks, np.int64), side="left")]

    def below(self, x) -> np.ndarray:
        """How many samples are smaller than each x."""
        cumulative = np.concatenate(([0], np.cumsum(self.counts)))
        return cumulative[np.searchsorted(self.values, np.asarray(x), side="left")]

    def largest(self, k: int) -> np.ndarray:
        """The k largest samples, ascending (what sorted(samples)[-k:] is)."""
        keep = np.searchsorted(np.cumsum(self.counts[::-1]), k, side="left") + 1  # distinct values that hold them
        values, counts = self.values[-keep:], self.counts[-keep:].copy()
        counts[0] -= int(counts.sum()) - k
        return np.repeat(values, counts)


def merged(histograms) -> ExactHistogram:
    """One histogram of the samples of all `histograms`."""
    histograms = [h for h in histograms if len(h.values)]
    if not histograms:
        return ExactHistogram(np.zeros(0, np.int64), np.zeros(0, np.int64))
    if len(histograms) == 1:
        return histograms[0]
    if len(histograms) == 2:
        return _merge_two(*histograms)
    values, where = np.unique(np.concatenate([h.values for h in histograms]), return_inverse=True)
    total = np.zeros(len(values), np.int64)
    np.add.at(total, where, np.concatenate([h.counts for h in histograms]))
    return ExactHistogram(values, total)


def _merge_two(a: ExactHistogram, b: ExactHistogram) -> ExactHistogram:
    """Two histograms merged by inserting `b`'s values into `a`'s (both sorted and distinct): a few arrays of
    b's length beside the result, where a sort of both (np.unique) takes five of their joint length: the
    accumulator's peak memory when it holds millions of distinct keys."""
    if len(a.values) < len(b.values):
        a, b = b, a
    at = np.searchsorted(a.values, b.values)
    found = at < len(a.values)
    found[found] = a.values[at[found]] == b.values[found]
    counts = a.counts.copy()
    counts[at[found]] += b.counts[found]  # distinct values: each position once
    new = ~found
    return ExactHistogram(np.insert(a.values, at[new], b.values[new]), np.insert(counts, at[new], b.counts[new]))


class HistogramAccumulator:
    """Integer samples arriving block by block, counted into one ExactHistogram. Memory is the distinct values
    (values may be composite keys, e.g. label · 2**40 + elapsed), never the samples: each block is counted as it
    comes, and the counts are merged whenever the unmerged ones reach a quarter of the merged ones (the merge
    then costs little beside what is held)."""

    def __init__(self) -> None:
        self._merged = ExactHistogram(np.zeros(0, np.int64), np.zeros(0, np.int64))
        self._pending: list[ExactHistogram] = []
        self._pending_size = 0

    def add(self, samples) -> None:
        if len(samples):
            self.add_histogram(ExactHistogram.of(np.asarray(samples)))

    def add_histogram(self, h: ExactHistogram) -> None:
        self._pending.append(h)
        self._pending_size += len(h.values)
        if self._pending_size > max(1 << 16, len(self._merged.values) // 4):
            self._compact()

    def _compact(self) -> None:
        self._merged = merged([self._merged, merged(self._pending)])
        self._pending, self._pending_size = [], 0

    def result(self) -> ExactHistogram:
        self._compact()
        return self._merged


@dataclass(frozen=True)
class Latencies:
    """One cell's steady-window response times as distinct values and their counts (exact: elapsed is integer ms)."""

    values_ms: np.ndarray  # sorted, distinct
    counts: np.ndarray

    @classmethod
    def from_samples(cls, elapsed_ms) -> "Latencies":
        values, counts = np.unique(np.asarray(elapsed_ms), return_counts=True)
        return cls(values.astype(float), counts.astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.counts.sum())


@dataclass(frozen=True)
class SecondHistograms:
    """A window's response times as one exact histogram per whole second of completion (seconds × distinct
    values), and its failed samples per second: what a bootstrap that keeps the queue's correlation in time
    resamples (resample.py)."""

    values_ms: np.ndarray  # sorted, distinct
    counts: np.ndarray     # counts[s, i]: samples completing in second s with elapsed values_ms[i]
    failures: np.ndarray   # failures[s]: of those, the failed ones (errors come in bursts as latencies do)

    @classmethod
    def from_samples(cls, elapsed_ms, end_ms, start_ms: float, window_end_ms: float,
                     failed=None) -> "SecondHistograms":
        """The samples ending inside [start_ms, window_end_ms] (the window's rule), binned by second as
        completions_per_second bins them (a last partial second joins the one before). `failed`: a flag per
        sample (None: every sample succeeded)."""
        elapsed, end = np.asarray(elapsed_ms, np.int64), np.asarray(end_ms, np.int64)
        inside = (end >= start_ms) & (end <= window_end_ms)
        elapsed, end = elapsed[inside], end[inside]
        seconds = max(1, int((window_end_ms - start_ms) // 1000))
        values, which = np.unique(elapsed, return_inverse=True)
        second = ((end - start_ms) // 1000).astype(np.int64).clip(0, seconds - 1)
        counts = np.zeros((seconds, len(values)), np.int64)
        np.add.at(counts, (second, which), 1)
        failures = np.zeros(seconds, np.int64) if failed is None else \
            np.bincount(second[np.asarray(failed, bool)[inside]], minlength=seconds).astype(np.int64)
        return cls(values.astype(float), counts, failures)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def latencies(self) -> Latencies:
        return Latencies(self.values_ms, self.counts.sum(axis=0))


def completions_per_second(end_ms: np.ndarray, start_ms: float, window_end_ms: float) -> np.ndarray:
    """Completions in each whole second of [start_ms, window_end_ms] (samples ending inside it, the window's
    rule); a last partial second joins the one before, so every second counts a full second's completions."""
    seconds = max(1, int((window_end_ms - start_ms) // 1000))
    end = np.asarray(end_ms)
    per_second = np.zeros(seconds, np.int64)
    for i in range(0, len(end), CHUNK):  # a chunk at a time: 5 M ends would need 3 arrays of 40 MB at once
        e = end[i:i + CHUNK].astype(np.int64)
        e = e[(e >= start_ms) & (e <= window_end_ms)]
        per_second += np.bincount(((e - start_ms) // 1000).astype(np.int64).clip(0, seconds - 1), minlength=seconds)
    return per_second


def whole_seconds(per_second: np.ndarray, window_s: float | None) -> np.ndarray:
    """The completions of the seconds that each span exactly one second: completions_per_second joins a window's last
    partial second to the one before, so that bin spans 1 + frac(window) seconds and, in a spread of counts, reads as
    an outlier of up to twice the rate (sd/√k 20× too large over a 20 s window). Without a window length, all."""
    if window_s is None or len(per_second) < 3 or abs(window_s - round(window_s)) < 1e-3:
        return per_second
    return per_second[:-1]


def cell_histogram(elapsed: ExactHistogram, per_second: np.ndarray) -> dict:
    """The summary's `histogram` of one cell: `elapsed_ms` {values, counts} and `completions_per_s`, sparse
    (the seconds with completions and their counts: a window of months with a few thousand samples stays small).
    per_second: the window's completions in each second (completions_per_second's rule)."""
    values, counts = elapsed.values, elapsed.counts
    busy = np.flatnonzero(per_second)
    return {"elapsed_ms": {"values": values.tolist(), "counts": counts.tolist()},
            "completions_per_s": {"seconds": len(per_second), "second": busy.tolist(),
                                  "count": per_second[busy].tolist()}}


def read_cell_histogram(cell) -> tuple[Latencies, np.ndarray] | None:
    """(elapsed histogram, completions per second) from a summary's cell (summary.model.Cell); None when it has
    none (a cell without a steady window) or they disagree with its count."""
    h = cell.histogram
    if h is None or cell.overall is None:
        return None
    values = np.asarray(h.elapsed_ms.values, float)
    counts = np.asarray(h.elapsed_ms.counts, np.int64)
    per_second = _dense(h.completions_per_s)
    if not len(values) or len(values) != len(counts) or per_second is None or int(counts.sum()) != cell.overall.count:
        return None
    return Latencies(values, counts), per_second


def _dense(sparse) -> np.ndarray | None:
    """Completions per second (summary.model.Completions) with the seconds that had none filled in; None when the
    entry is inconsistent."""
    seconds, second = sparse.seconds, np.asarray(sparse.second, np.int64)
    count = np.asarray(sparse.count, np.int64)
    if seconds < 1 or len(second) != len(count) or (len(second) and (second.min() < 0 or second.max() >= seconds)):
        return None
    per_second = np.zeros(seconds, np.int64)
    per_second[second] = count
    return per_second
