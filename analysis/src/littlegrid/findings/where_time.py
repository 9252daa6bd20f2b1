"""Where the time goes: each request's R split where the server measures it, R = (R − R_server) in front of the
server + W_q in the throttle's queue + time in service, and how time in service changes with the load.

The split is the analysis's (analysis/queueing/little.py, Little's law's one owner: wait_in_front_ms = R − R_server,
throttle_wait_ms = L_q / X, in_service_ms = R_server − W_q, the requests in service and the processor-sharing model
of the curve's models); these findings only read it per curve. Time in service
"stays flat" when it takes a small share of what R gained over the curve (the queueing happens outside the service:
in a throttle's queue, in Tomcat's accept queue), and "stretches" when it takes most of it (the requests in service
share something: L requests in service on c cores each take about L/c × S). L is the requests IN SERVICE, not the N
users: with think time some of them think, and a pool smaller than N holds the rest in front of the server.
"""

from __future__ import annotations

from littlegrid.analysis.modelling import curves as curve_rules
from littlegrid.analysis.observed import server_cpu
from littlegrid.analysis.queueing import little
from littlegrid.findings.base import (THROTTLE, Figure, Finding, curves, fields, group_words, knob, load, load_words,
                                      ms, num, overall, rate)
from littlegrid.summary.model import Cell, Curve, Summary

LOAD_STEP = 1.5      # the curve's load grew at least this much...
R_GROWTH = 1.5       # ...and R at least this much: something queued, so where it queued can be said
FLAT_SHARE = 0.25    # time in service took at most this share of R's growth: it stays flat
STRETCH_SHARE = 0.6  # at least this share: the service itself stretches
PS_SLACK = 0.25      # measured time in service within this of L/cores × S: the cores shared evenly, as said
WAIT_SHARE = 0.10    # W_q above this share of R: requests wait in the throttle's queue
QUEUE_MIN = 0.5      # and at least this many wait there on average (L_q)


def in_service_ms(cell: Cell) -> float | None:
    """Time in service per request: R_server less the throttle's queue when there is one (the analysis's split)."""
    return num(little.time_in_service_ms(cell))


def split_words(cell: Cell) -> str:
    """"7.2 ms in service, 19.6 ms in the throttle's queue and 1.5 ms in front of the server of R = 28.3 ms": R in
    the places the server measures, those it has figures for."""
    s, r = cell.server, overall(cell, "mean_ms")
    parts = [f"{ms(in_service_ms(cell))} in service"]
    if s is not None and (num(s.throttle_wait_ms) or 0) > 0:  # no throttle, or nobody queued at it: not said
        parts.append(f"{ms(s.throttle_wait_ms)} in the throttle's queue")
    if s is not None and num(s.wait_in_front_ms) is not None:
        parts.append(f"{ms(max(0.0, s.wait_in_front_ms))} in front of the server")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{listed} of R = {ms(r)}"


def _measured(members: list[Cell]) -> list[tuple[Cell, float, float]]:
    """(cell, R, time in service) for the curve's cells that have both (analysis/queueing/little.timed: those its
    processor-sharing model compares too)."""
    return [(c, overall(c, "mean_ms"), in_service_ms(c)) for c in little.timed(members)]


def _whose(cell) -> str:
    """Whose cores the requests in service share, after their count: nothing to add for this host's (shared with
    JMeter), "the server was pinned to", or the host the server's own figure measured."""
    if server_cpu.shared(cell):
        return ""
    if server_cpu.basis(cell) == server_cpu.SERVER_PINNED:
        return " the server was pinned to"
    return f" of {cell.server_cpu.host}"


