"""The latency knee of a curve (where R leaves its bound max(D, N·D_max − Z)), its reach against N*, and how X and the
tail scale past it."""

from __future__ import annotations

import math

from littlegrid.analysis.modelling import curves as curve_rules
from littlegrid.findings.base import (Figure, Finding, curves, fields, group_words, load, load_words, ms, num, overall,
                                      rate, users)
from littlegrid.findings.capacity import (CONTENDED, KNEE_EFFICIENCY, LATENCY_MARGIN, LEVEL_GROWTH, LOAD_STEP,
                                          TAIL_DROP, Plateau, contention_free, from_grid)
from littlegrid.summary.model import Bounds, Cell, Curve, Summary, Tail


def n_star_reach(bound: Bounds, curve: Curve, members: list[Cell], plateaus: list[Plateau]) -> str | None:
    """How far an estimated N* can be trusted. "floor": the curve never levelled off, so 1/max X over-states
    D_max and N* = (D+Z)/D_max is only a lower bound of the knee (no cell is known to be past it). "ceiling":
    the curve is saturated from its lightest cell on, so D = R there holds queueing and N* is only an upper
    bound (the knee lies at or below it). None: grid bounds, or a D measured below the knee."""
    basis = bound.basis
    if basis.startswith("grid"):
        return None
    plateau = next((p for p in plateaus if p.curve.key == curve.key), None)
    if plateau is None:
        return "floor"
    if plateau.cells and plateau.cells[0].id == members[0].id and basis.startswith("estimated: D = R at the lightest"):
        return "ceiling"
    return None


def knees(summary: Summary, plateaus: list[Plateau]) -> list[Finding]:
    """Per curve with bounds: where R leaves max(D, N·D_max − Z) by more than LATENCY_MARGIN, beside N*, and
    whether the tail grows heavier past it."""
    out = []
    for curve, members in curves(summary):
        group, bound = curve.fixed, curve.models.bounds
        if bound is None or len(members) < 2 or num(bound.n_star) is None:
            continue
        reach = n_star_reach(bound, curve, members, plateaus)
        points = {p.load: p.r_lower_ms for p in bound.points}
        ratios = [(c, overall(c, "mean_ms"), num(points.get(load(curve, c)))) for c in members]
        ratios = [(c, r, lo) for c, r, lo in ratios if r is not None and lo]
        if len(ratios) < 2:
            continue
        n_star = bound.n_star
        leaving = next(((c, r, lo) for c, r, lo in ratios if r > (1 + LATENCY_MARGIN) * lo), None)
        offset = curve.models.overhead
        if leaving and offset is not None and offset.trend in OFFSET_WORDS:  # a knee needs the gap to rise
            out.append(_offset(curve, members, ratios, offset))
            continue
        unshown = leaving is not None and offset is not None and offset.trend == "not shown"
        worst = max(ratios, key=lambda t: t[1] / t[2])
        head = group_words(curve)
        at = f" {head}" if head else ""
        below = not leaving and worst[1] < worst[2]
        if leaving:
            c, r, lo = leaving
            statement = (f"Response time leaves its lower bound{at} at N = {users(c):g}: R = {ms(r)} against "
                         f"max(D, N·D_max − Z) = {ms(lo)} (+{r / lo - 1:.0%}, margin {LATENCY_MARGIN:.0%})"
                         + (f", though the gap R − max(D, N·D_max − Z) is not shown to rise with N: "
                            f"{_pairs_words(offset)}" if unshown else "")
                         + f"; the bounds' knee is N* = (D+Z)/D_max = {n_star:.3g}.")
        elif below:  # R under its "lower" bound everywhere: the bound, not the system, is off
            statement = (f"Response time stays below its lower bound max(D, N·D_max − Z) at every N measured{at} "
                         f"(N = {users(members[0]):g}–{users(members[-1]):g}; {worst[1] / worst[2] - 1:+.0%} at "
                         f"N = {users(worst[0]):g}, the closest): R cannot fall below a true lower bound, so D or "
                         f"D_max is over-stated; N* = (D+Z)/D_max = {n_star:.3g}.")
        else:
            statement = (f"Response time stays within {LATENCY_MARGIN:.0%} of its lower bound max(D, N·D_max − Z) "
                         f"at every N measured{at} (N = {users(members[0]):g}–{users(members[-1]):g}; at most "
                         f"{worst[1] / worst[2] - 1:+.0%}, at N = {users(worst[0]):g}): queueing adds what the "
                         f"bounds predict and no more; N* = (D+Z)/D_max = {n_star:.3g}.")
        if reach == "floor":
            statement = statement[:-1] + (" at least: X never levelled off, so D_max = 1/max X is over-stated and "
                                          "no cell is known to be past the knee.")
        elif reach == "ceiling":
            statement = statement[:-1] + (f" at most: X is already level at the lightest cell, N = "
                                          f"{users(members[0]):g}, so D = R there holds queueing and the knee lies "
                                          f"at or below it.")
        elif users(members[0]) > 1.05 * n_star and not below:
            statement += (f" Every N measured is past N*, so R follows the queue's line N·D_max − Z from the "
                          f"lightest cell on and the knee itself lies below N = {users(members[0]):g}.")
        tail = None if reach == "floor" else _tail_words(members, n_star)
        evidence = tuple(Figure("R", r, "ms", c.id) for c, r, _ in ratios) + \
            tuple(Figure("R lower bound", lo, "ms", c.id) for c, _, lo in ratios)
        basis = bound.basis
        standing = "holds" if basis.startswith("grid") and not unshown else "suggests"
        why = (f"bounds from {basis}" if basis.startswith("grid")
               else f"bounds {basis}: D and D_max are estimates from the same cells")
        if unshown:
            why += ("; R − max(D, N·D_max − Z) is not shown to rise (its pairs of cells differ both ways, or none "
                    "beyond noise)")
        out.append(Finding("knee", statement + (" " + tail[0] if tail else ""), standing, why,
                           evidence + (tail[1] if tail else ()),
                           fields({"n_star": n_star, "users": users(leaving[0]) if leaving else None,
                                   "margin": LATENCY_MARGIN}),
                           tuple(group.items()), tuple(c.id for c in members)))
    return out


