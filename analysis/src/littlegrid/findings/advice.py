"""Recommendations: a concurrency limit, a thread-pool size from the p99/load-average trade-off, and the next cells."""

from __future__ import annotations

import math

from littlegrid.analysis.modelling.curves import OPEN
from littlegrid.analysis.modelling.models import POOL_FULL
from littlegrid.findings.base import (THROTTLE, TOMCAT_THREADS, Figure, Finding, curves, fields, group_words, knob, ms,
                                      num, overall, rate, users)
from littlegrid.findings.capacity import Plateau, served
from littlegrid.findings.knees import n_star_reach
from littlegrid.summary.model import Cell, Curve, Summary

SAME_X = 0.05     # a larger pool "adds throughput" only beyond this relative gain
WIDE_GAP = 1.5    # measured N further apart than this ratio leave a knee unpinned


def shown_limit(bottleneck: Finding | None) -> tuple[int, str] | None:
    """The limit the figures show, when they show one: a pool whose busy workers were measured at its size at the
    plateau (the thread_pool bottleneck that holds: c of c busy), or the laws' limit whose interval names a whole
    number of requests (the concurrency bottleneck's "about k", not an upper bound). (k, the words saying so), None
    otherwise. A pool of 6 full at the plateau is a limit of 6, whatever N* = 6.06 rounds up to."""
    if bottleneck is None or bottleneck.standing != "holds" and bottleneck.resource != "concurrency":
        return None
    figures = dict(bottleneck.figures)
    size, busy = num(figures.get("threads_max")), num(figures.get("busy_threads"))
    if bottleneck.resource == "thread_pool" and size and busy is not None and busy >= POOL_FULL * size:
        pool = figures.get("pool") or "the pool"
        return round(size), f"the size of {pool}, {busy:.3g} of {size:g} busy at the plateau"
    held = figures.get("held")
    if bottleneck.resource == "concurrency" and isinstance(held, str) and held.startswith("about ") \
            and held.removeprefix("about ").isdigit() and not figures.get("upper_bound"):
        k = int(held.removeprefix("about "))
        return k, f"the {k} requests the service holds at once by Little's law (L = X_max·D, its interval within ±0.5)"
    return None


