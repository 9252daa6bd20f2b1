"""Saturation per X(N) curve: where X stops growing (a plateau), with its thresholds and the readers the capacity
findings share; the bottleneck behind it (bottleneck.py), connection limits (connections.py), where requests wait
(waiting.py) and the latency knee (knees.py) have their own modules."""

from __future__ import annotations

from dataclasses import dataclass

from littlegrid.analysis.modelling import curves as curve_rules, models
from littlegrid.analysis.observed import server_cpu
from littlegrid.findings.base import (THROTTLE, Figure, Finding, cells_words, curves, failed, fields, group_words, knob,
                                      load, load_words, ms, num, overall, overhead_explains, pct, rate, users, where_of)
from littlegrid.summary.model import Bounds, Cell, Curve, Summary


# Saturation: the load grew by at least LOAD_STEP while X grew by at most LEVEL_GROWTH.
LOAD_STEP = 1.5
LEVEL_GROWTH = 0.10
# A lone last cell "suggests" saturation when it is this far below the contention-free line and this close to a
# bound the grid gives (no heavier cell confirms that X stopped growing).
KNEE_EFFICIENCY = models.KNEE_EFFICIENCY
NEAR_BOUND = 0.9
# Contention: X below this share of the contention-free line N/(D+Z) means, by N = X·(R+Z), that R+Z is more than
# twice D+Z: requests spend most of their cycle waiting for a resource, however X still grows.
CONTENDED = 0.5
BUSY_SHARE = models.POOL_FULL  # busy threads / threads.max at which the pool counts as full
CPU_BUSY = curve_rules.CPU_BUSY  # host CPU utilisation at which the cores count as saturated
STRETCH = 1.2           # R_server / S beyond which the service itself is slowed (contention inside)
THROTTLE_QUEUE = 0.5    # mean throttle queue length that says requests wait at the throttle
WAIT_SHARE = 0.10       # R − R_server above this share of R: requests wait in front of the server
LATENCY_MARGIN = 0.10   # R above (1 + this) × max(D, N·D_max − Z) leaves its bound
TAIL_DROP = 0.8         # Hill α at the heaviest cell below this share of the lightest's: the tail got heavier


@dataclass(frozen=True)
class Plateau:
    """A saturated curve: the cells from the first N where X stopped growing, and the bound it meets."""

    curve: Curve
    members: list[Cell]
    cells: list[Cell]
    bound: Bounds | None
    standing: str
    why: str
    kind: str = "level"  # "level": X stopped growing; "contended": X still grows, far below N/(D+Z); "open": λ not served

    @property
    def group(self) -> dict:
        return self.curve.fixed


def served(cell: Cell) -> float | None:
    """The cell's throughput of successful requests (all its responses' when the summary lacks the split): a level
    is judged on what the service answered, since failures answered fast (a proxy's 502 past its upstream limit, a
    refused connection) hold no server for their service time and would make a capped service look as if it grew."""
    ok = overall(cell, "successes_per_s")
    return ok if ok is not None else overall(cell, "throughput_per_s")


def contention_free(bound: Bounds | None, cell: Cell) -> float | None:
    """The contention-free line at this cell (per second): N/(D+Z) when closed, the offered λ when open."""
    if cell.intended.rate_per_s is not None and curve_rules.workload_of(cell) == curve_rules.OPEN:
        return cell.intended.rate_per_s
    if bound is None or num(bound.d_ms) is None:
        return None
    cycle = bound.d_ms + models.think_of(cell)
    return 1000.0 * users(cell) / cycle if cycle > 0 else None


def from_grid(bound: Bounds | None) -> bool:
    """Whether the bounds come from the grid's S and c (not estimated from the cells)."""
    return bound is not None and bound.basis.startswith("grid")


def starved(cell: Cell) -> bool:
    """Whether the generator fell short of the load asked for by more than JMeter's per-cycle work explains:
    then part of the cell's R and Z is JMeter's own delay, not the system's."""
    return any(k is not None and not overhead_explains(cell, k)
               for k in (failed(cell, "workload"), failed(cell, "think_time")))


def _open_plateau(curve: Curve, members: list[Cell]) -> Plateau | None:
    """An open curve saturates where the offered λ is no longer served (beyond its Poisson noise): from the first
    such cell on. It holds when the server's resource was full there (the analysis's overload record); without a
    busy-thread figure it is suggested when R rose through each such cell while the generator delivered its plan."""
    short = {o.cell: o for o in curve.overload}
    first = next((k for k, c in enumerate(members) if c.id in short), None)
    if first is None:
        return None
    cells = [c for c in members[first:] if c.id in short]
    full = [short[c.id] for c in cells if short[c.id].resource is not None]
    o = short[cells[0].id]
    why = (f"X below the offered λ by more than its noise from {load_words(curve, o.offered_per_s)} on "
           f"({rate(o.served_per_s)} served of {rate(o.offered_per_s)}, noise {o.shortfall_noise_per_s:.2g}/s)")
    if full:
        return Plateau(curve, members, cells, curve.models.bounds, "holds", why + "; the server's resource was full",
                       "open")
    # Nothing measured at the server: a queue that grew through every such cell, while the generator delivered
    # its plan (no sizing or fidelity failure beyond JMeter's per-cycle work), is the server's, but which of its
    # resources was full no figure says: suggested, not held
    queued = [c for c in cells if short[c.id].busy is None and c.trend is not None and c.trend.rising and not starved(c) and failed(c, "generator_sizing") is None]
    if queued and len(queued) == len(cells):
        return Plateau(curve, members, cells, curve.models.bounds, "suggests",
                       why + "; R rose through each such window (the queue grew) while the generator delivered its "
                       "plan, but no server figure says which resource was full", "open")
    return None  # the server was not the limit: the generator or the network was (validity says which)


