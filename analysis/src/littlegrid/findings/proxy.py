"""A proxy in front of the service (haproxy, from its own exporter): where requests wait at it and for how long, and
its connection limit (a server's maxconn) named as the bottleneck when its sessions sit at it.

The figures are the analysis's (Cell.observed.proxies: per backend over the window, W_q = L_q/X in its queue and
S = L_served/X at its servers by Little's law, haproxy's own 1024-session averages beside them), and the database's
own count of backends running a query when it was scraped (Cell.observed.databases). A backend's sessions are
requests only when each request has its own: in tcp mode a client that keeps its connections (a JDBC pool) sends
many requests through one session, and then the queue holds connections, which these findings say instead of a
per-request wait.
"""

from __future__ import annotations

from littlegrid.analysis.modelling.curves import CPU_BUSY
from littlegrid.analysis.observed import server_cpu
from littlegrid.findings.base import (Figure, Finding, cells_words, curves, fields, group_words, load, load_words, ms,
                                      overall, rate, users, where_of)
from littlegrid.summary.model import Cell, ObservedProxy, Summary

WAIT_SHARE = 0.10    # W_q above this share of R: requests wait in the proxy's queue
QUEUE_MIN = 0.5      # and at least this many wait there on average (L_q)
FULL = 0.9           # the servers' sessions at least this share of maxconn on average: the limit is taken
SESSIONS_MATCH = 0.8  # the proxy's sessions per second at least this share of the client's X: a session per request


def carrying(cell: Cell) -> ObservedProxy | None:
    """The proxy backend that carried the cell's load: the one with the most sessions per second in its window."""
    proxies = [p for p in (cell.observed.proxies if cell.observed is not None else []) if p.sessions_per_s]
    return max(proxies, key=lambda p: p.sessions_per_s) if proxies else None


def per_request(cell: Cell, p: ObservedProxy) -> bool:
    """Whether each request had its own session at the proxy (its sessions per second match the client's X)."""
    x = overall(cell, "throughput_per_s")
    return bool(x and p.sessions_per_s and p.sessions_per_s >= SESSIONS_MATCH * x)


def name(p: ObservedProxy) -> str:
    """"haproxy's backend db_throttled (server db, maxconn 1)"."""
    servers = ", ".join(p.servers) or "its servers"
    limit = f", maxconn {p.limit:g}" if p.limit else ", no maxconn"
    return f"{p.kind}'s backend {p.backend} (server{'s' if len(p.servers) != 1 else ''} {servers}{limit})"


def _database(cell: Cell) -> str:
    """" PostgreSQL counts 0.98 backends running a query (its exporter)": the database's own figure, when scraped."""
    rows = [d for d in (cell.observed.databases if cell.observed is not None else []) if d.active_mean is not None]
    if not rows:
        return ""
    d = rows[0]
    return f"; {'PostgreSQL' if d.kind == 'postgresql' else d.kind} counts {d.active_mean:.2g} backends running a query"


def waiting(summary: Summary) -> list[Finding]:
    """Per curve: the cells whose requests wait in a proxy's queue, how many and how long, against the time in
    service behind it; or, where the sessions are connections carrying many requests, that the queue holds those."""
    out = []
    for curve, members in curves(summary):
        queued, pooled = [], []
        for c in members:
            p, r = carrying(c), overall(c, "mean_ms")
            if p is None or r is None or p.queue_mean is None or p.queue_mean < QUEUE_MIN:
                continue
            if not per_request(c, p):
                pooled.append((c, p))
            elif p.queue_wait_ms is not None and p.queue_wait_ms > WAIT_SHARE * r:
                queued.append((c, p, r))
        head = group_words(curve)
        if queued:
            parts = [f"at {load_words(curve, load(curve, c))}, about {p.queue_mean:.2g} requests wait in "
                     f"{p.kind}'s queue {ms(p.queue_wait_ms)} each (W_q = L_q/X = {p.queue_mean:.3g}/"
                     f"{rate(p.sessions_per_s)}"
                     + (f"; {p.kind}'s own average {ms(p.queue_time_avg_ms)}" if p.queue_time_avg_ms is not None else "")
                     + f"); the {p.served_mean:.2g} in service behind it take {ms(p.in_service_ms)}"
                     + f" (S = L/X){_database(c)}; R = {ms(r)}"
                     for c, p, r in queued]
            c, p, r = queued[-1]
            out.append(Finding(
                "waiting", f"Requests wait in the queue of {name(p)}{(' ' + head) if head else ''}: "
                + "; ".join(parts) + ".", "holds",
                f"{p.kind}'s own queue gauge: W_q = L_q/X (Little's law on its queue) above {WAIT_SHARE:.0%} of R, at "
                f"least {QUEUE_MIN:g} waiting on average, and a session per request ({p.kind}'s sessions per second "
                f"match the client's X)",
                tuple(Figure(f"{p_.kind} queue L_q", p_.queue_mean, "requests", c_.id) for c_, p_, _ in queued)
                + tuple(Figure(f"{p_.kind} queue wait W_q", p_.queue_wait_ms, "ms", c_.id) for c_, p_, _ in queued)
                + tuple(Figure("time in service behind it", p_.in_service_ms, "ms", c_.id) for c_, p_, _ in queued),
                # the names the general waiting finding uses (waiting.py), so the headline reads either: "at N = 8,
                # about 7.2 requests wait in haproxy's queue"
                fields({"users": users(c), "load": load(curve, c), "waiting_in_front": p.queue_mean,
                        "wait_in_front_ms": p.queue_wait_ms, "queue": f"{p.kind}'s queue",
                        "in_service": p.served_mean, "in_service_ms": p.in_service_ms, "limit": p.limit, "r_ms": r}),
                where_of([c_ for c_, *_ in queued]) or tuple(curve.fixed.items()), tuple(c_.id for c_, *_ in queued),
                "proxy"))
        if pooled:
            c, p = pooled[-1]
            x = overall(c, "throughput_per_s")
            out.append(Finding(
                "waiting", f"Connections wait in the queue of {name(p)} at {cells_words([c_ for c_, _ in pooled], curve)}: "
                f"about {p.queue_mean:.2g} on average, but its sessions are connections that carry many requests each "
                f"({rate(p.sessions_per_s)} sessions against X = {rate(x)}): a queued connection waits for a slot that "
                f"frees only when another connection closes, so the queue holds clients, not requests. A connection "
                f"limit throttles requests when each request has its own connection (plans/jdbc.jmx: connection = "
                f"\"per_request\").", "holds",
                f"{p.kind}'s sessions per second below {SESSIONS_MATCH:.0%} of the client's X",
                (Figure(f"{p.kind} sessions", p.sessions_per_s, "/s", c.id), Figure("X", x, "/s", c.id)),
                fields({"users": users(c), "proxy_queue": p.queue_mean, "sessions_per_s": p.sessions_per_s}),
                where_of([c_ for c_, _ in pooled]) or tuple(curve.fixed.items()), tuple(c_.id for c_, _ in pooled),
                "proxy_connections"))
    return out


