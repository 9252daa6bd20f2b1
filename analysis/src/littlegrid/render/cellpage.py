"""One cell's page content: time series within a point budget, percentile table per label, errors, checks."""

from __future__ import annotations

from littlegrid.render import charts, fmt, words
from littlegrid.summary.model import USERS_SPLIT_BASIS, Cell, Counts, ThinkTime, Users

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


def time_series_charts(cell: Cell, budget: int = charts.POINT_BUDGET) -> list[dict]:
    """The cell's series, downsampled to `budget` points; a chart whose series are all empty is left out."""
    s = cell.series
    if s is None or not s.t_s:
        return []
    t = s.t_s
    wanted = {k: getattr(s, k) for _, _, _, cols in TIME_SERIES for k, _ in cols}
    wanted = {k: v for k, v in wanted.items() if len(v) == len(t) and any(x is not None for x in v)}
    x, cols = charts.downsample(t, wanted, budget, peak=PEAK_COLUMNS)
    trimmed = s.window_start_s > t[0] or s.window_end_s < t[-1]
    window = (s.window_start_s, s.window_end_s) if trimmed else None
    out = []
    for chart_id, title, y_label, keys in TIME_SERIES:
        lines = [charts.series(label, cols[k], group=i) for i, (k, label) in enumerate(keys) if k in cols]
        if lines:
            out.append(charts.chart(f"ts-{chart_id}", title, "time (s)", y_label, x, lines, x_time=True, window=window,
                                    note=("Shaded: trimmed warm-up and cool-down. " if window else "")
                                    + ("" if len(x) == len(t) else
                                       f"{len(t)} points shown as {len(x)}: bucket means, percentiles as bucket maxima.")))
    return out


def _statistics(cell: Cell) -> list[tuple[str, Counts | None]]:
    """("all samples", the cell's statistics, None without a steady window) then each label's, by name."""
    return [("all samples", cell.overall)] + sorted(cell.labels.items(), key=lambda kv: kv[0])


def stats_rows(cell: Cell) -> list[dict]:
    """Overall first, then one row per label, each with the formatted percentile columns."""
    return [{"label": label, "values": [f(None if st is None else getattr(st, key)) for key, _, f in PERCENTILE_COLUMNS]}
            for label, st in _statistics(cell)]


def error_rows(cell: Cell) -> list[dict]:
    """Errors by class, overall and per label, largest first."""
    out = []
    for scope, st in _statistics(cell):
        for cls, n in sorted(st.errors_by_class.items() if st is not None else [], key=lambda kv: -kv[1]):
            out.append({"scope": scope, "error_class": cls, "count": n, "share": None if not st.errors else n / st.errors})
    return out


def engine_rows(cell: Cell) -> list[dict]:
    """Each remote engine's share of a distributed cell, as the page shows it (empty on one host): its threads,
    throughput, mean response time, error rate in the window, how far its clock sits from the other engines', and,
    when the engines ran different mixes of load groups, the share of the cell's samples its mix should deliver."""
    shares = cell.engine_shares or []
    return [{"engine": s.engine,
             "threads": fmt.num(s.threads) + ("" if s.threads in (None, s.threads_seen) else f" ({s.threads_seen} seen)"),
             "samples": fmt.num(s.count), "throughput": fmt.rate(s.throughput_per_s), "mean": fmt.ms(s.mean_ms),
             "error_rate": fmt.pct(s.error_rate),
             "clock": "" if s.clock_offset_s is None else f"{s.clock_offset_s:+.2f} s",
             "expected": "" if s.expected_share is None else fmt.pct(s.expected_share)} for s in shares]


def _users_text(u: Users | None) -> str:
    if u is None:
        return fmt.value(None)
    parts = []
    if u.basis == USERS_SPLIT_BASIS:
        parts.append(f"split across {u.engines} engines")
    elif u.plan_users is not None:
        parts.append(f"{u.plan_users} per engine × {u.engines or 1} engine(s)")
    if u.all_threads_max is not None:
        parts.append(f"most threads alive at once {u.all_threads_max}")
    return f"{fmt.value(u.n)}" + (f" ({'; '.join(parts)})" if parts else "")


def server_view(cell: Cell) -> dict:
    """Where the requests wait (client vs server by Little's law) and how well the server was sampled, in words."""
    srv = cell.server
    if srv is None:
        return {"wait": "Where requests wait is not known: this cell has no server metrics (the runner samples them "
                        "only from the sample server it starts).", "readings": None}
    readings = (f"{fmt.num(srv.readings)} server readings in the "
                f"{fmt.seconds(cell.window.length_s if cell.window else None)} steady window"
                + (f", {fmt.num(srv.failed_scrapes)} scrapes failed" if srv.failed_scrapes else "")
                + (f"; longest stretch without one {fmt.seconds(srv.longest_gap_s)}"
                   if srv.longest_gap_s is not None else "") + ".")
    if srv.waiting_in_front is None:
        return {"wait": f"Where requests wait is not known: {srv.in_front_reason}.", "readings": readings}
    pool = "" if srv.threads_max is None else f" of {fmt.num(srv.threads_max)}"
    per_request = ("" if srv.wait_in_front_ms is None else
                   f": each request spends {fmt.ms(srv.wait_in_front_ms)} of its "
                   f"{fmt.ms(cell.overall.mean_ms if cell.overall else None)} there (R − R_server)")
    wait = (f"Of N = {fmt.num(cell.users.n if cell.users else None)} users, X·R = {fmt.num(srv.client_in_flight)} "
            f"have a request outstanding; L_server = {fmt.num(srv.in_flight_mean)} of them are in the server (busy "
            f"threads {fmt.num(srv.busy_threads_mean)}{pool}); {fmt.num(srv.waiting_in_front)} wait in front of it"
            f"{per_request}: in Tomcat's accept queue before a worker takes them, on the network or in the client.")
    return {"wait": wait, "readings": readings}


