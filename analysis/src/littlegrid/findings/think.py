"""Think time: what the timer delivered (mean and CV against what was asked) and what Z is worth in SLO capacity."""

from __future__ import annotations

import math

from littlegrid.analysis.modelling import mmcn
from littlegrid.findings.base import Figure, Finding, curves, fields, ms, num, overall, users
from littlegrid.summary.model import Summary

# The CV each timer should give: JMeter's Poisson Random Timer (offset + Poisson(λ) ms) has sd √λ.
EXPONENTIAL = ("exponential", "exp")
CV_SLACK = 0.25  # a realised CV within this of the expected one is what the timer promises
MODEL_EFFECT = 0.10  # R this far below M/M/c//N's is the regular pauses' doing; closer, the shape changes little
MODEL_USERS = 2000  # M/M/c//N's chain has N+1 states: beyond this the comparison is not worth its cost
NEARLY_CONSTANT = 0.25  # a CV below this: pauses within about ±50% of their mean in 95% of cycles


def _expected_cv(dist: str | None, think_ms: float, offset_ms: float) -> tuple[float | None, str]:
    if dist == "poisson":
        lam = think_ms
        return (math.sqrt(lam) / (lam + offset_ms) if lam + offset_ms > 0 else None,
                f"JMeter's Poisson Random Timer (λ = {lam:g} ms: a Poisson count of ms, sd √λ = {ms(math.sqrt(lam))})")
    if dist in EXPONENTIAL:
        return 1.0, "an exponential think time (CV 1, memoryless)"
    if dist in ("constant", "const", None):
        return 0.0, "a constant think time"
    return None, f"a {dist} think time"


def timer(summary: Summary) -> list[Finding]:
    """One finding per distinct (distribution, intended Z): the realised mean and CV pooled over its cells."""
    groups: dict = {}
    for c in summary.cells:
        intended, t = c.intended, c.think_time
        if num(intended.think_ms) is None or intended.think_ms <= 0 or t is None or not t.gaps:
            continue
        groups.setdefault((intended.think_dist, intended.think_ms), []).append(c)
    out = []
    for (dist, z), cells in groups.items():
        offset = num(cells[0].intended.think_offset_ms) or 0.0
        asked = z + (offset if dist == "poisson" else 0.0)
        gaps = sum(c.think_time.gaps for c in cells)
        mean = sum(c.think_time.mean_ms * c.think_time.gaps for c in cells) / gaps
        cvs = [num(c.think_time.cv) for c in cells if num(c.think_time.cv) is not None]
        expected, words = _expected_cv(dist, z, offset)
        cv_lo, cv_hi = (min(cvs), max(cvs)) if cvs else (None, None)
        cv_words = "" if cv_lo is None else (f"CV {cv_lo:.2g}" if f"{cv_lo:.2g}" == f"{cv_hi:.2g}"
                                              else f"CV {cv_lo:.2g}–{cv_hi:.2g}")
        ids = tuple(c.id for c in cells)
        statement = (f"The timer asked for {words} with mean {ms(asked)}; in the {len(cells)} cells with that "
                     f"timer the threads thought {ms(mean)} on average ({mean / asked - 1:+.1%}), {cv_words}")
        if expected is not None:
            statement += f" (expected {expected:.2g})"
        statement += "."
        if dist == "poisson" and cv_hi is not None and cv_hi < NEARLY_CONSTANT:
            statement += " These pauses are nearly constant, not the exponential think time of an M/M/c model."
        elif dist == "poisson" and cv_hi is not None and cv_hi < 1 - CV_SLACK:
            statement += (" These pauses vary less than the exponential think time of an M/M/c model (CV 1); "
                          "a larger λ makes them nearly constant.")
        off = expected is not None and cv_lo is not None and (abs(cv_lo - expected) > CV_SLACK
                                                              or abs(cv_hi - expected) > CV_SLACK)
        standing = "holds"
        why = f"{gaps} realised gaps over {len(cells)} cells"
        if off:
            statement += f" The realised CV is off the timer's by more than {CV_SLACK:g}."
        shape = _shape(dist) if expected is not None and cv_lo is not None and not off else None
        statement += _effect(summary, ids, cv_hi) if dist != "constant" else ""
        out.append(Finding("think_time", statement, standing, why,
                           tuple(Figure("realised think time", c.think_time.mean_ms, "ms", c.id)
                                 for c in cells),
                           fields({"think_ms": asked, "realised_think_ms": mean, "cv_min": cv_lo, "cv_max": cv_hi,
                                   "expected_cv": expected}),
                           (("think_ms", z),) if all(c.axes.get("think_ms") == z for c in cells) else (),
                           ids, shape))
    return out


def _shape(dist: str | None) -> str:
    """The realised shape's name (the expect word): the timer's own, when its CV is the one the timer promises."""
    return "exponential" if dist in EXPONENTIAL else "constant" if dist in ("constant", "const", None) else dist


