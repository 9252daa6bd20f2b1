"""A curve's models: bounds, the USL fit, the knee, SLO capacity, the M/M/c//N prediction, overhead, the host's limit,
concurrency, shared cores, overloaded and left-out cells."""

from __future__ import annotations

from pydantic import Field
from littlegrid.summary.model.base import AxisValue, Record
from littlegrid.summary.model.cell import Trend


class BoundPoint(Record):
    """The asymptotic bounds at one load of a curve (load: N for a closed curve, the offered rate λ for an open one)."""
    load: float
    x_upper: float
    r_lower_ms: float


class Bounds(Record):
    """Closed: X(N) ≤ min(N/(D+Z), 1/D_max), R(N) ≥ max(D, N·D_max − Z), N* = (D+Z)/D_max. Open: X(λ) ≤ min(λ, 1/D_max),
    R(λ) ≥ D, n_star null. capacity_per_s = 1/D_max either way."""
    d_ms: float
    d_max_ms: float
    n_star: float | None
    capacity_per_s: float
    basis: str
    points: list[BoundPoint]


class UslPoint(Record):
    """The fitted USL at one load: X(N) = λN / (1 + σ(N−1) + κN(N−1))."""
    load: float
    x: float


class UslFit(Record):
    """The USL fitted to a closed curve's X(N) (analysis.modelling.usl), and the fitted curve at loads evenly spaced from its
    smallest to its largest N (what the report draws; empty when not fitted)."""
    ok: bool
    reason: str | None
    sigma: float | None
    kappa: float | None
    lambda_: float | None = Field(alias="lambda")
    r2: float | None
    n_peak: float | None
    points: list[UslPoint] = []


class Knee(Record):
    """The largest measured load still on the contention-free line (rule), beside N*."""
    load: float | None
    n_star: float | None
    rule: str


class SloCapacity(Record):
    """The largest load (N, or λ per second for an open curve) meeting one latency criterion."""
    criterion: str
    max_load: float | None
    how: str
    note: str | None


class MmcnPrediction(Record):
    think_ms: float
    users: int
    servers: int
    service_ms: float
    predicted_x: float
    measured_x: float
    rel_error: float
    predicted_r_ms: float
    measured_r_ms: float
    measured_service_ms: float | None
    realised_think_ms: float | None
    predicted_x_measured_inputs: float | None
    cell: str


class Overhead(Record):
    """R minus its lower bound max(D, N·D_max − Z) at each point of a closed curve (the gap, `excess_ms`; `spread_ms`
    from its least to its most, `mean_ms`), and how it changes with the load, judged against the cells' own noise,
    not by its spread (analysis.modelling.models.gap_trend). `trend`: "constant" when every cell's gap with its 95% interval
    lies within ±`tolerance_ms` of the mean gap (the equivalence margin, a quarter of that mean; `deviation_ms`: the
    farthest such interval reaches, null without every cell's standard error); else "rises" or "falls" when, of the
    `pairs` of cells, some differ that way beyond three standard errors and the margin (`pairs_rising`,
    `pairs_falling`: heavier minus lighter) and none the other; else "not shown". `grows`: the trend "rises", which a knee needs; a constant
    gap is a per-request overhead, not queueing. trend null: a summary of an older littlegrid (its tolerance_ms was
    three standard errors plus a quarter of the mean, against the spread)."""
    excess_ms: list[float]
    spread_ms: float
    tolerance_ms: float
    mean_ms: float
    grows: bool
    trend: str | None = None
    deviation_ms: float | None = None
    pairs: int | None = None
    pairs_rising: int | None = None
    pairs_falling: int | None = None


class HostLimit(Record):
    """What the measured cores allow (`basis` as CpuPerRequest's: the server's pinned CPUs, the host's shared with
    the generator, or the generator's host), by the demand law U·cores = U_0·cores + X·D: the CPU per request at
    `cell` (its CpuPerRequest, the figure findings quote for the curve), the throughput the cores allow, and the
    load that would reach it. Over cells with X apart, X_max comes from the fit: `marginal_core_ms` is its slope,
    the cost of one more request with what runs whatever the load (U_0, `idle_cores` = U_0·cores) left out; null
    over one cell, where X_max = cores/D (U_0 counted in: an upper bound of the cost, a lower one of X_max)."""
    cell: str
    cores: float
    cpu_util: float
    demand_core_ms: float
    max_per_s: float
    max_load: float | None
    marginal_core_ms: float | None = None
    idle_cores: float | None = None
    basis: str | None = None


