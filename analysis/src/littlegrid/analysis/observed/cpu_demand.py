"""CPU per request, written once: the demand law U = X·D read at each cell, D = U·cores/X over the steady window
(core-ms per request, on the server's cores as analysis/observed/server_cpu.py answers them per cell, Cell.server_cpu), and
over a curve the fit of busy cores against X that separates the marginal cost of a request from what runs whatever
the load. Findings, the curves' host limit and the arms read these figures from the summary; none computes its own."""

from __future__ import annotations

import numpy as np

from littlegrid.analysis.observed import server_cpu
from littlegrid.summary.model import Cell, CpuPerRequest, Run

SPREAD = 1.5  # a fit of busy cores against X needs the highest X at least this many times the lowest


def per_request(cell: Cell) -> CpuPerRequest | None:
    """The cell's CPU per request, D = U·cores/X on the server's cores as server_cpu.py answered them
    (Cell.server_cpu; None for a cell without a window's figures): "not measured" without a CPU figure of the
    server's host or a core count, never a guess and never the generator's host for a server elsewhere."""
    if cell.overall is None:
        return None
    cpu, x = cell.server_cpu, cell.overall.throughput_per_s
    if cpu is None or cpu.util is None or not cpu.cores:
        return CpuPerRequest(basis=server_cpu.NOT_MEASURED, words="not measured", cores=cpu and cpu.cores,
                             cpu_util=cpu and cpu.util, busy_cores=None, throughput_per_s=x, core_ms=None)
    cpu_util = cpu.util
    busy = cpu_util * cpu.cores  # core-seconds busy per second
    return CpuPerRequest(basis=cpu.basis, words=server_cpu.demand_words(cpu), cores=cpu.cores, cpu_util=cpu_util,
                         busy_cores=busy, throughput_per_s=x, core_ms=1000.0 * busy / x if x else None)


def attach(cells: list[Cell], run: Run) -> list[Cell]:
    """The cells with the server's CPU (analysis/observed/server_cpu.py's answer) and their CPU per request on it: the
    analysis stage's, before the curves and findings read them."""
    out = []
    for c in cells:
        c = c.model_copy(update={"server_cpu": server_cpu.of_cell(c, run)})
        out.append(c.model_copy(update={"cpu_per_request": per_request(c)}))
    return out


def measured(cell: Cell) -> CpuPerRequest | None:
    """The cell's CPU per request when it has a figure (None: not measured, or no completions)."""
    cost = cell.cpu_per_request
    return cost if cost is not None and cost.core_ms else None


def quoted(cells: list[Cell]) -> Cell | None:
    """The cell whose CPU per request a curve's findings quote: the highest throughput with a figure (where the
    cores are busiest with this load, so what runs whatever the load weighs least in U·cores/X)."""
    with_cost = [c for c in cells if measured(c) is not None]
    return max(with_cost, key=lambda c: measured(c).throughput_per_s) if with_cost else None


def marginal(costs: list[CpuPerRequest]) -> tuple[float, float] | None:
    """The demand law over a curve, U·cores = U_0·cores + X·D: (D in core-ms, the marginal cost of a request; U_0·cores,
    the cores busy whatever the load), by least squares of busy cores against X. None over fewer than two cells or
    X less than SPREAD-fold apart (the slope would be noise). D may come out 0 or below: the CPU did not grow with
    this load (a CPU kept busy by something else), which the caller reads as no claim."""
    points = [(c.throughput_per_s, c.busy_cores) for c in costs if c.core_ms]
    if len(points) < 2:
        return None
    xs, busy = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    if xs.max() < SPREAD * xs.min():
        return None
    slope, intercept = np.polyfit(xs, busy, 1)
    return 1000.0 * float(slope), float(intercept)
