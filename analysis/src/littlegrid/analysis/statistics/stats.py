"""Per-cell and per-label sample statistics: counts, errors by class and type, throughput, mean and exact
percentiles.

They are counted block by block (issue 17): SampleStatsAccumulator, LabelStatsAccumulator and
ErrorTypesAccumulator take the window's rows of each rowblock.Block and keep only counts (exact histograms of
elapsed, per label keyed label id · 2**40 + elapsed; exact integer sums; counts per error class and type), so
their memory grows with labels × distinct elapsed values and error types, never with rows. sample_stats,
stats_by_label and error_tables are the same accumulators fed one block: the whole table.
"""
# Over 450 lines as one job: sample statistics per cell and per label, which share the exact-sum helpers.

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from littlegrid.analysis.reading import tail
from littlegrid.analysis.reading.error_classes import count_names, largest_first
from littlegrid.analysis.reading.histogram import ExactHistogram, HistogramAccumulator

if TYPE_CHECKING:
    from littlegrid.analysis.statistics.rowblock import Block

# (key in STATS, percentile). Keys avoid dots so that criteria and templates can name them.
PERCENTILES = (("p50_ms", "50"), ("p90_ms", "90"), ("p95_ms", "95"), ("p99_ms", "99"), ("p999_ms", "99.9"))


def rank_of(n: int, percentile) -> int:
    """The nearest rank of a percentile among n samples: ceil(p/100 · n), at least 1, computed in exact rational
    arithmetic (p given as str or number) because floating point turns 0.9999 · 10001 into 10000.000000000002
    and picks the wrong sample."""
    p = Fraction(str(percentile))
    if not 0 < p <= 100:
        raise ValueError(f"percentile {percentile} is not in (0, 100]")
    return max(math.ceil(p * n / 100), 1)


def nearest_rank(sorted_values: np.ndarray, percentile) -> float | None:
    """Exact nearest-rank percentile: the smallest value with at least p% of the samples at or below it."""
    n = len(sorted_values)
    return float(sorted_values[rank_of(n, percentile) - 1]) if n else None


def percentile_of(h: ExactHistogram, percentile) -> float | None:
    """nearest_rank read from a histogram: the same value, without the samples."""
    n = h.n
    return float(h.at_rank(rank_of(n, percentile))) if n else None


# --- rows of a block --------------------------------------------------------------------------------------------

def _aligned(values: pd.Series, rows: pd.DataFrame) -> pd.Series:
    """values for the rows of `rows`, by index: callers may pass a per-row Series of a larger table."""
    return values if values.index.equals(rows.index) else values.reindex(rows.index)


def _where(rows: pd.DataFrame, mask: np.ndarray, columns) -> pd.DataFrame:
    """The rows where `mask` is True, with only `columns` (those `rows` has), row for row in order: `rows`
    itself when every row is (no copy), else a take per column (pandas' .loc[mask, columns] costs ~10× more on
    categorical and nullable columns)."""
    if mask.all():
        return rows
    at = np.flatnonzero(mask)
    return pd.DataFrame({c: rows[c].array.take(at) for c in columns if c in rows.columns}, copy=False)


def _where_series(values: pd.Series | None, mask: np.ndarray) -> pd.Series | None:
    if values is None or mask.all():
        return values
    return pd.Series(values.array.take(np.flatnonzero(mask)), copy=False)


def _categorical(values: pd.Series) -> pd.Series:
    return values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")


# --- exact sums -------------------------------------------------------------------------------------------------

EXACT_IN_FLOAT = 2**53  # integers and their sums below it are exact in float64, whatever the order of adding
SUM_CHUNK_ROWS = 1 << 20  # rows of a column converted at a time (8 MB, not 40 MB at 5 M)


class _Sum:
    """Σ and count of a column's non-null values over blocks. Integers add up exactly (Python ints: bytes over a
    long test pass 2**53), so the mean Σ/n is the float the mean of the whole column gives whenever that one
    is exact; a float column is summed in floats (its last digit may depend on the blocks)."""

    def __init__(self) -> None:
        self.total: int | float = 0
        self.seen = 0

    def add(self, values: pd.Series | None) -> None:
        if values is None:
            return
        for lo in range(0, len(values), SUM_CHUNK_ROWS):
            part = values.iloc[lo:lo + SUM_CHUNK_ROWS]
            self.seen += int(part.count())
            self.total += _total(part)

    def mean(self) -> float | None:
        return self.total / self.seen if self.seen else None


