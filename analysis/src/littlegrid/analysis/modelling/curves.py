"""Which cells form a curve, and each curve's models and overloaded cells: the one grouping every stage reads.

A curve is the cells that differ only in load: N for a closed workload, the offered rate λ for an open one. Every
other axis is fixed along it, and the axes whose values differ between curves name it ("server.tomcat.threads.max =
10"). Findings, the report, the comparison and the live view iterate `Summary.curves`; none of them groups cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from littlegrid.analysis.modelling import models
from littlegrid.analysis.observed import cpu_demand, server_cpu
from littlegrid.analysis.queueing import little
from littlegrid.analysis.queueing.laws import not_made, throughput_bound
from littlegrid.summary.model import (Bounds, Cell, Check, Curve, CurveModels, HostLimit, LeftOut, Overhead, Overload,
                                      SloCapacity)

REPETITION = ("rep", "repetition")
CLOSED, OPEN = "closed", "open"
X_AXIS = {CLOSED: "users", OPEN: "rate_per_s"}
X_NAME = {CLOSED: "N", OPEN: "λ"}
THINK_AXIS = "think_ms"  # the grid axis of the think time Z: the curves of a facet differ in it alone
CPU_BUSY = little.CPU_BUSY  # host CPU utilisation at which the cores count as saturated (findings use it too)
NEAR_CAPACITY = 0.9   # served at least this share of the grid's c/S: the server is at its capacity
NOISE_SIGMAS = 3.0    # a shortfall λ − X counts beyond this many Poisson standard errors √(λ/T)


@dataclass(frozen=True)
class Members:
    """One curve's cells before its models: the grouping every stage shares (`group`)."""

    workload: str
    fixed: dict
    cells: list[Cell]
    left_out: list[tuple[Cell, str]]


def workload_of(cell: Cell) -> str:
    """"open" when the cell had an arrival rate, "spike" for a burst, else "closed"."""
    if cell.intended.workload == "spike":
        return "spike"
    return OPEN if cell.intended.workload == OPEN or cell.intended.rate_per_s is not None else CLOSED


def load_of(cell: Cell) -> float | None:
    """The cell's x on its curve: N (threads × engines as counted) when closed, the offered rate λ when open."""
    if workload_of(cell) == OPEN:
        return cell.intended.rate_per_s
    return float(cell.users.n) if cell.users is not None else cell.axes.get("users")


def _axes_but(cell: Cell, *names: str) -> tuple:
    """The cell's axes but `names` and a repetition."""
    return tuple((k, v) for k, v in cell.axes.items() if k not in (*names, *REPETITION))


def facet_key(cell: Cell) -> tuple:
    """The one rule for which cells share a curve: the same workload and every axis but the load and the
    repetition. Cells outside any curve (a spike) use it to be grouped the same way."""
    workload = workload_of(cell)
    return (workload,) + _axes_but(cell, X_AXIS.get(workload, "users"))


def facet_of(cell: Cell) -> str:
    """The cell's facet, as "k=v,…" ("" when none): its axes but users N, think time Z and a repetition. A closed
    cell's are its curve's fixed axes but Z, so the curves of one facet differ only in Z and the report lays a facet
    out as one table of Z × N (Cell.facet); an open cell's include its offered rate, the load of its curve."""
    return ",".join(f"{k}={v}" for k, v in _axes_but(cell, X_AXIS[CLOSED], THINK_AXIS))


def why_left_out(cell: Cell) -> str | None:
    """Why a cell is no point of its curve (None: it is one). Failed cells, cells without window figures and
    bursts never are: their X and R describe no steady state."""
    if cell.outage is not None:  # first: an outage makes the status too, and this says why with its figures
        return outage_left_out(cell)
    if cell.status != "complete":
        return f"{cell.status}: {cell.reason}" if cell.reason else cell.status
    if cell.overall is None or not cell.overall.count:
        return "no samples in its steady window"
    if workload_of(cell) == "spike":
        return "a spike: users released at once have no steady state"
    if load_of(cell) is None:
        return "no load (N or λ) known"
    return None


