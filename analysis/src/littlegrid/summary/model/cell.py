"""A cell's checks, outages and stalls, engine shares, trend and placement, and the cell record that holds every
family."""

from __future__ import annotations

from littlegrid.summary.model.base import AxisValue, Record
from littlegrid.summary.model.histograms import Histogram
from littlegrid.summary.model.observed import Observed
from littlegrid.summary.model.reading import CellIntervals, Intended, Precision, Reading, Stop, Users, Window
from littlegrid.summary.model.series import LabelSeriesSet, Series
from littlegrid.summary.model.server import CpuPerRequest, Host, Server, ServerCpu
from littlegrid.summary.model.statistics import Errors, LabelStats, Stats
from littlegrid.summary.model.think import ThinkTime


class Check(Record):
    """One verdict: value against expected, relative error against tolerance; passed null when not made."""
    name: str
    cell: str | None
    value: float | None
    expected: float | None
    rel_error: float | None
    tolerance: float | None
    passed: bool | None
    explanation: str


class OutagePart(Record):
    """The part of a cell's window on one side of an outage: its length, the requests completed in it and how many
    failed, their throughput (every request, failed or not, per second of the part), mean response time and error
    rate."""
    length_s: float
    count: int
    errors: int
    throughput_per_s: float | None
    mean_ms: float | None
    error_rate: float | None


class Outage(Record):
    """A stretch of the cell in which no request was answered and requests failed or timed out, or after which no
    answer came (the server or target died, hung or refused every connection; analysis/steady/outage.py, its rule): from
    began_s seconds after the cell's first sample started, for lasted_s, to the cell's end unless recovered.
    failed: the requests that completed in it (none answered), by error class, the most frequent first
    (error_class; null when none completed); failed_in_window: how many of them completed inside the steady window.
    figures: the cell's figures are the "whole" window's, a recovered outage inside it (its parts `before` and
    `after` it given apart), those of the part "before" it (the server never came back: the window ends where it
    began), or "none" (none left). "after" (the part after it) only in summaries written before stalls were told
    from outages."""
    began_s: float
    lasted_s: float
    recovered: bool
    failed: int
    failed_per_s: float | None
    failed_by_class: dict[str, int]
    error_class: str | None
    figures: str
    rule: str
    failed_in_window: int = 0
    before: OutagePart | None = None
    after: OutagePart | None = None


class Stall(Record):
    """A stretch of the cell in which no request was answered, nothing failed, and the requests held through it
    were answered after it (analysis/steady/outage.py, its rule): the server paused and came back. From began_s seconds
    after the cell's first sample started, for lasted_s; held: the requests in flight at its start (started at or
    before it began, completed at or after its end), held_failed of them failed when released, the quickest took
    shortest_ms and the longest longest_ms; joined: those that started while it lasted and were answered after it
    (they waited part of it).
    in_window: whether it overlaps the steady window (a stall in the warm-up is trimmed with it). The cell keeps
    its whole window: the held requests stay in its figures."""
    began_s: float
    lasted_s: float
    held: int
    held_failed: int
    shortest_ms: float
    longest_ms: float
    in_window: bool
    rule: str
    joined: int | None = None  # started while it lasted and answered after it (null in older summaries)
    joined_longest_ms: float | None = None  # the longest of those


class EngineShare(Record):
    """One remote engine's part of a distributed cell (its rows by thread-name prefix): the threads the runner gave
    it and those seen, its samples, throughput, response time and error rate in the window, and its first sample
    start and last sample end over the whole cell (epoch ms), which show whether the engines' clocks agree."""
    engine: str
    threads: int | None
    threads_seen: int
    count: int
    throughput_per_s: float | None
    mean_ms: float | None
    sd_ms: float | None
    error_rate: float | None
    first_start_ms: int | None
    last_end_ms: int | None
    clock_offset_s: float | None = None  # its clock against the engines' median (analysis.workload.engines.clock_offsets_s)
    # the share of the cell's samples its threads should deliver when the engines run different mixes of load groups
    # (analysis.workload.engines.EngineSharesAccumulator.expected_shares); None: its share of the threads
    expected_share: float | None = None
    # what that offset was measured against: "controller" (when the controller's log saw it start and finish) or
    # "engines" (the other engines' first and last samples)
    clock_against: str | None = None