def _total(values: pd.Series) -> int | float:
    """Σ of a column's values, nulls as 0: for integers exact (an int64 sum when it cannot overflow, else
    Python ints), floats in floats. Bounds from the plain array: pandas' min and max of a nullable column cost
    three times its sum."""
    if values.dtype.kind not in "iu":
        return float(values.sum())
    plain = values.to_numpy(dtype=np.int64, na_value=0)
    if not len(plain) or max(-int(plain.min()), int(plain.max())) * len(plain) < 2**63:
        return int(plain.sum())
    return sum(plain.tolist())


def _sums_by_code(codes: np.ndarray, values: pd.Series, k: int) -> np.ndarray:
    """Σ values per code (nulls as 0), exact (Python ints in an object array) for an integer column: float
    bincounts of SUM_CHUNK_ROWS rows at a time, exact while a chunk cannot sum past 2**53; a chunk that could
    (values of terabytes) is summed in Python ints."""
    total = np.zeros(k, dtype=object)
    integers = values.dtype.kind in "iu"
    for lo in range(0, len(codes), SUM_CHUNK_ROWS):
        chunk = values.iloc[lo:lo + SUM_CHUNK_ROWS].to_numpy(dtype=np.int64 if integers else np.float64, na_value=0)
        where = codes[lo:lo + SUM_CHUNK_ROWS]
        if not integers:
            total += np.bincount(where, weights=chunk, minlength=k)
        elif len(chunk) and max(-int(chunk.min()), int(chunk.max())) * len(chunk) >= EXACT_IN_FLOAT:
            exact = [0] * k
            for code, value in zip(where.tolist(), chunk.tolist()):
                exact[code] += value
            total += np.array(exact, dtype=object)
        else:
            total += np.bincount(where, weights=chunk, minlength=k).astype(np.int64).astype(object)
    return total


def _group_sums(values: np.ndarray, counts: np.ndarray, starts: np.ndarray) -> list[int]:
    """Σ values · counts over each group [starts[i], starts[i+1]) as exact integers (int64 when it cannot
    overflow)."""
    if not len(values):
        return []
    if max(-int(values.min()), int(values.max())) * int(counts.sum()) < 2**63:
        return np.add.reduceat(values * counts, starts).tolist()
    bounds = [*starts.tolist(), len(values)]
    return [sum(int(v) * int(c) for v, c in zip(values[a:b].tolist(), counts[a:b].tolist()))
            for a, b in zip(bounds, bounds[1:])]


# --- the window's statistics ------------------------------------------------------------------------------------

SAMPLE_COLUMNS = ("elapsed_ms", "latency_ms", "connect_ms")


class SampleStatsAccumulator:
    """STATS (docs/contracts.md §5) of the samples (no Transaction Controller rows) that completed in the window,
    block by block: the exact histogram of elapsed, the count per error class, exact sums of latency and connect.

    Throughput counts every completion, errors included (a failed request still occupied a thread and the
    server); `successes_per_s` gives the successes-only rate. Percentiles and the mean are over all samples.
    """

    def __init__(self) -> None:
        self._n = 0
        self._elapsed = HistogramAccumulator()
        self._classes: Counter[str] = Counter()
        self._latency, self._connect = _Sum(), _Sum()

    def add(self, block: Block) -> None:
        mask = block.samples_in_window
        self.add_rows(_where(block.samples, mask, SAMPLE_COLUMNS), _where_series(block.sample_classes, mask))

    def add_rows(self, samples: pd.DataFrame, classes: pd.Series, elapsed: ExactHistogram | None = None) -> None:
        """Samples that completed in the window, with their error classes row for row (null: success).
        `elapsed`: the histogram of their elapsed times, when the caller has it."""
        self._n += len(samples)
        if elapsed is None and len(samples):
            elapsed = ExactHistogram.of(samples["elapsed_ms"].to_numpy(dtype=np.int64))
        if elapsed is not None:
            self._elapsed.add_histogram(elapsed)
        self._classes.update(count_names(classes))
        self._latency.add(samples.get("latency_ms"))
        self._connect.add(samples.get("connect_ms"))

    @property
    def elapsed(self) -> ExactHistogram:
        """The window's elapsed times (what the summary's `histogram` keeps)."""
        return self._elapsed.result()

    def result(self, window_length_s: float) -> dict:
        n, elapsed = self._n, self.elapsed
        errors = sum(self._classes.values())
        rate = window_length_s if window_length_s > 0 else None
        out = {
            "count": n,
            "successes": n - errors,
            "errors": errors,
            "error_rate": errors / n if n else None,
            "errors_by_class": largest_first(self._classes),
            "throughput_per_s": n / rate if rate else None,
            "successes_per_s": (n - errors) / rate if rate else None,
            "mean_ms": elapsed.mean(),
            "min_ms": float(elapsed.values[0]) if n else None,
        }
        for key, p in PERCENTILES:
            out[key] = percentile_of(elapsed, p)
        out["max_ms"] = float(elapsed.values[-1]) if n else None
        out["latency_mean_ms"] = self._latency.mean()
        out["connect_mean_ms"] = self._connect.mean()
        out["pdf"] = tail.log_pdf(elapsed)
        out["ccdf"] = tail.ccdf(elapsed)
        out["tail"] = tail.tail_index(elapsed)
        return out


