"""Findings: what an analysed run shows, why, and what to change, as ranked statements with their figures.

A pure function of the typed summary (littlegrid.summary.model.Summary, read by attribute; no I/O):
`findings(summary)` -> [Finding], ranked; `as_json(found)` for summary.json. The families live in one module each:
outage (a server that stopped answering, or paused: a stall), capacity (saturation), bottleneck (its cause),
connections (a limit on connections), waiting (where requests wait), knees (the latency knee, scaling),
proxy (a proxy's queue and its maxconn, from its own exporter),
waves (a spike served c at a time), where_time (R split where the server measures it; time in service flat or stretched), validity,
think (think time), advice (recommendations), two_arms (the comparison's significant differences, and a grid's two
arms in words).
"""

from __future__ import annotations

from littlegrid.findings import (advice, bottleneck, capacity, connections, knees, outage, proxy, single_test, think,
                                 transactions, validity, waiting, waves, where_time)
from littlegrid.findings import headline as headline_words
from littlegrid.findings.engines import engine_shares
from littlegrid.findings.base import KIND_ORDER, STANDINGS, Figure, Finding, rank
from littlegrid.findings.two_arms import Arms, two_arms
from littlegrid.summary.model import Summary

__all__ = ["Arms", "Figure", "Finding", "KIND_ORDER", "STANDINGS", "findings", "headline", "as_json", "two_arms"]


def findings(summary: Summary, arms: Arms | None = None) -> list[Finding]:
    """Every finding the summary supports, ranked by group (the answer, trust, what to do), then kind. A single JTL
    (no grid) gets what a test shows, and no advice about cells or closed-law tolerances it never asked for.
    arms: the grid's two arms paired cell by cell with their deltas (the comparison stage's, handed in by analyze:
    findings come before comparison), said in words."""
    single = single_test.is_single_test(summary)
    found: list[Finding] = outage.outages(summary) + outage.stalls(summary)
    if single:
        found += single_test.single_test(summary)
    plateaus = capacity.plateaus(summary)
    covered: set = set()
    for p in plateaus:
        found.append(capacity.saturation(summary, p))
        cause = bottleneck.bottleneck(summary, p)
        found.append(cause)
        covered |= {c.id for c in p.cells}
        # a starved generator hides the server's capacity: a limit drawn from that curve would be about JMeter
        hidden = cause.resource == "generator" or any(capacity.starved(c) for c in p.cells)
        limit = None if hidden else advice.concurrency_limit(summary, p, cause)
        if limit is not None:
            found.append(limit)
    found += capacity.overload(summary)
    found += connections.connection_findings(summary, covered)
    at_proxy = proxy.waiting(summary)  # where a proxy's own figures place the wait, nothing is left to "cannot tell"
    found += at_proxy + [f for f in waiting.waiting(summary, {c.id for p in plateaus for c in p.cells})
                         if f.standing != "cannot tell" or not set(f.cells) <= proxy.covered(at_proxy)]
    found += where_time.throttle_queue(summary)
    found += where_time.service_time(summary)
    found += waves.waves(summary)
    found += transactions.dominant(summary)
    found += validity.validity(summary, grid=not single)
    found += engine_shares(summary)
    found += knees.knees(summary, plateaus)
    found += think.timer(summary)
    found += think.capacity_per_think(summary)
    found += knees.scaling(summary, [p.curve.key for p in plateaus])
    if arms is not None:
        found += arms.in_words()
    if not single:
        found += advice.pool_size(summary)
        found += advice.next_cells(summary, plateaus)
    return rank(found, summary)


def headline(summary: Summary, found: list[Finding]) -> dict | None:
    """The summary's headline (Summary.headline) from the ranked findings, with the cells it cites: those of the
    findings its sentences are composed from, in the summary's cell order (the report marks them on its first
    chart)."""
    head = headline_words.headline(summary, found, single_test.is_single_test(summary))
    if head is None:
        return None
    cited = {c for i in head["findings"] for c in found[i].cells}
    return head | {"cells": [c.id for c in summary.cells if c.id in cited]}


def as_json(found: list[Finding]) -> list[dict]:
    return [f.as_dict() for f in found]
