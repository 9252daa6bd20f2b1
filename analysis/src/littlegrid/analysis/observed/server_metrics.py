"""Server and host figures over the steady window: the server's from the figures analysis/observed/mapping.py mapped from
the cell's scrapes (observed.csv, or an older folder's server-metrics.csv through server_metrics_csv), the
generator's host's from the cell's 1 Hz host-metrics.csv."""

import math
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid.analysis.observed.mapping import ServerRequests, ThreadPool
from littlegrid.analysis.queueing.little import throttle_split
from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.usererror import UserError

# in_flight_source when L_server is Little's law on the server's timer (Δsum/Δt): equal to X·R_server by construction
LITTLE = "little"
# in_flight_source when L_server is sampled gauges (a proxy's queue and sessions) and R_server is L/X by Little's law
GAUGES = "gauges"


def read_metrics(path: Path | None) -> pd.DataFrame | None:
    """The CSV as numbers (unparseable cells become NaN), sorted by time_ms; None when absent or empty."""
    if path is None:
        return None
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not a metrics CSV: {str(e).splitlines()[0]}") from None
    if "time_ms" not in frame.columns:
        raise UserError(f"{path}:1: no time_ms column (columns: {', '.join(map(str, frame.columns))})")
    frame = frame.apply(pd.to_numeric, errors="coerce").dropna(subset=["time_ms"]).sort_values("time_ms")
    return frame if len(frame) else None


def _in_window(frame: pd.DataFrame, window: SteadyWindow) -> pd.DataFrame:
    t = frame["time_ms"].to_numpy()
    return frame[(t >= window.start_ms) & (t <= window.end_ms)]


def _mean(frame: pd.DataFrame, column: str) -> float | None:
    if column not in frame.columns:
        return None
    values = frame[column].dropna()
    return float(values.mean()) if len(values) else None


def _inside(window: SteadyWindow, time_ms: int) -> bool:
    return window.start_ms <= time_ms <= window.end_ms


def _gauge_mean(points) -> float | None:
    values = [v for v in points if v is not None]
    return sum(values) / len(values) if values else None


def _counter_delta(points: list[tuple[int, float | None]]):
    """(Δcounter, Δt seconds) between the first and last readings of a running total, or None (fewer than two,
    no time between them, or a total that went back: the server restarted, and no figure spans that)."""
    rows = [(t, v) for t, v in points if v is not None]
    if len(rows) < 2:
        return None
    d_value, d_t = rows[-1][1] - rows[0][1], (rows[-1][0] - rows[0][0]) / 1000.0
    if d_t <= 0 or any(b < a for (_, a), (_, b) in zip(rows, rows[1:])):
        return None
    return d_value, d_t


