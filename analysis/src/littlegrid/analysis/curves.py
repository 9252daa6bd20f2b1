"""Which cells form a curve, and each curve's models and overloaded cells: the one grouping every stage reads.

A curve is the cells that differ only in load: N for a closed workload, the offered rate λ for an open one. Every
other axis is fixed along it, and the axes whose values differ between curves name it ("server.tomcat.threads.max =
10"). Findings, the report, the comparison and the live view iterate `Summary.curves`; none of them groups cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


from littlegrid.analysis import models, server_cpu
from littlegrid.analysis.laws import not_made, throughput_bound
import numpy as np

from littlegrid.summary.model import (Bounds, Cell, Check, Curve, CurveModels, HostLimit, LeftOut, Overhead, Overload,
                                      SloCapacity, Trend)

REPETITION = ("rep", "repetition")
CLOSED, OPEN = "closed", "open"
X_AXIS = {CLOSED: "users", OPEN: "rate_per_s"}
X_NAME = {CLOSED: "N", OPEN: "λ"}
CPU_BUSY = 0.9        # host CPU utilisation at which the cores count as saturated (findings use it too)
NEAR_CAPACITY = 0.9   # served at least this share of the grid's c/S: the server is at its capacity
TREND_P = 0.01        # Kendall's test of R against time: rising when p is below this and τ > 0
TREND_MIN_BUCKETS = 6
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


def facet_key(cell: Cell) -> tuple:
    """The one rule for which cells share a curve: the same workload and every axis but the load and the
    repetition. Cells outside any curve (a spike) use it to be grouped the same way."""
    workload = workload_of(cell)
    x_axis = X_AXIS.get(workload, "users")
    return (workload,) + tuple((k, v) for k, v in cell.axes.items() if k not in (x_axis, *REPETITION))


def why_left_out(cell: Cell) -> str | None:
    """Why a cell is no point of its curve (None: it is one). Failed cells, cells without window figures and
    bursts never are: their X and R describe no steady state."""
    if cell.status != "complete":
        return f"{cell.status}: {cell.reason}" if cell.reason else cell.status
    if cell.outage is not None:
        return (f"an outage: no request was answered from {cell.outage.began_s:.3g} s into the cell for "
                f"{cell.outage.lasted_s:.3g} s")
    if cell.overall is None or not cell.overall.count:
        return "no samples in its steady window"
    if workload_of(cell) == "spike":
        return "a spike: users released at once have no steady state"
    if load_of(cell) is None:
        return "no load (N or λ) known"
    return None


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

def _steady_medians(cell: Cell) -> list[tuple[float, float]] | None:
    """(t, per-bucket median R) of the steady window's buckets that had samples; None without series."""
    s = cell.series
    if s is None:
        return None
    return [(t, p) for t, p in zip(s.t_s, s.p50_ms) if p is not None and s.window_start_s <= t < s.window_end_s]


