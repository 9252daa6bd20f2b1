"""Cells not to trust and why (failed law checks, a window too short, a warm-up that never settled, a cell stopped at
max_s before its precision, errors), with the cell length that would do."""

from __future__ import annotations

import math

from littlegrid.analysis.queueing.laws import GENERATOR_OVERHEAD_MS
from littlegrid.findings.base import (Figure, Finding, cell_words, cells_words, check, curves, failed, fields, num,
                                      overall, overhead_explains, pct, realised_think_ms, span, think_excess_ms, users,
                                      where_of)
from littlegrid.summary.model import Cell, Summary

ERROR_RATE = 0.01  # above this share of failed requests, a cell's figures describe failures too
# The checks whose failure says the cell's figures do not describe the workload asked for, and in what words.
CHECK_WORDS = {
    "closed_law": "the closed law N = X·(R+Z) fails",
    "workload": "the generator did not deliver the load asked for",
    "think_time": "the think time realised is not the one asked for",
    "generator_sizing": "the open plan's thread pool is nearly exhausted (coordinated omission)",
    "open_rate": "the arrival rate asked for was not achieved",
    "users": "N is miscounted",
    "server_little": "the server's own metrics disagree with Little's law",
    "steady": ("the window was not steady: its throughput or its response time drifted (a warm-up left in, a "
               "queue growing, or a drift)"),
}


def needed_window_s(cycle_ms: float, n: float, tolerance: float) -> float:
    """Steady window T at which three closed-law errors 2·(R+Z)/(T·√N) fit the tolerance (the check then need not
    widen it): T = 6·(R+Z)/(tolerance·√N)."""
    return 6.0 * cycle_ms / 1000.0 / (tolerance * math.sqrt(n))


CARE_FACTOR = 2.0  # a check failed by at most this multiple of its tolerance: read with care, not "do not trust"
READ_WITH_CARE, DO_NOT_TRUST = "Read with care", "Do not trust"


def _cells_text(summary: Summary, cells: list[Cell]) -> str:
    """The cells of a finding by curve: "N = 1, 2 and 4 with K = 0; N = 1 with K = 2"; a cell that is no point of
    a curve (failed, a spike) by its axes."""
    ids = {c.id for c in cells}
    parts, placed = [], set()
    for curve, members in curves(summary):
        mine = [c for c in members if c.id in ids]
        if mine:
            parts.append(cells_words(mine, curve))
            placed |= {c.id for c in mine}
    parts += [cell_words(c) for c in cells if c.id not in placed]
    return "; ".join(parts)


# The checks an open cell fails as a consequence when its offered rate exceeds what a saturated server can serve:
# the rate is not achieved and the open plan's threads all wait. The overload finding says so instead.
OVERLOAD_CONSEQUENCES = ("open_rate", "generator_sizing")


def _server_limited(summary: Summary) -> set[str]:
    """Open cells whose shortfall the analysis puts on the server: a resource was full (Curve.overload)."""
    return {o.cell for k in summary.curves for o in k.overload if o.resource is not None}


def _overloaded(summary: Summary) -> set[str]:
    """Open cells past capacity whose queue grew for the whole cell (Curve.overload, overloaded): the steady check
    they fail on R says what the overload finding already says, that they have no steady state."""
    return {o.cell for k in summary.curves for o in k.overload if o.overloaded}