def outage_left_out(cell: Cell) -> str:
    """Why a cell with an outage is no point of its curve, with the figures that say so. A point is a steady state
    at one load: a server that never came back left only the part before it, shorter than the cell asked for; a
    recovered one left a window whose X counts its failures (instant refusals at a high rate read as throughput)
    and whose R and error rate mix a server answering with one failing, so no single load-response pair holds for
    it. Its parts before and after are given so the reader sees what the server did while it answered (a stall,
    where every held request was answered, is no reason: the cell stays on its curve)."""
    o = cell.outage
    count = cell.overall.count if cell.overall is not None else None
    share = f" of the window's {count:,}" if count and o.failed_in_window else ""
    lead = (f"an outage: no request was answered from {o.began_s:.3g} s into the cell for {o.lasted_s:.3g} s "
            f"({o.failed:,} requests failed in it{share}")
    if not o.recovered:
        return lead + "); the server never came back, so the cell has only the part before it"
    parts = "; ".join(f"{name} it X = {p.throughput_per_s:.3g}/s, mean R = {p.mean_ms:.3g} ms, "
                      f"{p.errors:,} errors" for name, p in (("before", o.before), ("after", o.after))
                      if p is not None and p.throughput_per_s is not None and p.mean_ms is not None)
    return (lead + "), then it recovered: the window's X counts those failures and its R and error rate mix a "
            "server answering with one failing, so it is no steady state" + (f" ({parts})" if parts else ""))


def group(cells: list[Cell]) -> list[Members]:
    """Cells grouped into curves in the order their first cell appears, each sorted by load; a facet whose every
    cell is left out is no curve (its cells are named in no list here)."""
    facets: dict[tuple, tuple[list, list]] = {}
    for c in cells:
        if workload_of(c) == "spike":
            continue
        points, out = facets.setdefault(facet_key(c), ([], []))
        reason = why_left_out(c)
        (out.append((c, reason)) if reason else points.append(c))
    return [Members(key[0], dict(key[1:]), sorted(points, key=load_of), out)
            for key, (points, out) in facets.items() if points]


def _labels(groups: list[Members]) -> list[str]:
    """Each curve named by the values of the axes that differ between curves; a lone curve by its fixed axes, else
    its think time or its workload. Labels are unique: a repeat gets its ordinal."""
    varying = [k for k in dict.fromkeys(k for g in groups for k in g.fixed)
               if len({repr(g.fixed.get(k)) for g in groups}) > 1]
    workloads = len({g.workload for g in groups}) > 1
    out, seen = [], {}
    for g in groups:
        shown = varying if len(groups) > 1 else list(g.fixed)
        words = ", ".join(f"{k} = {g.fixed[k]}" for k in shown if k in g.fixed)
        if not words:
            think = models.think_of(g.cells[0]) if g.workload == CLOSED else None
            words = (f"Z = {think:g} ms" if think is not None else "") if g.workload == CLOSED else "open workload"
            words = words or "all cells"
        if workloads:
            words = f"{g.workload}: {words}"
        seen[words] = seen.get(words, 0) + 1
        out.append(words if seen[words] == 1 else f"{words} ({seen[words]})")
    return out


def _key(g: Members) -> str:
    return (f"{g.workload}:" if g.workload != CLOSED else "") + (
        ",".join(f"{k}={v}" for k, v in g.fixed.items()) or "all")


# ---------------------------------------------------------------- overload (open curves)

def saturated_resource(cell: Cell, capacity: float | None, from_grid: bool) -> tuple[str | None, float | None,
                                                                                     float | None, float | None]:
    """(the server resource that was full, busy, servers, CPU utilisation): the thread pool busy c of c, the server's
    cores saturated, or (no server metrics) X at the grid's c/S; None when nothing shows the server at its limit."""
    s = cell.server
    busy = s.busy_threads_mean if s is not None else None
    servers = (s.threads_max if s is not None else None) or _number(cell.axes.get("server.tomcat.threads.max"))
    cpu = server_cpu.util(cell)
    if busy is not None and servers and busy >= models.POOL_FULL * float(servers):
        return "thread_pool", busy, servers, cpu
    if cpu is not None and cpu >= CPU_BUSY:
        return "cpu", busy, servers, cpu
    served = cell.overall.successes_per_s
    if busy is None and from_grid and capacity and served is not None and served >= NEAR_CAPACITY * capacity:
        return "capacity", busy, servers, cpu
    return None, busy, servers, cpu


def _number(v) -> float | None:
    try:
        return float(v) if v is not None and not isinstance(v, bool) else None
    except (TypeError, ValueError):
        return None