def covered(found: list[Finding]) -> set[str]:
    """The cells whose wait a proxy finding already places (a "cannot tell where requests wait" is not said there)."""
    return {c for f in found if f.kind == "waiting" and f.resource in ("proxy", "proxy_connections") for c in f.cells}


def _active(cell: Cell) -> float | None:
    """The requests the database behind the proxy ran at once, by its own count (None: no database scraped)."""
    rows = [d.active_mean for d in (cell.observed.databases if cell.observed is not None else [])
            if d.active_mean is not None]
    return rows[0] if rows else None


def limit(cells: list[Cell], xs: list[float | None], on: str):
    """The bottleneck when a proxy's maxconn caps the plateau: at its heaviest cell the backend carrying the load has
    its servers' sessions at maxconn with requests waiting in its queue (lighter cells of the level may sit just at
    it: at N = maxconn the client's own turns leave a slot free now and then), each request its own session; unless the
    database behind it fills every slot with a query (its own count of active backends) while its cores are full: then
    the cores decide (capacity's CPU finding). Otherwise the slots, not the cores, set X, whatever else keeps the cores
    busy. (resource, statement, standing, why, evidence, extra figures) for bottleneck.bottleneck's `found`, or None."""
    held = [(c, p) for c in cells if (p := carrying(c)) is not None]
    if not held or len(held) != len(cells) or not all(per_request(c, p) for c, p in held):
        return None
    top, at_top = held[-1]
    if not (at_top.limit and at_top.served_mean is not None and at_top.served_mean >= FULL * at_top.limit
            and (at_top.queue_mean or 0.0) >= QUEUE_MIN):
        return None
    active = [_active(c) for c, _ in held]
    cpu = server_cpu.util(top)
    if active[-1] is not None and active[-1] >= FULL * at_top.limit and cpu is not None and cpu >= CPU_BUSY:
        return None
    c, p = held[-1]
    x = sum(v for v in xs if v is not None) / max(1, len([v for v in xs if v is not None]))
    statement = (f"{p.kind}'s maxconn {p.limit:g} caps X = {rate(x)} at {on}: at the heaviest its backend "
                 f"{p.backend} has {p.served_mean:.2g} of {p.limit:g} sessions in service on average and "
                 f"{p.queue_mean:.2g} requests waiting in its queue ({ms(p.queue_wait_ms)} each); "
                 f"behind it each request takes {ms(p.in_service_ms)}, so at most maxconn/S = "
                 f"{rate(1000.0 * p.limit / p.in_service_ms) if p.in_service_ms else '?'} pass.")
    if active[-1] is not None and active[-1] < FULL * p.limit:
        statement += (f" The database behind it runs a query in {active[-1]:.2g} of its {p.limit:g} slot"
                      f"{'s' if p.limit != 1 else ''} on average (its own count of active backends): the rest of each "
                      f"session's {ms(p.in_service_ms)} holds the slot without a query (a connection's set-up and "
                      f"close, the client's turns), so the database's cores are not what sets X.")
    elif active[-1] is not None:
        statement += (f" The database behind it runs a query in {active[-1]:.2g} of its {p.limit:g} slot"
                      f"{'s' if p.limit != 1 else ''} (its own count of active backends), its cores "
                      + (f"{cpu:.0%} busy, not full." if cpu is not None else "not measured."))
    evidence = [Figure(f"{p_.kind} sessions in service", p_.served_mean, "sessions", c_.id) for c_, p_ in held] + \
               [Figure(f"{p_.kind} queue", p_.queue_mean, "requests", c_.id) for c_, p_ in held]
    return ("proxy", statement, "holds",
            f"{p.kind}'s own exporter: its servers' sessions at least {FULL:.0%} of maxconn with requests queued "
            "while X stays level (a pool of maxconn slots)",
            evidence, {"proxy_kind": p.kind, "proxy_limit": p.limit, "proxy_queue": p.queue_mean,
                      "in_service_ms": p.in_service_ms})