def _model_at_knee(summary: Summary, ids: tuple) -> list[tuple[float, float, float]]:
    """(N, measured R, M/M/c//N's R) at the cell of each curve nearest its knee N*, where the think time's
    variability matters most (far below it nothing queues, far past it R = N/X − Z whatever the shape). The model
    is the analysis's (analysis/modelling/mmcn.py), with the grid's c and S and the asked Z; the analysis itself predicts only
    for exponential timers, so the comparison with another timer is made here."""
    out = []
    for curve, members in curves(summary):
        b = curve.models.bounds
        mine = [c for c in members if c.id in ids and overall(c, "mean_ms") is not None and users(c)]
        if not mine or b is None or not b.basis.startswith("grid") or num(b.n_star) is None or not b.d_max_ms:
            continue
        servers, s, z = round(b.d_ms / b.d_max_ms), b.d_ms, num(mine[0].intended.think_ms) or 0.0
        c = min(mine, key=lambda c: abs(users(c) - b.n_star))
        n = int(users(c))
        if servers < 1 or n > MODEL_USERS:
            continue
        out.append((n, overall(c, "mean_ms"), mmcn.response_ms(n, servers, s, z)))
    return out


def _effect(summary: Summary, ids: tuple, cv: float | None) -> str:
    """What the timer's shape does to response times: the M/M/c//N model assumes exponential think times (CV 1);
    pauses that vary less bring requests more evenly, so past the knee fewer arrive together and R is below the
    model's (a constant Z is the best case). Said at the cell with the timer that queued most, from the curve's
    M/M/c//N prediction."""
    rows = [(m.users, m.measured_r_ms, m.predicted_r_ms) for k in summary.curves for m in k.models.mmcn
            if m.cell in ids and num(m.predicted_r_ms)]
    if not rows:
        rows = _model_at_knee(summary, ids)
    if not rows or cv is None:
        return ""
    n, measured, predicted = max(rows, key=lambda row: abs(row[1] / row[2] - 1))
    diff = measured / predicted - 1
    return (f" Against M/M/c//N (exponential think and service times), at N = {n:g} R is {ms(measured)} where the "
            f"model predicts {ms(predicted)} ({diff:+.0%})"
            + (": pauses this regular bring requests more evenly than the model's, so less queueing near the knee, "
               "and lower percentiles there." if diff <= -MODEL_EFFECT and cv < 1 - CV_SLACK
               else f": within {MODEL_EFFECT:.0%} of it, the timer's shape changes R little at these loads."
               if abs(diff) < MODEL_EFFECT else "."))


def capacity_per_think(summary: Summary) -> list[Finding]:
    """For each latency criterion with a capacity at two or more think times (closed curves that differ in Z and
    nothing else): how many users each ms of Z buys."""
    by_criterion: dict = {}
    cells_of: dict = {}
    for curve in summary.curves:
        if curve.workload != "closed" or num(curve.think_ms) is None:
            continue
        rest = tuple((k, v) for k, v in curve.fixed.items() if k != "think_ms")
        for r in curve.models.slo_capacity:
            by_criterion.setdefault((r.criterion, rest), []).append((curve.think_ms, r))
            cells_of[(r.criterion, rest)] = cells_of.get((r.criterion, rest), ()) + tuple(curve.cells)
    out = []
    for (criterion, group), entries in by_criterion.items():
        entries = sorted(entries, key=lambda e: e[0])
        if len({z for z, _ in entries}) < 2:
            continue
        known = [(z, r) for z, r in entries if num(r.max_load) is not None]
        parts = [f"{r.max_load:g} users at Z = {ms(z)} ({r.how})" if num(r.max_load)
                 is not None else f"none at Z = {ms(z)}" for z, r in entries]
        statement = f"Capacity under {criterion} grows with think time: " + ", ".join(parts) + "."
        figures = {}
        capped = any((r.note or "").startswith("every tested N") for _, r in known)
        if len(known) >= 2 and known[-1][0] > known[0][0]:
            (z0, r0), (z1, r1) = known[0], known[-1]
            slope = (r1.max_load - r0.max_load) / (z1 - z0)
            figures["users_per_think_ms"] = slope
            statement = statement[:-1] + (f": {slope:.2g} users per ms of think time between Z = "
                                          f"{ms(z0)} and {ms(z1)}.")
        if slope_down := (figures.get("users_per_think_ms") or 0) < 0:
            statement = statement.replace("grows with", "changes with")
        standing = "suggests" if capped or slope_down else "holds"
        why = ("a capacity is the largest N tested (it may be higher)" if capped
               else "from the SLO capacity table (exact percentiles per cell)")
        out.append(Finding("think_time", statement, standing, why,
                           tuple(Figure(f"capacity under {criterion}", num(r.max_load), "users",
                                        f"think_ms={z:g}") for z, r in entries),
                           fields(figures), group, cells_of[(criterion, group)], "capacity"))
    return out
