"""What [observe] saw during one cell, over its steady window: the cell's scrapes read (observed.csv, or an older
folder's server-metrics.csv through its adaptor) and mapped (analysis/observed/mapping.py), the pool under test picked, and
each source's figures reduced to the summary's Cell.observed, each with its host and whether it is the cell's
target's (analysis/observed/observed_sources.py decides that, per cell; every function here takes its answer)."""

from __future__ import annotations

import csv
from pathlib import Path

from littlegrid.analysis.observed import mapping, server_metrics, server_metrics_csv
from littlegrid.analysis.observed.mapping import Observed, PoolSpec, ServerRequests, ThreadPool
from littlegrid.analysis.observed.observed_sources import CellSources
from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.summary import model
from littlegrid.usererror import UserError

TOMCAT = mapping.THREAD_POOLS[0].kind


def read(observed_csv: Path | None, legacy_csv: Path | None = None, pools: tuple[PoolSpec, ...] = (),
         port: int | None = None) -> Observed | None:
    """The cell's mapped figures: from observed.csv when the cell has one, else from an older folder's
    server-metrics.csv; None when it has neither."""
    if observed_csv is not None:
        try:
            with open(observed_csv, newline="", encoding="utf-8") as f:
                rows = csv.DictReader(f)
                if rows.fieldnames is not None and "time_ms" not in rows.fieldnames:
                    raise UserError(f"{observed_csv}:1: no time_ms column (columns: {', '.join(rows.fieldnames)})")
                readings = mapping.readings_from_rows(rows)
        except (UnicodeDecodeError, csv.Error) as e:
            raise UserError(f"{observed_csv}: not an observed.csv: {e}") from None
    elif legacy_csv is not None:
        readings = server_metrics_csv.readings(legacy_csv)
    else:
        return None
    return mapping.map_readings(readings, pools, port)


def _target_first(figures, target_host: dict):
    """Figures of sources on the target's host first (their order kept otherwise)."""
    return sorted(figures, key=lambda f: not target_host.get(f.source, False))


def pool_under_test(found: Observed, port: int | None, target_host: dict | None = None) -> ThreadPool | None:
    """The pool the load goes through: Tomcat's connector on the target's port (Tomcat names it http-nio-<port>);
    else a pool the user named in [observe.pools]; else the only pool found. None when several pools and none of
    these tells which (an executor beside a servlet pool is not the one under test by default)."""
    pools = _target_first(found.thread_pools, target_host or {})
    on_port = [p for p in pools if p.kind == TOMCAT and port is not None and mapping.connector_port(p.name) == port]
    named = [p for p in pools if p.kind == "named"]
    for chosen in (on_port, named):
        if chosen:
            return chosen[0]
    return pools[0] if len(pools) == 1 else None


def server_requests(found: Observed, target_host: dict | None = None,
                    window: SteadyWindow | None = None) -> ServerRequests | None:
    """The source reporting the server's requests: one on the target's host first, one with a timer first; among a
    proxy's backends (one source, several), the one that carried the cell's load (most requests in the window)."""
    ranked = sorted(_target_first(found.requests, target_host or {}), key=lambda r: not r.timer)
    if window is not None and len(ranked) > 1:
        ranked.sort(key=lambda r: -(_increase(window, [(s.time_ms, s.requests) for s in r.seconds]) or 0.0)
                    if r.timer.startswith("haproxy:") else 0.0)
    return ranked[0] if ranked else None


def _increase(window: SteadyWindow, points) -> float | None:
    """A running total's increase between its first and last reading inside the window (None: fewer than two)."""
    rows = [(t, v) for t, v in points if v is not None and window.start_ms <= t <= window.end_ms]
    return rows[-1][1] - rows[0][1] if len(rows) > 1 else None


def server_block(found: Observed | None, window: SteadyWindow, port: int | None = None,
                 target_host: dict | None = None) -> dict | None:
    """The cell's "server" figures over the window (analysis/observed/server_metrics.server_figures) from the source that
    reports the server's requests and the pool under test; when no source gave either and one never answered at
    all (on the target's host, or the only one), its failed scrapes, so that the block says why it has no figures."""
    if found is None:
        return None
    target_host = target_host or {}
    pool = pool_under_test(found, port, target_host)
    requests = server_requests(found, target_host, window)
    source = requests.source if requests is not None else pool.source if pool is not None else None
    if source is None:
        silent = [url for url in found.failed if not found.scrapes.get(url)]
        on_target = [url for url in silent if target_host.get(url)]
        # a source that answered is not silent: with none silent there is no failure to tell of, and no block
        source = next(iter(on_target or (silent if len(set(found.scrapes) | set(found.failed)) == 1 else [])), None)
    if source is None:
        return None
    return server_metrics.server_figures(requests, pool, window, found.scrapes.get(source, ()),
                                         found.failed.get(source, ()), source)


def _inside(window: SteadyWindow, seconds) -> list:
    return [s for s in seconds if window.start_ms <= s.time_ms <= window.end_ms]


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _max(values) -> float | None:
    values = [v for v in values if v is not None]
    return max(values) if values else None


