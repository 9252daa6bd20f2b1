"""Known answers for the live view's running cell: what it computed before it counted (every row read so far kept,
then the analysis' functions over them), and closed-workload JTLs written in completion order, as JMeter writes."""

from pathlib import Path

import numpy as np

from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.statistics.series import POINT_BUDGET, time_series
from littlegrid.analysis.statistics.stats import sample_stats
from littlegrid.analysis.steady.window import EmptyWindow, in_window, steady_window
from littlegrid.jtl import read_jtl

HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,"
          "sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")
T0 = 1_767_225_600_000


def whole_rows(jtl: Path, warmup_s: float, budget: int = POINT_BUDGET) -> dict:
    """The figures, window and series of every request row of `jtl`, read whole (Transaction Controller rows left
    out): the formulas the live view applied to the rows it kept."""
    reading = read_jtl(jtl)
    rows = reading.samples
    if reading.transaction_labels:
        rows = rows[~rows["label"].isin(reading.transaction_labels)]
    classes = classify(rows)
    out = {"samples": len(rows), "series": None, "figures": None, "window": None}
    try:
        whole = steady_window(rows, 0.0, 0.0)
    except EmptyWindow:
        return out
    out["series"] = time_series(rows, classes.notna().to_numpy(), whole, 1, None, None, budget)
    try:
        window = steady_window(rows, warmup_s, 0.0)
    except EmptyWindow:
        return out
    steady = in_window(rows, window)
    out["figures"] = sample_stats(steady, classes[steady.index], window.length_s)
    out["window"] = window.as_dict()
    return out


def series_by_hand(jtl: Path, bucket_s: int) -> dict:
    """The per-bucket figures of `jtl`'s request rows on an axis of `bucket_s` seconds from the first start,
    counted row by row: completions and failures per second, nearest-rank p50/p90/p99 (None for an empty bucket),
    the peak allThreads (or, when no row has it, the thread names seen)."""
    reading = read_jtl(jtl)
    rows = reading.samples
    if reading.transaction_labels:
        rows = rows[~rows["label"].isin(reading.transaction_labels)]
    t0, end = int(rows["start_ms"].min()), rows["end_ms"].to_numpy()
    bucket = (end - t0) // (1000 * bucket_s)
    buckets = int(bucket.max()) + 1
    failed = classify(rows).notna().to_numpy()
    elapsed, threads = rows["elapsed_ms"].to_numpy(), rows["all_threads"].to_numpy(dtype=float, na_value=np.nan)
    out = {"t_s": [float(b * bucket_s) for b in range(buckets)], "throughput": [], "errors": [], "p50_ms": [],
           "p90_ms": [], "p99_ms": [], "active_threads": []}
    for b in range(buckets):
        here = bucket == b
        values = np.sort(elapsed[here])
        out["throughput"].append(len(values) / bucket_s)
        out["errors"].append(int(failed[here].sum()) / bucket_s)
        for key, p in (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99)):
            out[key].append(float(values[max(1, -(-len(values) * p // 100)) - 1]) if len(values) else None)
        if not np.isnan(threads).all():  # the peak allThreads
            peak = threads[here]
            out["active_threads"].append(float(np.nanmax(peak)) if len(peak) and not np.isnan(peak).all() else None)
        else:  # no row has allThreads: the thread names that completed a sample
            out["active_threads"].append(float(rows["thread"][here].dropna().nunique()))
    return out


def closed_jtl(path: Path, threads: int, seconds: float, seed: int = 1, slow_first_ms: int = 0) -> int:
    """A closed workload written as JMeter writes it: each thread a lognormal request (median 40 ms), then an
    exponential think time (mean 400 ms), 2% failures (500), rows in completion order, timeStamp the start.
    slow_first_ms: the first thread's first request starts before every other one and lasts that long (its row
    comes late in the file). Returns the number of rows."""
    rng = np.random.default_rng(seed)
    starts, elapsed, names = [], [], []
    for i in range(threads):
        n = int(seconds * 1000 / 440 * 1.5) + 10
        e = np.maximum(1, rng.lognormal(np.log(40), 0.5, n).astype(np.int64))
        z = rng.exponential(400, n).astype(np.int64)
        s = T0 + 100 + int(rng.integers(0, 1000)) + np.concatenate(([0], np.cumsum(e + z)[:-1]))
        if i == 0 and slow_first_ms:
            e[0] = slow_first_ms
            s = s - s[0] + T0  # the earliest start of all
            s[1:] += slow_first_ms
        keep = s + e <= T0 + seconds * 1000
        starts.append(s[keep])
        elapsed.append(e[keep])
        names += [f"Thread Group 1-{i + 1}"] * int(keep.sum())
    start, ms = np.concatenate(starts), np.concatenate(elapsed)
    ok = rng.random(len(start)) > 0.02
    order = np.argsort(start + ms, kind="stable")
    lines = [HEADER]
    for j in order.tolist():
        good = bool(ok[j])
        lines.append(f"{start[j]},{ms[j]},GET /,{200 if good else 500},{'OK' if good else 'Internal Server Error'},"
                     f"{names[j]},text,{'true' if good else 'false'},,512,120,{threads},{threads},"
                     f"http://127.0.0.1:8080/,{max(1, ms[j] - 1)},0,0")
    path.write_text("\n".join(lines) + "\n")
    return len(order)