def overload(cell: Cell, capacity: float | None, from_grid: bool) -> Overload | None:
    """An open cell's offered rate against what was served. Overloaded: served short of λ beyond its Poisson noise,
    the server's resource full (busy c of c, or CPU saturated), and R rising through the window. None when λ was
    delivered."""
    rate, served = cell.intended.rate_per_s, cell.overall.successes_per_s
    window = cell.window.length_s if cell.window is not None else None
    if rate is None or served is None or not window:
        return None
    noise = NOISE_SIGMAS * math.sqrt(rate / window)
    if rate - served <= noise:
        return None
    resource, busy, servers, cpu = saturated_resource(cell, capacity, from_grid)
    rising = cell.trend  # the cell stage's (analysis/steady/trend.py), None in a summary older than it
    overloaded = resource is not None and rising is not None and rising.rising
    if overloaded:
        why = (f"offered {rate:g}/s, served {served:.3g}/s (shortfall beyond the {noise:.2g}/s noise), the server's "
               f"{resource.replace('_', ' ')} full and R rising through the window (Kendall τ = {rising.tau:.2f}, "
               f"p = {rising.p:.1g}): the queue grew for the whole cell")
    elif resource is not None:
        why = (f"offered {rate:g}/s, served {served:.3g}/s with the server's {resource.replace('_', ' ')} full, but R "
               f"did not rise through the window: the excess was turned away or never sent")
    else:
        why = (f"offered {rate:g}/s, served {served:.3g}/s, while the server was not at its limit (busy "
               f"{'unknown' if busy is None else f'{busy:.3g}'} of {servers or 'unknown'}, CPU "
               f"{'unknown' if cpu is None else f'{cpu:.0%}'}): the load asked for was not delivered")
    return Overload(cell=cell.id, offered_per_s=rate, served_per_s=served, shortfall_noise_per_s=noise,
                    capacity_per_s=capacity, resource=resource, busy=busy, servers=servers, cpu_util=cpu,
                    trend=rising, overloaded=overloaded, explanation=why)


# ---------------------------------------------------------------- the curves and their models

def _bound_check(c: Cell, service, lightest: Cell, tol: dict) -> Check:
    """X_ok ≤ min(N/(D+Z), c/S) per cell: D = S from the grid, else R of the lightest cell of the same curve.
    Successful completions only: a refused or timed-out connection costs no service time and shortens its
    thread's cycle, so counting it would let X exceed a bound that still holds for the requests served."""
    z, x_ok = models.think_of(c), c.overall.successes_per_s
    if workload_of(c) == OPEN:  # the timer's waits are not think time
        return throughput_bound(c.id, x_ok, None, None, None, service and service.servers,
                                service and service.service_ms, tol["throughput_bound"], "c/S from the grid")
    if service is not None:
        return throughput_bound(c.id, x_ok, c.users.n, z, service.service_ms, service.servers, service.service_ms,
                                tol["throughput_bound"],
                                f"D = S = {service.service_ms:g} ms, c = {service.servers} from the grid")
    if c is lightest:
        return not_made("throughput_bound", c.id, "the grid does not give c and S, and D is estimated from this "
                        "cell (the lightest of its curve)")
    d = lightest.overall.mean_ms
    return throughput_bound(c.id, x_ok, c.users.n, z, d, None, None, tol["throughput_bound"],
                            f"D = {d:.1f} ms, R of the lightest cell")


def overhead(cells: list[Cell], bound: Bounds) -> Overhead | None:
    """R − max(D, N·D_max − Z) at every point, and how it changes with the load: judged against the cells' own
    standard errors (models.gap_trend), never by its spread against a share of its mean."""
    lower = {p.load: p.r_lower_ms for p in bound.points}
    rows = [(c, c.overall.mean_ms - lower[load_of(c)]) for c in cells
            if c.overall.mean_ms is not None and load_of(c) in lower]
    if len(rows) < 2:
        return None
    excess = [e for _, e in rows]
    t = models.gap_trend([load_of(c) for c, _ in rows], excess, [models.mean_standard_error_ms(c) for c, _ in rows])
    return Overhead(excess_ms=excess, spread_ms=max(excess) - min(excess), tolerance_ms=t.margin_ms,
                    mean_ms=sum(excess) / len(excess), grows=t.trend == "rises", trend=t.trend,
                    deviation_ms=t.deviation_ms, pairs=t.pairs, pairs_rising=t.rising, pairs_falling=t.falling)


def host_limit(g: Members, bound: Bounds | None) -> HostLimit | None:
    """The load the measured cores allow (the server's pinned CPUs, the host's shared with JMeter, or the
    generator's host: analysis.observed.server_cpu), from the cells' CPU per request (analysis.observed.cpu_demand, read, not
    recomputed). The figure quoted is the CPU per request at the curve's highest throughput (cpu_demand.quoted).
    Over cells with X apart, X_max comes from the demand-law fit U·cores = U_0·cores + X·D: the cores left after
    U_0·cores allow X_max = (cores − U_0·cores)/D, never less than the highest X measured; a marginal cost not above
    0 says the CPU does not grow with this load, so it sets no limit here (None). One cell: X_max = X/U, what the
    cores allow at U = 1 with U_0 counted in the cost. For a closed curve the N that reaches X_max on the
    contention-free line, X_max·(D+Z)."""
    c = cpu_demand.quoted(g.cells)
    if c is None:
        return None
    cost = c.cpu_per_request
    fitted = cpu_demand.marginal([m for m in (cpu_demand.measured(k) for k in g.cells) if m is not None])
    marginal = idle = None
    if fitted is not None:
        marginal, idle = fitted
        if marginal <= 0:
            return None
        idle = max(0.0, idle)
        highest = max(m.throughput_per_s for k in g.cells if (m := cpu_demand.measured(k)) is not None)
        max_x = max(highest, (cost.cores - idle) * 1000.0 / marginal)
    else:
        max_x = cost.throughput_per_s / cost.cpu_util
    if g.workload == OPEN:
        max_load = max_x
    else:
        z = models.think_of(g.cells[0])
        d = bound.d_ms if bound is not None else g.cells[0].overall.mean_ms
        max_load = max_x * (d + z) / 1000.0 if z is not None and d is not None else None
    return HostLimit(cell=c.id, cores=cost.cores, cpu_util=cost.cpu_util, demand_core_ms=cost.core_ms,
                     max_per_s=max_x, max_load=max_load, marginal_core_ms=marginal, idle_cores=idle,
                     basis=cost.basis)


