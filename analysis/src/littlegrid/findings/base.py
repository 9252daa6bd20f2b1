"""The finding record, its ranking and the small readers of the typed summary every finding family shares."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from littlegrid.analysis.queueing.laws import GENERATOR_OVERHEAD_MS
from littlegrid.summary.model import Cell, Check, Curve, Summary

STANDINGS = ("holds", "suggests", "cannot tell")
# What a performance engineer needs first: whether the server stopped answering, what limits the system, where
# the requests wait, which cells not to trust; then the shape of the curves, the arms, the think time and what to
# do next.
KIND_ORDER = ("outage", "stall", "throughput", "slowest", "errors", "latency_shift", "error_burst", "saturation",
              "overload", "bottleneck", "waiting", "service", "transactions", "validity", "knee", "overhead", "arms",
              "think_time", "scaling", "recommendation")
# How a performance engineer reads them: the answer (what limits the system, where requests wait, the shape of the
# curves), then whether the test can be trusted, then what to do.
GROUPS = ("answer", "trust", "action")
GROUP_OF = {"outage": "trust", "stall": "trust", "validity": "trust", "think_time": "trust",
            "recommendation": "action"}
TOMCAT_THREADS = "server.tomcat.threads.max"
THROTTLE = "littlegrid.throttle.max-concurrent"
MAX_CONNECTIONS = "server.tomcat.max-connections"
ACCEPT_COUNT = "server.tomcat.accept-count"
TOMCAT_DEFAULT_THREADS = 200  # the sample server is Spring Boot's Tomcat: its default pool


@dataclass(frozen=True)
class Figure:
    """One number behind a finding, named, with its unit and the cell (or arm) it was measured in."""

    name: str
    value: float | None
    unit: str = ""
    cell: str | None = None

    def as_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "unit": self.unit, "cell": self.cell}


@dataclass(frozen=True)
class Finding:
    """What the experiment shows, in one or two sentences with their figures, and how far the data carries it.

    standing: "holds" (the evidence says so), "suggests" (consistent, one piece missing), "cannot tell" (the
    data cannot decide; `why` says what is missing). `where`: axis values shared by every cell it is about;
    `cells`: those cells; `figures`: its headline numbers by name (users, throughput_per_s, ...).
    """

    kind: str
    statement: str
    standing: str
    why: str
    evidence: tuple[Figure, ...] = ()
    figures: tuple[tuple[str, float | None], ...] = ()
    where: tuple[tuple[str, object], ...] = ()
    cells: tuple[str, ...] = ()
    resource: str | None = None
    recommendation: str | None = None
    group: str = "answer"
    minor: bool = False
    curve: str | None = None

    def __post_init__(self):
        if self.kind not in KIND_ORDER:
            raise ValueError(f"unknown finding kind {self.kind!r}")
        if self.standing not in STANDINGS:
            raise ValueError(f"unknown standing {self.standing!r}")

    def as_dict(self) -> dict:
        out = {"kind": self.kind, "statement": self.statement, "standing": self.standing, "why": self.why,
               "where": dict(self.where), "cells": list(self.cells), "figures": dict(self.figures),
               "evidence": [f.as_dict() for f in self.evidence], "recommendation": self.recommendation,
               "resource": self.resource, "group": self.group, "minor": self.minor, "curve": self.curve}
        return out


MAJOR = 3  # findings shown first in each group; the rest are folded


def rank(found: list[Finding], summary: Summary | None = None) -> list[Finding]:
    """Group first (GROUPS: the answer, trust, what to do), then kind (KIND_ORDER), then standing (what holds before
    what is suggested), stable otherwise; each finding told its group, the curve it is about (the one curve that
    holds all its cells) and whether it is minor (past the first MAJOR of its group, or claiming nothing)."""
    def group(f):
        return GROUP_OF.get(f.kind, "answer")

    ordered = sorted(found, key=lambda f: (GROUPS.index(group(f)), KIND_ORDER.index(f.kind),
                                          STANDINGS.index(f.standing)))
    curves = summary.curves if summary is not None else []
    out, seen = [], {}
    for f in ordered:
        g = group(f)
        seen[g] = seen.get(g, 0) + 1
        holding = [k.key for k in curves if f.cells and set(f.cells) <= set(k.cells)]
        out.append(replace(f, group=g, minor=seen[g] > MAJOR or f.standing == "cannot tell",
                           curve=holding[0] if len(holding) == 1 else None))
    return out


# ---------------------------------------------------------------- reading the summary

def num(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def overall(cell: Cell, key: str) -> float | None:
    """A figure of the cell's steady-window statistics (None when the cell has none)."""
    return num(getattr(cell.overall, key)) if cell.overall is not None else None


