"""Per-cell and per-label sample statistics: counts, errors by class, throughput, mean and exact percentiles."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from littlegrid import tail
from littlegrid.error_classes import count_by_class
from littlegrid.int_sort import sort_ints

# (key in STATS, percentile). Keys avoid dots so that criteria and templates can name them.
PERCENTILES = (("p50_ms", "50"), ("p90_ms", "90"), ("p95_ms", "95"), ("p99_ms", "99"), ("p999_ms", "99.9"))


def nearest_rank(sorted_values: np.ndarray, percentile) -> float | None:
    """Exact nearest-rank percentile: the smallest value with at least p% of the samples at or below it.

    rank = ceil(p/100 · n), computed in exact rational arithmetic (p given as str or number) because
    floating point turns 0.9999 · 10001 into 10000.000000000002 and picks the wrong sample.
    """
    n = len(sorted_values)
    if n == 0:
        return None
    p = Fraction(str(percentile))
    if not 0 < p <= 100:
        raise ValueError(f"percentile {percentile} is not in (0, 100]")
    rank = math.ceil(p * n / 100)
    return float(sorted_values[max(rank, 1) - 1])


def _mean(series: pd.Series) -> float | None:
    if series is None:
        return None
    mean = series.mean()  # skips nulls like dropna().mean() without copying the column
    return None if pd.isna(mean) else float(mean)


def sample_stats(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float,
                 elapsed_sorted: np.ndarray | None = None) -> dict:
    """STATS (docs/contracts.md §5) over samples that completed in a window of `window_length_s` seconds.

    `elapsed_sorted`: the samples' elapsed times already sorted, when the caller has them (saves a sort).
    Throughput counts every completion, errors included (a failed request still occupied a thread and the
    server); `successes_per_s` gives the successes-only rate. Percentiles and the mean are over all samples.
    """
    n = len(samples)
    classes = error_class.reindex(samples.index)
    errors = int(classes.notna().sum())
    elapsed = elapsed_sorted if elapsed_sorted is not None else sort_ints(samples["elapsed_ms"].to_numpy(dtype=np.int64))
    out = {
        "count": n,
        "successes": n - errors,
        "errors": errors,
        "error_rate": errors / n if n else None,
        "errors_by_class": count_by_class(classes),
        "throughput_per_s": n / window_length_s if window_length_s > 0 else None,
        "successes_per_s": (n - errors) / window_length_s if window_length_s > 0 else None,
        "mean_ms": float(elapsed.mean()) if n else None,
        "min_ms": float(elapsed[0]) if n else None,
    }
    for key, p in PERCENTILES:
        out[key] = nearest_rank(elapsed, p)
    out["max_ms"] = float(elapsed[-1]) if n else None
    out["latency_mean_ms"] = _mean(samples["latency_ms"])
    out["connect_mean_ms"] = _mean(samples["connect_ms"])
    out["pdf"] = tail.log_pdf(elapsed)
    out["ccdf"] = tail.ccdf(elapsed)
    out["tail"] = tail.tail_index(elapsed)
    return out


def stats_by_label(samples: pd.DataFrame, error_class: pd.Series, window_length_s: float) -> dict:
    """{label: STATS} for every label with samples in the window, in label order."""
    out = {}
    slim = samples[["label", "elapsed_ms", "latency_ms", "connect_ms"]]  # what sample_stats reads
    for label, group in slim.groupby("label", observed=True, sort=True):
        out[str(label)] = sample_stats(group, error_class, window_length_s)
    return out
