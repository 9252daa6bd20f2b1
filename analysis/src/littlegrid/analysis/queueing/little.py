"""Little's law, L = λ·W, at every boundary the analysis draws, written once: the requests in flight at the client
(X·R), at the server (L_server, or X·R_server), in service (less a throttle's queue, or a pool's busy workers), where
the rest wait (X·R − L_server in front of the server, X·R − busy outside a pool), a throttle's queue wait
(W_q = L_q/X), the processor-sharing model of requests in service sharing cores (each takes L/cores × S), and the
products the laws' limit L = X_max·D and the waiting past it X·(R − D) are made of.

The cell stage (analysis/cell.py: `boundaries`) and the curves' models (analysis/modelling/models.py: `shared_cores`,
`concurrency`) call these; the checks (laws.server_little, laws.generator_sizing) too. Findings read the figures from
the typed summary and compute none of them.
"""

from __future__ import annotations

from littlegrid.summary.model import Cell, SharedCores

CPU_BUSY = 0.9  # the server's cores count as saturated at this busy share (curves.CPU_BUSY is this)


def in_flight(rate_per_s: float, time_ms: float) -> float:
    """L = λ·W: the mean number inside a boundary that `rate_per_s` cross, each staying `time_ms`."""
    return rate_per_s * time_ms / 1000.0


def time_inside_ms(count: float, rate_per_s: float) -> float:
    """W = L/λ in ms: how long each of `rate_per_s` stays inside a boundary holding `count` on average."""
    return 1000.0 * count / rate_per_s


def throttle_split(queue_mean: float | None, x_per_s: float | None, r_server_ms: float | None) -> dict:
    """R_server split at the throttle by Little's law on its queue: W_q = L_q / X, time in service = R_server − W_q.

    The server's timer spans the throttle's queue, so R_server alone cannot show that a throttle keeps the time in
    service flat while the queue absorbs the load. L_q is the mean of 1 Hz samples of the queue length, so W_q is an
    estimate (the in-flight integral has no counterpart for the queue).
    """
    if queue_mean is None or not x_per_s or r_server_ms is None:
        return {"throttle_wait_ms": None, "in_service_ms": None}
    wait_ms = time_inside_ms(queue_mean, x_per_s)
    return {"throttle_wait_ms": wait_ms, "in_service_ms": max(0.0, r_server_ms - wait_ms)}