def _reasons(c: Cell, tol: float, server_limited: bool = False,
             overloaded: bool = False) -> list[tuple[str, str, dict]]:
    """(reason key, grade, figures) for each reason not to take cell c at face value."""
    out = []
    # an outage's figures, or that it left none: findings/outage.py says it
    if c.status not in ("complete", "outage") or (c.overall is None and c.outage is None):
        out.append(("no_figures", DO_NOT_TRUST, {"text": f"{c.status}: {c.reason or 'no samples'}"}))
    overhead = [name for name in ("workload", "think_time")
                if (k := failed(c, name)) is not None and overhead_explains(c, k)]
    if overhead:
        k = check(c, "workload")
        out.append(("overhead", READ_WITH_CARE,
                    {"excess_ms": think_excess_ms(c), "cycle_ms": (overall(c, "mean_ms") or 0.0)
                     + (realised_think_ms(c) or 0.0),
                     "shortfall": 1 - k.value / k.expected if k and "workload" in overhead else None}))
    for name in CHECK_WORDS:
        k = failed(c, name)
        if k is None or name in overhead or (server_limited and name in OVERLOAD_CONSEQUENCES) or \
                (overloaded and name == "steady"):
            continue
        rel, ktol = num(k.rel_error), num(k.tolerance)
        grade = READ_WITH_CARE if rel is not None and ktol and rel <= CARE_FACTOR * ktol else DO_NOT_TRUST
        out.append((name, grade, {"rel": rel, "tol": ktol, "text": k.explanation}))
    rate_ = overall(c, "error_rate")
    if rate_ is not None and rate_ > ERROR_RATE:
        classes = c.overall.errors_by_class
        listed = ", ".join(f"{k} {v}" for k, v in list(classes.items())[:3])
        out.append(("errors", DO_NOT_TRUST, {"rate": rate_, "text": f"{pct(rate_)} of its requests failed ({listed})"}))
    w = c.window
    if w is not None and w.warmup_settled is False and w.warmup_by == "floor" and not overloaded:
        # MSER-5 found no steady state: the floor alone was trimmed (an overload's queue growing says it itself)
        out.append(("unsettled", READ_WITH_CARE, {"floor": num(w.warmup_floor_s) or 0.0}))
    stop = c.stop
    if stop is not None and stop.reason == "max_s":
        out.append(("max_s", READ_WITH_CARE, {"at": stop.at_s, "asked": stop.precision_asked, "x": stop.x_rel,
                                              "r": stop.r_rel}))
    window = num(w.length_s) if w is not None else None
    law = check(c, "closed_law")
    r, z, n = overall(c, "mean_ms"), realised_think_ms(c) or 0.0, users(c)
    if window and law and num(law.tolerance) and r is not None and n and law.tolerance > tol + 1e-12:
        trim = (num(w.warmup_s) or 0) + (num(w.cooldown_s) or 0)
        p = c.precision
        out.append(("window", READ_WITH_CARE, {"window": window, "widened": law.tolerance,
                                               "need": needed_window_s(r + z, n, tol), "trim": trim,
                                               "precise": stop is not None and stop.rule == "precise",
                                               "x_rel": p.throughput_rel if p is not None else None}))
    return out