class Trend(Record):
    """Whether response time drifted through a cell's window (analysis/steady/trend.py): Kendall's τ of the per-bucket median
    R against time over the window's buckets with samples, its two-sided p-value, and the median of those medians in
    the window's first and last thirds with their distribution-free intervals (order statistics; interval_level: the
    coverage the smaller third's interval has). rising: R rose by the drift rule (Kendall's p < 0.01, the thirds'
    intervals apart and the larger median beyond the tolerance; in older summaries τ > 0, p < 0.01, last above first)."""
    buckets: int
    tau: float | None
    p: float | None
    first_ms: float | None
    last_ms: float | None
    rising: bool
    first_low_ms: float | None = None
    first_high_ms: float | None = None
    last_low_ms: float | None = None
    last_high_ms: float | None = None
    interval_level: float | None = None
    # the drift rule's verdict (analysis/steady/trend.drift at drift_tolerance, the grid's steady_r): "rose", "fell" or null
    # (none, or an older summary); rising is "rose"
    drift: str | None = None
    drift_tolerance: float | None = None


class TargetPlacement(Record):
    """Where the service under test ran, as the run recorded it before any load: `placement` "this_host" (a
    loopback address or one of this host's own), "elsewhere" (another host; a network namespace is one), or
    "unknown" (JTL files, a folder of an older littlegrid). The generator's host figures are the server's only
    for "this_host"."""
    host: str | None
    port: int | None
    addresses: list[str] = []  # what `host` resolved to when the run started
    placement: str = "unknown"


class Cell(Record):
    """One cell: what it is, how it was read and trimmed, and everything measured in its window."""
    id: str
    axes: dict[str, AxisValue]
    status: str
    reason: str | None
    warnings: list[str]
    reading: Reading | None
    window: Window | None
    users: Users | None
    intended: Intended
    overall: Stats | None
    labels: dict[str, LabelStats]
    errors: Errors | None
    label_series: LabelSeriesSet | None
    think_time: ThinkTime | None
    server: Server | None
    host: Host | None
    series: Series | None
    histogram: Histogram | None
    checks: list[Check]
    outage: Outage | None = None
    # the axes that set the cell's curve apart besides its think time (analysis.modelling.curves.facet_of), as "k=v,…" ("":
    # none): cells of one facet differ only in load, think time and repetition. None: a summary of an older littlegrid
    facet: str | None = None
    stalls: list[Stall] = []  # the stalls of the cell, in time order
    # every outage of the cell in time order, `outage` (the recorded one: its figures and parts) among them; the
    # others' failures stay among the window's errors. Empty in older summaries, which recorded one
    outages: list[Outage] = []
    engine_shares: list[EngineShare] | None = None  # a distributed cell's engines, in remote_hosts order
    cpu_per_request: CpuPerRequest | None = None  # null: a cell without a window (failed, no samples)
    trend: Trend | None = None  # R through the window (analysis/steady/trend.py): the steady check and overload read it
    server_cpu: ServerCpu | None = None  # null: a cell without a window
    observed: Observed | None = None  # null: nothing was scraped ([observe] empty, or a JTL without a run folder)
    # the cell's own target when an axis moved it from the run's (a port or host axis: two deployments compared
    # by their address), placed as the runner recorded it; null: the run's (Run.target)
    target: TargetPlacement | None = None
    precision: Precision | None = None  # null: a cell without a window, or an older summary
    stop: Stop | None = None  # null: a bare JTL (no manifest); an older manifest reads as rule "duration"
    intervals: CellIntervals | None = None  # null: a cell without a steady-window histogram, or an older summary