def boundaries(x_per_s: float | None, r_ms: float | None, server: dict, steady: bool = True) -> dict:
    """Where the requests are, by Little's law at the boundaries the server's figures draw (model.Server's fields).

    The client's boundary holds X·R requests (sent, not yet answered; N when there is no think time), the server's
    L_server of them; the rest, waiting_in_front = X·R − L_server, are in front of the service: in Tomcat's accept
    queue and connection backlog before a worker takes them, on the network or in the client. Per request that is
    wait_in_front_ms = R − R_server. in_front_reason says why a figure is absent.

    In service: L_server less a throttle's queue (measured L_q, or X·W_q) when the server measured L_server; else
    Little's law on its timer, X·R_server, less the queue; else, with only a pool's busy workers scraped (a pool
    named in [observe.pools]), those workers: each busy worker holds one request. Then the rest of X·R wait outside
    that pool, waiting_outside_pool = X·R − busy, each for wait_outside_pool_ms = R − busy/X.
    """
    out = {"client_in_flight": None, "waiting_in_front": None, "wait_in_front_ms": None, "in_front_reason": None,
           "in_service_requests": None, "in_service_basis": None, "waiting_outside_pool": None,
           "wait_outside_pool_ms": None}
    if not steady:
        out["in_front_reason"] = "a spike has no steady state to apply Little's law to"
        return out
    if x_per_s is not None and r_ms is not None:
        out["client_in_flight"] = in_flight(x_per_s, r_ms)
    l_server, r_server = server.get("in_flight_mean"), server.get("service_mean_ms")
    x_server = server.get("throughput_per_s") or x_per_s
    busy = server.get("busy_threads_mean")
    if r_ms is not None and r_server is not None:
        out["wait_in_front_ms"] = r_ms - r_server
    if out["client_in_flight"] is not None and l_server is not None:
        out["waiting_in_front"] = out["client_in_flight"] - l_server
    queued, less = 0.0, ""
    if (server.get("throttle_wait_ms") or 0) > 0:
        lq = server.get("throttle_queue_mean")
        queued = lq if lq is not None else in_flight(x_server or 0.0, server["throttle_wait_ms"])
        less = " less the throttle's queue"
    if l_server is not None:
        out["in_service_requests"] = max(0.0, l_server - queued)
        out["in_service_basis"] = f"L_server measured at the server{less}"
    elif r_server is not None and x_server:
        out["in_service_requests"] = max(0.0, in_flight(x_server, r_server) - queued)
        out["in_service_basis"] = f"X·R_server = {x_server:.3g}/s × {r_server:.3g} ms by Little's law{less}"
    elif busy is not None:
        out["in_service_requests"] = busy
        out["in_service_basis"] = "the busy workers of the pool under test, each holding one request"
        if out["client_in_flight"] is not None and x_per_s:
            out["waiting_outside_pool"] = out["client_in_flight"] - busy
            out["wait_outside_pool_ms"] = r_ms - time_inside_ms(busy, x_per_s)
    missing = [what for what, value in (("in-flight (L_server)", l_server), ("service-time (R_server)", r_server))
               if value is None]
    if missing:
        failed = server.get("failed_scrapes") or 0
        out["in_front_reason"] = (f"the server metrics lack {' and '.join(missing)} in the window"
                                  + (f" ({failed} of {failed + server.get('readings', 0)} scrapes failed)" if failed else ""))
    elif out["client_in_flight"] is None:
        out["in_front_reason"] = "the cell has no client throughput or response time"
    return out


def time_in_service_ms(cell: Cell) -> float | None:
    """Time in service per request: R_server less the throttle's queue when there is one (the cell's split)."""
    s = cell.server
    if s is None:
        return None
    return s.in_service_ms if s.in_service_ms is not None else s.service_mean_ms


def timed(members: list[Cell]) -> list[Cell]:
    """The cells of a curve (in order of load) with both a mean R and a time in service: those the split of R and
    the processor-sharing model compare, the lightest against the heaviest."""
    return [c for c in members if c.overall is not None and (c.overall.mean_ms or 0) > 0
            and time_in_service_ms(c) is not None]


def shared_cores(members: list[Cell]) -> SharedCores | None:
    """The processor-sharing model at the heaviest timed cell of a curve (`timed`): its L requests in service
    (Cell.server.in_service_requests) sharing the cores of its server's CPU (Cell.server_cpu) each take about
    L/cores × S, S the lightest timed cell's time in service (itself shared when that cell had more requests in
    service than cores). Only when the cores were saturated (≥ CPU_BUSY) and held more requests in service than
    cores; None otherwise or without the figures."""
    points = timed(members)
    if len(points) < 2:
        return None
    light, heavy = points[0], points[-1]
    cpu = heavy.server_cpu
    cores, util = (cpu.cores, cpu.util) if cpu is not None else (None, None)
    s0, s1 = time_in_service_ms(light), time_in_service_ms(heavy)
    l0 = light.server.in_service_requests if light.server is not None else None
    l1 = heavy.server.in_service_requests if heavy.server is not None else None
    if not cores or util is None or util < CPU_BUSY or l1 is None or l1 <= cores or not s0 or s1 is None:
        return None
    alone = s0 / max(1.0, (l0 or 0.0) / cores)
    return SharedCores(cell=heavy.id, light_cell=light.id, in_service=l1,
                       in_service_basis=heavy.server.in_service_basis or "", cores=cores, cpu_util=util,
                       service_alone_ms=alone, shared_ms=l1 / cores * alone, measured_ms=s1)