def concurrency_limit(summary: Summary, p: Plateau, bottleneck: Finding | None = None) -> Finding | None:
    """The throttling experiment's rule: admit about N* (or the USL peak, when it is measured and lower) at once;
    more requests only queue, and a bounded queue in front turns the excess into fast refusals. When the figures
    show the limit itself (`shown_limit`: a pool full at its size, or the laws' whole number of requests held),
    that is the limit in N*'s place, N* beside it."""
    b = p.bound
    n_star = num(b.n_star) if b is not None else None
    fit = p.curve.models.usl if p.curve.models.usl is not None and p.curve.models.usl.ok else None
    peak = num(fit.n_peak) if fit is not None else None
    top = users(p.members[-1])
    if n_star is None and peak is None:
        return None
    use_peak = peak is not None and (n_star is None or peak < n_star) and peak <= top
    if not use_peak and n_star is None:  # a peak beyond the heaviest cell measured, and no bound: nothing to state
        return None
    # where N* would set it, the limit the figures show (a closed curve's: an open one's x is no concurrency)
    shown = shown_limit(bottleneck) if not use_peak and p.curve.workload != OPEN else None
    limit = shown[0] if shown is not None else peak if use_peak else n_star
    bounds_words = (f"N* = (D+Z)/D_max = ({ms(b.d_ms)} + {ms(p.members[0].intended.think_ms or 0)})"
                    f"/{ms(b.d_max_ms)} = {n_star:.3g}") if n_star is not None else None
    source = (f"{shown[1]} ({bounds_words} from the bounds)" if shown is not None
              else f"the USL peak N = {peak:.3g} (σ = {fit.sigma:.2g}, κ = {fit.kappa:.2g})" if use_peak
              else bounds_words)
    head = group_words(p.curve)
    rounding = "" if math.ceil(limit) == limit else ", rounded up so that no throughput is given away"
    if shown is None and not use_peak and n_star_reach(b, p.curve, p.members, [p]) == "ceiling":
        rounding += (f"; X is already level at the lightest cell, N = {users(p.members[0]):g}, so this is an upper "
                     f"bound: run lighter cells to place the limit")
    past = (f"past it X stays near {rate(served(p.cells[-1]))} and every further request only "
            f"adds to R (N = {users(p.cells[-1]):g} gave R = {ms(overall(p.cells[-1], 'mean_ms'))})")
    throttle = _throttle(summary, p)
    if throttle is None:
        statement = (f"Limit concurrency{(' ' + head) if head else ''} to about {math.ceil(limit):g} requests in "
                     f"service: that is {source}{rounding}; {past}.")
        recommendation = f"concurrency limit ≈ {math.ceil(limit):g}"
    elif throttle <= math.ceil(limit):  # the arm has the limit already: saying "limit it" would be advice it took
        statement = (f"Concurrency{(' ' + head) if head else ''} is already limited: its throttle admits "
                     f"{throttle:g} request{'s' if throttle != 1 else ''} in service"
                     f"{'' if THROTTLE in head else f' ({THROTTLE} = {throttle:g})'}, "
                     f"at or below the about {math.ceil(limit):g} given by {source}{rounding}; beyond it X stays near "
                     f"{rate(served(p.cells[-1]))} and further requests wait in the throttle's "
                     f"queue (N = {users(p.cells[-1]):g} gave R = {ms(overall(p.cells[-1], 'mean_ms'))}).")
        recommendation = f"concurrency limit ≈ {math.ceil(limit):g} (the throttle's {throttle:g} is within it)"
    else:
        statement = (f"Lower the throttle{(' ' + head) if head else ''} from {throttle:g} to about "
                     f"{math.ceil(limit):g} requests in service: that is {source}{rounding}; {past}.")
        recommendation = f"concurrency limit ≈ {math.ceil(limit):g} (the throttle admits {throttle:g})"
    basis = b.basis if b is not None else ""
    standing = ("holds" if (shown is not None and bottleneck.standing == "holds") or use_peak
                or basis.startswith("grid") else "suggests")
    return Finding("recommendation", statement, standing,
                   ("from what the figures show at the plateau" if shown is not None
                    else "from the saturated curve's bounds") + ("" if standing == "holds" else f" ({basis})"),
                   (Figure("N*", n_star, "users"), Figure("USL peak", peak, "users")),
                   fields({"limit": math.ceil(limit), "n_star": n_star, "usl_peak": peak, "throttle": throttle}),
                   tuple(p.group.items()), tuple(c.id for c in p.cells), recommendation=recommendation)


def _throttle(summary: Summary, p: Plateau) -> float | None:
    """K when every cell of the plateau ran behind a throttle admitting K at a time (> 0: 0 means none)."""
    ks = {knob(summary, c, THROTTLE) for c in p.cells}
    k = ks.pop() if len(ks) == 1 else None
    return k if k is not None and k > 0 else None


def _threads(c: Cell):
    """The cell's thread-pool axis value, as the grid wrote it."""
    return c.axes[TOMCAT_THREADS]


def pool_size(summary: Summary) -> list[Finding]:
    """When the grid varies threads.max: at each N, the smallest pool within SAME_X of the best throughput, and
    what the larger pools cost in p99 and load average."""
    cells = [c for c in summary.cells if c.overall is not None and TOMCAT_THREADS in c.axes]
    groups: dict = {}
    for c in cells:
        rest = tuple((k, v) for k, v in c.axes.items() if k != TOMCAT_THREADS)
        groups.setdefault(rest, []).append(c)
    out = []
    for rest, members in groups.items():
        if len({_threads(c) for c in members}) < 2:
            continue
        members.sort(key=lambda c: float(_threads(c)))
        best = max(overall(c, "throughput_per_s") for c in members)
        chosen = next(c for c in members if overall(c, "throughput_per_s") >= (1 - SAME_X) * best)
        larger = [c for c in members if float(_threads(c)) > float(_threads(chosen))]
        smaller = [c for c in members if float(_threads(c)) < float(_threads(chosen))]
        where = ", ".join(f"{k} = {v}" for k, v in rest) or "every cell"

        def load(c):
            return num(c.host.load1_mean) if c.host is not None else None

        def describe(c):
            text = (f"{_threads(c)} threads: X = {rate(overall(c, 'throughput_per_s'))}, "
                    f"p99 = {ms(overall(c, 'p99_ms'))}")
            return text + (f", load average {load(c):.2g}" if load(c) is not None else "")

        statement = f"Thread-pool size at {where}: " + "; ".join(describe(c) for c in members) + ". "
        # a point-estimate rule (no interval): the words say what was measured against the SAME_X margin, never
        # that more threads "add nothing" or "raise" p99, which one run's figures cannot show
        margin = f"{SAME_X:.0%}"
        if smaller:
            statement += (f"Fewer than {_threads(chosen)} threads gave more than {margin} less throughput, so take "
                          f"{_threads(chosen)}")
        else:
            statement += f"{_threads(chosen)} threads came within {margin} of the best throughput measured"
        if larger:
            worse = [c for c in larger if (overall(c, "p99_ms") or 0) > (overall(chosen, "p99_ms") or 0)]
            statement += (f"; more threads gained at most {margin} here"
                          + (" and measured a higher p99 (no interval judges it)" if worse else "") + ".")
        else:
            statement += "."
        out.append(Finding("recommendation", statement, "holds",
                           f"the smallest pool within {SAME_X:.0%} of the best X at the same load",
                           tuple(Figure("X", overall(c, "throughput_per_s"), "/s", c.id) for c in members)
                           + tuple(Figure("p99", overall(c, "p99_ms"), "ms", c.id) for c in members)
                           + tuple(Figure("load average", load(c), "", c.id) for c in members if load(c) is not None),
                           fields({"threads_max": float(_threads(chosen))}), rest,
                           tuple(c.id for c in members),
                           recommendation=f"{TOMCAT_THREADS} = {_threads(chosen)}"))
    return out