def plateaus(summary: Summary) -> list[Plateau]:
    out = []
    for curve, members in curves(summary):
        bound = curve.models.bounds
        if curve.workload == curve_rules.OPEN:
            p = _open_plateau(curve, members)
            if p is not None:
                out.append(p)
            continue
        if len(members) < 2:
            continue
        xs = [served(c) for c in members]
        start = None
        for k, c in enumerate(members):
            later = [j for j in range(k + 1, len(members)) if users(members[j]) >= LOAD_STEP * users(c)]
            # a level of no successes is no service's limit (the outage and validity findings say why nothing succeeded)
            if later and xs[k] and all(xs[j] <= (1 + LEVEL_GROWTH) * xs[k] for j in range(k + 1, len(members))):
                start = k
                break
        if start is not None:
            grown = members[-1]
            why = (f"the load grew {users(grown) / users(members[start]):.3g}-fold from N = {users(members[start]):g} "
                   f"to {users(grown):g} while X changed by {xs[-1] / xs[start] - 1:+.1%} (a level is at most "
                   f"{LEVEL_GROWTH:+.0%} for at least {LOAD_STEP:g}× the load)")
            out.append(Plateau(curve, members, members[start:], bound, "holds", why))
            continue
        last, line = members[-1], contention_free(bound, members[-1])
        ceiling = 1000.0 / bound.d_max_ms if bound and num(bound.d_max_ms) else None
        if (line and ceiling and from_grid(bound)
                and xs[-1] < KNEE_EFFICIENCY * line and xs[-1] >= NEAR_BOUND * ceiling):
            out.append(Plateau(curve, members, [last], bound, "suggests",
                               f"the heaviest cell is at {xs[-1] / ceiling:.0%} of the bound and "
                               f"{xs[-1] / line:.0%} of N/(D+Z), but no heavier cell shows X staying level"))
            continue
        lines = [contention_free(bound, c) for c in members]
        contended = [k for k, (x, ln) in enumerate(zip(xs, lines)) if x and ln and x < CONTENDED * ln]
        if contended and contended[-1] == len(members) - 1:
            first = next(k for k in range(len(members)) if all(j in contended for j in range(k, len(members))))
            estimated = not from_grid(bound)
            out.append(Plateau(curve, members, members[first:], bound, "holds",
                               f"X below {CONTENDED:.0%} of N/(D+Z) means R+Z is more than twice D+Z (N = X·(R+Z))"
                               + ("; D is R at the lightest cell, at least the true D, so the true share is lower "
                                  "still" if estimated else ""), "contended"))
    return out


def _bound_words(summary: Summary, p: Plateau) -> tuple[float | None, str]:
    """(bound per second, its name and figures) that the plateau meets."""
    b = p.bound
    if b is None or num(b.d_max_ms) is None:
        return None, "no bound (the summary has no bounds model)"
    ceiling = 1000.0 / b.d_max_ms
    if not from_grid(b):
        return ceiling, (f"1/D_max = {rate(ceiling)}, estimated from the highest X itself (the grid gives no S and "
                         f"c), so the level is not explained by it")
    c, s = b.d_ms / b.d_max_ms, b.d_ms
    k = knob(summary, p.cells[0], THROTTLE)
    if k and k > 0 and round(c) == round(k):
        return ceiling, f"the throttle's K/S = {k:g}/{ms(s)} = {rate(ceiling)}"
    return ceiling, f"c/S = {c:g}/{ms(s)} = {rate(ceiling)}"


