"""Server and host figures over the steady window, from the cell's 1 Hz server-metrics.csv and host-metrics.csv."""

import math
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid.usererror import UserError
from littlegrid.window import SteadyWindow


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


def _rate(frame: pd.DataFrame, column: str):
    """(Δcounter, Δt seconds) between the first and last readings of a cumulative counter, or None."""
    if column not in frame.columns:
        return None
    rows = frame[["time_ms", column]].dropna()
    if len(rows) < 2:
        return None
    d_value = float(rows[column].iloc[-1] - rows[column].iloc[0])
    d_t = float(rows["time_ms"].iloc[-1] - rows["time_ms"].iloc[0]) / 1000.0
    if d_t <= 0 or d_value < 0:  # a negative delta is a counter reset (server restarted): no figure
        return None
    return d_value, d_t


def server_figures(frame: pd.DataFrame | None, window: SteadyWindow) -> dict | None:
    """Contract "server" block, plus how L was measured and its standard error.

    L_server comes from the counter in_flight_seconds_total when the server provides it (its increase over
    the window divided by the elapsed time is the exact time-average), else from the 1 Hz in_flight samples.
    service_mean_ms and throughput_per_s come from the cumulative request and service-time counters.
    """
    if frame is None:
        return None
    rows = _in_window(frame, window)
    if rows.empty:
        return None
    out = {"readings": int(len(rows)), "in_flight_mean": None, "in_flight_source": None, "in_flight_se": None,
           "in_flight_sampled_mean": _mean(rows, "in_flight"), "busy_threads_mean": _mean(rows, "busy_threads"),
           "connections_mean": _mean(rows, "connections"), "throttle_queue_mean": _mean(rows, "throttle_queue"),
           "service_mean_ms": None, "throughput_per_s": None}
    integral = _rate(rows, "in_flight_seconds_total")
    if integral is not None:
        out["in_flight_mean"] = integral[0] / integral[1]
        out["in_flight_source"] = "integral"
        out["in_flight_se"] = 0.0
    elif out["in_flight_sampled_mean"] is not None:
        sampled = rows["in_flight"].dropna()
        out["in_flight_mean"] = out["in_flight_sampled_mean"]
        out["in_flight_source"] = "sampled"
        out["in_flight_se"] = float(sampled.std(ddof=1) / math.sqrt(len(sampled))) if len(sampled) > 1 else None
    requests = _rate(rows, "requests_total")
    service = _rate(rows, "service_seconds_total")
    if requests is not None:
        out["throughput_per_s"] = requests[0] / requests[1]
        if service is not None and requests[0] > 0:
            out["service_mean_ms"] = 1000.0 * service[0] / requests[0]
    out.update(throttle_split(out["throttle_queue_mean"], out["throughput_per_s"], out["service_mean_ms"]))
    return out


def throttle_split(queue_mean: float | None, x_per_s: float | None, r_server_ms: float | None) -> dict:
    """R_server split at the throttle by Little's law on its queue: W_q = L_q / X, time in service = R_server − W_q.

    The server's timer spans the throttle's queue, so R_server alone cannot show that a throttle keeps the time in
    service flat while the queue absorbs the load. L_q is the mean of 1 Hz samples of the queue length, so W_q is an
    estimate (the in-flight integral has no counterpart for the queue).
    """
    if queue_mean is None or not x_per_s or r_server_ms is None:
        return {"throttle_wait_ms": None, "in_service_ms": None}
    wait_ms = 1000.0 * queue_mean / x_per_s
    return {"throttle_wait_ms": wait_ms, "in_service_ms": max(0.0, r_server_ms - wait_ms)}


def host_figures(frame: pd.DataFrame | None, window: SteadyWindow) -> dict | None:
    """Contract "host" block: window means of the host's load average, run queue and CPU utilisation."""
    if frame is None:
        return None
    rows = _in_window(frame, window)
    if rows.empty:
        return None
    return {"readings": int(len(rows)), "load1_mean": _mean(rows, "load1"),
            "run_queue_mean": _mean(rows, "run_queue"), "cpu_util_mean": _mean(rows, "cpu_util"),
            "cpu_user_mean": _mean(rows, "cpu_user"), "cpu_system_mean": _mean(rows, "cpu_system"),
            "cpu_iowait_mean": _mean(rows, "cpu_iowait")}


def per_bucket_mean(frame: pd.DataFrame | None, column: str, t0_ms: int, bucket_s: int, buckets: int) -> list:
    """Mean of a metrics column per time-series bucket (None where the bucket has no reading)."""
    out = [None] * buckets
    if frame is None or column not in frame.columns:
        return out
    rows = frame[["time_ms", column]].dropna()
    idx = ((rows["time_ms"].to_numpy() - t0_ms) // (1000 * bucket_s)).astype(np.int64)
    ok = (idx >= 0) & (idx < buckets)
    if not ok.any():
        return out
    means = pd.Series(rows[column].to_numpy()[ok]).groupby(idx[ok]).mean()
    for i, v in means.items():
        out[int(i)] = float(v)
    return out