def sample_stats(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float,
                 elapsed: ExactHistogram | None = None) -> dict:
    """SampleStatsAccumulator's STATS over samples that completed in a window of `window_length_s` seconds,
    fed as one block. `error_class`: per sample, by index (a Series of more rows is reindexed); `elapsed`: the
    histogram of the samples' elapsed times, when the caller has it (saves counting them again)."""
    accumulator = SampleStatsAccumulator()
    accumulator.add_rows(samples, _aligned(error_class, samples), elapsed)
    return accumulator.result(window_length_s)


# --- per label --------------------------------------------------------------------------------------------------

TOP_ERRORS = 5  # error types kept per label (JMeter's dashboard: "Top 5 Errors by sampler")
# Per-label figures: STATS' scalar fields (criteria read them by the same names) plus bytes, without the
# distribution fields (pdf, ccdf, tail): thousands of labels must keep summary.json small.
LABEL_MEANS = (("latency_ms", "latency_mean_ms"), ("connect_ms", "connect_mean_ms"),
               ("bytes", "bytes_mean"), ("sent_bytes", "sent_bytes_mean"))
LABEL_COLUMNS = ("elapsed_ms", "label", *(column for column, _ in LABEL_MEANS))

# A label's samples are keyed label id · 2**40 + elapsed + 2**39: the keys sort by label, then elapsed (an elapsed
# time below 0, a clock step, still in order), and 2**23 labels and ±17 years of elapsed fit an int64.
ELAPSED_BITS = 40
ELAPSED_OFFSET = 1 << (ELAPSED_BITS - 1)
MAX_LABELS = 1 << (63 - ELAPSED_BITS)


