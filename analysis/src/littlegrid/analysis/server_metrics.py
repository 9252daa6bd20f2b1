"""Server and host figures over the steady window, from the cell's 1 Hz server-metrics.csv and host-metrics.csv."""

import math
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid.analysis.window import SteadyWindow
from littlegrid.usererror import UserError


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
    A failed scrape is a row with its time and no values: it counts in failed_scrapes, not in readings.
    """
    if frame is None:
        return None
    rows = _in_window(frame, window)
    if rows.empty:
        return None
    answered = rows.drop(columns="time_ms").notna().any(axis=1).to_numpy()
    threads_max = rows["threads_max"].max() if "threads_max" in rows.columns else None
    out = {"readings": int(answered.sum()), "failed_scrapes": int((~answered).sum()),
           "longest_gap_s": longest_gap_s(rows["time_ms"].to_numpy()[answered], window),
           "threads_max": None if threads_max is None or pd.isna(threads_max) else int(threads_max),
           "in_flight_mean": None, "in_flight_source": None, "in_flight_se": None,
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


def longest_gap_s(times_ms, window: SteadyWindow) -> float:
    """The longest stretch of the window without a server reading (its edges count): 1 s at 1 Hz, all of it with none."""
    edges = np.concatenate(([window.start_ms], np.sort(np.asarray(times_ms, dtype=float)), [window.end_ms]))
    return float(np.diff(edges).max()) / 1000.0


def in_front_of_server(x_per_s: float | None, r_ms: float | None, server: dict, steady: bool = True) -> dict:
    """Where the requests the server does not hold wait, by Little's law at two boundaries.

    The client's boundary holds X·R requests (sent, not yet answered; N when there is no think time), the
    server's L_server of them; the rest, waiting_in_front = X·R − L_server, are in front of the service:
    in Tomcat's accept queue and connection backlog before a worker takes them, on the network or in the
    client. Per request that is wait_in_front_ms = R − R_server. in_front_reason says why a figure is absent.
    """
    out = {"client_in_flight": None, "waiting_in_front": None, "wait_in_front_ms": None, "in_front_reason": None}
    if not steady:
        out["in_front_reason"] = "a spike has no steady state to apply Little's law to"
        return out
    if x_per_s is not None and r_ms is not None:
        out["client_in_flight"] = x_per_s * r_ms / 1000.0
    l_server, r_server = server.get("in_flight_mean"), server.get("service_mean_ms")
    if r_ms is not None and r_server is not None:
        out["wait_in_front_ms"] = r_ms - r_server
    if out["client_in_flight"] is not None and l_server is not None:
        out["waiting_in_front"] = out["client_in_flight"] - l_server
    missing = [what for what, value in (("in-flight (L_server)", l_server), ("service-time (R_server)", r_server))
               if value is None]
    if missing:
        failed = server.get("failed_scrapes") or 0
        out["in_front_reason"] = (f"the server metrics lack {' and '.join(missing)} in the window"
                                  + (f" ({failed} of {failed + server.get('readings', 0)} scrapes failed)" if failed else ""))
    elif out["client_in_flight"] is None:
        out["in_front_reason"] = "the cell has no client throughput or response time"
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