def _host_cap(proposal: list[float], curve: Curve, members: list[Cell], unit: str) -> tuple[list[float], str]:
    """The proposed loads the measured cores allow (the curve's host limit), and a sentence saying where they stop
    when those cores are the limit, quoting the curve's one CPU per request (the limit's cell's, whose cores named
    by its basis: the generator's are never called the server's)."""
    limit = curve.models.host_limit
    if limit is None or limit.max_load is None:
        return proposal, ""
    kept = [x for x in proposal if x <= limit.max_load]
    if len(kept) == len(proposal):
        return proposal, ""
    cost = next((c.cpu_per_request for c in members if c.id == limit.cell), None)
    whose = cost.words if cost is not None else f"{limit.cores:g} core{'s' if limit.cores != 1 else ''}"
    words = (f"; this host allows at most {unit} ≈ {limit.max_load:.3g}: each request costs {limit.demand_core_ms:.3g} "
             f"core-ms of {whose} at the heaviest cell (CPU {limit.cpu_util:.0%} busy there), so X ≤ "
             f"{rate(limit.max_per_s)}"
             + (" by the fit of busy cores against X over the curve" if limit.marginal_core_ms is not None else ""))
    return kept, words


def _round_rate(x: float, below: float | None = None) -> float:
    """A rate as a person would write it: to 5/s above 50/s, to 1/s above 5/s, else to 0.5/s; rounded down when it
    must stay below `below` (a rate meant to sit under the capacity)."""
    step = 5.0 if x > 50 else 1.0 if x > 5 else 0.5
    r = round(x / step) * step
    if below is not None and r >= below:
        r = math.floor(x / step) * step
    return max(step, r)


def _next_rates(curve: Curve, members: list[Cell]) -> Finding | None:
    """An open curve's next rates: just below its capacity when a cell went past it (to see the knee), towards it
    when none reached it. Spoken in rates, never in N."""
    b = curve.models.bounds
    if b is None:
        return None
    cap, rates = b.capacity_per_s, sorted(curve.x)
    over = [o for o in curve.overload if o.resource is not None]
    if not over and not b.basis.startswith("grid"):
        return None  # the capacity is only the highest X served: nothing to aim at
    targets = [(0.9 * cap, cap), (0.97 * cap, cap)] if over else [(0.9 * cap, cap), (1.1 * cap, None)]
    proposal = sorted({r for r in (_round_rate(t, below) for t, below in targets)
                       if all(abs(r - m) > 0.03 * m for m in rates)})
    proposal, host_words = _host_cap(proposal, curve, members, "λ")
    head = group_words(curve)
    if not proposal:
        if not host_words:
            return None
        statement = (f"No further rates worth running{(' ' + head) if head else ''} on this host: capacity ≈ "
                     f"{rate(cap)}{host_words}.")
        return Finding("recommendation", statement, "holds", "the host's CPU demand per request",
                       (Figure("capacity", cap, "/s"),), fields({"capacity_per_s": cap}), tuple(curve.fixed.items()),
                       tuple(curve.cells), recommendation="run the generator on other cores")
    listed = " and ".join(f"{r:g}" for r in proposal)
    why = ("to see the knee below it" if over else "to see where the queue starts to grow")
    statement = (f"Next rates worth running{(' ' + head) if head else ''}: capacity ≈ {rate(cap)} "
                 f"({'c/S from the grid' if b.basis.startswith('grid') else 'the highest X served'}); run {listed}/s "
                 f"{why}{host_words}.")
    return Finding("recommendation", statement, "holds", "measured rates against the curve's capacity 1/D_max",
                   (Figure("capacity", cap, "/s"),), fields({"capacity_per_s": cap}), tuple(curve.fixed.items()),
                   tuple(curve.cells), recommendation=f"run λ = {listed}/s")