def validity(summary: Summary, grid: bool = True) -> list[Finding]:
    """One finding per reason and grade, listing the cells it concerns: a statement, then the figures per cell.
    grid: whether the cells come from a grid (a bare JTL gets no advice on its window length)."""
    tol = summary.tolerances.get("closed_law") or 0.02
    groups: dict = {}
    limited, overloaded = _server_limited(summary), _overloaded(summary)
    for c in summary.cells:
        for key, grade, fig in _reasons(c, tol, c.id in limited, c.id in overloaded):
            if key == "window" and not grid:  # a JTL from anywhere: no closed-law tolerance it never asked for
                continue
            groups.setdefault((grade, key), []).append((c, fig))
    out = []
    for (grade, key), members in sorted(groups.items(), key=lambda g: (g[0][0] != DO_NOT_TRUST, g[0][1])):
        cells = [c for c, _ in members]
        on = _cells_text(summary, cells) if grid else "the test"
        figures, evidence, advice = {}, [], None
        if key == "overhead":
            excess = [f["excess_ms"] for _, f in members]
            share = [f["excess_ms"] / f["cycle_ms"] for _, f in members if f["cycle_ms"]]
            short = [f["shortfall"] for _, f in members if f["shortfall"] is not None]
            statement = (f"{grade} {on}: JMeter's own work between samples, {span(excess, lambda v: f'{v:.2g} ms')} "
                         f"per cycle, is {span(share, pct)} of these short cycles"
                         + (f", so the load put on falls {span(short, pct)} short of N" if short else "")
                         + ". The figures hold for that cycle; lengthen R+Z to make the overhead negligible.")
            why = (f"the think time realised exceeds the intended by at most {GENERATOR_OVERHEAD_MS:g} ms, the size of "
                   f"JMeter's per-cycle work, and that excess accounts for the workload shortfall")
            evidence = [Figure("think time excess", f["excess_ms"], "ms", c.id) for c, f in members]
            evidence += [Figure("workload shortfall", f["shortfall"], "", c.id) for c, f in members
                         if f["shortfall"] is not None]
            figures = {"overhead_ms": max(excess)}
        elif key == "window":
            need = max(f["need"] for _, f in members)
            trim = max(f["trim"] for _, f in members)
            windows = [f["window"] for _, f in members]
            statement = (f"{grade} {on}: the {span(windows, lambda v: f'{v:.3g} s')} window is too short for the "
                         f"{pct(tol)} closed-law tolerance (the check widened it to "
                         f"{span([f['widened'] for _, f in members], pct)}).")
            why = "the window's own error exceeds the tolerance, so the check widened it"
            known = [f["x_rel"] for _, f in members if f["x_rel"] is not None]
            if known:  # X's own interval, measured: the law's error is its edges', which a precise X does not bound
                statement += (f" X itself is known to ±{span(known, pct)} (batch means); the closed law's error is "
                              f"the requests in flight at the window's edges, about 2·(R+Z)/(T·√N), which only a "
                              f"longer window makes small.")
            figures = {"needed_window_s": need}
            if any(need > w for w in windows):
                figures["needed_duration_s"] = math.ceil(need + trim)
                if all(f["precise"] for _, f in members):  # the cells stopped when precise: ask a longer least window
                    advice = (f"Ask min_s = {math.ceil(need):g} in [cell] (a steady window of {need:.3g} s = "
                              f"6·(R+Z)/({pct(tol)}·√N)) so the window's own error fits the closed-law tolerance.")
                else:
                    advice = (f"Run {on} for at least {figures['needed_duration_s']:g} s (a steady window of "
                              f"{need:.3g} s = 6·(R+Z)/({pct(tol)}·√N), plus {trim:g} s trimmed) so the window's "
                              f"own error fits the tolerance.")
            evidence = [Figure("steady window", f["window"], "s", c.id) for c, f in members]
            evidence += [Figure("X relative half-width", f["x_rel"], "", c.id) for c, f in members
                         if f["x_rel"] is not None]
        elif key == "unsettled":
            floors = [f["floor"] for _, f in members]
            statement = (f"{grade} {on}: the data never settled: MSER-5 found no steady state in the per-second "
                         f"completions and response times, so only the {span(floors, lambda v: f'{v:g} s')} "
                         f"warm-up floor was trimmed and the window may hold a warm-up or a drift.")
            why = ("the truncation that minimises MSER-5's statistic lay in the second half of the cell's seconds: a "
                   "trend, an overload, or a cell too short for its warm-up")
            evidence = [Figure("warm-up floor", f["floor"], "s", c.id) for c, f in members]
            advice = "Run the cell longer, or look at its time series for a drift."
        elif key == "max_s":
            stated = [f"{cell_words(c)}: " + ", ".join(f"{name} ±{pct(v)}" for name, v in (("X", f["x"]),
                      ("mean R", f["r"])) if v is not None) for c, f in members]
            asked = [f["asked"] for _, f in members if f["asked"] is not None]
            statement = (f"{grade} {on}: the cell reached max_s before the precision asked"
                         + (f" (±{span(asked, pct)})" if asked else "") + ": " + "; ".join(stated) + ".")
            why = "the runner stopped the cell at its max_s, not because its figures were precise"
            evidence = [Figure("X relative half-width", f["x"], "", c.id) for c, f in members if f["x"] is not None]
            evidence += [Figure("mean R relative half-width", f["r"], "", c.id) for c, f in members
                         if f["r"] is not None]
            advice = "Raise max_s, or ask a looser precision, for these cells."
        elif key in ("errors", "no_figures"):
            per = "; ".join(f"{cell_words(c)}: {f['text']}" for c, f in members) if len(members) > 1 \
                else members[0][1]["text"]
            # the lead is said only of several cells (one cell's own text says it): plural
            lead = "their requests failed and X and R count them" if key == "errors" else "they have no figures"
            statement = f"{grade} {on}: {lead} ({per})." if len(members) > 1 else \
                f"{grade} {on}: {per}" + (", and X and R count them." if key == "errors" else ".")
            why = "its figures include failures" if key == "errors" else "the cell has no steady-window figures"
            evidence = [Figure("error rate", f.get("rate"), "", c.id) for c, f in members]
        else:
            rels = [f["rel"] for _, f in members if f["rel"] is not None]
            statement = (f"{grade} {on}: {CHECK_WORDS[key]}"
                         + (f" (off by {span(rels, pct)}, tolerance {pct(members[0][1]['tol'])})" if rels else "")
                         + f". {members[0][1]['text']}")
            why = (f"the {key} check fails by at most {CARE_FACTOR:g}× its tolerance" if grade == READ_WITH_CARE
                   else f"the {key} check fails" + (f" by more than {CARE_FACTOR:g}× its tolerance" if rels else ""))
            evidence = [Figure(f"{key} relative error", f["rel"], "", c.id) for c, f in members]
        out.append(Finding("validity", statement, "holds", why, tuple(evidence),
                           fields(figures | {"grade": grade, "reason": key}),
                           where_of(cells), tuple(c.id for c in cells), recommendation=advice))
    return out
