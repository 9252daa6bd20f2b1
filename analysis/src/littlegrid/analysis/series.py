"""Per-second time series of a cell (throughput, errors, exact percentiles, threads, server and host gauges) on a point budget."""

import math

import numpy as np
import pandas as pd

from littlegrid.analysis.server_metrics import per_bucket_mean
from littlegrid.analysis.window import SteadyWindow

POINT_BUDGET = 600
SERIES_PERCENTILES = (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99))


def bucket_percentiles(bucket: np.ndarray, elapsed: np.ndarray, buckets: int, overwrite: bool = False) -> dict:
    """Exact nearest-rank percentiles of `elapsed` within each bucket (None for empty buckets).
    `overwrite`: `bucket` (int64) may be used as the keys' room (the caller is done with it).

    Both ways below key each sample by bucket·scale + (elapsed − low), which orders by bucket, then elapsed.
    Usually a count per (bucket, value) takes no more room than the samples: the counts, summed along each
    bucket, give every rank at once with no sorted copy of 5 M keys. Otherwise one sort of the keys."""
    if len(elapsed) == 0:
        return {key: [None] * buckets for key, _ in SERIES_PERCENTILES}
    low = min(0, int(elapsed.min()))  # a negative elapsed (clock step) must not borrow from the bucket
    scale = int(elapsed.max()) - low + 1
    combined = bucket if overwrite and bucket.dtype == np.int64 else bucket.astype(np.int64)
    combined *= scale
    combined += elapsed
    combined -= low
    out = {}
    if buckets * scale <= len(combined):
        cumulative = np.bincount(combined, minlength=buckets * scale).reshape(buckets, scale)
        del combined
        np.cumsum(cumulative, axis=1, out=cumulative)
        counts = cumulative[:, -1]
        for key, p in SERIES_PERCENTILES:
            rank = np.maximum(-(-counts * p // 100), 1)  # ceil(p·n/100) in integers
            value = (cumulative < rank[:, None]).sum(axis=1)  # the first value whose count reaches the rank
            out[key] = [float(v + low) if c else None for v, c in zip(value, counts)]
        return out
    combined.sort()
    # bucket k holds the keys in [k·scale, (k+1)·scale): its bounds are found on `combined` itself, and
    # elapsed is decoded only at the ranks picked (no full bucket and elapsed arrays: 80 MB at 5 M rows)
    bounds = np.searchsorted(combined, np.arange(buckets + 1, dtype=np.int64) * scale, side="left")
    starts, counts = bounds[:-1], np.diff(bounds)
    for key, p in SERIES_PERCENTILES:
        rank = np.maximum(-(-counts * p // 100), 1)
        idx = np.minimum(starts + rank - 1, len(combined) - 1)
        e = combined[idx] % scale + low
        out[key] = [float(v) if c else None for v, c in zip(e, counts)]
    return out


def bucketing(window: SteadyWindow, budget: int = POINT_BUDGET) -> tuple[int, int, int]:
    """(t0_ms, bucket_s, buckets): the time axis of a cell's series, shared by every series of the cell."""
    t0 = window.first_start_ms
    span_s = max(1, math.ceil((window.last_end_ms - t0 + 1) / 1000))
    bucket_s = max(1, math.ceil(span_s / budget))
    return t0, bucket_s, math.ceil(span_s / bucket_s)


def bucket_of(samples: pd.DataFrame, t0: int, bucket_s: int, buckets: int) -> np.ndarray:
    """Each sample's bucket by completion time (samples ending after the last bucket go into it)."""
    bucket = samples["end_ms"].to_numpy(dtype=np.int64) - t0  # then in place: one 8-byte-a-row array
    bucket //= 1000 * bucket_s
    np.clip(bucket, 0, buckets - 1, out=bucket)
    return bucket


def time_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, engines: int | None,
                server: pd.DataFrame | None, host: pd.DataFrame | None, budget: int = POINT_BUDGET) -> dict:
    """Series over the whole cell (warm-up and cool-down included, so the report can show what was trimmed).

    Time is seconds since the first sample's start; each point covers `bucket_s` seconds (1 unless the cell
    is longer than the budget), and rates are per second. Samples are placed by completion time, like X.
    """
    t0, bucket_s, buckets = bucketing(window, budget)
    bucket = bucket_of(samples, t0, bucket_s, buckets)
    counts = np.bincount(bucket, minlength=buckets)
    errors = np.bincount(bucket[failed], minlength=buckets)  # not weights: a float copy of every sample
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
    if "response_code" in samples.columns:
        out["codes"] = response_codes(samples["response_code"], bucket, buckets, bucket_s)
    all_threads = samples["all_threads"]
    if all_threads.notna().any():
        # int32 with −1 for null (allThreads ≥ 0); np.maximum.at: 10× faster than a groupby, no copies
        peak = np.full(buckets, -1, dtype=np.int32)
        np.maximum.at(peak, bucket, all_threads.to_numpy(dtype=np.int32, na_value=-1))
        active = [None if v < 0 else float(v) * (engines or 1) for v in peak.tolist()]
        out["active_threads"] = active
    else:  # no allThreads column: threads that completed a sample in the bucket
        distinct = pd.Series(samples["thread"].astype("string").to_numpy()).groupby(bucket).nunique()
        out["active_threads"] = [float(distinct.get(i, 0)) for i in range(buckets)]
    out["in_flight"] = per_bucket_mean(server, "in_flight", t0, bucket_s, buckets)
    out["busy_threads"] = per_bucket_mean(server, "busy_threads", t0, bucket_s, buckets)
    out["load1"] = per_bucket_mean(host, "load1", t0, bucket_s, buckets)
    return out


CODES_MAX = 8  # response codes with a series of their own; the rarer ones are summed into "other"


def response_codes(codes: pd.Series, bucket: np.ndarray, buckets: int, bucket_s: int) -> dict:
    """{response code: samples per second}, the CODES_MAX most frequent codes (ties by code), then "other"
    for the rest and "none" for samples without a code (JMeter's "Codes per second")."""
    cat = codes.astype("category")
    index = cat.cat.codes.to_numpy().astype(np.int64)  # −1: no code; then in place: + 1
    index += 1
    names = [str(c) for c in cat.cat.categories]
    per_code = np.bincount(index, minlength=len(names) + 1)
    ranked = sorted((i for i in range(len(names)) if per_code[i + 1]), key=lambda i: (-per_code[i + 1], names[i]))
    slot = np.full(len(names) + 1, CODES_MAX, dtype=np.int64)  # slot per code (+1 for none): CODES_MAX = other
    for s, i in enumerate(ranked[:CODES_MAX]):
        slot[i + 1] = s
    slot[0] = CODES_MAX + 1
    key = slot[index]  # then in place: slot · buckets + bucket (one 8-byte-a-row temporary at a time)
    del index
    key *= buckets
    key += bucket
    counts = np.bincount(key, minlength=(CODES_MAX + 2) * buckets)
    counts = counts.reshape(CODES_MAX + 2, buckets) / bucket_s
    out = {names[i]: counts[s].tolist() for s, i in enumerate(ranked[:CODES_MAX])}
    for s, name in ((CODES_MAX, "other"), (CODES_MAX + 1, "none")):
        if counts[s].any():
            out[name] = counts[s].tolist()
    return out


LABEL_SERIES_MAX = 20  # labels with per-second series: the ones with the most samples
LABEL_SERIES_RULE = (f"per-second series for the {LABEL_SERIES_MAX} labels with the most samples in the cell "
                     f"(ties by label), on the cell's time axis")


def label_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, budget: int = POINT_BUDGET,
                 top: int = LABEL_SERIES_MAX) -> dict:
    """Per-label series (samples and errors per second, exact p50/p90/p99 per bucket) for the `top` labels
    with the most samples, on the same time axis as time_series: one pass keyed by (label rank, bucket).

    Bounded so that a JTL with thousands of labels keeps a small summary: top × buckets × 5 values."""
    from littlegrid.analysis.stats import count_codes, label_codes  # stats imports nothing from here: stays acyclic

    if len(samples) == 0:
        return {"rule": LABEL_SERIES_RULE, "labels": {}}
    t0, bucket_s, buckets = bucketing(window, budget)
    codes, names = label_codes(samples["label"])
    per_label = count_codes(codes, len(names))
    chosen = sorted(range(len(names)), key=lambda i: (-per_label[i], names[i]))[:top]
    rank = np.full(len(names), -1, dtype=np.int64)
    rank[chosen] = np.arange(len(chosen))
    key = rank[codes]  # then in place: rank · buckets + bucket
    elapsed = samples["elapsed_ms"].to_numpy(dtype=np.int64)
    if len(chosen) < len(names):  # only the chosen labels' rows (else every row, no copies)
        keep = key >= 0
        key, elapsed, failed = key[keep], elapsed[keep], failed[keep]
        key *= buckets
        key += bucket_of(samples, t0, bucket_s, buckets)[keep]
    else:
        key *= buckets
        key += bucket_of(samples, t0, bucket_s, buckets)
    width = len(chosen) * buckets
    counts = np.bincount(key, minlength=width).reshape(len(chosen), buckets) / bucket_s
    errors = np.bincount(key[failed], minlength=width).reshape(len(chosen), buckets) / bucket_s
    pct = bucket_percentiles(key, elapsed, width, overwrite=True)  # key's last use
    out = {}
    for r, i in enumerate(chosen):
        part = slice(r * buckets, (r + 1) * buckets)
        out[names[i]] = {"throughput": counts[r].tolist(), "errors": errors[r].tolist(),
                         **{k: v[part] for k, v in pct.items()}}
    return {"rule": LABEL_SERIES_RULE, "labels": out}
