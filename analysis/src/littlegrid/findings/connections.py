"""Connections refused, reset or timed out: a limit on connections rather than on workers, and the failures at an
outage's edges."""

from __future__ import annotations

import math

from littlegrid.analysis.modelling import curves as curve_rules
from littlegrid.findings.base import (ACCEPT_COUNT, MAX_CONNECTIONS, Figure, Finding, cell_words, cells_words, curves,
                                      fields, knob, num, overall, users, where_of)
from littlegrid.findings.capacity import mean_of
from littlegrid.summary.model import Cell, Curve, Summary


CONNECTION_CLASSES = ("connection_refused", "connection_reset", "connect_timeout")


def _errors_by_class(cell: Cell) -> dict:
    return cell.overall.errors_by_class if cell.overall is not None else {}


def outage_edge_failures(cell: Cell) -> float:
    """How many failures the start of the cell's outage can leave in its window (0 without one). The window ends
    with the last answer; while that answer was in service the dying server already failed the others, at the
    outage's own rate: about failed_per_s × R of them, a Poisson count, allowed up to its mean + 4 standard errors
    + 1. More than that came before the outage began, while the server still answered: a limit of its own. A
    recovered outage lies inside the window: its own failures there (failed_in_window) are the outage's too."""
    o = cell.outage
    if o is None:
        return 0.0
    mean = (num(o.failed_per_s) or 0.0) * (overall(cell, "mean_ms") or 0.0) / 1000.0
    return o.failed_in_window + mean + 4.0 * math.sqrt(mean) + 1.0


def connection_errors(cell: Cell, classes=CONNECTION_CLASSES) -> int:
    """The cell's requests that failed to connect or were dropped (of the given error classes)."""
    by_class = _errors_by_class(cell)
    return sum(by_class.get(k) or 0 for k in classes)


def connections_finding(summary: Summary, cells: list[Cell], curve: Curve | None, figures: dict) -> Finding:
    """Requests refused or reset at the connection level, against max-connections + accept-count."""
    by_class = {}
    for c in cells:
        for k in CONNECTION_CLASSES:
            by_class[k] = by_class.get(k, 0) + connection_errors(c, (k,))
    total = sum(by_class.values())
    count = sum(c.overall.count if c.overall is not None else 0 for c in cells)
    limit_words, limit = "", None
    mc, ac = knob(summary, cells[0], MAX_CONNECTIONS), knob(summary, cells[0], ACCEPT_COUNT)
    if mc is not None and ac is not None:
        limit = mc + ac
        limit_words = (f"; the server takes at most max-connections + accept-count = {mc:g} + {ac:g} = {limit:g} "
                       f"connections at once")
    classes = ", ".join(f"{k} {v}" for k, v in by_class.items() if v)
    figures = dict(figures) | {"connection_errors": total, "requests": count, "connection_limit": limit,
                               "max_connections": mc, "accept_count": ac}
    over = limit is None or all(users(c) > limit for c in cells)
    on = cells_words(cells, curve) if curve is not None else "; ".join(cell_words(c) for c in cells)
    return Finding("bottleneck", f"Connections are the limit at {on}: {total} of {count} "
                   f"requests failed to connect or were dropped ({classes}){limit_words}.",
                   "holds" if over else "suggests",
                   "connection-level failures by class" + ("" if over else f", though N is not above {limit:g}"),
                   tuple(Figure("connection errors", connection_errors(c), "", c.id) for c in cells)
                   + tuple(Figure("requests", c.overall.count if c.overall is not None else None, "", c.id)
                           for c in cells),
                   fields(figures), where_of(cells), tuple(c.id for c in cells), "connections")


def connection_findings(summary: Summary, covered: set) -> list[Finding]:
    """Connection failures in cells no plateau covers: one finding per curve, and per facet of the cells that are
    no point of a curve (a spike), grouped by the analysis's own rule. `covered`: cell ids already explained by
    a plateau's bottleneck. A cell with an outage counts only the connection failures its outage's start cannot
    explain (outage_edge_failures)."""
    hit = [c for c in summary.cells if c.id not in covered and connection_errors(c) > outage_edge_failures(c)]
    groups: dict = {}
    for curve, members in curves(summary):
        ids = set(curve.cells)
        mine = [c for c in hit if c.id in ids]
        if mine:
            groups[curve.key] = (curve, mine)
    placed = {c.id for _, cs in groups.values() for c in cs}
    for c in hit:
        if c.id not in placed:
            groups.setdefault(curve_rules.facet_key(c), (None, []))[1].append(c)
    out = []
    for curve, cells in groups.values():
        cells.sort(key=lambda c: users(c) or 0)
        out.append(connections_finding(summary, cells, curve,
                                       {"throughput_per_s": mean_of([overall(c, "throughput_per_s") for c in cells]),
                                        "users": users(cells[0])}))
    return out