def users(cell: Cell) -> float | None:
    return num(cell.users.n) if cell.users is not None else None


def check(cell: Cell, name: str) -> Check | None:
    return next((c for c in cell.checks if c.name == name), None)


def failed(cell: Cell, name: str) -> Check | None:
    """The cell's check of that name when it was made and failed."""
    k = check(cell, name)
    return k if k is not None and k.passed is False else None


def knob(summary: Summary, cell: Cell, name: str) -> float | None:
    """A server knob of a cell: its axis value, else the run's fixed knob."""
    value = cell.axes.get(name)
    if value is None:
        value = (summary.run.server_knobs or {}).get(name)
    try:
        return float(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


# What a scraped pool is called, by the kind the analysis's mapping gave it (Server.pool_kind; analysis/observed/mapping.py)
POOL_NAMES = {"tomcat": "Tomcat's thread pool", "jetty": "Jetty's thread pool", "executor": "the executor pool"}


def pool_kind(summary: Summary, cell: Cell) -> str | None:
    """What the cell's busy-thread figures measure: the pool kind the analysis mapped (Server.pool_kind); the
    sample server's runs (its knob threads.max set, or server figures without a mapped kind: a littlegrid before
    [observe] scraped the sample server alone) are Tomcat; None: not known, and no finding may name Tomcat."""
    s = cell.server
    if s is not None and s.pool_kind:
        return s.pool_kind
    if knob(summary, cell, TOMCAT_THREADS) is not None or s is not None:
        return "tomcat"
    return None


def pool_words(summary: Summary, cell: Cell) -> str:
    """The pool in words, from what was scraped: "Tomcat's thread pool", "the executor pool 'jobs'", "the pool
    'workers'" (the user's [observe.pools] name), else "the service's worker pool"."""
    kind = pool_kind(summary, cell)
    name = cell.server.pool_name if cell.server is not None else None
    if kind == "named":
        return f"the pool '{name}'" if name else "the pool named in [observe.pools]"
    if kind == "executor" and name:
        return f"the executor pool '{name}'"
    return POOL_NAMES.get(kind or "", "the service's worker pool")


def pool_size_name(summary: Summary, cell: Cell) -> str:
    """What the pool's size is called: Tomcat's threads.max, else the pool's size."""
    return "threads.max" if pool_kind(summary, cell) == "tomcat" else "the pool's size"


def threads_max(summary: Summary, cell: Cell) -> tuple[float | None, str]:
    """(the thread pool's size, how it is known): a knob, else what the server reported, else Tomcat's default when
    the pool is Tomcat's (the sample server's), else unknown."""
    value = knob(summary, cell, TOMCAT_THREADS)
    if value is None and cell.server is not None and num(cell.server.threads_max) is not None:
        size = cell.server.threads_max
        return size, (f"the server reports threads.max = {size:g}" if pool_kind(summary, cell) == "tomcat"
                      else f"the server reports a pool of {size:g}")
    if value is not None:
        return value, f"{TOMCAT_THREADS} = {value:g}"
    if cell.server is not None and pool_kind(summary, cell) == "tomcat":
        return float(TOMCAT_DEFAULT_THREADS), f"Tomcat's default {TOMCAT_DEFAULT_THREADS} threads"
    return None, "unknown"


def realised_think_ms(cell: Cell) -> float | None:
    """The mean think time the threads realised (ms), None when not measured."""
    return num(cell.think_time.mean_ms) if cell.think_time is not None else None


def think_excess_ms(cell: Cell) -> float | None:
    """Realised minus intended think time per cycle (ms): what the generator added between samples."""
    real, asked = realised_think_ms(cell), num(cell.intended.think_ms)
    return None if real is None or asked is None else real - asked


def overhead_explains(cell: Cell, k: Check) -> bool:
    """Whether a failed fidelity check is JMeter's per-cycle work and nothing more: the threads thought at most
    GENERATOR_OVERHEAD_MS longer than asked, and (for the workload check) X·(R+Z_intended) falls short of N by no
    more than that excess explains. With Z_real = Z + e, X = N/(R+Z+e), so X·(R+Z) = N·(1 − e/(R+Z+e)): a
    shortfall of e/(R+Z+e), within the check's own tolerance."""
    excess, r = think_excess_ms(cell), overall(cell, "mean_ms")
    if excess is None or not 0 < excess <= GENERATOR_OVERHEAD_MS:
        return False
    if k.name == "think_time":
        return True
    if k.name != "workload" or r is None:
        return False
    value, n = num(k.value), num(k.expected)
    if value is None or not n or value > n:
        return False
    z_real = realised_think_ms(cell) or 0.0
    return 1 - value / n <= excess / (r + z_real) + (num(k.tolerance) or 0.0)


def where_of(cells: list[Cell]) -> tuple[tuple[str, object], ...]:
    """Axis values every one of the cells shares, in the first cell's axis order."""
    if not cells:
        return ()
    first = cells[0].axes
    return tuple((k, v) for k, v in first.items() if all(c.axes.get(k, object()) == v for c in cells))


def curves(summary: Summary) -> list[tuple[Curve, list[Cell]]]:
    """(curve, its cells in order of load) for every curve the analysis formed (Summary.curves)."""
    by_id = {c.id: c for c in summary.cells}
    return [(k, [by_id[i] for i in k.cells if i in by_id]) for k in summary.curves]


def load(curve: Curve, cell: Cell) -> float | None:
    """The cell's x on the curve (N, or the offered λ)."""
    return num(curve.x[curve.cells.index(cell.id)]) if cell.id in curve.cells else None


def load_words(curve: Curve, value: float | str) -> str:
    """"N = 20" on a closed curve, "λ = 100/s" on an open one: a curve's x is the analysis's (Curve.x_name), the
    users N when closed and the offered rate λ when open. The one way a finding or the headline names a load;
    `value` may be a list already written ("20 and 40")."""
    listed = f"{value:g}" if isinstance(value, (int, float)) else value
    return f"λ = {listed}/s" if curve.workload == "open" else f"{curve.x_name or 'N'} = {listed}"


def response_law_words(x_per_s: float, think_ms: float | None) -> str:
    """R past saturation by the closed law N = X·(R+Z): "R = N/X − Z = N/40 s − 1 s". Z is the curve's (None when
    think time does not apply or is unknown: then the law is given without its figure, never as if Z were 0)."""
    law = f"R = N/X − Z = N/{x_per_s:.3g} s"
    if think_ms is None:
        return f"{law} − Z (Z not known)"
    return f"{law} (Z = 0)" if think_ms == 0 else f"{law} − {seconds(think_ms)}"


def group_words(curve: Curve) -> str:
    """"with server.tomcat.threads.max = 10": the curve named by its axes ("" when it has none fixed)."""
    return f"with {curve.label}" if curve.fixed else ""


def cells_words(cells: list[Cell], curve: Curve) -> str:
    """The cells of one curve by their load ("N = 20 and 100", "λ = 60 and 100/s"), then the curve's name."""
    xs = [f"{load(curve, c):g}" for c in cells]
    listed = xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
    head = group_words(curve)
    return load_words(curve, listed) + (f" {head}" if head else "")


def cell_words(cell: Cell) -> str:
    """One cell by its axis values (its id when it has none)."""
    axes = cell.axes
    return "cell " + (", ".join(f"{k} = {v}" for k, v in axes.items()) if axes else str(cell.id))


def span(values: list[float], fmt) -> str:
    """"a–b" of the values as fmt writes them, one figure when they read the same."""
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def rate(x: float | None) -> str:
    return "no figure" if x is None else f"{x:.3g}/s" if x < 100 else f"{x:.0f}/s"


def ms(x: float | None) -> str:
    return "no figure" if x is None else f"{x:.3g} ms" if x < 100 else f"{x:.0f} ms"


def seconds(x_ms: float) -> str:
    """A duration given in ms, in seconds: "1 s", "0.25 s"."""
    return f"{x_ms / 1000:.3g} s"


def pct(x: float | None) -> str:
    return "no figure" if x is None else f"{100 * x:.2g}%" if abs(x) < 0.1 else f"{100 * x:.0f}%"


def fields(pairs: dict) -> tuple:
    return tuple((k, num(v) if not isinstance(v, str) else v) for k, v in pairs.items())