def _rank(counts: np.ndarray, percentile) -> np.ndarray:
    """Nearest rank ceil(p/100 · n) for every n at once, in integers (p as an exact fraction, as nearest_rank)."""
    num, den = Fraction(str(percentile)).as_integer_ratio()
    return np.maximum(-(-counts * num // (den * 100)), 1)


def label_codes(labels: pd.Series) -> tuple[np.ndarray, list[str]]:
    """(code per row, label per code) with only the labels that occur, codes in label order.

    Counted from the categorical's own codes (a bincount), not np.unique's sort of millions of rows."""
    cat = _categorical(labels)
    if cat.isna().any():  # a row without a label counts under the empty label, as JMeter shows it
        cat = cat.cat.add_categories([""]).fillna("") if "" not in cat.cat.categories else cat.fillna("")
    raw = cat.cat.codes.to_numpy()
    categories = cat.cat.categories
    used = np.flatnonzero(count_codes(raw, len(categories)))
    names = [str(categories[i]) for i in used]
    order = sorted(range(len(used)), key=names.__getitem__)
    return _remap(raw, used[order], len(categories)), [names[j] for j in order]


def _remap(raw: np.ndarray, used: np.ndarray, k: int, to: np.ndarray | None = None) -> np.ndarray:
    """raw codes replaced by their new codes (`to`, default 0, 1, 2… in the order of `used`), narrow: a code
    per row is 10 MB at 5 M rows as int16, not 20."""
    narrow = np.int16 if len(used) < 2**15 else np.int32
    remap = np.full(k, -1, dtype=narrow)
    remap[used] = np.arange(len(used)) if to is None else to
    return remap[raw]


def count_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """np.bincount(codes, minlength=k) a chunk at a time: bincount copies narrow codes to 8-byte integers
    first (40 MB at 5 M rows)."""
    counts = np.zeros(k, dtype=np.int64)
    for lo in range(0, len(codes), SUM_CHUNK_ROWS):
        counts += np.bincount(codes[lo:lo + SUM_CHUNK_ROWS], minlength=k)
    return counts


class _Ids:
    """Names as ids that mean the same name in every block, in order of first appearance: each block's
    categorical has its own categories, looked up here once per category, never per row."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}

    def of(self, name: str) -> int:
        i = self._ids.get(name)
        if i is None:
            i = self._ids[name] = len(self.names)
            self.names.append(name)
        return i


class _PerId:
    """An exact integer (or float, for a float column) per id, growing as ids appear."""

    def __init__(self) -> None:
        self.values = np.zeros(0, dtype=object)

    def add(self, ids: np.ndarray, amounts: np.ndarray) -> None:
        """ids: distinct, ascending."""
        if len(ids) and ids[-1] >= len(self.values):
            self.values = np.concatenate((self.values, np.zeros(ids[-1] + 1 - len(self.values), dtype=object)))
        self.values[ids] += amounts.astype(object)

    def __getitem__(self, i: int):
        return self.values[i] if i < len(self.values) else 0


class LabelStatsAccumulator:
    """{label: LABEL_STATS} of every row that completed in the window, Transaction Controller rows included
    (marked: they keep their own statistics), block by block.

    Each block's (label, elapsed) pairs are counted as keys label id · 2**40 + elapsed into one exact histogram,
    so every label's nearest-rank percentiles, min, max and mean are read from it at the end at once; errors,
    error classes and types are counted per label, the means of latency, connect and bytes from exact sums with
    nulls skipped.
    """

    def __init__(self, transactions: frozenset[str] = frozenset()) -> None:
        self.transactions = frozenset(transactions)
        self._labels = _Ids()
        self._keys = HistogramAccumulator()
        self._errors = _PerId()
        self._sums = {column: (_PerId(), _PerId()) for column, _ in LABEL_MEANS}  # (Σ, non-null count)
        self._classes: Counter[tuple[int, str]] = Counter()
        self._types: Counter[tuple[int, str]] = Counter()

    def add(self, block: Block) -> None:
        mask = block.in_window
        self.add_rows(_where(block.everything, mask, LABEL_COLUMNS), _where_series(block.classes, mask),
                      _where_series(block.types, mask))

    def add_rows(self, rows: pd.DataFrame, classes: pd.Series, types: pd.Series | None = None) -> None:
        """Rows that completed in the window with their error classes and types (error_classes.error_types; None:
        no top errors) row for row."""
        if not len(rows):
            return
        codes, ids = self._codes(rows["label"])
        k = len(ids)
        self._keys.add_histogram(_keyed(codes, ids, rows["elapsed_ms"].to_numpy(dtype=np.int64)))
        counts = count_codes(codes, k)
        classes = _categorical(classes)
        failed = classes.cat.codes.to_numpy() >= 0
        failed_codes = codes[failed]
        self._errors.add(ids, np.bincount(failed_codes, minlength=k))
        self._classes.update(_pairs(ids, failed_codes, classes[failed]))
        if types is not None:
            self._types.update(_pairs(ids, failed_codes, _categorical(types)[failed]))
        for column, _ in LABEL_MEANS:
            if column in rows.columns:
                values = rows[column]
                present = values.notna().to_numpy()
                total, seen = self._sums[column]
                total.add(ids, _sums_by_code(codes, values, k))
                seen.add(ids, counts if present.all() else np.bincount(codes[present], minlength=k))

    def _codes(self, labels: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        """(code per row, label id per code): codes 0… in ascending id, so that code-major keys are id-major."""
        cat = _categorical(labels)
        raw = cat.cat.codes.to_numpy()
        names = list(cat.cat.categories)
        if (raw < 0).any():  # a row without a label counts under the empty label, as JMeter shows it
            raw = raw.astype(np.int32)
            raw[raw < 0] = len(names)
            names.append("")
        used = np.flatnonzero(count_codes(raw, len(names)))
        ids = np.array([self._labels.of(str(names[i])) for i in used], dtype=np.int64)
        if len(self._labels.names) > MAX_LABELS:
            raise ValueError(f"more than {MAX_LABELS} labels")
        distinct = np.unique(ids)  # a null and an "" category are the one empty label
        return _remap(raw, used, len(names), np.searchsorted(distinct, ids)), distinct

    def result(self, window_length_s: float) -> dict:
        """{label: LABEL_STATS} in label order (docs/analysis.md)."""
        h = self._keys.result()
        if not len(h.values):
            return {}
        key_ids = h.values >> ELAPSED_BITS
        elapsed = (h.values & ((1 << ELAPSED_BITS) - 1)) - ELAPSED_OFFSET
        starts = np.flatnonzero(np.concatenate(([True], key_ids[1:] != key_ids[:-1])))
        ends = np.concatenate((starts[1:], [len(key_ids)]))  # each label's distinct values: [start, end)
        cumulative = np.cumsum(h.counts)
        before = np.concatenate(([0], cumulative[starts[1:] - 1]))  # samples of the labels before it
        counts = cumulative[ends - 1] - before
        figures = {"min_ms": elapsed[starts], "max_ms": elapsed[ends - 1]}
        for key, p in PERCENTILES:
            figures[key] = elapsed[np.searchsorted(cumulative, before + _rank(counts, p), side="left")]
        sums = _group_sums(elapsed, h.counts, starts)
        by_class, top = _by_id(self._classes), _by_id(self._types, TOP_ERRORS)
        rate = window_length_s if window_length_s > 0 else None
        names = self._labels.names
        out = {}
        for j in sorted(range(len(starts)), key=lambda j: names[key_ids[starts[j]]]):
            i, n = int(key_ids[starts[j]]), int(counts[j])
            e = int(self._errors[i])
            st = {"count": n, "successes": n - e, "errors": e, "error_rate": e / n,
                  "errors_by_class": by_class.get(i, {}),
                  "throughput_per_s": n / rate if rate else None, "successes_per_s": (n - e) / rate if rate else None,
                  "mean_ms": sums[j] / n, "min_ms": float(figures["min_ms"][j])}
            for key, _ in PERCENTILES:
                st[key] = float(figures[key][j])
            st["max_ms"] = float(figures["max_ms"][j])
            for column, name in LABEL_MEANS:
                total, seen = self._sums[column]
                st[name] = total[i] / seen[i] if seen[i] else None
            received, sent = st["bytes_mean"], st["sent_bytes_mean"]
            st["received_bytes_per_s"] = received * n / rate if rate and received is not None else None
            st["sent_bytes_per_s"] = sent * n / rate if rate and sent is not None else None
            st["transaction"] = names[i] in self.transactions
            st["top_errors"] = [{"type": t, "count": c} for t, c in top.get(i, {}).items()]
            out[names[i]] = st
        return out


def _keyed(codes: np.ndarray, ids: np.ndarray, elapsed: np.ndarray) -> ExactHistogram:
    """The histogram of the keys id · 2**40 + elapsed + 2**39 of a block's rows (codes: ascending with ids).

    When there are no more possible (code, elapsed) pairs than rows (a few thousand distinct ms per label), a
    count per pair, a chunk of rows at a time, gives them in key order with no sort; otherwise one sort of the
    keys, in place."""
    low, high = int(elapsed.min()), int(elapsed.max())
    if low < -ELAPSED_OFFSET or high >= ELAPSED_OFFSET:
        raise ValueError(f"elapsed {low if low < -ELAPSED_OFFSET else high} ms is out of the ±2**39 ms keys hold")
    scale = high - low + 1
    size = len(ids) * scale
    if size <= len(codes):
        counts = np.zeros(size, dtype=np.int64)
        for lo in range(0, len(codes), SUM_CHUNK_ROWS):
            keys = codes[lo:lo + SUM_CHUNK_ROWS].astype(np.int64)
            keys *= scale
            keys += elapsed[lo:lo + SUM_CHUNK_ROWS]
            keys -= low
            counts += np.bincount(keys, minlength=size)
        present = np.flatnonzero(counts)
        code, offset = np.divmod(present, scale)
        return ExactHistogram((ids[code] << ELAPSED_BITS) + offset + (low + ELAPSED_OFFSET), counts[present])
    keys = ids[codes]
    keys <<= ELAPSED_BITS
    keys += elapsed
    keys += ELAPSED_OFFSET
    keys.sort()
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return ExactHistogram(keys[starts], np.diff(np.concatenate((starts, [len(keys)]))))


def _pairs(ids: np.ndarray, codes: np.ndarray, values: pd.Series) -> Counter:
    """{(label id, value name): rows} of the failed rows (codes: their label codes; values: their categorical
    error class or type): one np.unique over the combined keys, each distinct pair named once."""
    value_codes = values.cat.codes.to_numpy()
    named = value_codes >= 0
    width = max(len(values.cat.categories), 1)
    pairs, n = np.unique(codes[named].astype(np.int64) * width + value_codes[named], return_counts=True)
    categories = values.cat.categories
    out: Counter = Counter()
    for pair, c in zip(pairs.tolist(), n.tolist()):
        code, value = divmod(pair, width)
        out[(int(ids[code]), str(categories[value]))] += c
    return out


def _by_id(pairs: Counter, limit: int | None = None) -> dict[int, dict[str, int]]:
    """{id: {name: count}} largest first (ties by name), at most `limit` per id."""
    grouped: dict[int, dict[str, int]] = {}
    for (i, name), c in pairs.items():
        grouped.setdefault(i, {})[name] = c
    return {i: largest_first(counts, limit) for i, counts in grouped.items()}


def stats_by_label(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float,
                   error_type: pd.Series | None = None, transactions=frozenset()) -> dict:
    """{label: LABEL_STATS} for every label with samples in the window, in label order (docs/analysis.md):
    LabelStatsAccumulator fed one block. `error_class`, `error_type` (error_classes.error_types, for the top
    errors): per sample, by index; `transactions`: the labels of Transaction Controller rows (marked, they have
    their own statistics)."""
    accumulator = LabelStatsAccumulator(transactions)
    accumulator.add_rows(samples, _aligned(error_class, samples),
                         None if error_type is None else _aligned(error_type, samples))
    return accumulator.result(window_length_s)


# --- errors by type ---------------------------------------------------------------------------------------------

ERROR_TYPES_MAX = 100  # error types listed; messages with ids or timestamps in them could make thousands


class ErrorTypesAccumulator:
    """The window's errors by type (JMeter's "Errors" table) over the samples (no Transaction Controller rows),
    block by block: a count per type name, so memory is the distinct types, never the rows."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def add(self, block: Block) -> None:
        if block.types is None:
            raise ValueError("the block carries no error types (make it with the labels analysed)")
        self.add_types(block.types, block.in_window & ~block.is_transaction)

    def add_types(self, types: pd.Series, mask: np.ndarray | None = None) -> None:
        """Error types (error_classes.error_types: null for successes) of samples in the window; `mask`: count
        only the rows where it is True."""
        self._counts.update(count_names(types, mask))

    def result(self, window_length_s: float) -> dict:
        """Largest first (ties by type): count, share of the errors, rate; the ERROR_TYPES_MAX largest, the
        others counted in types_not_listed / errors_not_listed."""
        total = sum(self._counts.values())
        rows = list(largest_first(self._counts).items())
        rest = rows[ERROR_TYPES_MAX:]
        rate = window_length_s if window_length_s > 0 else None
        return {"by_type": [{"type": t, "count": n, "share_of_errors": n / total, "per_s": n / rate if rate else None}
                            for t, n in rows[:ERROR_TYPES_MAX]],
                "types_not_listed": len(rest), "errors_not_listed": sum(n for _, n in rest)}


def error_tables(types: pd.Series, window_length_s: float) -> dict:
    """ErrorTypesAccumulator's table of the error types of a window's samples, fed as one block."""
    accumulator = ErrorTypesAccumulator()
    accumulator.add_types(types)
    return accumulator.result(window_length_s)