def _models(g: Members, service, slos, percentile_of) -> CurveModels:
    loads = [load_of(c) for c in g.cells]
    if g.workload == OPEN:
        bound = models.bounds(g.cells, service, open_=True)
        return CurveModels(bounds=bound, usl=None, knee=None, mmcn=[], overhead=None,
                           slo_capacity=models.slo_capacity(g.cells, loads, slos, percentile_of, unit="λ"),
                           host_limit=host_limit(g, bound), concurrency=models.concurrency(g.cells))
    bound = knee = None
    if models.think_of(g.cells[0]) is not None:  # bounds and knee need Z
        bound = models.bounds(g.cells, service)
        knee = models.knee(g.cells, bound)
    mmcn = [row for c in g.cells if (row := models.mmcn_prediction(c, service)) is not None]
    slo: list[SloCapacity] = models.slo_capacity(g.cells, loads, slos, percentile_of)
    return CurveModels(bounds=bound, usl=models.usl_fit(g.cells), knee=knee, slo_capacity=slo, mmcn=mmcn,
                       overhead=overhead(g.cells, bound) if bound is not None else None,
                       host_limit=host_limit(g, bound), concurrency=models.concurrency(g.cells),
                       shared_cores=little.shared_cores(g.cells))


def build(cells: list[Cell], services: dict, slos, percentile_of,
          tol: dict) -> tuple[list[Cell], list[Curve], list[Check]]:
    """(the cells with each curve point's throughput-bound check added, the curves, the grid-level checks:
    M/M/c//N agreement). services: cell id -> the grid's c and S for it (analysis.cells.Service). What the CPU
    allows comes from each cell's CPU per request (analysis.observed.cpu_demand.attach, before)."""
    groups = group(cells)
    added: dict[str, Check] = {}
    curves, checks = [], []
    by_id = {c.id: c for c in cells}
    for g, label in zip(groups, _labels(groups)):
        service = services.get(g.cells[0].id)
        for c in g.cells:
            added[c.id] = _bound_check(c, services.get(c.id), g.cells[0], tol)
        fitted = _models(g, service, slos, percentile_of)
        from_grid = fitted.bounds is not None and fitted.bounds.basis.startswith("grid")
        capacity = fitted.bounds.capacity_per_s if fitted.bounds is not None else None
        over = [o for c in g.cells if g.workload == OPEN and (o := overload(c, capacity, from_grid)) is not None]
        for row in fitted.mmcn:
            c = by_id[row.cell]
            checks.append(models.mmcn_check(row, c.think_time.cycle_cv if c.think_time else None, c.overall.count,
                                            tol["mmcn"]))
        curves.append(Curve(
            key=_key(g), label=label, workload=g.workload, x_axis=X_AXIS[g.workload], x_name=X_NAME[g.workload],
            think_ms=models.think_of(g.cells[0]) if g.workload == CLOSED else None, fixed=g.fixed,
            cells=[c.id for c in g.cells], x=[load_of(c) for c in g.cells],
            left_out=[LeftOut(cell=c.id, reason=r) for c, r in g.left_out], models=fitted, overload=over))
    # every cell (a point, left out, a spike) records its facet, so the report lays cells out by this rule alone
    cells = [c.model_copy(update={"facet": facet_of(c)} | ({"checks": [*c.checks, added[c.id]]} if c.id in added
                                                            else {})) for c in cells]
    return cells, curves, checks


def curves_of(cells: list[Cell]) -> list[Curve]:
    """The curves of cells alone, with no grid to give c, S or criteria (the live view's cells so far)."""
    return build(cells, {}, [], lambda cell_id, p: None, {"throughput_bound": 0.0, "mmcn": 0.0})[1]
