"""Per-second time series of a cell (throughput, errors, exact percentiles, threads, server and host gauges) on a
point budget, counted block by block.

A cell's rows may come in blocks (rowblock.Frame, Block: issue 17): TimeSeriesAccumulator and LabelSeriesAccumulator
keep counts per bucket (exact elapsed histograms, codes, errors, peak allThreads, thread names seen), never rows, so
their memory is set by the buckets and the distinct values, whatever the rows. time_series and label_series are the
same accumulators fed one table: one code path, the same answers however the rows are cut."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from littlegrid.analysis.observed.server_metrics import frame_points, per_bucket_mean
from littlegrid.analysis.reading.histogram import CHUNK, ExactHistogram, HistogramAccumulator
from littlegrid.analysis.steady.window import POINT_BUDGET, SteadyWindow, bucketing, window_of  # noqa: F401 (re-exported)

if TYPE_CHECKING:  # rowblock imports bucketing from here: imported where a Frame is built (_one_block)
    from littlegrid.analysis.statistics.rowblock import Block, Frame

SERIES_PERCENTILES = (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99))
CODES_MAX = 8  # response codes with a series of their own; the rarer ones are summed into "other"
LABEL_SERIES_MAX = 20  # labels with per-second series: the ones with the most samples
LABEL_SERIES_RULE = (f"per-second series for the {LABEL_SERIES_MAX} labels with the most samples in the cell "
                     f"(ties by label), on the cell's time axis")


def bucket_of(samples: pd.DataFrame, t0: int, bucket_s: int, buckets: int) -> np.ndarray:
    """Each sample's bucket by completion time (samples ending after the last bucket go into it)."""
    bucket = samples["end_ms"].to_numpy(dtype=np.int64) - t0  # then in place: one 8-byte-a-row array
    bucket //= 1000 * bucket_s
    np.clip(bucket, 0, buckets - 1, out=bucket)
    return bucket