def service_time(summary: Summary) -> list[Finding]:
    """Per closed curve whose R grew with the load: does time in service stay flat or stretch?"""
    out = []
    for curve, members in curves(summary):
        if curve.workload == curve_rules.OPEN:
            continue
        points = _measured(members)
        if len(points) < 2:
            continue
        (c0, r0, s0), (c1, r1, s1) = points[0], points[-1]
        n0, n1 = load(curve, c0), load(curve, c1)
        if not n0 or not n1 or n1 < LOAD_STEP * n0 or r1 < R_GROWTH * r0:
            continue
        share = (s1 - s0) / (r1 - r0)
        in_service_figures = {}
        head = group_words(curve)
        at = f" {head}" if head else ""
        trend = (f"{ms(s0)} at {load_words(curve, n0)}, {ms(s1)} at {load_words(curve, n1)} (×{s1 / s0:.2g}), "
                 f"while R went from {ms(r0)} to {ms(r1)}")
        if share <= FLAT_SHARE:
            shape = "flat"
            statement = (f"Time in service stays flat{at}: {trend}; the service took {max(share, 0):.0%} of what R "
                         f"gained, so the requests queue outside it: at {load_words(curve, n1)}, {split_words(c1)}.")
        elif share >= STRETCH_SHARE:
            shape = "stretched"
            statement = (f"Time in service stretches with the load{at}: {trend}; the service itself took "
                         f"{min(share, 1):.0%} of what R gained.")
            model = curve.models.shared_cores  # the processor-sharing model (analysis/queueing/little.shared_cores)
            if model is not None and model.cell == c1.id and model.light_cell == c0.id:
                l1, how, cores, cpu = model.in_service, model.in_service_basis, model.cores, model.cpu_util
                s, shared = model.service_alone_ms, model.shared_ms
                statement += (f" The {l1:.3g} requests in service ({how}) share the {cores:g} "
                              f"core{'s' if cores != 1 else ''}"
                              f"{_whose(c1)} "
                              f"({cpu:.0%} busy): each takes about L/cores × S = {l1:.3g}/{cores:g} × {ms(s)} = "
                              f"{ms(shared)}")
                if abs(s1 / shared - 1) <= PS_SLACK:
                    statement += f", measured {ms(s1)}."
                elif s1 > shared:
                    statement += (f", but {ms(s1)} was measured, more than the cores' share: something besides "
                                  f"these requests took core time (other load on the host), or they wait on "
                                  f"something besides the cores; the stretch is read from R's growth, not from "
                                  f"this figure.")
                else:
                    statement += (f", but {ms(s1)} was measured, less than that: S from the lightest cell "
                                  f"({ms(s0)} at {load_words(curve, n0)}) is more than each request's core time "
                                  f"(other load on the host then, waiting on I/O, or a start-up cost), so the "
                                  f"stretch is read from R's growth, not from this figure.")
                in_service_figures = {"in_service_requests": l1, "shared_service_ms": shared}
            else:
                statement += " The requests in service share something inside the server (cores, a lock, a pool)."
        else:
            shape = None
            statement = (f"Time in service grows part of the way{at}: {trend}; the service took {share:.0%} of what "
                         f"R gained, the rest was spent waiting: at {load_words(curve, n1)}, {split_words(c1)}.")
        evidence = tuple(Figure("time in service", svc, "ms", c.id) for c, _, svc in points) + \
            tuple(Figure("R", r, "ms", c.id) for c, r, _ in points)
        out.append(Finding("service", statement, "holds",
                           f"the share of R's growth spent in service, (S_last − S_first)/(R_last − R_first) = "
                           f"{share:.2f}: flat at most {FLAT_SHARE:g}, stretched at least {STRETCH_SHARE:g}; time in "
                           f"service is R_server less the throttle's W_q = L_q/X",
                           evidence, fields({"users": n1, "service_first_ms": s0, "service_last_ms": s1,
                                             "r_first_ms": r0, "r_last_ms": r1, "service_share": share}
                                            | in_service_figures),
                           tuple(curve.fixed.items()), tuple(c.id for c, _, _ in points), shape))
    return out


def throttle_queue(summary: Summary) -> list[Finding]:
    """Per curve with a throttle: the cells where a share of R is spent in its queue, W_q = L_q / X."""
    out = []
    for curve, members in curves(summary):
        queued = []
        for c in members:
            k, s, r = knob(summary, c, THROTTLE), c.server, overall(c, "mean_ms")
            if not k or k <= 0 or s is None or r is None:
                continue
            w, lq = num(s.throttle_wait_ms), num(s.throttle_queue_mean)
            if w is not None and lq is not None and w > WAIT_SHARE * r and lq >= QUEUE_MIN:
                queued.append((c, k, w, lq, r))
        if queued:
            out.append(_throttle_finding(curve, queued))
    return out


def _throttle_finding(curve: Curve, queued: list) -> Finding:
    head = group_words(curve)
    parts = [f"at {load_words(curve, load(curve, c))}, {ms(w)} of R = {ms(r)} ({w / r:.0%}; W_q = L_q/X = "
             f"{lq:.3g}/{rate(num(c.server.throughput_per_s) or overall(c, 'throughput_per_s'))}); "
             f"{split_words(c)}" for c, _, w, lq, r in queued]
    c, k, w, lq, r = queued[-1]
    statement = (f"Requests wait in the throttle's queue{(' ' + head) if head else ''} (K = {k:g} admitted at "
                 f"once): " + "; ".join(parts) + ".")
    evidence = tuple(Figure("throttle queue wait W_q", w_, "ms", c_.id) for c_, _, w_, _, _ in queued) + \
        tuple(Figure("throttle queue L_q", lq_, "requests", c_.id) for c_, _, _, lq_, _ in queued)
    return Finding("waiting", statement, "holds",
                   f"W_q = L_q/X (Little's law on the throttle's queue) above {WAIT_SHARE:.0%} of R, with at least "
                   f"{QUEUE_MIN:g} requests in the queue on average", evidence,
                   fields({"users": load(curve, c), "throttle_wait_ms": w, "throttle_queue": lq, "r_ms": r,
                           "in_service_ms": in_service_ms(c), "throttle_k": k}),
                   tuple(curve.fixed.items()), tuple(c_.id for c_, *_ in queued), "throttle")