def saturation(summary: Summary, p: Plateau) -> Finding:
    xs = [served(c) for c in p.cells]
    level = sum(xs) / len(xs)
    ceiling, bound_words = _bound_words(summary, p)
    first = p.cells[0]
    span = rate(min(xs)) if len(xs) == 1 or rate(min(xs)) == rate(max(xs)) else f"{rate(min(xs))}–{rate(max(xs))}"
    statement = (f"Throughput levels off at {span} from {load_words(p.curve, load(p.curve, first))} on "
                 f"({cells_words(p.cells, p.curve)}), against {bound_words}.")
    if p.kind == "open":
        statement = (f"Throughput levels off at {span} from {load_words(p.curve, load(p.curve, first))} on "
                     f"({cells_words(p.cells, p.curve)}): the offered rate exceeds what the server serves, "
                     f"against {bound_words}.")
    if p.kind == "contended":
        last = p.cells[-1]
        x, line, r = served(last), contention_free(p.bound, last), overall(last, "mean_ms")
        statement = (f"The system is contended from N = {users(first):g} on ({cells_words(p.cells, p.curve)}): X "
                     f"still grows, to {rate(x)} at N = {users(last):g}, but that is {x / line:.0%} of the "
                     f"contention-free N/(D+Z) = {rate(line)}; R = {ms(r)} against D = {ms(p.bound.d_ms)}, so "
                     f"requests mostly wait for a resource.")
        if ceiling and from_grid(p.bound):
            statement += f" The asymptotic bound is {bound_words}."
    elif ceiling and from_grid(p.bound):
        statement += f" X is {level / ceiling:.0%} of that bound."
        if level < 0.8 * ceiling:
            statement += " Something other than the server's c servers limits it."
    failures = any(overall(c, "errors") for c in p.cells)
    if failures:
        statement += " X counts the successful responses: failures answered fast hold no server for its service time."
    evidence = tuple(Figure("X", x, "/s", c.id) for x, c in zip(xs, p.cells))
    line_name = "λ offered" if p.kind == "open" else "N/(D+Z)"
    evidence += tuple(Figure(line_name, contention_free(p.bound, c), "/s", c.id) for c in p.cells if contention_free(p.bound, c))
    figures = {"users": users(first), "throughput_per_s": level, "bound_per_s": ceiling,
               "bound_basis": "grid" if from_grid(p.bound) else "estimated"}
    if failures:  # the level is of the successes (1: a figure is a number)
        figures["successes_only"] = 1.0
    if p.kind == "open":
        figures["offered_per_s"] = load(p.curve, first)
    return Finding("saturation", statement, p.standing, p.why, evidence, fields(figures),
                   where_of(p.cells) or tuple(p.group.items()), tuple(c.id for c in p.cells))


def overload(summary: Summary) -> list[Finding]:
    """Per open curve: the cells offered more than the server could serve (Curve.overload with a full resource).
    Past capacity an open system has no steady state: the queue grows for as long as the cell runs, so the cell's
    R and percentiles measure its length."""
    out = []
    for curve, members in curves(summary):
        rows = [o for o in curve.overload if o.resource is not None]
        if not rows:
            continue
        cap = curve.models.bounds.capacity_per_s if curve.models.bounds is not None else None
        basis = "c/S from the grid" if from_grid(curve.models.bounds) else "the highest X served"
        parts = []
        for o in rows:
            t = o.trend
            grew = (f"the queue grew for the whole cell (median R {ms(t.first_ms)} in the window's first third, "
                    f"{ms(t.last_ms)} in its last; Kendall τ = {t.tau:.2f}, p = {t.p:.1g})"
                    if o.overloaded else "R did not rise through the window: the excess was refused or never sent")
            busy = (f"busy {o.busy:.3g} of {o.servers:g} threads" if o.busy is not None and o.servers
                    else f"{server_cpu.owner(member(members, o.cell).server_cpu)} CPU {pct(o.cpu_util)}"
                    if o.resource == "cpu"
                    else f"X at {basis}")
            parts.append(f"offered {rate(o.offered_per_s)} exceeds capacity ≈ {rate(cap)} ({basis}); "
                         f"{rate(o.served_per_s)} served, {busy}; {grew}")
        head = group_words(curve)
        statement = ("Overload" + (f" {head}" if head else "") + ": " + "; ".join(parts)
                     + ". Their R and percentiles describe the cell's length, not a steady state.")
        growing = [o for o in rows if o.overloaded]
        evidence = []
        for o in rows:
            evidence += [Figure("offered", o.offered_per_s, "/s", o.cell), Figure("served", o.served_per_s, "/s", o.cell)]
            if o.trend is not None and o.trend.tau is not None:
                evidence.append(Figure("Kendall tau of R over time", o.trend.tau, "", o.cell))
        cells = [c for c in members if c.id in {o.cell for o in rows}]
        out.append(Finding("overload", statement, "holds" if growing else "suggests",
                           "offered rate above what was served beyond its Poisson noise, the server's resource full"
                           + (", and R rising through the window (Kendall's test, p < 0.01)" if growing else
                              "; R did not rise, so no growing queue is shown"),
                           tuple(evidence), fields({"offered_per_s": rows[0].offered_per_s, "capacity_per_s": cap,
                                                    "served_per_s": rows[0].served_per_s}),
                           where_of(cells) or tuple(curve.fixed.items()), tuple(c.id for c in cells),
                           rows[0].resource))
    return out


def member(members, cell_id: str):
    """The member cell of that id (its server CPU says whose CPU an overload row's figure is)."""
    return next(c for c in members if c.id == cell_id)


def mean_of(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