class _ElapsedByGroup:
    """Exact elapsed histograms of `groups` groups (time buckets, or (bucket, label) pairs) arriving block by block:
    every distinct (group, elapsed) pair with its count, kept as one HistogramAccumulator of the keys
    group << shift | (elapsed + half), which order by group, then elapsed. Memory: the distinct pairs."""

    def __init__(self, groups: int) -> None:
        self.groups = groups
        self._shift = 63 - max(1, (groups - 1).bit_length())  # the bits the groups leave to elapsed
        self._half = 1 << (self._shift - 1)  # elapsed may be negative (a clock step): offset into [0, 2·half)
        self._pairs = HistogramAccumulator()

    def add(self, group: np.ndarray, elapsed: np.ndarray, overwrite: bool = False) -> None:
        """One block: group (ints in [0, groups)) and elapsed (ints) per row. `overwrite`: an int64 `group` may
        be used as the keys' room (the caller is done with it)."""
        if len(elapsed) == 0:
            return
        low, high = int(elapsed.min()), int(elapsed.max())
        if low < -self._half or high >= self._half:
            raise ValueError(f"elapsed {low}..{high} ms is beyond ±2^{self._shift - 1} ms")
        # Keyed within the block first (its groups from the lowest, its elapsed range): a block of rows contiguous
        # in time spans few buckets, so its keys are usually counted (a bincount), not sorted as the wide global
        # keys would be. Only the block's distinct pairs are re-keyed.
        scale, first = high - low + 1, int(group.min())
        key = group if overwrite and group.dtype == np.int64 else group.astype(np.int64)
        key -= first
        key *= scale
        key += elapsed
        base = int(key.min())
        key -= base  # from 0: ExactHistogram.of counts it without a shifted row-long copy
        local = ExactHistogram.of(key)
        del key
        g, v = np.divmod(local.values + (base - low), scale)
        g += first
        g <<= self._shift
        v += low + self._half
        g |= v
        self._pairs.add_histogram(ExactHistogram(g, local.counts))

    def regroup(self, to: np.ndarray, groups: int) -> None:
        """Groups merged: old group g becomes group to[g] of `groups`; pairs that meet add their counts (exact)."""
        h = self._pairs.result()
        group, value = h.values >> self._shift, (h.values & ((1 << self._shift) - 1)) - self._half
        self.__init__(groups)
        if len(value) and (int(value.min()) < -self._half or int(value.max()) >= self._half):
            raise ValueError(f"elapsed beyond ±2^{self._shift - 1} ms for {groups} groups")
        keys = (to[group] << self._shift) | (value + self._half)
        keys, where = np.unique(keys, return_inverse=True)
        counts = np.zeros(len(keys), np.int64)
        np.add.at(counts, where, h.counts)
        self._pairs.add_histogram(ExactHistogram(keys, counts))

    def read(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(samples per group, {p50_ms, p90_ms, p99_ms: each group's exact nearest-rank percentile}); the
        percentiles of an empty group mean nothing (see _points)."""
        h = self._pairs.result()
        cumulative = np.cumsum(h.counts)
        # before[g]: samples in the groups below g (the pairs are in group order)
        first_pair = np.searchsorted(h.values >> self._shift, np.arange(self.groups + 1), side="left")
        before = np.concatenate(([0], cumulative))[first_pair]
        n = np.diff(before)
        if len(h.values) == 0:
            return n, {key: np.zeros(self.groups, np.int64) for key, _ in SERIES_PERCENTILES}
        value = (h.values & ((1 << self._shift) - 1)) - self._half
        out = {}
        for key, p in SERIES_PERCENTILES:
            rank = np.maximum(-(-n * p // 100), 1)  # ceil(p·n/100) in integers
            at = np.searchsorted(cumulative, before[:-1] + rank, side="left")  # the pair holding that rank
            out[key] = value[np.minimum(at, len(value) - 1)]
        return n, out


def _points(values: np.ndarray, n: np.ndarray) -> list:
    """A percentile series: floats, None where the bucket has no samples."""
    return [float(v) if c else None for v, c in zip(values.tolist(), n.tolist())]


def bucket_percentiles(bucket: np.ndarray, elapsed: np.ndarray, buckets: int, overwrite: bool = False) -> dict:
    """Exact nearest-rank percentiles of `elapsed` within each bucket (None for empty buckets).
    `overwrite`: `bucket` (int64) may be used as the keys' room (the caller is done with it)."""
    by_bucket = _ElapsedByGroup(buckets)
    by_bucket.add(bucket, elapsed, overwrite)
    n, at = by_bucket.read()
    return {key: _points(v, n) for key, v in at.items()}


def _categorical(values: pd.Series) -> pd.Series:
    return values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")


class _CodeCounts:
    """Samples per (response code, bucket) block by block: a row of counts per distinct code (row 0: no code),
    so memory is codes × buckets. Codes are known by name: each block's categorical has its own codes."""

    def __init__(self, buckets: int) -> None:
        self.buckets = buckets
        self._row: dict[str, int] = {}
        self._counts = np.zeros((1, buckets), np.int64)

    def add(self, codes: pd.Series, bucket: np.ndarray) -> None:
        cat = _categorical(codes)
        # per category its row, and last the no-code row 0, which a null's category code −1 picks
        rows = np.array([self._row.setdefault(str(c), len(self._row) + 1) for c in cat.cat.categories] + [0],
                        dtype=np.int64)
        if len(self._row) + 1 > len(self._counts):
            grown = np.zeros((len(self._row) + 1, self.buckets), np.int64)
            grown[:len(self._counts)] = self._counts
            self._counts = grown
        key = rows[cat.cat.codes.to_numpy()]  # then in place: row · buckets + bucket
        key *= self.buckets
        key += bucket
        self._counts += np.bincount(key, minlength=self._counts.size).reshape(self._counts.shape)

    def regroup(self, to: np.ndarray, buckets: int) -> None:
        """Buckets merged: old bucket b becomes bucket to[b] of `buckets`."""
        merged = np.zeros((len(self._counts), buckets), np.int64)
        np.add.at(merged.T, to, self._counts.T)
        self._counts, self.buckets = merged, buckets

    def result(self, bucket_s: int, buckets: int | None = None) -> dict:
        """{response code: samples per second}, the CODES_MAX most frequent codes (ties by code), then "other"
        for the rest and "none" for samples without a code (JMeter's "Codes per second"). `buckets`: the first
        so many buckets only."""
        counts = self._counts[:, :buckets]
        total = counts.sum(axis=1)
        ranked = sorted((c for c, r in self._row.items() if total[r]), key=lambda c: (-total[self._row[c]], c))
        out = {c: (counts[self._row[c]] / bucket_s).tolist() for c in ranked[:CODES_MAX]}
        other = counts[[self._row[c] for c in ranked[CODES_MAX:]]].sum(axis=0)
        for name, row in (("other", other), ("none", counts[0])):
            if row.any():
                out[name] = (row / bucket_s).tolist()
        return out


def response_codes(codes: pd.Series, bucket: np.ndarray, buckets: int, bucket_s: int) -> dict:
    """_CodeCounts.result of one table's codes and buckets."""
    counts = _CodeCounts(buckets)
    counts.add(codes, bucket)
    return counts.result(bucket_s)


class _ThreadsSeen:
    """Distinct thread names completing a sample in each bucket, block by block: the distinct (name, bucket)
    pairs. By name, as the thread column says it (not host-qualified); a sample without one counts for none."""

    def __init__(self, buckets: int) -> None:
        self.buckets = buckets
        self._id: dict[str, int] = {}
        self._pairs = HistogramAccumulator()

    def add(self, threads: pd.Series, bucket: np.ndarray) -> None:
        cat = _categorical(threads)
        ids = np.array([self._id.setdefault(str(c), len(self._id)) for c in cat.cat.categories] + [-1],
                       dtype=np.int64)  # last: −1 for a null name (category code −1)
        key = ids[cat.cat.codes.to_numpy()]  # then in place: id · buckets + bucket
        named = key >= 0
        if not named.all():
            key, bucket = key[named], bucket[named]
        key *= self.buckets
        key += bucket
        self._pairs.add(key)

    def regroup(self, to: np.ndarray, buckets: int) -> None:
        """Buckets merged: old bucket b becomes bucket to[b] of `buckets` (a name seen in both is seen once)."""
        thread, bucket = np.divmod(self._pairs.result().values, self.buckets)
        self.buckets, self._pairs = buckets, HistogramAccumulator()  # the names keep their ids
        self._pairs.add(thread * buckets + to[bucket])

    def per_bucket(self) -> np.ndarray:
        return np.bincount(self._pairs.result().values % self.buckets, minlength=self.buckets)


def _one_block(window: SteadyWindow, labels: tuple[str, ...], rows: int) -> Frame:
    """The frame of a table analysed as one block (time_series, label_series)."""
    from littlegrid.analysis.statistics.rowblock import Frame  # rowblock imports this module

    return Frame(window=window, transactions=frozenset(), series_labels=labels, rows=rows, blocks=1)


class TimeSeriesAccumulator:
    """time_series over a cell's samples (rows without Transaction Controller rows, warm-up and cool-down
    included) fed block by block. Memory: buckets × distinct elapsed values, codes × buckets and the distinct
    (bucket, thread name) pairs. `budget`: another point budget than the frame's axis has. `named_engines`: how
    many remote engines the rows tell apart (Block.engines): their allThreads peaks are added up per bucket."""

    def __init__(self, frame: Frame, engines: int | None, budget: int | None = None, named_engines: int = 0) -> None:
        self._window, self._engines, self._named = frame.window, engines, named_engines
        self._t0, self._bucket_s, self._buckets = frame.axis if budget is None else bucketing(frame.window, budget)
        self._errors = np.zeros(self._buckets, np.int64)
        self._elapsed = _ElapsedByGroup(self._buckets)
        self._codes: _CodeCounts | None = None  # when the rows have a response_code column
        # max allThreads per (engine, bucket), −1: none; one row per named engine and one for rows of none of
        # them, else a single row
        self._peak = np.full((named_engines + 1 if named_engines else 1, self._buckets), -1, dtype=np.int32)
        # The thread names seen count only when no row of the cell has allThreads: kept until one does
        self._threads: _ThreadsSeen | None = _ThreadsSeen(self._buckets)

    @classmethod
    def growing(cls, t0_ms: int, engines: int | None, budget: int = POINT_BUDGET,
                named_engines: int = 0) -> TimeSeriesAccumulator:
        """For rows whose last end is not known yet (the live view's running cell): `budget` buckets of 1 s from
        t0_ms, widened by cover() as the rows go on. The result's window_start_s and window_end_s are the
        caller's to say."""
        return cls(_one_block(window_of(t0_ms, t0_ms + budget * 1000 - 1, 0.0, 0.0), (), 0), engines, budget,
                   named_engines)

    def cover(self, end_ms: int) -> None:
        """Buckets twice as wide, as often as it takes for a sample ending at end_ms to fall inside the axis
        (never into its last bucket by clipping). Every wider bucket is two narrower ones merged, so the counts,
        exact percentiles and peaks are what counting the rows on the wider axis gives. Memory stays at the
        budget's buckets however long the rows go on; a bucket is the smallest power of two seconds that keeps
        the points within the budget (time_series' own width up to twice the budget in seconds)."""
        while (end_ms - self._t0) // (1000 * self._bucket_s) >= self._buckets:
            to = np.arange(self._buckets) // 2
            self._bucket_s *= 2
            self._elapsed.regroup(to, self._buckets)
            errors = np.zeros(self._buckets, np.int64)
            np.add.at(errors, to, self._errors)
            peak = np.full(self._peak.shape, -1, dtype=np.int32)
            np.maximum.at(peak, (np.arange(len(peak))[:, None], to[None, :]), self._peak)
            self._errors, self._peak = errors, peak
            for counts in (self._codes, self._threads):
                if counts is not None:
                    counts.regroup(to, self._buckets)

    def add(self, block: Block) -> None:
        self.add_rows(block.samples, block.sample_classes.notna().to_numpy(), block.sample_engines)

    def add_rows(self, samples: pd.DataFrame, failed: np.ndarray, engines: np.ndarray | None = None) -> None:
        """Samples (no Transaction Controller rows), with a flag per sample for the failed ones and, with named
        engines, each sample's engine (−1: none of them)."""
        if self._codes is None and "response_code" in samples.columns:
            self._codes = _CodeCounts(self._buckets)
        if len(samples) == 0:
            return
        bucket = bucket_of(samples, self._t0, self._bucket_s, self._buckets)
        self._errors += np.bincount(bucket[failed], minlength=self._buckets)  # not weights: a float per row
        self._elapsed.add(bucket, samples["elapsed_ms"].to_numpy(dtype=np.int64))
        if self._codes is not None:
            self._codes.add(samples["response_code"], bucket)
        all_threads = samples["all_threads"]
        if all_threads.notna().any():
            # int32 with −1 for null (allThreads ≥ 0); np.maximum.at: 10× faster than a groupby, no copies
            # one row per named engine: flat (engine, bucket) indices into the C-ordered array's view
            at = (np.where(engines < 0, self._named, engines).astype(np.int64) * self._buckets + bucket
                  if self._named and engines is not None else bucket)
            np.maximum.at(self._peak.reshape(-1), at, all_threads.to_numpy(dtype=np.int32, na_value=-1))
            self._threads = None
        elif self._threads is not None:
            self._threads.add(samples["thread"], bucket)

    def result(self, server: dict | None, host: pd.DataFrame | None, last_end_ms: int | None = None) -> dict:
        """Series over the whole cell (warm-up and cool-down included, so the report can show what was trimmed).

        Time is seconds since the first sample's start; each point covers `bucket_s` seconds (1 unless the cell
        is longer than the budget), and rates are per second. Samples are placed by completion time, like X.
        active_threads: when any row of the cell has allThreads, each named engine's peak allThreads in the bucket
        added up (allThreads counts one engine's threads, and engines may run unequal shares); without names, the
        peak × engines; with no allThreads, the thread names that completed a sample in the bucket. server: the
        server's
        gauges as (time_ms, value) points ("in_flight", "busy_threads": analysis/observed/observed_window.series_points);
        host: the generator's host-metrics.csv; both drawn as per-bucket means.
        last_end_ms: the axis up to the bucket holding it (a growing axis: the rows so far), else all of it."""
        t0, bucket_s, buckets, window = self._t0, self._bucket_s, self._buckets, self._window
        if last_end_ms is not None:
            buckets = min(buckets, max(0, (last_end_ms - t0) // (1000 * bucket_s)) + 1)
        n, at = self._elapsed.read()
        n, at = n[:buckets], {key: v[:buckets] for key, v in at.items()}
        out = {
            "t0_ms": t0,
            "bucket_s": bucket_s,
            "window_start_s": (window.start_ms - t0) / 1000.0,
            "window_end_s": (window.end_ms - t0) / 1000.0,
            "t_s": [float(i * bucket_s) for i in range(buckets)],
            "throughput": (n / bucket_s).tolist(),
            "errors": (self._errors[:buckets] / bucket_s).tolist(),
        }
        out |= {key: _points(v, n) for key, v in at.items()}
        if self._codes is not None:
            out["codes"] = self._codes.result(bucket_s, buckets)
        if self._threads is None and self._named:
            peaks = self._peak[:, :buckets]
            total = np.where(peaks < 0, 0, peaks).sum(axis=0)
            out["active_threads"] = [float(v) if seen else None
                                     for v, seen in zip(total.tolist(), (peaks >= 0).any(axis=0).tolist())]
        elif self._threads is None:
            out["active_threads"] = [None if v < 0 else float(v) * (self._engines or 1)
                                     for v in self._peak[0, :buckets].tolist()]
        else:
            out["active_threads"] = self._threads.per_bucket()[:buckets].astype(float).tolist()
        server = server or {}
        out["in_flight"] = per_bucket_mean(server.get("in_flight", ()), t0, bucket_s, buckets)
        out["busy_threads"] = per_bucket_mean(server.get("busy_threads", ()), t0, bucket_s, buckets)
        out["load1"] = per_bucket_mean(frame_points(host, "load1"), t0, bucket_s, buckets)
        return out


def time_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, engines: int | None,
                server: dict | None, host: pd.DataFrame | None, budget: int = POINT_BUDGET) -> dict:
    """TimeSeriesAccumulator.result over `samples` as one block (`failed`: a flag per sample)."""
    series = TimeSeriesAccumulator(_one_block(window, (), len(samples)), engines, budget)
    series.add_rows(samples, np.asarray(failed, dtype=bool))
    return series.result(server, host)


def series_labels(rows_per_label: Mapping[str, int], top: int = LABEL_SERIES_MAX) -> tuple[str, ...]:
    """The labels with per-label series: the `top` with the most rows (ties by label), in that order. A null
    label counts as "" (stats.label_codes: JMeter shows it so); labels without rows have none."""
    rows: dict[str, int] = {}
    for label, n in rows_per_label.items():
        name = "" if label is None else str(label)
        rows[name] = rows.get(name, 0) + int(n)
    return tuple(sorted((label for label, n in rows.items() if n > 0), key=lambda label: (-rows[label], label))[:top])


def _rows_per_label(labels: pd.Series) -> dict[str, int]:
    """Rows per label, a null label as "" (as stats.label_codes counts them), from the category codes."""
    cat = _categorical(labels)
    codes = cat.cat.codes.to_numpy()
    counts = np.zeros(len(cat.cat.categories) + 1, np.int64)  # [0]: the null label
    for lo in range(0, len(codes), CHUNK):  # code + 1 (null: 0) a chunk at a time: no row-long int64 copy
        counts += np.bincount(codes[lo:lo + CHUNK].astype(np.int64) + 1, minlength=len(counts))
    rows: dict[str, int] = {}
    for label, n in zip(["", *map(str, cat.cat.categories)], counts.tolist()):
        if n:
            rows[label] = rows.get(label, 0) + n
    return rows


class LabelSeriesAccumulator:
    """label_series over a cell's rows (Transaction Controller rows included) fed block by block: per label of
    frame.series_labels, samples and errors per second and exact p50/p90/p99 per bucket, on the cell's time axis.
    Memory: labels × buckets × distinct elapsed values at most; rows of other labels are not counted."""

    def __init__(self, frame: Frame, budget: int | None = None) -> None:
        self._labels = frame.series_labels
        self._rank = {label: r for r, label in enumerate(self._labels)}
        self._t0, self._bucket_s, self._buckets = frame.axis if budget is None else bucketing(frame.window, budget)
        # group = bucket · labels + rank: bucket first, so that a block's rows, contiguous in time, span few groups
        groups = max(1, self._buckets * len(self._labels))
        self._errors = np.zeros(groups, np.int64)
        self._elapsed = _ElapsedByGroup(groups)
        self._rows = 0

    def add(self, block: Block) -> None:
        self._add(block.everything, block.classes.notna().to_numpy())

    def _ranks(self, labels: pd.Series) -> np.ndarray:
        """Each row's label rank, −1 for a label without series (a null label is "")."""
        cat = _categorical(labels)
        rank = np.array([self._rank.get(str(c), -1) for c in cat.cat.categories] + [self._rank.get("", -1)],
                        dtype=np.int64)  # last: the null label's, which a category code −1 picks
        return rank[cat.cat.codes.to_numpy()]

    def _add(self, rows: pd.DataFrame, failed: np.ndarray) -> None:
        self._rows += len(rows)
        if len(rows) == 0 or not self._labels:
            return
        rank = self._ranks(rows["label"])
        elapsed = rows["elapsed_ms"].to_numpy(dtype=np.int64)
        group = bucket_of(rows, self._t0, self._bucket_s, self._buckets)  # then in place: bucket · labels + rank
        if (rank < 0).any():  # only the chosen labels' rows (else every row, no copies)
            keep = rank >= 0
            rank, elapsed, failed, group = rank[keep], elapsed[keep], failed[keep], group[keep]
        group *= len(self._labels)
        group += rank
        del rank
        self._errors += np.bincount(group[failed], minlength=len(self._errors))
        self._elapsed.add(group, elapsed, overwrite=True)  # group's last use

    def result(self, order: tuple[str, ...] | None = None) -> dict:
        """order: the labels the summary lists, in its order, when the frame was a guess (the cell's top labels,
        among the guess's more); None: the frame's."""
        if not self._rows or not self._labels:
            return {"rule": LABEL_SERIES_RULE, "labels": {}}
        shape = (self._buckets, len(self._labels))  # [bucket, rank]
        n, at = self._elapsed.read()
        n, errors = n.reshape(shape), self._errors.reshape(shape)
        at = {key: v.reshape(shape) for key, v in at.items()}
        per_s = n / self._bucket_s, errors / self._bucket_s
        return {"rule": LABEL_SERIES_RULE, "labels": {
            label: {"throughput": per_s[0][:, r].tolist(), "errors": per_s[1][:, r].tolist(),
                    **{key: _points(v[:, r], n[:, r]) for key, v in at.items()}}
            for label, r in ((label, self._rank[label]) for label in (self._labels if order is None else order))}}


def label_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, budget: int = POINT_BUDGET,
                 top: int = LABEL_SERIES_MAX) -> dict:
    """LabelSeriesAccumulator.result over `samples` as one block, for the `top` labels with the most samples.

    Bounded so that a JTL with thousands of labels keeps a small summary: top × buckets × 5 values."""
    labels = series_labels(_rows_per_label(samples["label"]), top) if len(samples) else ()
    series = LabelSeriesAccumulator(_one_block(window, labels, len(samples)), budget)
    series._add(samples, np.asarray(failed, dtype=bool))
    return series.result()
