"""Per-second time series of a cell (throughput, errors, exact percentiles, threads, server and host gauges) on a point budget."""

import math

import numpy as np
import pandas as pd

from littlegrid.int_sort import sort_ints
from littlegrid.server_metrics import per_bucket_mean
from littlegrid.window import SteadyWindow

POINT_BUDGET = 600
SERIES_PERCENTILES = (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99))


def bucket_percentiles(bucket: np.ndarray, elapsed: np.ndarray, buckets: int) -> dict:
    """Exact nearest-rank percentiles of `elapsed` within each bucket (None for empty buckets), one counting sort in all."""
    # one sort of bucket·(max+1) + elapsed orders by bucket, then elapsed (faster than a two-key lexsort)
    low = int(elapsed.min(initial=0))  # a negative elapsed (clock step) must not borrow from the bucket
    scale = int(elapsed.max(initial=0)) - low + 1
    combined = bucket.astype(np.int64) * scale
    combined += elapsed
    combined -= low
    combined = sort_ints(combined)
    # bucket k holds the values in [k·scale, (k+1)·scale): its bounds are found on `combined` itself, and
    # elapsed is decoded only at the ranks picked (no full bucket and elapsed arrays: 80 MB at 5 M rows)
    edges = np.arange(buckets + 1, dtype=np.int64) * scale
    bounds = np.searchsorted(combined, edges, side="left")
    starts, counts = bounds[:-1], np.diff(bounds)
    if len(combined) == 0:
        return {key: [None] * buckets for key, _ in SERIES_PERCENTILES}
    out = {}
    for key, p in SERIES_PERCENTILES:
        rank = np.maximum(-(-counts * p // 100), 1)  # ceil(p·n/100) in integers
        idx = np.minimum(starts + rank - 1, len(combined) - 1)
        e = combined[idx] % scale + low
        out[key] = [float(v) if c else None for v, c in zip(e, counts)]
    return out


def time_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, engines: int | None,
                server: pd.DataFrame | None, host: pd.DataFrame | None, budget: int = POINT_BUDGET) -> dict:
    """Series over the whole cell (warm-up and cool-down included, so the report can show what was trimmed).

    Time is seconds since the first sample's start; each point covers `bucket_s` seconds (1 unless the cell
    is longer than the budget), and rates are per second. Samples are placed by completion time, like X.
    """
    t0 = window.first_start_ms
    span_s = max(1, math.ceil((window.last_end_ms - t0 + 1) / 1000))
    bucket_s = max(1, math.ceil(span_s / budget))
    buckets = math.ceil(span_s / bucket_s)
    bucket = ((samples["end_ms"].to_numpy(dtype=np.int64) - t0) // (1000 * bucket_s)).clip(0, buckets - 1)
    counts = np.bincount(bucket, minlength=buckets)
    errors = np.bincount(bucket, weights=failed.astype(float), minlength=buckets)
    out = {
        "t0_ms": t0,
        "bucket_s": bucket_s,
        "window_start_s": (window.start_ms - t0) / 1000.0,
        "window_end_s": (window.end_ms - t0) / 1000.0,
        "t_s": [float(i * bucket_s) for i in range(buckets)],
        "throughput": (counts / bucket_s).tolist(),
        "errors": (errors / bucket_s).tolist(),
    }
    out |= bucket_percentiles(bucket, samples["elapsed_ms"].to_numpy(dtype=np.int64), buckets)
    all_threads = samples["all_threads"]
    if all_threads.notna().any():
        peak = pd.Series(all_threads.to_numpy(dtype=float)).groupby(bucket).max()
        active = [None] * buckets
        for i, v in peak.items():
            active[int(i)] = None if np.isnan(v) else float(v) * (engines or 1)
        out["active_threads"] = active
    else:  # no allThreads column: threads that completed a sample in the bucket
        distinct = pd.Series(samples["thread"].astype("string").to_numpy()).groupby(bucket).nunique()
        out["active_threads"] = [float(distinct.get(i, 0)) for i in range(buckets)]
    out["in_flight"] = per_bucket_mean(server, "in_flight", t0, bucket_s, buckets)
    out["busy_threads"] = per_bucket_mean(server, "busy_threads", t0, bucket_s, buckets)
    out["load1"] = per_bucket_mean(host, "load1", t0, bucket_s, buckets)
    return out
