"""One cell's page content: time series within a point budget, percentile table per label, errors, checks."""

from __future__ import annotations

from littlegrid.render import charts, fmt

PERCENTILE_COLUMNS = [("count", "samples", fmt.num), ("errors", "errors", fmt.num), ("error_rate", "error rate", fmt.pct),
                      ("throughput_per_s", "X", fmt.rate), ("mean_ms", "mean", fmt.ms), ("min_ms", "min", fmt.ms),
                      ("p50_ms", "p50", fmt.ms), ("p90_ms", "p90", fmt.ms), ("p95_ms", "p95", fmt.ms),
                      ("p99_ms", "p99", fmt.ms), ("p999_ms", "p99.9", fmt.ms), ("max_ms", "max", fmt.ms),
                      ("latency_mean_ms", "latency", fmt.ms), ("connect_mean_ms", "connect", fmt.ms)]

# (chart id, title, y label, [(series key, legend label)])
TIME_SERIES = [
    ("throughput", "Throughput and errors", "per second", [("throughput", "samples/s"), ("errors", "errors/s")]),
    ("percentiles", "Response-time percentiles per second", "ms", [("p50_ms", "p50"), ("p90_ms", "p90"), ("p99_ms", "p99")]),
    ("threads", "Active threads, server in-flight and busy threads", "count",
     [("active_threads", "active threads (JMeter)"), ("in_flight", "in flight (server)"), ("busy_threads", "busy threads (Tomcat)")]),
    ("load", "Load average (1 min)", "load", [("load1", "load1")]),
]
PEAK_COLUMNS = ("p50_ms", "p90_ms", "p99_ms")


def time_series_charts(cell: dict, budget: int = charts.POINT_BUDGET) -> list[dict]:
    """The cell's series, downsampled to `budget` points; a chart whose series are all empty is left out."""
    s = cell.get("series") or {}
    t = s.get("t_s") or []
    if not t:
        return []
    wanted = {k: s.get(k) or [] for _, _, _, cols in TIME_SERIES for k, _ in cols}
    wanted = {k: v for k, v in wanted.items() if len(v) == len(t) and any(x is not None for x in v)}
    x, cols = charts.downsample(t, wanted, budget, peak=PEAK_COLUMNS)
    window = None
    if s.get("window_start_s") is not None and s.get("window_end_s") is not None:
        trimmed = s["window_start_s"] > t[0] or s["window_end_s"] < t[-1]
        window = (s["window_start_s"], s["window_end_s"]) if trimmed else None
    out = []
    for chart_id, title, y_label, keys in TIME_SERIES:
        lines = [charts.series(label, cols[k], group=i) for i, (k, label) in enumerate(keys) if k in cols]
        if lines:
            out.append(charts.chart(f"ts-{chart_id}", title, "time (s)", y_label, x, lines, x_time=True, window=window,
                                    note=("Shaded: trimmed warm-up and cool-down. " if window else "")
                                    + ("" if len(x) == len(t) else
                                       f"{len(t)} points shown as {len(x)}: bucket means, percentiles as bucket maxima.")))
    return out


def stats_rows(cell: dict) -> list[dict]:
    """Overall first, then one row per label, each with the formatted percentile columns."""
    rows = [("all samples", cell.get("overall") or {})]
    rows += sorted((cell.get("labels") or {}).items(), key=lambda kv: str(kv[0]))
    return [{"label": str(label), "values": [f(st.get(key)) for key, _, f in PERCENTILE_COLUMNS]} for label, st in rows]


def error_rows(cell: dict) -> list[dict]:
    """Errors by class, overall and per label, largest first."""
    out = []
    for scope, st in [("all samples", cell.get("overall") or {})] + sorted((cell.get("labels") or {}).items()):
        total = st.get("errors") or 0
        for cls, n in sorted((st.get("errors_by_class") or {}).items(), key=lambda kv: -kv[1]):
            out.append({"scope": str(scope), "error_class": str(cls), "count": n,
                        "share": None if not total else n / total})
    return out


def _users_text(u: dict) -> str:
    parts = []
    if u.get("plan_users") is not None:
        parts.append(f"{u['plan_users']} per engine × {u.get('engines') or 1} engine(s)")
    if u.get("all_threads_max") is not None:
        parts.append(f"most threads alive at once {u['all_threads_max']}")
    return f"{fmt.value(u.get('n'))}" + (f" ({'; '.join(parts)})" if parts else "")


