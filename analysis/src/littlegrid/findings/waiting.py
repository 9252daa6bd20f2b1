"""Where requests wait: in front of the server (R − R_server), at the throttle's queue, or in service, by Little's law
at each boundary."""

from __future__ import annotations

from dataclasses import dataclass

from littlegrid.findings import precision
from littlegrid.findings.base import (Figure, Finding, cells_words, curves, fields, group_words, load, load_words, ms,
                                      num, overall, pool_words, users, where_of)
from littlegrid.findings.bottleneck import no_metrics
from littlegrid.findings.capacity import WAIT_SHARE, starved
from littlegrid.summary.model import Cell, Curve, Summary


@dataclass(frozen=True)
class _Queued:
    """Where a cell's requests wait, by the analysis's Little's law (analysis/queueing/little.boundaries, read from the
    cell's server figures): `waiting` requests, `wait_ms` each, outside `held_by` (the server's L_server, or a
    pool's busy workers) which holds `held` of the X·R = `client` in flight at the client."""

    cell: Cell
    waiting: float
    wait_ms: float
    r_ms: float
    held: float | None
    client: float | None
    pool: str | None  # the pool's name in words when the boundary is a pool's busy workers, None: the server's


def _queued(summary: Summary, cell: Cell) -> _Queued | None:
    """The cell's requests waiting outside the server's boundary (X·R − L_server, R − R_server) or, with only a
    pool's busy workers scraped, outside that pool (X·R − busy, R − busy/X); None without either figure."""
    s, r = cell.server, overall(cell, "mean_ms")
    if s is None or r is None:
        return None
    if num(s.waiting_in_front) is not None and num(s.wait_in_front_ms) is not None:
        return _Queued(cell, s.waiting_in_front, s.wait_in_front_ms, r, num(s.in_flight_mean),
                       num(s.client_in_flight), None)
    if num(s.waiting_outside_pool) is not None and num(s.wait_outside_pool_ms) is not None:
        return _Queued(cell, s.waiting_outside_pool, s.wait_outside_pool_ms, r, num(s.busy_threads_mean),
                       num(s.client_in_flight), pool_words(summary, cell))
    return None


def _queued_words(curve: Curve, q: _Queued) -> str:
    """"at N = 100, about 90 requests wait in front of the server, 906 ms each of R = 1007 ms (90%; of X·R = 99.9 in
    flight at the client the server holds L_server = 10)", or outside a pool, held by its busy workers."""
    # a difference of two means, one from 1 Hz scrapes, has no interval here: the counts are said at two significant
    # figures ("about 90"), not at the three a reader would take for measured
    where = f"outside {q.pool}" if q.pool else "in front of the server"
    rest = f"R_server = {ms(q.r_ms - q.wait_ms)}" if not q.pool else f"{ms(q.r_ms - q.wait_ms)} in a worker"
    detail = rest
    if q.client is not None and q.held is not None:
        inside = (f"the busy workers of {q.pool} hold {precision.significant(q.held, 3)}" if q.pool
                  else f"the server holds L_server = {precision.significant(q.held, 3)}")
        detail = f"of X·R = {precision.significant(q.client, 3)} in flight at the client {inside}; {rest}"
    return (f"at {load_words(curve, load(curve, q.cell))}, {precision.count(q.waiting, None, None)} requests wait "
            f"{where}, {ms(q.wait_ms)} each of R = {ms(q.r_ms)} ({q.wait_ms / q.r_ms:.0%}; {detail})")


def waiting(summary: Summary, saturated: set) -> list[Finding]:
    """Per curve: the cells where a share of R is spent outside what the server's figures hold, by Little's law at
    their boundaries (the analysis's, read): in front of the server (the accept queue, connection set-up) when it
    measured L_server, or outside the pool under test when only its busy workers were scraped; a saturated curve
    with neither gets a "cannot tell"."""
    out = []
    for curve, members in curves(summary):
        group = curve.fixed
        queued, blind = [], []
        for c in members:
            q = _queued(summary, c)
            if q is None:
                if c.id in saturated:
                    blind.append(c)
                continue
            if q.wait_ms > WAIT_SHARE * q.r_ms and q.waiting >= 1:
                queued.append(q)
        if queued:
            head = group_words(curve)
            pooled = queued[-1].pool
            statement = (("Requests queue outside " + pooled if pooled else "Requests queue in front of the server")
                         + (f" {head}" if head else "") + ": " + "; ".join(_queued_words(curve, q) for q in queued)
                         + ".")
            boundary = "busy workers" if pooled else "L_server"
            evidence = []
            for q in queued:
                evidence += [Figure(f"X·R − {boundary}", q.waiting, "requests", q.cell.id),
                             Figure("R − R_server" if not q.pool else "R − busy/X", q.wait_ms, "ms", q.cell.id)]
            cells = [q.cell for q in queued]
            heaviest = queued[-1]
            hungry = [c for c in cells if starved(c)]
            out.append(Finding("waiting", statement, "suggests" if hungry else "holds",
                               (f"R − R_server above {WAIT_SHARE:.0%} of R and at least one request waiting in front "
                                f"of it" if not pooled else
                                f"the pool's busy workers hold one request each (Little's law on the pool: each is "
                                f"held busy/X); R − busy/X above {WAIT_SHARE:.0%} of R and at least one request "
                                f"waiting outside it")
                               + (f"; but the generator is starved at "
                                  f"{load_words(curve, ', '.join(f'{load(curve, c):g}' for c in hungry))}"
                                  f", so part of the wait may be JMeter's own delay, not a queue at the server"
                                  if hungry else ""),
                               tuple(evidence), fields({"waiting_in_front": heaviest.waiting,
                                                        "wait_in_front_ms": heaviest.wait_ms,
                                                        "users": users(heaviest.cell),
                                                        "load": load(curve, heaviest.cell),
                                                        "boundary": pooled or "the server"}),
                               where_of(cells) or tuple(group.items()), tuple(c.id for c in cells), "in_front"))
        if blind:
            out.append(Finding("waiting", f"Cannot tell where requests wait at {cells_words(blind, curve)}: "
                               f"{no_metrics(blind[0])}.", "cannot tell",
                               "no server metrics in the saturated cells", (), (),
                               where_of(blind) or tuple(group.items()), tuple(c.id for c in blind)))
    return out