def summary_block(own: CellSources, window: SteadyWindow, counts: dict) -> model.Observed:
    """Cell.observed: per source its scrapes (`counts`: the cell manifest's per-source scrapes, failed, slow; the
    adaptor's rows for an older folder), readings in the window, whether it is the target's and which target it
    serves (observed_sources); per resource of the cell's own sources its window means and maxima. A counter's
    point is the interval ending at that scrape, so the intervals ending inside the window count."""
    found, target_host = own.found, own.target_host
    urls = list(dict.fromkeys([*counts, *found.scrapes, *found.failed]))
    sources = []
    for url in urls:
        count = counts.get(url) or {}
        answered, failed = found.scrapes.get(url, ()), found.failed.get(url, ())
        sources.append(model.ObservedSource(
            url=url, host=mapping.host_of(url), target_host=bool(target_host.get(url)), serves=own.serves.get(url),
            scrapes=int(count.get("scrapes", len(answered) + len(failed))),
            failed=int(count.get("failed", len(failed))), slow=int(count.get("slow", 0)),
            readings=sum(window.start_ms <= t <= window.end_ms for t in answered)))
    pools = []
    for p in found.thread_pools:
        seconds = _inside(window, p.seconds)
        if not seconds:
            continue
        size = _max(s.size for s in seconds)
        pools.append(model.ObservedPool(
            source=p.source, host=p.host, kind=p.kind, name=p.name, busy_mean=_mean(s.busy for s in seconds),
            busy_max=max(s.busy for s in seconds), size=size,
            full_share=None if size is None else sum(s.busy >= size for s in seconds) / len(seconds),
            readings=len(seconds)))
    connections = [model.ObservedConnectionPool(
        source=c.source, host=c.host, name=c.name, active_mean=_mean(s.active for s in seconds),
        max=_max(s.max for s in seconds), pending_mean=_mean(s.pending for s in seconds), readings=len(seconds))
        for c in found.connection_pools if (seconds := _inside(window, c.seconds))]
    cpus = [model.ObservedProcessCpu(
        source=c.source, host=c.host, metric=c.metric, cores_busy_mean=_mean(s.cores_busy for s in seconds),
        cores=_max(s.cores for s in seconds), readings=len(seconds))
        for c in found.process_cpu if (seconds := _inside(window, c.seconds))]
    hosts = [model.ObservedHost(
        source=h.source, host=h.host, cpu_util_mean=_mean(s.cpu_util for s in seconds),
        cores=_max(s.cores for s in seconds), load1_mean=_mean(s.load1 for s in seconds),
        mem_available_min_bytes=min((v for s in seconds if (v := s.mem_available_bytes) is not None), default=None),
        network_bytes_per_s_mean=_mean(s.network_bytes_per_s for s in seconds), readings=len(seconds),
        boot_time_s=next((s.boot_time_s for s in seconds if s.boot_time_s is not None), None))
        for h in found.hosts if (seconds := _inside(window, h.seconds))]
    gc = [model.ObservedGc(source=g.source, host=g.host, pause_share=_mean(s.pause_s_per_s for s in seconds),
                           pauses_per_s=_mean(s.pauses_per_s for s in seconds))
          for g in found.gc if (seconds := _inside(window, g.seconds))]
    proxies = [_proxy(p, seconds) for p in found.proxies if (seconds := _inside(window, p.seconds))]
    databases = [model.ObservedDatabase(
        source=d.source, host=d.host, kind=d.kind, active_mean=_mean(s.active for s in seconds),
        active_max=_max(s.active for s in seconds), backends_mean=_mean(s.backends for s in seconds),
        readings=len(seconds)) for d in found.databases if (seconds := _inside(window, d.seconds))]
    return model.Observed(sources=sources, thread_pools=pools, connection_pools=connections, process_cpu=cpus,
                          hosts=hosts, gc=gc, proxies=proxies, databases=databases)


def _proxy(p, seconds) -> model.ObservedProxy:
    """A proxy backend's window figures: gauges' means, its sessions' rate, and Little's law on its queue and on its
    servers (W_q = L_q/X, S = L_served/X)."""
    rows = [(s.time_ms, s.total) for s in seconds if s.total is not None]
    rate = None
    if len(rows) > 1 and rows[-1][0] > rows[0][0] and rows[-1][1] >= rows[0][1]:
        rate = (rows[-1][1] - rows[0][1]) / ((rows[-1][0] - rows[0][0]) / 1000.0)
    queue, served = _mean(s.queue for s in seconds), _mean(s.served for s in seconds)
    limit = _max(s.limit for s in seconds)
    full = [s for s in seconds if s.served is not None]
    last = seconds[-1].averages

    def ms(key):
        return 1000.0 * last[key] if key in last else None
    return model.ObservedProxy(
        source=p.source, host=p.host, kind=p.kind, backend=p.backend, servers=list(p.servers), queue_mean=queue,
        queue_max=_max(s.queue for s in seconds), served_mean=served, limit=limit,
        full_share=(sum(s.served >= limit for s in full) / len(full)) if limit and full else None,
        sessions_per_s=rate, queue_wait_ms=1000.0 * queue / rate if rate and queue is not None else None,
        in_service_ms=1000.0 * served / rate if rate and served is not None else None,
        queue_time_avg_ms=ms("queue"), connect_time_avg_ms=ms("connect"), response_time_avg_ms=ms("response"),
        total_time_avg_ms=ms("total"), readings=len(seconds))


def series_points(found: Observed | None, pool: ThreadPool | None, target_host: dict) -> dict:
    """(time_ms, value) of the server's gauges the cell's time series draws: in-flight (the request source's) and
    the busy threads of the pool under test."""
    requests = server_requests(found, target_host) if found is not None else None  # the window is not known here
    return {"in_flight": [(s.time_ms, s.in_flight) for s in requests.seconds] if requests else [],
            "busy_threads": [(s.time_ms, s.busy) for s in pool.seconds] if pool else []}