def server_view(cell: dict) -> dict:
    """Where the requests wait (client vs server by Little's law) and how well the server was sampled, in words."""
    srv, o, u = cell.get("server"), cell.get("overall") or {}, cell.get("users") or {}
    if not srv:
        return {"wait": "Where requests wait is not known: this cell has no server metrics (the runner samples them "
                        "only from the sample server it starts).", "readings": None}
    window = (cell.get("window") or {}).get("length_s")
    readings = None if srv.get("readings") is None else (
        f"{fmt.num(srv['readings'])} server readings in the {fmt.seconds(window)} steady window"
        + (f", {fmt.num(srv.get('failed_scrapes'))} scrapes failed" if srv.get("failed_scrapes") else "")
        + (f"; longest stretch without one {fmt.seconds(srv.get('longest_gap_s'))}"
           if srv.get("longest_gap_s") is not None else "") + ".")
    if srv.get("waiting_in_front") is None:
        return {"wait": f"Where requests wait is not known: {srv['in_front_reason']}.", "readings": readings}
    pool = "" if srv.get("threads_max") is None else f" of {fmt.num(srv['threads_max'])}"
    per_request = ("" if srv.get("wait_in_front_ms") is None else
                   f": each request spends {fmt.ms(srv['wait_in_front_ms'])} of its {fmt.ms(o.get('mean_ms'))} there "
                   f"(R − R_server)")
    wait = (f"Of N = {fmt.num(u.get('n'))} users, X·R = {fmt.num(srv.get('client_in_flight'))} have a request "
            f"outstanding; L_server = {fmt.num(srv.get('in_flight_mean'))} of them are in the server (busy threads "
            f"{fmt.num(srv.get('busy_threads_mean'))}{pool}); {fmt.num(srv['waiting_in_front'])} wait in front of it"
            f"{per_request}: in Tomcat's accept queue before a worker takes them, on the network or in the client.")
    return {"wait": wait, "readings": readings}


def _think_text(think: dict) -> str:
    """Z realised and the samples it was measured between (think_time.sequence: every sample, the outermost
    ones, or none when a thread's samples overlap)."""
    seq = think.get("sequence") or {}
    if think.get("mean_ms") is None:
        return seq.get("text") or ""
    return f"{fmt.ms(think['mean_ms'])} over {think.get('gaps')} gaps" + (f"; {seq['text']}" if seq.get("text") else "")


def facts(cell: dict) -> list[tuple[str, str]]:
    w, u, i = cell.get("window") or {}, cell.get("users") or {}, cell.get("intended") or {}
    srv, host = cell.get("server") or {}, cell.get("host") or {}
    rows = [("status", f"{cell.get('status')}" + (f": {cell.get('reason')}" if cell.get("reason") else "")),
            ("axes", ", ".join(f"{k} = {v}" for k, v in (cell.get("axes") or {}).items())),
            ("users N", _users_text(u)),
            ("intended think time", f"{fmt.ms(i.get('think_ms'))} {i.get('think_dist') or ''}".strip()
             + (f", rate {fmt.rate(i.get('rate_per_s'))}" if i.get("rate_per_s") is not None else "")),
            ("steady window", f"{fmt.seconds(w.get('length_s'))} after trimming {fmt.seconds(w.get('warmup_s'))} warm-up "
                              f"({w.get('samples_trimmed_before')} samples) and {fmt.seconds(w.get('cooldown_s'))} cool-down "
                              f"({w.get('samples_trimmed_after')} samples)"),
            ("realised think time", _think_text(cell.get("think_time") or {}))]
    if srv:
        rows.append(("server", f"in flight L {fmt.num(srv.get('in_flight_mean'))}, busy threads {fmt.num(srv.get('busy_threads_mean'))}, "
                               f"service time {fmt.ms(srv.get('service_mean_ms'))}, X {fmt.rate(srv.get('throughput_per_s'))}"))
        if srv.get("throttle_queue_mean"):  # only where a throttle queued anything
            rows.append(("throttle", f"queue L_q {fmt.num(srv.get('throttle_queue_mean'))}, wait W_q = L_q/X "
                                     f"{fmt.ms(srv.get('throttle_wait_ms'))}, time in service {fmt.ms(srv.get('in_service_ms'))}"))
    if host:
        rows.append(("host", f"load1 {fmt.num(host.get('load1_mean'))}, run queue {fmt.num(host.get('run_queue_mean'))}, "
                             f"CPU {fmt.pct(host.get('cpu_util_mean'))}"))
    rows = [(k, v) for k, v in rows if v]
    for w in cell.get("warnings") or []:  # reader and analysis warnings (e.g. rows skipped), when the summary has them
        rows.append(("warning", str(w)))
    return rows