class Concurrency(Record):
    """The requests in service at the curve's highest throughput, by Little's law at the server: L = X_max·D
    (analysis.modelling.models.concurrency). X_max is the highest throughput of successful requests among the curve's cells
    (`x_cell`): a request failed fast (a proxy's 502 past its upstream limit) holds no server for its service time,
    so only the successes' rate times the service time counts requests held. D is the mean R at the lightest cell
    (`d_cell`: the smallest N, or the smallest offered λ), where little or nothing queues. Each with its 95%
    interval: X's from the spread of its completions per second (sd/√seconds, scaled to the successes' share;
    Poisson √count/T without them), D's from its exact histogram (sd/√n); L's interval is the product of their ends
    (`low`, `high`), which covers at least as much as either (null without both). At a plateau L is the size of the
    limit that caps throughput, whatever it is (workers, connections, cores). On a closed curve X's interval holds
    its window edges' error (`x_edge_rel`, window.regular_edge_error). `d_below_knee`: whether the lightest cell is
    shown below the knee (`d_why` says how); when it is not, R there may hold queueing and L is an upper bound.
    `waiting`: on a closed curve, X·(R − D) at its heaviest cell (`waiting_cell`), the users neither thinking nor in
    service. The new fields are null in older summaries."""
    in_service: float
    low: float | None
    high: float | None
    x_max_per_s: float
    x_low_per_s: float | None
    x_high_per_s: float | None
    x_cell: str
    d_ms: float
    d_low_ms: float | None
    d_high_ms: float | None
    d_cell: str
    rule: str
    d_below_knee: bool | None = None
    d_why: str | None = None
    x_edge_rel: float | None = None
    waiting: float | None = None
    waiting_cell: str | None = None


class SharedCores(Record):
    """The processor-sharing model at a closed curve's heaviest timed cell (analysis/queueing/little.shared_cores): its
    `in_service` requests (how known: `in_service_basis`) sharing `cores` busy `cpu_util` each take about
    L/cores × S = `shared_ms`, S = `service_alone_ms` the lightest timed cell's (`light_cell`) time in service, itself
    shared when that cell had more in service than cores; `measured_ms` the heaviest cell's time in service."""
    cell: str
    light_cell: str
    in_service: float
    in_service_basis: str
    cores: float
    cpu_util: float
    service_alone_ms: float
    shared_ms: float
    measured_ms: float


class CurveModels(Record):
    """Every model of one curve: null or empty where it does not apply (USL, knee, overhead and M/M/c//N: closed
    curves only)."""
    bounds: Bounds | None
    usl: UslFit | None
    knee: Knee | None
    slo_capacity: list[SloCapacity]
    mmcn: list[MmcnPrediction]
    overhead: Overhead | None
    host_limit: HostLimit | None
    concurrency: Concurrency | None = None  # null: no cell with successes and a mean R (or an older summary)
    shared_cores: SharedCores | None = None  # null: the cores not saturated by more in service than cores


class Overload(Record):
    """An open cell offered more than its curve's capacity: no steady state (the queue grew for the whole cell)."""
    cell: str
    offered_per_s: float
    served_per_s: float
    shortfall_noise_per_s: float
    capacity_per_s: float | None
    resource: str | None
    busy: float | None
    servers: float | None
    cpu_util: float | None
    trend: Trend | None
    overloaded: bool
    explanation: str


class LeftOut(Record):
    """A cell of a curve's facet that is no point of it, and why (failed, no samples, an outage…)."""
    cell: str
    reason: str


class Curve(Record):
    """One curve: the cells that differ only in load, in order of load. x is N for a closed workload and the offered
    rate λ for an open one; `label` names it by the axes that tell the curves apart; its index in Summary.curves
    is its colour in every chart and table."""
    key: str
    label: str
    workload: str
    x_axis: str
    x_name: str
    think_ms: float | None
    fixed: dict[str, AxisValue]
    cells: list[str]
    x: list[float]
    left_out: list[LeftOut]
    models: CurveModels
    overload: list[Overload]
