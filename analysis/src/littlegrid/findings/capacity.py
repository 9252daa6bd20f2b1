"""Saturation, the bottleneck that causes it, where requests wait, and the latency knee, per X(N) curve."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from littlegrid.analysis.modelling import curves as curve_rules, models
from littlegrid.analysis.modelling.models import CONFIDENCE_Z
from littlegrid.analysis.observed import cpu_demand, server_cpu
from littlegrid.analysis.queueing.laws import GENERATOR_OVERHEAD_MS
from littlegrid.findings import precision, proxy
from littlegrid.findings.base import (ACCEPT_COUNT, MAX_CONNECTIONS, THROTTLE, Figure, Finding, cell_words, cells_words,
                                      curves, failed, fields, group_words, knob, load, load_words, ms, num, overall,
                                      overhead_explains, pct, pool_kind, pool_size_name, pool_words, rate, span,
                                      think_excess_ms, threads_max, users, where_of)
from littlegrid.summary.model import Bounds, Cell, Curve, Summary, Tail

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
CONNECTION_CLASSES = ("connection_refused", "connection_reset", "connect_timeout")


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


def _line(bound: Bounds | None, cell: Cell) -> float | None:
    """The contention-free line at this cell (per second): N/(D+Z) when closed, the offered λ when open."""
    if cell.intended.rate_per_s is not None and curve_rules.workload_of(cell) == curve_rules.OPEN:
        return cell.intended.rate_per_s
    if bound is None or num(bound.d_ms) is None:
        return None
    cycle = bound.d_ms + models.think_of(cell)
    return 1000.0 * users(cell) / cycle if cycle > 0 else None


def _grid(bound: Bounds | None) -> bool:
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
        last, line = members[-1], _line(bound, members[-1])
        ceiling = 1000.0 / bound.d_max_ms if bound and num(bound.d_max_ms) else None
        if (line and ceiling and _grid(bound)
                and xs[-1] < KNEE_EFFICIENCY * line and xs[-1] >= NEAR_BOUND * ceiling):
            out.append(Plateau(curve, members, [last], bound, "suggests",
                               f"the heaviest cell is at {xs[-1] / ceiling:.0%} of the bound and "
                               f"{xs[-1] / line:.0%} of N/(D+Z), but no heavier cell shows X staying level"))
            continue
        lines = [_line(bound, c) for c in members]
        contended = [k for k, (x, ln) in enumerate(zip(xs, lines)) if x and ln and x < CONTENDED * ln]
        if contended and contended[-1] == len(members) - 1:
            first = next(k for k in range(len(members)) if all(j in contended for j in range(k, len(members))))
            estimated = not _grid(bound)
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
    if not _grid(b):
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
        x, line, r = served(last), _line(p.bound, last), overall(last, "mean_ms")
        statement = (f"The system is contended from N = {users(first):g} on ({cells_words(p.cells, p.curve)}): X "
                     f"still grows, to {rate(x)} at N = {users(last):g}, but that is {x / line:.0%} of the "
                     f"contention-free N/(D+Z) = {rate(line)}; R = {ms(r)} against D = {ms(p.bound.d_ms)}, so "
                     f"requests mostly wait for a resource.")
        if ceiling and _grid(p.bound):
            statement += f" The asymptotic bound is {bound_words}."
    elif ceiling and _grid(p.bound):
        statement += f" X is {level / ceiling:.0%} of that bound."
        if level < 0.8 * ceiling:
            statement += " Something other than the server's c servers limits it."
    failures = any(overall(c, "errors") for c in p.cells)
    if failures:
        statement += " X counts the successful responses: failures answered fast hold no server for its service time."
    evidence = tuple(Figure("X", x, "/s", c.id) for x, c in zip(xs, p.cells))
    line_name = "λ offered" if p.kind == "open" else "N/(D+Z)"
    evidence += tuple(Figure(line_name, _line(p.bound, c), "/s", c.id) for c in p.cells if _line(p.bound, c))
    figures = {"users": users(first), "throughput_per_s": level, "bound_per_s": ceiling,
               "bound_basis": "grid" if _grid(p.bound) else "estimated"}
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
        basis = "c/S from the grid" if _grid(curve.models.bounds) else "the highest X served"
        parts = []
        for o in rows:
            t = o.trend
            grew = (f"the queue grew for the whole cell (median R {ms(t.first_ms)} in the window's first third, "
                    f"{ms(t.last_ms)} in its last; Kendall τ = {t.tau:.2f}, p = {t.p:.1g})"
                    if o.overloaded else "R did not rise through the window: the excess was refused or never sent")
            busy = (f"busy {o.busy:.3g} of {o.servers:g} threads" if o.busy is not None and o.servers
                    else f"{server_cpu.owner(_cell(members, o.cell).server_cpu)} CPU {pct(o.cpu_util)}"
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


# ---------------------------------------------------------------- the bottleneck

def _cell(members, cell_id: str):
    """The member cell of that id (its server CPU says whose CPU an overload row's figure is)."""
    return next(c for c in members if c.id == cell_id)


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _cpu_quoted(p: Plateau) -> Cell | None:
    """The cell whose CPU per request (analysis.observed.cpu_demand) the curve's findings quote: its host limit's, so the
    bottleneck and the advice name one cost per request; without a limit, the plateau's by the same rule."""
    limit = p.curve.models.host_limit
    if limit is not None:
        return next((c for c in p.members if c.id == limit.cell), None)
    return cpu_demand.quoted(p.cells)


def bottleneck(summary: Summary, p: Plateau) -> Finding:
    """The resource that caps the plateau, from server and host evidence, in order of what explains the most:
    a generator that did not deliver, saturated cores, a throttle's queue, a full thread pool, refused
    connections; else unknown, naming what to measure."""
    cells, ids = p.cells, tuple(c.id for c in p.cells)
    xs = [served(c) for c in cells]
    figures = {"throughput_per_s": _mean(xs), "users": users(cells[0])}
    where = where_of(cells) or tuple(p.group.items())
    on = cells_words(cells, p.curve)

    def found(resource, statement, standing, why, evidence, **extra):
        return Finding("bottleneck", statement, standing, why, tuple(evidence),
                       fields(figures | extra), where, ids, resource)

    servers = [c.server for c in cells]
    cpus = [num(server_cpu.util(c)) for c in cells]
    cpu = _mean(cpus)
    shared = server_cpu.shared(cells[0])
    elsewhere = server_cpu.basis(cells[0]) == server_cpu.GENERATOR_HOST  # older summaries: JMeter's host alone
    pinned = server_cpu.basis(cells[0]) == server_cpu.SERVER_PINNED  # its own cores, measured apart
    cpu_name = f"{server_cpu.owner(cells[0].server_cpu)} CPU"
    # The generator is to blame only when the server was not the limit: its pool not busy c of c, the cores not
    # saturated, and yet the load asked for was not put on by more than JMeter's per-cycle work explains
    # (laws.GENERATOR_OVERHEAD_MS). An open plan's thread pool fills as a consequence of a saturated server, and
    # a JMeter starved of the cores it shares with the server is the CPU bottleneck, said as such.
    sizing = [(c, k) for c in cells if (k := failed(c, "generator_sizing")) is not None]
    short = [(c, k) for c in cells for name in ("workload", "think_time")
             if (k := failed(c, name)) is not None and not overhead_explains(c, k)]
    excess = [think_excess_ms(c) for c, _ in short if think_excess_ms(c) is not None]
    starved_words = (f"threads thought {span(excess, lambda v: f'{v:.2g} ms')} longer than asked, more than "
                     f"JMeter's {GENERATOR_OVERHEAD_MS:g} ms per-cycle work" if excess
                     else "the workload check fails by more than per-cycle overhead explains")

    busy = [num(s.busy_threads_mean) if s is not None else None for s in servers]
    r_server = _mean([num(s.service_mean_ms) if s is not None else None for s in servers])
    s_grid = num(p.bound.d_ms) if _grid(p.bound) else None
    stretched = r_server is not None and s_grid is not None and r_server > STRETCH * s_grid
    pool = [threads_max(summary, c) for c in cells]
    full = [b is not None and t is not None and b >= BUSY_SHARE * t for b, (t, _) in zip(busy, pool)]
    server_limit = any(full) or (cpu is not None and cpu >= CPU_BUSY)
    if sizing and not server_limit:
        c, k = sizing[0]
        return found("generator", f"The generator sets X = {rate(_mean(xs))} at {on}: its thread pool is nearly "
                     f"exhausted in {cell_words(c)} ({k.explanation}) while the server was not at its limit "
                     f"({_pool_below(summary, cells[0], busy)}, {cpu_name} "
                     f"{'unknown' if cpu is None else pct(cpu)}).",
                     "holds",
                     "an open plan without free threads cannot start requests on time, and no server resource was full",
                     [Figure("generator_sizing relative error", num(k.rel_error), "", c.id) for c, k in sizing])

    # a proxy's maxconn taken with requests in its queue, while what it admits does not keep the database busy
    # (findings/proxy.py): the slots, not the cores, set X, whatever else keeps the cores busy
    at_proxy = proxy.limit(cells, xs, on)
    if at_proxy is not None:
        resource, statement, standing, why, evidence, extra = at_proxy
        return found(resource, statement, standing, why, evidence, **extra)

    if cpu is not None and cpu >= CPU_BUSY and (s_grid is None or stretched or short):
        x = _mean(xs)
        at = _cpu_quoted(p)  # one CPU per request per curve, the one its host limit quotes
        cost = at.cpu_per_request if at is not None else None
        limit = p.curve.models.host_limit
        text = (f"{server_cpu.owner(cells[0].server_cpu).capitalize()} CPU caps X = {rate(x)} at {on}: "
                + (f"it is {pct(cpu)} busy" if shared else f"{server_cpu.words(cells[0])} "
                   f"{'are' if _plural(server_cpu.words(cells[0])) else 'is'} {pct(cpu)} busy"))
        if elsewhere:
            text += " (the server ran elsewhere: its CPU is not measured)"
        if cost is not None:
            text += (f"; by the demand law U = X·D each request costs D = U·cores/X = {cost.cpu_util:.2f} × "
                     f"{cost.cores:g} core{'s' if cost.cores != 1 else ''} / {rate(cost.throughput_per_s)} = "
                     f"{cost.core_ms:.3g} core-ms at {load_words(p.curve, load(p.curve, at))}")
            if limit is not None and limit.cell == at.id:
                text += f", so the cores allow at most {rate(limit.max_per_s)}"
        text += "." + (" The thread pool is full too, waiting for the cores." if all(full) else "")
        if elsewhere:
            text += " D is JMeter's own work per request on its host, not the server's."
        elif shared:
            text += (" JMeter shares these cores, so D includes the generator's own work per request"
                     + (f", and the generator, starved of them, fell short of the load asked for ({starved_words})"
                        if short else "") + ".")
        elif short and pinned:
            text += f" The generator, on CPUs of its own, still fell short of the load asked for ({starved_words})."
        elif short:  # the server's host measured apart: whether JMeter had CPUs of its own, its own host says
            generator = _mean([num(c.host.cpu_util_mean) if c.host is not None else None for c in cells])
            text += (f" The generator also fell short of the load asked for ({starved_words})"
                     + ("" if generator is None else f"; its own host's CPU was {pct(generator)} busy"
                        + (", so it may have been short of CPU too" if generator >= CPU_BUSY else ""))
                     + ".")
        return found("cpu", text, "holds",
                     "the generator host's CPU near 1 while X stays level; the server ran on another host"
                     if elsewhere else
                     "host CPU near 1 while X stays level; the generator shares this host's cores, so the server's "
                     "own share is not separated" if shared else
                     "the CPUs the server was pinned to near 1 while X stays level; JMeter ran on the others"
                     if pinned else
                     f"{server_cpu.words(cells[0])} near 1 while X stays level, measured on the server's host",
                     [Figure("host CPU utilisation" if shared else "server CPUs' utilisation", u, "", c.id)
                      for c, u in zip(cells, cpus)],
                     cpu_util=cpu, demand_core_ms=cost.core_ms if cost is not None else None,
                     cpu_basis=cost.basis if cost is not None else server_cpu.basis(cells[0]))

    queue = [num(s.throttle_queue_mean) if s is not None else None for s in servers]
    k = knob(summary, cells[0], THROTTLE)
    if k and k > 0 and all(q is not None and q >= THROTTLE_QUEUE for q in queue):
        waits = [num(s.throttle_wait_ms) if s is not None else None for s in servers]
        return found("throttle", f"The throttle (K = {k:g}) caps X = {rate(_mean(xs))} at {on}: on average "
                     f"{_mean(queue):.3g} requests wait in its queue, {ms(_mean(waits))} each.", "holds",
                     "the throttle's queue is never empty while X stays level",
                     [Figure("throttle queue", q, "requests", c.id) for q, c in zip(queue, cells)],
                     throttle_queue=_mean(queue), throttle_k=k)

    seen = [f for f, b in zip(full, busy) if b is not None]
    if seen and all(seen):
        t, how = pool[0]
        blind = [c for c, b in zip(cells, busy) if b is None]
        busy_words = ", ".join(f"{b:.3g} at {load_words(p.curve, load(p.curve, c))}"
                               for b, c in zip(busy, cells) if b is not None)
        named = pool_words(summary, cells[0])
        return found("thread_pool", f"{named[0].upper() + named[1:]} caps X = {rate(_mean(xs))} at {on}: of its "
                     f"{t:g} threads ({how}) {busy_words} are busy on average."
                     + (f" At {', '.join(load_words(p.curve, load(p.curve, c)) for c in blind)} "
                        f"the server metrics are missing{_why_missing(blind[0])}; X there is the same level."
                        if blind else ""), "holds",
                     f"busy threads at least {BUSY_SHARE:.0%} of {pool_size_name(summary, cells[0])} while X stays "
                     f"level" +
                     ("" if cpu is None else f"; {cpu_name} {pct(cpu)}, not saturated" if cpu < CPU_BUSY
                      else f"; {cpu_name} {pct(cpu)} too, but R_server = {ms(r_server)} is the service time "
                           f"S = {ms(s_grid)}, so the threads are not slowed by the cores"),
                     [Figure("busy threads", b, "threads", c.id) for b, c in zip(busy, cells)],
                     busy_threads=_mean(busy), threads_max=t, pool=named,
                     pool_kind=pool_kind(summary, cells[0]) or "unknown")

    connection = {c.id: _connection_errors(c) for c in cells}
    if any(connection.values()):
        return connections_finding(summary, [c for c in cells if connection[c.id]], p.curve, figures)

    missing = [c for c, b in zip(cells, busy) if b is None]
    t, how = pool[0]
    ceiling = 1000.0 / p.bound.d_max_ms if p.bound and num(p.bound.d_max_ms) else None
    c_grid = p.bound.d_ms / p.bound.d_max_ms if s_grid is not None and ceiling else None
    if missing and t is not None and c_grid is not None and abs(_mean(xs) / ceiling - 1) <= 0.1 \
            and round(c_grid) == round(t):
        named = pool_words(summary, cells[0])
        return found("thread_pool", f"{named[0].upper() + named[1:]} probably caps X = {rate(_mean(xs))} at {on}: "
                     f"X is {_mean(xs) / ceiling:.0%} of c/S with c = {how}; cannot confirm busy threads: "
                     f"{_no_metrics(missing[0])} in {', '.join(cell_words(c) for c in missing)}.",
                     "suggests",
                     "X matches the thread pool's c/S, but the server's busy-thread count is missing",
                     [Figure("X", x, "/s", c.id) for x, c in zip(xs, cells)], bound_per_s=ceiling, threads_max=t,
                     pool=named, pool_kind=pool_kind(summary, cells[0]) or "unknown")
    if short:
        c, k = short[0]
        return found("generator", f"The generator may set X = {rate(_mean(xs))} at {on}: {starved_words} "
                     f"({cell_words(c)}: {k.explanation}), while {cpu_name} is "
                     f"{'unknown' if cpu is None else pct(cpu)} and no server resource is seen full.", "suggests",
                     "the load asked for was not put on beyond per-cycle overhead, but the cores were not saturated",
                     [Figure(f"{k.name} relative error", num(k.rel_error), "", c.id) for c, k in short])
    limit = _laws_limit(summary, p, xs, missing, found)
    if limit is not None:
        return limit
    return found("unknown", f"X stays level at {rate(_mean(xs))} at {on}, and cannot tell what caps it: "
                 f"{_absent(summary, p, missing)}. Measure next: {_measure_next(summary, p.cells)}.", "cannot tell",
                 "saturated, but no evidence names a resource",
                 [Figure("X", x, "/s", c.id) for x, c in zip(xs, cells)])


def _pool_below(summary: Summary, cell: Cell, busy: list) -> str:
    """"busy threads below threads.max" when a pool was measured (its size by the pool's own name), else that no
    pool was measured: never a claim about a pool no figure shows."""
    if all(b is None for b in busy):
        return "no pool measured"
    return f"busy threads below {pool_size_name(summary, cell)}"


def _server_cpu_words(cells: list[Cell]) -> tuple[float | None, str | None]:
    """(the server's CPU busy share over the cells, whose cores in words) from Cell.server_cpu, the analysis's one
    answer; (None, None) when not measured: never the generator's host for the server's."""
    rows = [c.server_cpu for c in cells]
    if not rows or any(r is None or r.basis == server_cpu.NOT_MEASURED or num(r.util) is None for r in rows):
        return None, None
    return _mean([r.util for r in rows]), rows[0].words


def _absent(summary: Summary, p: Plateau, missing: list[Cell]) -> str:
    """What is missing to name the resource, each thing once: the server's metrics (with why, when the summary
    says), its CPU."""
    absent = []
    if missing:
        absent.append(_no_metrics(missing[0]))
    if _server_cpu_words(p.cells)[0] is None:
        absent.append("the server's CPU was not measured")
    return "; ".join(absent) if absent else "the figures present name no resource"


def _measure_next(summary: Summary, cells: list[Cell]) -> str:
    """What to scrape to tell the resource apart, in the words of the service as known: the sample server's (Tomcat,
    its throttle) only when it is that server; otherwise the [observe] sources docs/observe.md lists, less the
    server's CPU when the cells measured it (a node_exporter already scraped is not asked for again)."""
    cell = cells[0]
    if pool_kind(summary, cell) == "tomcat":
        throttle = ", the throttle queue" if knob(summary, cell, THROTTLE) is not None else ""
        return (f"busy threads vs threads.max, the server's CPU{throttle}, connection errors by class, and the "
                f"generator's own CPU")
    cpu = "" if _server_cpu_words(cells)[0] is not None else " or its process CPU, and node_exporter on its host"
    return (f"with [observe], the service's pool metric (busy against its size){cpu} (docs/observe.md); "
            "connection errors by class, and the generator's own CPU")


def _laws_limit(summary: Summary, p: Plateau, xs: list[float], missing: list[Cell], found) -> Finding | None:
    """With no busy-thread figure in any cell of a level plateau, the laws still size the limit: Little's law at the
    server gives the requests in service at the highest throughput, L = X_max·D (the curve's models:
    analysis.modelling.models.concurrency), and a plateau means a limit of about L holds them: c workers of service time S
    cap X at c/S, and then X·S = c, whatever the workers are. Said as "suggests": which resource it is (threads or
    processes, connections, cores) needs a scraped figure. None for a contended curve (X still grows), without the
    model, or with fewer than one request in service (no concurrency limit: a rate cap of another kind)."""
    conc = p.curve.models.concurrency
    if p.kind == "contended" or conc is None or len(missing) != len(p.cells):
        return None
    low, high = num(conc.low), num(conc.high)
    if (high if high is not None else conc.in_service) < 1:
        return None
    by_id = {c.id: c for c in p.members}
    light = by_id.get(conc.d_cell)
    upper = conc.d_below_knee is False  # D from a cell not shown below the knee: L is at most this
    held = precision.count(conc.in_service, low, high)
    if upper:  # an upper bound says its top: the interval's high end when there is one
        held = f"at most {precision.significant(high if high is not None else conc.in_service, 2)}"
    at = f" at {load_words(p.curve, load(p.curve, light))}" if light is not None else ""
    cpu, cpu_whose = _server_cpu_words(p.cells)
    kinds = ("worker threads or processes, connections, or cores" if cpu is None or cpu >= CPU_BUSY
             else "worker threads or processes, or connections")
    cpu_words = ("the server's CPU was not measured" if cpu is None
                 else f"{cpu_whose} {'were' if _plural(cpu_whose) else 'was'} {pct(cpu)} busy"
                 + ("" if cpu >= CPU_BUSY else ", not full"))
    bound = (f" The lightest cell is not shown below the knee ({conc.d_why}): run a lighter cell (N = 1) to size "
             f"the limit." if upper else "")
    statement = (f"X stays level at {rate(_mean(xs))} at {cells_words(p.cells, p.curve)}: the service holds "
                 f"{held} request{'' if held == 'about 1' else 's'} at once ({rate(conc.x_max_per_s)} × "
                 f"{ms(conc.d_ms)}, R{at}): a limit of {held.removeprefix('about ')} ({kinds}) caps it.{bound} "
                 f"{_no_metrics(missing[0])[0].upper() + _no_metrics(missing[0])[1:]} and {cpu_words}: to tell "
                 f"which, measure next {_measure_next(summary, p.cells)}.")
    edge = (f", X's holding its window edges' error ±{precision.significant(CONFIDENCE_Z * conc.x_edge_rel * 100, 2)}%"
            if num(conc.x_edge_rel) else "")
    interval = (f"; L = {precision.interval(conc.in_service, low, high)} with its 95% interval, the product of the "
                f"ends of X's and D's{edge}" if None not in (low, high)
                else "; without an interval (no histogram or seconds to judge X and D by)")
    waiting = num(conc.waiting) if p.kind != "open" else None
    at_cell = by_id.get(conc.waiting_cell) if conc.waiting_cell else None
    where_d = (f"at the lightest cell, where nothing queues ({conc.d_why})" if conc.d_below_knee
               else f"at the lightest cell ({conc.d_why})" if upper else "at the lightest cell, where nothing queues")
    return found("concurrency", statement, "suggests",
                 f"Little's law at the server, L = X_max·D: X_max = {rate(conc.x_max_per_s)} of successful "
                 f"requests, D = R = {ms(conc.d_ms)} {where_d}{interval}; a level X "
                 f"means a limit of that many holds them, but no scraped figure says which resource it is",
                 [Figure("X_max (successes)", conc.x_max_per_s, "/s", conc.x_cell),
                  Figure("D = R at the lightest cell", conc.d_ms, "ms", conc.d_cell),
                  Figure("L = X_max·D", conc.in_service, "requests")],
                 in_service=conc.in_service, in_service_low=low, in_service_high=high, held=held, kinds=kinds,
                 x_max_per_s=conc.x_max_per_s, d_ms=conc.d_ms, upper_bound=1.0 if upper else None,
                 waiting=waiting if waiting is not None and waiting > 0 else None,
                 waiting_at=users(at_cell) if waiting is not None and waiting > 0 and at_cell is not None else None)


def _why_missing(cell: Cell) -> str:
    """" (3 scrapes failed)": why a cell has no server figures, as the summary says it ("" when it has no server
    record at all: then there is nothing more to say than that they are missing)."""
    s = cell.server
    if s is None:
        return ""
    if s.in_front_reason:
        return f" ({s.in_front_reason})"
    if s.failed_scrapes:
        return f" ({s.failed_scrapes} scrapes failed)"
    return " (no readings in the window)"


def _plural(whose: str) -> bool:
    """Whether whose cores a CPU figure is of reads as plural ("10.0.0.7's 2 cores (its node_exporter)": the words
    before a closing parenthesis decide)."""
    return re.sub(r"\s*\([^()]*\)$", "", whose).endswith("s")


def _no_metrics(cell: Cell) -> str:
    """"no server metrics" with why, once: "no server metrics (3 scrapes failed)"; when a source of the target's
    answered (its host's node_exporter, a process CPU) what is missing is narrower, and said so: the sentence
    beside it may quote that source's figures."""
    observed = cell.observed.sources if cell.observed is not None else ()
    if any(s.target_host and s.readings for s in observed):
        return "nothing scraped counts the server's requests or busy workers" + _why_missing(cell)
    return "no server metrics" + _why_missing(cell)


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


def _connection_errors(cell: Cell, classes=CONNECTION_CLASSES) -> int:
    """The cell's requests that failed to connect or were dropped (of the given error classes)."""
    by_class = _errors_by_class(cell)
    return sum(by_class.get(k) or 0 for k in classes)


def connections_finding(summary: Summary, cells: list[Cell], curve: Curve | None, figures: dict) -> Finding:
    """Requests refused or reset at the connection level, against max-connections + accept-count."""
    by_class = {}
    for c in cells:
        for k in CONNECTION_CLASSES:
            by_class[k] = by_class.get(k, 0) + _connection_errors(c, (k,))
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
                   tuple(Figure("connection errors", _connection_errors(c), "", c.id) for c in cells)
                   + tuple(Figure("requests", c.overall.count if c.overall is not None else None, "", c.id)
                           for c in cells),
                   fields(figures), where_of(cells), tuple(c.id for c in cells), "connections")


def connection_findings(summary: Summary, covered: set) -> list[Finding]:
    """Connection failures in cells no plateau covers: one finding per curve, and per facet of the cells that are
    no point of a curve (a spike), grouped by the analysis's own rule. `covered`: cell ids already explained by
    a plateau's bottleneck. A cell with an outage counts only the connection failures its outage's start cannot
    explain (outage_edge_failures)."""
    hit = [c for c in summary.cells if c.id not in covered and _connection_errors(c) > outage_edge_failures(c)]
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
                                       {"throughput_per_s": _mean([overall(c, "throughput_per_s") for c in cells]),
                                        "users": users(cells[0])}))
    return out


# ---------------------------------------------------------------- where requests wait

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
                               f"{_no_metrics(blind[0])}.", "cannot tell",
                               "no server metrics in the saturated cells", (), (),
                               where_of(blind) or tuple(group.items()), tuple(c.id for c in blind)))
    return out


# ---------------------------------------------------------------- the latency knee

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
        line = _line(bound, last)
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
                        _grid(bound) else "") + ".")
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