# What a gap R − bound shown not to rise with the load is, by its trend (analysis.modelling.models.gap_trend). A gap whose
# trend is not shown either way leaves R's departure from its bound to the knee finding, with that caveat.
OFFSET_WORDS = {
    "constant": "a constant per-request overhead (network, generator, container), not a queue that grows with the load",
    "falls": "the lightest cells are the slowest (a warm-up such as JIT compilation, or a cold cache), not a queue "
             "that grows with the load",
}


def _pairs_words(offset) -> str:
    """"of its 10 pairs of cells, 4 fall and none rises beyond both three standard errors of their difference and
    ±0.8 ms" (the margin: a difference 'constant' would allow is no trend either)."""
    def count(k: int, verb: str) -> str:
        return f"{'none' if not k else k} {verb}{'s' if k <= 1 else ''}"

    return (f"of its {offset.pairs} pair{'s' if offset.pairs != 1 else ''} of cells, "
            f"{count(offset.pairs_falling, 'fall')} and {count(offset.pairs_rising, 'rise')} beyond both three "
            f"standard errors of their difference and ±{ms(offset.tolerance_ms)}")


def _offset(curve: Curve, members: list[Cell], ratios, offset) -> Finding:
    """R above its lower bound at every N by a gap shown not to rise with N, worded by its trend: constant within the
    stated margin (a per-request cost outside the server's service demand, not queueing), or falling (the lightest
    cells slowest). A knee needs the gap to rise."""
    head = group_words(curve)
    (first, r0, lo0), (last, r1, lo1) = ratios[0], ratios[-1]  # the lightest and heaviest cells with a bound
    if offset.trend == "constant":
        shape = (f"each request spends ≈ {ms(offset.mean_ms)} beyond its lower bound max(D, N·D_max − Z) at every N "
                 f"measured ({load_words(curve, load(curve, first))}–{load(curve, last):g}), every cell's within "
                 f"±{ms(offset.tolerance_ms)} of that with its 95% interval (the margin 'constant' is held to, a "
                 f"quarter of the gap; the farthest reaches {ms(offset.deviation_ms)})")
    else:
        shape = (f"R − max(D, N·D_max − Z) falls as the load grows, from {ms(r0 - lo0)} at "
                 f"{load_words(curve, load(curve, first))} to {ms(r1 - lo1)} at {load_words(curve, load(curve, last))}"
                 f" ({_pairs_words(offset)})")
    statement = f"No knee{(' ' + head) if head else ''}: {shape}: {OFFSET_WORDS[offset.trend]}."
    evidence = tuple(Figure("R − lower bound", r - lo, "ms", c.id) for c, r, lo in ratios)
    return Finding("overhead", statement, "holds",
                   f"constant when every cell's R − max(D, N·D_max − Z), with its 95% interval from its standard "
                   f"error, lies within ±{ms(offset.tolerance_ms)} (a quarter of the mean gap) of the mean; falling "
                   f"when some pairs of cells fall beyond three standard errors of their difference and that margin, "
                   f"and none rises so",
                   evidence,
                   fields({"overhead_ms": offset.mean_ms, "spread_ms": offset.spread_ms,
                           "margin_ms": offset.tolerance_ms, "deviation_ms": offset.deviation_ms,
                           "pairs": offset.pairs, "pairs_rising": offset.pairs_rising,
                           "pairs_falling": offset.pairs_falling, "users": None}),
                   tuple(curve.fixed.items()), tuple(c.id for c in members), offset.trend)


