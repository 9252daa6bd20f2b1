"""Per-cell and per-label sample statistics: counts, errors by class, throughput, mean and exact percentiles."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from littlegrid.analysis import tail
from littlegrid.analysis.error_classes import count_by_class
from littlegrid.analysis.histogram import ExactHistogram
from littlegrid.analysis.int_sort import sort_ints

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


def _mean(series: pd.Series) -> float | None:
    if series is None:
        return None
    mean = series.mean()  # skips nulls like dropna().mean() without copying the column
    return None if pd.isna(mean) else float(mean)


def sample_stats(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float,
                 elapsed: ExactHistogram | None = None) -> dict:
    """STATS (docs/contracts.md §5) over samples that completed in a window of `window_length_s` seconds.

    `elapsed`: the histogram of the samples' elapsed times, when the caller has it (saves counting them again).
    Throughput counts every completion, errors included (a failed request still occupied a thread and the
    server); `successes_per_s` gives the successes-only rate. Percentiles and the mean are over all samples.
    """
    n = len(samples)
    classes = error_class if error_class.index.equals(samples.index) else error_class.reindex(samples.index)
    errors = int(classes.notna().sum())
    elapsed = elapsed if elapsed is not None else ExactHistogram.of(samples["elapsed_ms"].to_numpy(dtype=np.int64))
    out = {
        "count": n,
        "successes": n - errors,
        "errors": errors,
        "error_rate": errors / n if n else None,
        "errors_by_class": count_by_class(classes),
        "throughput_per_s": n / window_length_s if window_length_s > 0 else None,
        "successes_per_s": (n - errors) / window_length_s if window_length_s > 0 else None,
        "mean_ms": elapsed.mean(),
        "min_ms": float(elapsed.values[0]) if n else None,
    }
    for key, p in PERCENTILES:
        out[key] = percentile_of(elapsed, p)
    out["max_ms"] = float(elapsed.values[-1]) if n else None
    out["latency_mean_ms"] = _mean(samples["latency_ms"])
    out["connect_mean_ms"] = _mean(samples["connect_ms"])
    out["pdf"] = tail.log_pdf(elapsed)
    out["ccdf"] = tail.ccdf(elapsed)
    out["tail"] = tail.tail_index(elapsed)
    return out


TOP_ERRORS = 5  # error types kept per label (JMeter's dashboard: "Top 5 Errors by sampler")
# Per-label figures: STATS' scalar fields (criteria read them by the same names) plus bytes, without the
# distribution fields (pdf, ccdf, tail): thousands of labels must keep summary.json small.
LABEL_MEANS = (("latency_ms", "latency_mean_ms"), ("connect_ms", "connect_mean_ms"),
               ("bytes", "bytes_mean"), ("sent_bytes", "sent_bytes_mean"))


def _rank(counts: np.ndarray, percentile) -> np.ndarray:
    """Nearest rank ceil(p/100 · n) for every n at once, in integers (p as an exact fraction, as nearest_rank)."""
    num, den = Fraction(str(percentile)).as_integer_ratio()
    return np.maximum(-(-counts * num // (den * 100)), 1)


def label_codes(labels: pd.Series) -> tuple[np.ndarray, list[str]]:
    """(code per row, label per code) with only the labels that occur, codes in label order.

    Counted from the categorical's own codes (a bincount), not np.unique's sort of millions of rows."""
    cat = labels if isinstance(labels.dtype, pd.CategoricalDtype) else labels.astype("category")
    if cat.isna().any():  # a row without a label counts under the empty label, as JMeter shows it
        cat = cat.cat.add_categories([""]).fillna("") if "" not in cat.cat.categories else cat.fillna("")
    raw = cat.cat.codes.to_numpy()
    categories = cat.cat.categories
    used = np.flatnonzero(count_codes(raw, len(categories)))
    names = [str(categories[i]) for i in used]
    order = sorted(range(len(used)), key=names.__getitem__)
    narrow = np.int16 if len(used) < 2**15 else np.int32  # a code per row: 10 MB at 5 M rows, not 20
    remap = np.full(len(categories), -1, dtype=narrow)
    remap[used[order]] = np.arange(len(used), dtype=narrow)
    return remap[raw], [names[j] for j in order]


def stats_by_label(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float,
                   error_type: pd.Series | None = None, transactions=frozenset()) -> dict:
    """{label: LABEL_STATS} for every label with samples in the window, in label order (docs/analysis.md).

    One pass for all labels, never a loop over the frame per label: each sample is keyed by
    label code · scale + elapsed, the keys in order (counted, or sorted once) are by label then elapsed, and
    every label's nearest-rank percentiles, min and max are read at once at start + rank − 1. Sums are
    bincounts, a chunk of rows at a time.
    `error_type`: the error type of each failed sample (error_classes.error_types), for the top errors;
    `transactions`: the labels of Transaction Controller rows (marked, they have their own statistics).
    """
    if len(samples) == 0:
        return {}
    codes, names = label_codes(samples["label"])
    k = len(names)
    counts = count_codes(codes, k)
    elapsed = samples["elapsed_ms"].to_numpy(dtype=np.int64)
    low = int(elapsed.min())
    scale = int(elapsed.max()) - low + 1
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    positions = {"min_ms": starts, "max_ms": starts + counts - 1,
                 **{key: starts + _rank(counts, p) - 1 for key, p in PERCENTILES}}
    offsets = np.arange(k, dtype=np.int64) * scale - low  # key − offset = elapsed
    per_label = {key: value - offsets for key, value in _sorted_keys_at(codes, elapsed, low, scale, k,
                                                                         positions).items()}
    per_label["count"] = counts
    sums = _sums_by_code(codes, elapsed, k)
    classes = error_class if error_class.index.equals(samples.index) else error_class.reindex(samples.index)
    failed = classes.notna().to_numpy()
    errors = np.bincount(codes[failed], minlength=k)
    by_class = _count_pairs(codes[failed], classes.cat.codes.to_numpy()[failed], list(classes.cat.categories))
    means = {}
    for column, name in LABEL_MEANS:
        if column in samples.columns:
            values = samples[column]
            present = values.notna().to_numpy()
            total = _sums_by_code(codes, values, k)
            seen = counts if present.all() else np.bincount(codes[present], minlength=k)
            means[name] = [None if s == 0 else float(t / s) for t, s in zip(total, seen)]
        else:
            means[name] = [None] * k
    top = {}
    if error_type is not None and failed.any():
        types = error_type if error_type.index.equals(samples.index) else error_type.reindex(samples.index)
        top = _count_pairs(codes[failed], types.cat.codes.to_numpy()[failed], list(types.cat.categories),
                           limit=TOP_ERRORS)
    rate = window_length_s if window_length_s > 0 else None
    out = {}
    for i, label in enumerate(names):
        n, e = int(counts[i]), int(errors[i])
        st = {"count": n, "successes": n - e, "errors": e, "error_rate": e / n,
              "errors_by_class": by_class.get(i, {}),
              "throughput_per_s": n / rate if rate else None, "successes_per_s": (n - e) / rate if rate else None,
              "mean_ms": float(sums[i] / n), "min_ms": float(per_label["min_ms"][i])}
        for key, _ in PERCENTILES:
            st[key] = float(per_label[key][i])
        st["max_ms"] = float(per_label["max_ms"][i])
        for _, name in LABEL_MEANS:
            st[name] = means[name][i]
        received, sent = st["bytes_mean"], st["sent_bytes_mean"]
        st["received_bytes_per_s"] = received * n / rate if rate and received is not None else None
        st["sent_bytes_per_s"] = sent * n / rate if rate and sent is not None else None
        st["transaction"] = label in transactions
        st["top_errors"] = [{"type": t, "count": c} for t, c in top.get(i, {}).items()]
        out[label] = st
    return out


SUM_CHUNK_ROWS = 1 << 20  # rows converted to float64 at a time by _sums_by_code (8 MB, not 40 MB at 5 M)


def count_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """np.bincount(codes, minlength=k) a chunk at a time: bincount copies narrow codes to 8-byte integers
    first (40 MB at 5 M rows)."""
    counts = np.zeros(k, dtype=np.int64)
    for lo in range(0, len(codes), SUM_CHUNK_ROWS):
        counts += np.bincount(codes[lo:lo + SUM_CHUNK_ROWS], minlength=k)
    return counts


def _sums_by_code(codes: np.ndarray, values, k: int) -> np.ndarray:
    """Σ values per code (nulls as 0), as np.bincount(codes, weights=values) gives it, converting
    SUM_CHUNK_ROWS at a time. The same floats: integer partial sums below 2**53 are exact in any order."""
    total = np.zeros(k)
    for lo in range(0, len(codes), SUM_CHUNK_ROWS):
        if isinstance(values, pd.Series):
            weights = values.iloc[lo:lo + SUM_CHUNK_ROWS].to_numpy(dtype=np.float64, na_value=0)
        else:
            weights = values[lo:lo + SUM_CHUNK_ROWS]
        total += np.bincount(codes[lo:lo + SUM_CHUNK_ROWS], weights=weights, minlength=k)
    return total


def _sorted_keys_at(codes: np.ndarray, elapsed: np.ndarray, low: int, scale: int, k: int,
                    positions: dict) -> dict:
    """{name: sorted(keys)[positions[name]]} for the keys code · scale + elapsed − low (label, then elapsed).

    When there are no more possible keys than samples (a few thousand distinct ms per label), a count per
    key, summed up, gives every position at once (the smallest key whose running count passes it), with
    no sorted copy of the keys and the keys themselves built a chunk at a time; otherwise one sort."""
    size = k * scale
    if size <= len(codes):
        counts = np.zeros(size, dtype=np.int64)
        for lo in range(0, len(codes), SUM_CHUNK_ROWS):
            keys = codes[lo:lo + SUM_CHUNK_ROWS].astype(np.int64)
            keys *= scale
            keys += elapsed[lo:lo + SUM_CHUNK_ROWS]
            keys -= low
            counts += np.bincount(keys, minlength=size)
        np.cumsum(counts, out=counts)
        return {name: np.searchsorted(counts, at, side="right") for name, at in positions.items()}
    keys = codes.astype(np.int64)
    keys *= scale
    keys += elapsed
    keys -= low
    keys = sort_ints(keys)
    return {name: keys[at] for name, at in positions.items()}


def _count_pairs(group: np.ndarray, value: np.ndarray, value_names: list, limit: int | None = None) -> dict:
    """{group: {value name: count}} largest first (ties by name), at most `limit` per group; one np.unique
    over the combined keys (only the failed samples), not a count per group."""
    if len(group) == 0:
        return {}
    width = max(len(value_names), 1)
    pairs, n = np.unique(group.astype(np.int64) * width + value, return_counts=True)
    g, v = pairs // width, pairs % width
    out: dict = {}
    for gi, vi, c in sorted(zip(g.tolist(), v.tolist(), n.tolist()), key=lambda r: (r[0], -r[2], str(value_names[r[1]]))):
        row = out.setdefault(gi, {})
        if limit is None or len(row) < limit:
            row[str(value_names[vi])] = int(c)
    return out