def _think_text(think: ThinkTime | None) -> str:
    """Z realised and the samples it was measured between (think_time.sequence: every sample, the outermost
    ones, or none when a thread's samples overlap)."""
    if think is None:
        return ""
    text = think.sequence.text
    if think.mean_ms is None:
        return text
    return f"{fmt.ms(think.mean_ms)} over {think.gaps} gaps" + (f"; {text}" if text else "")


def _part_text(p) -> str:
    """One part of the window beside an outage (model.OutagePart), as the summary holds it."""
    return (f"{fmt.seconds(p.length_s)}: {fmt.num(p.count)} requests, X {fmt.rate(p.throughput_per_s)}, mean R "
            f"{fmt.ms(p.mean_ms)}, errors {fmt.num(p.errors)} ({fmt.pct(p.error_rate)})")


def _silence_rows(cell: Cell) -> list[tuple[str, str]]:
    """The outage (when, how long, what failed, recovered or not) with the window's parts before and after it, and
    each stall (when, how long, how many requests held)."""
    rows = []
    o = cell.outage
    if o is not None:
        rows.append(("outage", f"at {fmt.seconds(o.began_s)} for {fmt.seconds(o.lasted_s)}, "
                               + ("then answered again" if o.recovered else "never came back")
                               + f"; {fmt.num(o.failed)} requests failed in it"
                               + (f" ({', '.join(f'{k} {fmt.num(n)}' for k, n in o.failed_by_class.items())})"
                                  if o.failed_by_class else "")))
        rows += [(f"{name} the outage", _part_text(p)) for name, p in (("before", o.before), ("after", o.after))
                 if p is not None]
    rows += [("stall", f"at {fmt.seconds(st.began_s)} for {fmt.seconds(st.lasted_s)}: {fmt.num(st.held)} requests "
                       f"in flight at its start held, then "
                       + (f"{fmt.num(st.held - st.held_failed)} answered and {fmt.num(st.held_failed)} failed"
                          if st.held_failed else "answered")
                       + (f"; {fmt.num(st.joined)} more started while it lasted" if st.joined else "")
                       + ("" if st.in_window else " (outside the steady window)")) for st in cell.stalls]
    return rows


def facts(cell: Cell) -> list[tuple[str, str]]:
    w, i, srv, host = cell.window, cell.intended, cell.server, cell.host
    rows = [("status", cell.status + (f": {cell.reason}" if cell.reason else "")),
            ("axes", ", ".join(f"{k} = {v}" for k, v in cell.axes.items())),
            ("users N", _users_text(cell.users)),
            ("intended think time", f"{fmt.ms(i.think_ms)} {i.think_dist or ''}".strip()
             + (f", rate {fmt.rate(i.rate_per_s)}" if i.rate_per_s is not None else "")),
            ("steady window", "" if w is None else
             f"{fmt.seconds(w.length_s)} after trimming {fmt.seconds(w.warmup_s)} warm-up "
             f"({w.samples_trimmed_before} samples) and {words.cooldown(w)} "
             f"({w.samples_trimmed_after} samples)"),
            ("warm-up", words.warmup(w)),
            ("precision", words.precision(cell.precision)),
            ("stopped", words.stopped(cell.stop)),
            ("realised think time", _think_text(cell.think_time))]
    if srv is not None:
        rows.append(("server", f"in flight L {fmt.num(srv.in_flight_mean)}, busy threads {fmt.num(srv.busy_threads_mean)}, "
                               f"service time {fmt.ms(srv.service_mean_ms)}, X {fmt.rate(srv.throughput_per_s)}"))
        if srv.throttle_queue_mean:  # only where a throttle queued anything
            rows.append(("throttle", f"queue L_q {fmt.num(srv.throttle_queue_mean)}, wait W_q = L_q/X "
                                     f"{fmt.ms(srv.throttle_wait_ms)}, time in service {fmt.ms(srv.in_service_ms)}"))
    if host is not None:
        rows.append(("host", f"load1 {fmt.num(host.load1_mean)}, run queue {fmt.num(host.run_queue_mean)}, "
                             f"CPU {fmt.pct(host.cpu_util_mean)}"
                             + (f", the server's own CPUs {fmt.pct(host.server_cpu_util_mean)}"
                                if host.server_cpu_util_mean is not None else "")))
    cost = cell.cpu_per_request  # the analysis stage's one figure (analysis/observed/cpu_demand.py), drawn as it stands
    if cost is not None and cost.core_ms is not None:
        rows.append(("CPU per request", f"{cost.core_ms:.3g} core-ms = U·cores/X: {fmt.pct(cost.cpu_util)} of "
                                        f"{cost.words}, at X = {fmt.rate(cost.throughput_per_s)}"))
    elif cost is not None:
        rows.append(("CPU per request", cost.words))
    rows += _silence_rows(cell)
    rows = [(k, v) for k, v in rows if v]
    for warning in cell.warnings:  # reader and analysis warnings (e.g. rows skipped)
        rows.append(("warning", warning))
    return rows