def _apart(a: Tail, b: Tail) -> bool:
    """Two Hill estimates differ by more than 3 standard errors (the estimator's is about α/√k), so a change
    is not the noise of k extreme samples; without k the change is taken at face value."""
    ka, kb = num(a.k), num(b.k)
    if not ka or not kb:
        return True
    se = math.hypot(a.hill_alpha / math.sqrt(ka), b.hill_alpha / math.sqrt(kb))
    return abs(a.hill_alpha - b.hill_alpha) > 3 * se


def _tail_words(members: list[Cell], n_star: float):
    """A sentence on the tail past the knee, from the lightest cell to those beyond N*: "heavier" when Hill α at
    the heaviest load falls below TAIL_DROP of the lightest's by more than its noise (_apart); a tail verdict
    heavier than exponential without that fall is "mixed". Both are stated with their figures."""
    tails = [(c, c.overall.tail) for c in members if c.overall is not None]
    tails = [(c, t) for c, t in tails if num(t.hill_alpha) is not None]
    beyond = [(c, t) for c, t in tails if users(c) > 1.05 * n_star]
    if len(tails) < 2 or not beyond or tails[0] in beyond:
        return None
    c0, t0 = tails[0]
    alphas = ", ".join(f"{t.hill_alpha:.3g} at N = {users(c):g}" for c, t in [tails[0], *beyond])
    heavy = [c for c, t in beyond if t.verdict.startswith("heavier")]
    _, th = beyond[-1]  # the heaviest load: where the trend ends
    falling = th.hill_alpha < TAIL_DROP * t0.hill_alpha and _apart(th, t0)
    rising = th.hill_alpha > t0.hill_alpha / TAIL_DROP and _apart(th, t0)
    figures = tuple(Figure("Hill alpha", t.hill_alpha, "", c.id) for c, t in [tails[0], *beyond])
    heavy_words = f"the tail verdict is heavier than exponential at N = {', '.join(f'{users(c):g}' for c in heavy)}"
    if falling:
        return (f"Past the knee the tail grows heavier: Hill α {alphas}"
                + (f"; {heavy_words}" if heavy else "") + ".", figures)
    if heavy:
        return (f"Past the knee the tail is mixed: {heavy_words} (a few outliers), while Hill α {alphas} says "
                + ("the bulk of the tail got lighter." if rising else "the bulk of the tail did not get heavier "
                   "beyond its noise."), figures)
    return (f"Past the knee the tail does not grow heavier: Hill α {alphas}.", figures)


def scaling(summary: Summary, saturated: list[str]) -> list[Finding]:
    """A curve that did not saturate: X kept growing with its load (so no saturation is claimed for it).
    saturated: the keys of the curves that did."""
    out = []
    for curve, members in curves(summary):
        group, bound = curve.fixed, curve.models.bounds
        if curve.key in saturated or len(members) < 2:
            continue
        last = members[-1]
        line = contention_free(bound, last)
        x = overall(last, "throughput_per_s")
        if line is None or x is None:
            continue
        head = group_words(curve)
        if curve.workload == curve_rules.OPEN:
            if x < KNEE_EFFICIENCY * line:
                continue  # λ not served: the plateau or the validity findings say why
            words = (f"No saturation{(' ' + head) if head else ''}: X follows the offered rate up to "
                     f"{load_words(curve, line)}, where X = {rate(x)} ({x / line:.0%} of λ)"
                     + (f", below the capacity 1/D_max = {rate(bound.capacity_per_s)}" if bound is not None and
                        from_grid(bound) else "") + ".")
        elif x >= KNEE_EFFICIENCY * line:
            words = (f"No saturation{(' ' + head) if head else ''}: X grows with N up to N = {users(last):g}, where "
                     f"X = {rate(x)} is {x / line:.0%} of the contention-free N/(D+Z) = {rate(line)}.")
        else:  # growing, but queueing has begun: not a claim of "no saturation"
            words = (f"X still grows with N{(' ' + head) if head else ''} up to N = {users(last):g}, but "
                     f"sub-linearly: X = {rate(x)} is {x / line:.0%} of the contention-free N/(D+Z) = {rate(line)}, "
                     f"so queueing has begun; no level is seen yet.")
        out.append(Finding("scaling", words, "holds",
                           f"no load step of {LOAD_STEP:g}× left X within {LEVEL_GROWTH:+.0%}, and X is at least "
                           f"{CONTENDED:.0%} of N/(D+Z)",
                           tuple(Figure("X", overall(c, "throughput_per_s"), "/s", c.id) for c in members),
                           fields({"users": users(last), "throughput_per_s": x, "line_per_s": line}),
                           tuple(group.items()), tuple(c.id for c in members)))
    return out