def next_cells(summary: Summary, plateaus: list[Plateau]) -> list[Finding]:
    """Per curve: where the knee N* is not pinned by measured cells on both sides close to it, the N to run next
    (an open curve: the rates around its capacity), never beyond what the measuring host's CPU allows."""
    out = []
    for curve, members in curves(summary):
        if curve.workload == OPEN:
            found = _next_rates(curve, members)
            if found is not None:
                out.append(found)
            continue
        bound = curve.models.bounds
        n_star = num(bound.n_star) if bound is not None else None
        ns = sorted({users(c) for c in members})
        if n_star is None or not ns:
            continue
        reach = n_star_reach(bound, curve, members, plateaus)
        below = [] if reach == "ceiling" else [n for n in ns if n < n_star * 0.95]
        above = [] if reach == "floor" else [n for n in ns if n > n_star * 1.05]
        proposal, why = [], ""
        if below and above and len(below) + len(above) < len(ns):
            continue  # a measured cell sits at the knee itself (within 5% of N*), with cells on both sides
        if not below:
            top = min(n_star, ns[0]) if reach == "ceiling" else n_star
            proposal = sorted({max(1, round(top / 4)), max(1, round(top / 2))} - set(ns))
            why = (f"X is already level at the lightest cell, N = {ns[0]:g}, so the knee lies at or below it"
                   if reach == "ceiling" else
                   f"no cell lies below the knee N* = {n_star:.3g}, so the contention-free line is not seen")
        elif not above:
            proposal = [round(n_star * 1.5), round(n_star * 3)]
            proposal = sorted(set(n for n in proposal if n > ns[-1]) or {round(ns[-1] * 2)})
            why = (f"X never levelled off, so the knee lies at or beyond N* = {n_star:.3g} (estimated from the "
                   f"highest X)" if reach == "floor" else f"no cell lies beyond the knee N* = {n_star:.3g}, so saturation is "
                   f"not seen")
        elif above[0] / below[-1] > WIDE_GAP:
            lo, hi = below[-1], above[0]
            proposal = sorted({round(math.sqrt(lo * n_star)), round(n_star), round(math.sqrt(n_star * hi))} - set(ns))
            why = f"the nearest cells N = {lo:g} and {hi:g} are {hi / lo:.3g}× apart around N* = {n_star:.3g}"
        if not proposal:
            continue
        proposal, host_words = _host_cap(proposal, curve, members, "N")
        head = group_words(curve)
        if not proposal:
            statement = (f"No further cells worth running{(' ' + head) if head else ''} on this host: {why}, but "
                         f"the N that would show it is past what the host allows{host_words}.")
            out.append(Finding("recommendation", statement, "holds", "measured N against the bounds' knee and the "
                               "host's CPU demand per request", (Figure("N*", n_star, "users"),),
                               fields({"n_star": n_star, "host_max_users": curve.models.host_limit.max_load}),
                               tuple(curve.fixed.items()), tuple(c.id for c in members),
                               recommendation="run the generator on other cores, or a larger host"))
            continue
        statement = (f"Next cells worth running{(' ' + head) if head else ''}: N = "
                     f"{', '.join(f'{n:g}' for n in proposal)}: {why}{host_words}.")
        out.append(Finding("recommendation", statement, "holds", "measured N against the bounds' knee",
                           (Figure("N*", n_star, "users"),), fields({"n_star": n_star}), tuple(curve.fixed.items()),
                           tuple(c.id for c in members),
                           recommendation="run N = " + ", ".join(f"{n:g}" for n in proposal)))
    return out
