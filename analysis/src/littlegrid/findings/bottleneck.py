"""The bottleneck behind a curve's saturation: the resource at its limit (a pool full, the CPU, the generator, a
throttle, connections), or the laws' limit when nothing was scraped, and what to measure next."""

from __future__ import annotations

import re

from littlegrid.analysis.modelling.models import CONFIDENCE_Z
from littlegrid.analysis.observed import cpu_demand, server_cpu
from littlegrid.analysis.queueing.laws import GENERATOR_OVERHEAD_MS
from littlegrid.findings import precision, proxy
from littlegrid.findings.base import (THROTTLE, Figure, Finding, cell_words, cells_words, failed, fields, knob, load,
                                      load_words, ms, num, overhead_explains, pct, pool_kind, pool_size_name,
                                      pool_words, rate, span, think_excess_ms, threads_max, users, where_of)
from littlegrid.findings.capacity import (BUSY_SHARE, CPU_BUSY, STRETCH, THROTTLE_QUEUE, Plateau, from_grid, mean_of,
                                          served)
from littlegrid.findings.connections import connection_errors, connections_finding
from littlegrid.summary.model import Cell, Summary


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
    figures = {"throughput_per_s": mean_of(xs), "users": users(cells[0])}
    where = where_of(cells) or tuple(p.group.items())
    on = cells_words(cells, p.curve)

    def found(resource, statement, standing, why, evidence, **extra):
        return Finding("bottleneck", statement, standing, why, tuple(evidence),
                       fields(figures | extra), where, ids, resource)

    servers = [c.server for c in cells]
    cpus = [num(server_cpu.util(c)) for c in cells]
    cpu = mean_of(cpus)
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
    r_server = mean_of([num(s.service_mean_ms) if s is not None else None for s in servers])
    s_grid = num(p.bound.d_ms) if from_grid(p.bound) else None
    stretched = r_server is not None and s_grid is not None and r_server > STRETCH * s_grid
    pool = [threads_max(summary, c) for c in cells]
    full = [b is not None and t is not None and b >= BUSY_SHARE * t for b, (t, _) in zip(busy, pool)]
    server_limit = any(full) or (cpu is not None and cpu >= CPU_BUSY)
    if sizing and not server_limit:
        c, k = sizing[0]
        return found("generator", f"The generator sets X = {rate(mean_of(xs))} at {on}: its thread pool is nearly "
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
        x = mean_of(xs)
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
            generator = mean_of([num(c.host.cpu_util_mean) if c.host is not None else None for c in cells])
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
        return found("throttle", f"The throttle (K = {k:g}) caps X = {rate(mean_of(xs))} at {on}: on average "
                     f"{mean_of(queue):.3g} requests wait in its queue, {ms(mean_of(waits))} each.", "holds",
                     "the throttle's queue is never empty while X stays level",
                     [Figure("throttle queue", q, "requests", c.id) for q, c in zip(queue, cells)],
                     throttle_queue=mean_of(queue), throttle_k=k)

    seen = [f for f, b in zip(full, busy) if b is not None]
    if seen and all(seen):
        t, how = pool[0]
        blind = [c for c, b in zip(cells, busy) if b is None]
        busy_words = ", ".join(f"{b:.3g} at {load_words(p.curve, load(p.curve, c))}"
                               for b, c in zip(busy, cells) if b is not None)
        named = pool_words(summary, cells[0])
        return found("thread_pool", f"{named[0].upper() + named[1:]} caps X = {rate(mean_of(xs))} at {on}: of its "
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
                     busy_threads=mean_of(busy), threads_max=t, pool=named,
                     pool_kind=pool_kind(summary, cells[0]) or "unknown")

    connection = {c.id: connection_errors(c) for c in cells}
    if any(connection.values()):
        return connections_finding(summary, [c for c in cells if connection[c.id]], p.curve, figures)

    missing = [c for c, b in zip(cells, busy) if b is None]
    t, how = pool[0]
    ceiling = 1000.0 / p.bound.d_max_ms if p.bound and num(p.bound.d_max_ms) else None
    c_grid = p.bound.d_ms / p.bound.d_max_ms if s_grid is not None and ceiling else None
    if missing and t is not None and c_grid is not None and abs(mean_of(xs) / ceiling - 1) <= 0.1 \
            and round(c_grid) == round(t):
        named = pool_words(summary, cells[0])
        return found("thread_pool", f"{named[0].upper() + named[1:]} probably caps X = {rate(mean_of(xs))} at {on}: "
                     f"X is {mean_of(xs) / ceiling:.0%} of c/S with c = {how}; cannot confirm busy threads: "
                     f"{no_metrics(missing[0])} in {', '.join(cell_words(c) for c in missing)}.",
                     "suggests",
                     "X matches the thread pool's c/S, but the server's busy-thread count is missing",
                     [Figure("X", x, "/s", c.id) for x, c in zip(xs, cells)], bound_per_s=ceiling, threads_max=t,
                     pool=named, pool_kind=pool_kind(summary, cells[0]) or "unknown")
    if short:
        c, k = short[0]
        return found("generator", f"The generator may set X = {rate(mean_of(xs))} at {on}: {starved_words} "
                     f"({cell_words(c)}: {k.explanation}), while {cpu_name} is "
                     f"{'unknown' if cpu is None else pct(cpu)} and no server resource is seen full.", "suggests",
                     "the load asked for was not put on beyond per-cycle overhead, but the cores were not saturated",
                     [Figure(f"{k.name} relative error", num(k.rel_error), "", c.id) for c, k in short])
    limit = _laws_limit(summary, p, xs, missing, found)
    if limit is not None:
        return limit
    return found("unknown", f"X stays level at {rate(mean_of(xs))} at {on}, and cannot tell what caps it: "
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
    return mean_of([r.util for r in rows]), rows[0].words


def _absent(summary: Summary, p: Plateau, missing: list[Cell]) -> str:
    """What is missing to name the resource, each thing once: the server's metrics (with why, when the summary
    says), its CPU."""
    absent = []
    if missing:
        absent.append(no_metrics(missing[0]))
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
    statement = (f"X stays level at {rate(mean_of(xs))} at {cells_words(p.cells, p.curve)}: the service holds "
                 f"{held} request{'' if held == 'about 1' else 's'} at once ({rate(conc.x_max_per_s)} × "
                 f"{ms(conc.d_ms)}, R{at}): a limit of {held.removeprefix('about ')} ({kinds}) caps it.{bound} "
                 f"{no_metrics(missing[0])[0].upper() + no_metrics(missing[0])[1:]} and {cpu_words}: to tell "
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


def no_metrics(cell: Cell) -> str:
    """"no server metrics" with why, once: "no server metrics (3 scrapes failed)"; when a source of the target's
    answered (its host's node_exporter, a process CPU) what is missing is narrower, and said so: the sentence
    beside it may quote that source's figures."""
    observed = cell.observed.sources if cell.observed is not None else ()
    if any(s.target_host and s.readings for s in observed):
        return "nothing scraped counts the server's requests or busy workers" + _why_missing(cell)
    return "no server metrics" + _why_missing(cell)