def thirds(cell: Cell) -> tuple[float, float] | None:
    """The median of the per-bucket median R over the steady window's first and last thirds of buckets (the
    first_ms and last_ms of trend); None when trend tests nothing (no series, fewer than TREND_MIN_BUCKETS)."""
    points = _steady_medians(cell)
    if points is None or len(points) < TREND_MIN_BUCKETS:
        return None
    third = max(1, len(points) // 3)
    return _median([p for _, p in points[:third]]), _median([p for _, p in points[-third:]])


def trend(cell: Cell) -> Trend | None:
    """Kendall's τ of the per-bucket median response time against time, over the steady window's buckets."""
    points = _steady_medians(cell)
    if points is None:
        return None
    if len(points) < TREND_MIN_BUCKETS:
        return Trend(buckets=len(points), tau=None, p=None, first_ms=None, last_ms=None, rising=False)
    from scipy import stats as scipy_stats  # noqa: PLC0415 (lazy: 1-2 s to import here, for this test only)

    ts, ps = zip(*points)
    tau, p = scipy_stats.kendalltau(ts, ps)
    first, last = thirds(cell)
    tau = None if tau is None or math.isnan(tau) else float(tau)
    p = None if p is None or math.isnan(p) else float(p)
    rising = tau is not None and p is not None and tau > 0 and p < TREND_P and last > first
    return Trend(buckets=len(ps), tau=tau, p=p, first_ms=first, last_ms=last, rising=rising)


def _median(values) -> float:
    v = sorted(values)
    k = len(v) // 2
    return float(v[k]) if len(v) % 2 else (v[k - 1] + v[k]) / 2.0


def saturated_resource(cell: Cell, capacity: float | None, from_grid: bool) -> tuple[str | None, float | None,
                                                                                     float | None, float | None]:
    """(the server resource that was full, busy, servers, CPU utilisation): the thread pool busy c of c, the server's
    cores saturated, or (no server metrics) X at the grid's c/S; None when nothing shows the server at its limit."""
    s = cell.server
    busy = s.busy_threads_mean if s is not None else None
    servers = (s.threads_max if s is not None else None) or _number(cell.axes.get("server.tomcat.threads.max"))
    cpu = server_cpu.util(cell.host)
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
    rising = trend(cell)
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


def _standard_error_ms(cell: Cell) -> float | None:
    """The standard error of the cell's mean R from its exact elapsed histogram (sd/√n), None without one."""
    h = cell.histogram
    if h is None or not h.elapsed_ms.counts:
        return None
    v, n = np.asarray(h.elapsed_ms.values, float), np.asarray(h.elapsed_ms.counts, float)
    total = n.sum()
    if total < 2:
        return None
    mean = (v * n).sum() / total
    return float(math.sqrt(((v - mean) ** 2 * n).sum() / (total - 1) / total))


def overhead(cells: list[Cell], bound: Bounds) -> Overhead | None:
    """R − max(D, N·D_max − Z) at every point, and how it changes with the load: judged against the cells' own
    standard errors (models.gap_trend), never by its spread against a share of its mean."""
    lower = {p.load: p.r_lower_ms for p in bound.points}
    rows = [(c, c.overall.mean_ms - lower[load_of(c)]) for c in cells
            if c.overall.mean_ms is not None and load_of(c) in lower]
    if len(rows) < 2:
        return None
    excess = [e for _, e in rows]
    t = models.gap_trend([load_of(c) for c, _ in rows], excess, [_standard_error_ms(c) for c, _ in rows])
    return Overhead(excess_ms=excess, spread_ms=max(excess) - min(excess), tolerance_ms=t.margin_ms,
                    mean_ms=sum(excess) / len(excess), grows=t.trend == "rises", trend=t.trend,
                    deviation_ms=t.deviation_ms, pairs=t.pairs, pairs_rising=t.rising, pairs_falling=t.falling)


def host_limit(g: Members, cores: float | None, bound: Bounds | None) -> HostLimit | None:
    """The load the server's cores allow (the host's, or those it was pinned to: analysis.server_cpu), by the demand
    law over those cores: busy core-time per second U·cores = U_0·cores + X·D_cpu, where U_0 is what runs whatever
    the load (other processes, the JVMs' idle work). Over two cells or more with X apart, D_cpu is the slope of
    U·cores against X (least squares) and the cores left after U_0 allow X_max = (cores − U_0·cores)/D_cpu, never
    less than the highest X measured; a slope not above 0 says the CPU does not grow with this load, so it sets no
    limit here (None). One cell: D_cpu = U·cores/X, an upper bound (U_0 counted in). For a closed curve the N that
    reaches X_max on the contention-free line, X_max·(D+Z)."""
    if not cores:
        return None
    rows = [(c, u, c.overall.throughput_per_s) for c in g.cells
            if (u := server_cpu.util(c.host)) and c.overall.throughput_per_s]
    if not rows:
        return None
    xs = np.array([x for _, _, x in rows])
    busy = np.array([u * cores for _, u, _ in rows])  # core-seconds per second
    c, util, x_at = max(rows, key=lambda r: r[2])
    if len(rows) >= 2 and xs.max() >= 1.5 * xs.min():
        slope, intercept = np.polyfit(xs, busy, 1)
        if slope <= 0:
            return None
        intercept = max(0.0, float(intercept))
        demand = 1000.0 * float(slope)
        max_x = max(float(xs.max()), (cores - intercept) * 1000.0 / demand)
    else:
        demand = 1000.0 * util * cores / x_at
        max_x = cores * 1000.0 / demand
    if g.workload == OPEN:
        max_load = max_x
    else:
        z = models.think_of(g.cells[0])
        d = bound.d_ms if bound is not None else g.cells[0].overall.mean_ms
        max_load = max_x * (d + z) / 1000.0 if z is not None and d is not None else None
    return HostLimit(cell=c.id, cores=cores, cpu_util=util, demand_core_ms=demand, max_per_s=max_x,
                     max_load=max_load)


def _models(g: Members, service, slos, percentile_of, cores: float | None) -> CurveModels:
    loads = [load_of(c) for c in g.cells]
    if g.workload == OPEN:
        bound = models.bounds(g.cells, service, open_=True)
        return CurveModels(bounds=bound, usl=None, knee=None, mmcn=[], overhead=None,
                           slo_capacity=models.slo_capacity(g.cells, loads, slos, percentile_of, unit="λ"),
                           host_limit=host_limit(g, cores, bound))
    bound = knee = None
    if models.think_of(g.cells[0]) is not None:  # bounds and knee need Z
        bound = models.bounds(g.cells, service)
        knee = models.knee(g.cells, bound)
    mmcn = [row for c in g.cells if (row := models.mmcn_prediction(c, service)) is not None]
    slo: list[SloCapacity] = models.slo_capacity(g.cells, loads, slos, percentile_of)
    return CurveModels(bounds=bound, usl=models.usl_fit(g.cells), knee=knee, slo_capacity=slo, mmcn=mmcn,
                       overhead=overhead(g.cells, bound) if bound is not None else None,
                       host_limit=host_limit(g, cores, bound))


def build(cells: list[Cell], services: dict, slos, percentile_of, tol: dict,
          cores: float | None = None) -> tuple[list[Cell], list[Curve], list[Check]]:
    """(the cells with each curve point's throughput-bound check added, the curves, the grid-level checks:
    M/M/c//N agreement). services: cell id -> the grid's c and S for it (analysis.cells.Service); cores: the
    server's (analysis.server_cpu.cores), for what its CPU allows."""
    groups = group(cells)
    added: dict[str, Check] = {}
    curves, checks = [], []
    by_id = {c.id: c for c in cells}
    for g, label in zip(groups, _labels(groups)):
        service = services.get(g.cells[0].id)
        for c in g.cells:
            added[c.id] = _bound_check(c, services.get(c.id), g.cells[0], tol)
        fitted = _models(g, service, slos, percentile_of, cores)
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
    cells = [c.model_copy(update={"checks": [*c.checks, added[c.id]]}) if c.id in added else c for c in cells]
    return cells, curves, checks


def curves_of(cells: list[Cell]) -> list[Curve]:
    """The curves of cells alone, with no grid to give c, S or criteria (the live view's cells so far)."""
    return build(cells, {}, [], lambda cell_id, p: None, {"throughput_bound": 0.0, "mmcn": 0.0})[1]