def server_figures(requests: ServerRequests | None, pool: ThreadPool | None, window: SteadyWindow,
                   answered_ms=(), failed_ms=(), source: str | None = None) -> dict | None:
    """Contract "server" block, plus how L was measured and its standard error, from the mapped figures of the
    source that reports the server's requests (analysis/observed/mapping.py) and the pool under test (observed_window).

    L_server: the sample server's in-flight integral when it has one (its increase over the window divided by the
    elapsed time is the exact time-average), else the 1 Hz samples of in-flight, else, for a timer alone
    (Micrometer's http.server.requests), Little's law on the timer: L = Δsum/Δt, the request-seconds spent inside
    per second (then L = X·R by construction, and the server_little check has nothing to test).
    service_mean_ms and throughput_per_s: the timer's Δsum/Δcount and Δcount/Δt over the window.
    `answered_ms`, `failed_ms`: the source's scrapes that answered and that failed (readings and failed_scrapes in
    the window; a failed scrape has no figures); `source`: theirs when neither figure is given. None when the
    window holds no scrape of the source, answered or failed."""
    seconds = [s for s in (requests.seconds if requests else ()) if _inside(window, s.time_ms)]
    busy = [s for s in (pool.seconds if pool else ()) if _inside(window, s.time_ms)]
    answered = sorted({t for t in answered_ms if _inside(window, t)} | {s.time_ms for s in seconds}
                      | {s.time_ms for s in busy})
    failed = [t for t in failed_ms if _inside(window, t)]
    if not answered and not failed:
        return None
    sizes = [s.size for s in busy if s.size is not None]
    in_flight = [s.in_flight for s in seconds if s.in_flight is not None]
    source = requests.source if requests is not None else pool.source if pool is not None else source
    out = {"readings": len(answered), "failed_scrapes": len(failed),
           "longest_gap_s": longest_gap_s(answered, window),
           "threads_max": int(max(sizes)) if sizes else None,
           "in_flight_mean": None, "in_flight_source": None, "in_flight_se": None,
           "in_flight_sampled_mean": _gauge_mean(in_flight), "busy_threads_mean": _gauge_mean([s.busy for s in busy]),
           "connections_mean": _gauge_mean([s.connections for s in seconds]),
           "throttle_queue_mean": _gauge_mean([s.throttle_queue for s in seconds]),
           "service_mean_ms": None, "throughput_per_s": None,
           "pool_kind": pool.kind if pool is not None else None, "pool_name": (pool.name or None) if pool else None,
           "source": source}
    integral = _counter_delta([(s.time_ms, s.in_flight_seconds) for s in seconds])
    count = _counter_delta([(s.time_ms, s.requests) for s in seconds])
    total = _counter_delta([(s.time_ms, s.service_seconds) for s in seconds])
    if count is not None:
        out["throughput_per_s"] = count[0] / count[1]
        if total is not None and count[0] > 0:
            out["service_mean_ms"] = 1000.0 * total[0] / count[0]
    if integral is not None:
        out["in_flight_mean"] = integral[0] / integral[1]
        out["in_flight_source"] = "integral"
        out["in_flight_se"] = 0.0
    elif in_flight:
        out["in_flight_mean"] = out["in_flight_sampled_mean"]
        out["in_flight_source"] = "sampled"
        out["in_flight_se"] = (float(np.std(in_flight, ddof=1) / math.sqrt(len(in_flight)))
                               if len(in_flight) > 1 else None)
        if out["service_mean_ms"] is None and out["throughput_per_s"]:
            # no timer (a proxy's backend counts its requests and holds gauges): R_server by Little, L/X, which
            # makes the server_little check an identity
            out["service_mean_ms"] = 1000.0 * out["in_flight_mean"] / out["throughput_per_s"]
            out["in_flight_source"] = GAUGES
    elif total is not None:
        out["in_flight_mean"] = total[0] / total[1]
        out["in_flight_source"] = LITTLE
        out["in_flight_se"] = None
    out.update(throttle_split(out["throttle_queue_mean"], out["throughput_per_s"], out["service_mean_ms"]))
    return out


def longest_gap_s(times_ms, window: SteadyWindow) -> float:
    """The longest stretch of the window without a server reading (its edges count): 1 s at 1 Hz, all of it with none."""
    edges = np.concatenate(([window.start_ms], np.sort(np.asarray(times_ms, dtype=float)), [window.end_ms]))
    return float(np.diff(edges).max()) / 1000.0


def host_figures(frame: pd.DataFrame | None, window: SteadyWindow) -> dict | None:
    """Contract "host" block: window means of the host's load average, run queue and CPU utilisation (and of the
    CPUs the sample server was pinned to, when it was)."""
    if frame is None:
        return None
    rows = _in_window(frame, window)
    if rows.empty:
        return None
    return {"readings": int(len(rows)), "load1_mean": _mean(rows, "load1"),
            "run_queue_mean": _mean(rows, "run_queue"), "cpu_util_mean": _mean(rows, "cpu_util"),
            "cpu_user_mean": _mean(rows, "cpu_user"), "cpu_system_mean": _mean(rows, "cpu_system"),
            "cpu_iowait_mean": _mean(rows, "cpu_iowait"), "server_cpu_util_mean": _mean(rows, "server_cpu_util")}


def per_bucket_mean(points, t0_ms: int, bucket_s: int, buckets: int) -> list:
    """Mean of (time_ms, value) readings per time-series bucket (None where the bucket has no reading)."""
    out = [None] * buckets
    rows = [(t, v) for t, v in points if v is not None]
    if not rows:
        return out
    times = np.array([t for t, _ in rows], dtype=np.int64)
    idx = (times - t0_ms) // (1000 * bucket_s)
    ok = (idx >= 0) & (idx < buckets)
    if not ok.any():
        return out
    means = pd.Series(np.array([v for _, v in rows], dtype=float)[ok]).groupby(idx[ok]).mean()
    for i, v in means.items():
        out[int(i)] = float(v)
    return out


def frame_points(frame: pd.DataFrame | None, column: str) -> list[tuple[int, float]]:
    """(time_ms, value) of a metrics CSV's column (host-metrics.csv), for per_bucket_mean."""
    if frame is None or column not in frame.columns:
        return []
    rows = frame[["time_ms", column]].dropna()
    return list(zip(rows["time_ms"].astype(np.int64).tolist(), rows[column].astype(float).tolist()))
