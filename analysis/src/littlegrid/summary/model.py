"""The typed model of summary.json (schema littlegrid.summary/4): every field `littlegrid analyze` writes, its type,
and whether it may be null. The reader validates every summary against it; docs/summary.schema.json is generated
from it (`python -m littlegrid.summary.schema`). What each figure means: docs/analysis.md and contract §5.

Conventions: a field without a default is always written (null where the type allows it: "could not be
computed"); a field with a default may be absent in summaries of other inputs (a bare JTL has no server). Times are
milliseconds (`_ms`) or seconds (`_s`), rates per second (`_per_s`). Unknown fields are refused: a field added to the
analysis is added here first, or the tests that validate every summary they produce fail.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

AxisValue = int | float | str | bool


class Record(BaseModel):
    """Every part of the summary: immutable, strict types (no "3" for 3), no field the model does not name."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# ----- the statistics of a set of samples (a cell's window, or one label in it)

class Pdf(Record):
    """Probability density of elapsed over log-spaced bins (docs/report.md states the bin rule)."""
    edges_ms: list[float]
    density: list[float]


class Ccdf(Record):
    """P(elapsed ≥ x_ms) at the distinct elapsed values (thinned to a point budget)."""
    x_ms: list[float]
    p: list[float]


class Tail(Record):
    """The tail's shape: Hill index over the k largest samples above threshold_ms, and a verdict in words."""
    hill_alpha: float | None
    k: int
    threshold_ms: float | None
    excess_cv: float | None
    verdict: str


class Counts(Record):
    """Shared by the cell's statistics and a label's: counts, error rate, throughput, mean, exact percentiles."""
    count: int
    successes: int
    errors: int
    error_rate: float | None
    errors_by_class: dict[str, int]
    throughput_per_s: float | None
    successes_per_s: float | None
    mean_ms: float | None
    min_ms: float | None
    p50_ms: float | None
    p90_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    max_ms: float | None
    latency_mean_ms: float | None
    connect_mean_ms: float | None


class Stats(Counts):
    """A cell's steady-window statistics (contract STATS) with the shape of its latency distribution."""
    pdf: Pdf
    ccdf: Ccdf
    tail: Tail


class ErrorCount(Record):
    type: str
    count: int


class LabelStats(Counts):
    """One label's statistics (no distribution shape: thousands of labels must keep the file small)."""
    bytes_mean: float | None
    sent_bytes_mean: float | None
    received_bytes_per_s: float | None
    sent_bytes_per_s: float | None
    transaction: bool
    top_errors: list[ErrorCount]


class ErrorType(Record):
    type: str
    count: int
    share_of_errors: float
    per_s: float | None


class Errors(Record):
    """The window's errors by type, largest first; the rarest beyond the listed ones only counted."""
    by_type: list[ErrorType]
    types_not_listed: int
    errors_not_listed: int


# ----- how the cell was read, trimmed and loaded

class Reading(Record):
    rows_read: int
    rows_skipped: int
    transaction_rows_excluded: int
    absent_columns: list[str]
    format: str
    # every request of the cell's files, window or not (Transaction Controller rows aside), and how many failed:
    # what a sentence about the file's errors counts (None: a summary written before they were counted)
    samples: int | None = None
    failed: int | None = None


class Window(Record):
    """The steady window [start_ms, end_ms] (epoch ms) and what trimming it removed. warmup_s is the warm-up
    trimmed; the warm-up rule's record (analysis/steady/steady_state.py, docs/analysis.md "Warm-up from the data, precision
    from batch means") says where it came from: the floor asked for (the grid's warmup_s, analyze --warmup),
    MSER-5's own truncation (null: it found none), whether the per-second series settled (null: nothing was looked
    for, a fixed trim or an older summary) and the series whose truncation was taken ("completions", "response
    time", "floor": no longer warm-up found, "too short": too few seconds to look for one, "stop": the warm-up the
    runner's rule found when it answered the cell, later than the one found on the whole file)."""
    start_ms: int
    end_ms: int
    length_s: float
    warmup_s: float
    cooldown_s: float
    samples_trimmed_before: int
    samples_trimmed_after: int
    warmup_floor_s: float | None = None
    warmup_detected_s: float | None = None
    warmup_settled: bool | None = None
    warmup_by: str | None = None
    # "stop": the cool-down trimmed is the file's tail after the seconds a precise cell's rule judged, so the window
    # is the one it answered on (its length, not the cool-down asked); null: the cool-down asked
    cooldown_by: str | None = None


class Precision(Record):
    """How precisely the window knows X and mean R (analysis/steady/steady_state.precision): non-overlapping batch means,
    `batches` of `batch_s` seconds over the window's whole seconds (`window_s`), each estimate with its half-width
    at `level` relative to it (null: fewer than 3 batches, or no answers). X counts the window's answered
    requests per second (failures left out, as the runner's stopping rule counts them: they agree with
    Stats.throughput_per_s when nothing failed); mean R is their mean elapsed. `drift_rel`: the bias a warm-up
    settled only as an immaterial drift left (steady_state.MATERIAL_BIAS), already added to the drifting series'
    half-width (null: none). `edge_rel`: a closed workload's window-edge error in X's half-width (window.
    regular_edge_error at the level's normal quantile, in quadrature with the batch means'; null: open, or none).
    `mean_coverage`: the lowest coverage mean R's interval was measured to have on windows of this kind when that is
    short of `level` by more than 2 points (an open workload holding 1.5 requests or more: steady_state.
    OPEN_MEAN_COVERAGE, bench/bench_coverage.py); null: measured at 93% or more."""
    level: float
    window_s: int
    batches: int
    batch_s: int
    throughput_per_s: float
    throughput_rel: float | None
    mean_ms: float | None
    mean_rel: float | None
    drift_rel: float | None = None
    edge_rel: float | None = None
    mean_coverage: float | None = None

    @property
    def worst_rel(self) -> float | None:
        """The wider of X's and mean R's relative half-widths (None while either has none): what a precision asked
        of both must bound."""
        rels = (self.throughput_rel, self.mean_rel)
        return None if None in rels else max(rels)


class Interval(Record):
    """One figure of a cell with its within-run 95% interval and standard error (null: no interval)."""
    value: float | None
    lo: float | None
    hi: float | None
    se: float | None


class CellIntervals(Record):
    """The within-run 95% intervals of a cell's figures (analysis/statistics/intervals.py), computed once by the analysis: the
    history's gate and the comparison read them. X, mean R and the percentiles from a bootstrap over the window's
    blocks of seconds (`reps` replicates, a fixed `seed`: the same summary, the same intervals), a percentile's
    standard error never below JMeter's millisecond resolution (1/√12 ms); the error rate by Wilson's interval. They
    cover one run's sampling error only: two runs of one system also differ by their own offsets, which the history's
    noise adds (docs/history.md)."""
    level: float
    method: str
    reps: int
    seed: int
    throughput_per_s: Interval
    mean_ms: Interval
    p50_ms: Interval
    p90_ms: Interval
    p99_ms: Interval
    error_rate: Interval


# the manifest's "stop" record (docs/contracts.md): the runner writes these, the analysis accepts exactly these
STOP_RULES = ("precise", "duration")
STOP_REASONS = ("precise", "slo", "max_s", "duration", "interrupted", "failed")
STOP_SLO = ("met", "not met")  # Stop.slo: what an SLO stop decided


class Stop(Record):
    """Why the runner stopped the cell (the manifest's "stop" record, docs/contracts.md): by `rule` "precise"
    ([cell] until = "precise") or "duration"; `reason` "precise" (answered at `at_s`, seconds from the first
    sample's start), "slo" (a search probe whose SLO verdict was clear first), "max_s" (the ceiling reached before the precision asked), "duration", "interrupted" or
    "failed"; the precision asked (relative half-width), X's and mean R's relative half-widths at the stop, the
    warm-up the rule found, and its words. `slo`: what a reason "slo" stop decided, "met" or "not met" (by the
    sequential rule of search/early_stop.py; null for every other reason). A manifest without one reads as rule
    "duration"."""
    rule: str
    reason: str
    at_s: float | None = None
    precision_asked: float | None = None
    x_rel: float | None = None
    r_rel: float | None = None
    warmup_s: float | None = None
    why: str | None = None
    slo: str | None = None


USERS_SPLIT_BASIS = "users split across engines"  # Users.basis of a run whose N the runner split across engines


class Users(Record):
    n: int
    plan_users: int | None
    engines: int | None
    all_threads_max: int | None
    threads_seen: int
    basis: str


class Intended(Record):
    """What the plan was asked to do (from the manifest; all null for a bare JTL)."""
    think_ms: float | None
    think_dist: str | None
    think_offset_ms: float | None
    rate_per_s: float | None
    workload: str | None


# ----- series over the whole cell

class LabelSeries(Record):
    throughput: list[float]
    errors: list[float]
    p50_ms: list[float | None]
    p90_ms: list[float | None]
    p99_ms: list[float | None]


class LabelSeriesSet(Record):
    rule: str
    labels: dict[str, LabelSeries]


class Series(Record):
    """Per bucket of bucket_s seconds since t0_ms (the first sample's start), warm-up and cool-down included."""
    t0_ms: int
    bucket_s: int
    window_start_s: float
    window_end_s: float
    t_s: list[float]
    throughput: list[float]
    errors: list[float]
    p50_ms: list[float | None]
    p90_ms: list[float | None]
    p99_ms: list[float | None]
    codes: dict[str, list[float]]
    active_threads: list[float | None]
    in_flight: list[float | None]
    busy_threads: list[float | None]
    load1: list[float | None]


# ----- think time

class KsExponential(Record):
    d: float | None
    p: float | None
    mean_ms: float | None


class PoissonFit(Record):
    """Chi-square fit of the realised gaps to offset + Poisson(λ) (JMeter's Poisson Random Timer)."""
    d: float | None
    p: float | None
    lambda_ms: float | None
    offset_ms: float | None
    test: str
    chi2: float | None
    dof: int | None


class GapHistogram(Record):
    """The realised gaps per bin [edges_ms[i], edges_ms[i+1]) (gaps beyond the last edge counted in overflow), and
    beside them the gaps each bin should hold under the nulls the think-time tests measure against
    (analysis.workload.think_fits.expected_counts): the exponential of ks_exponential.mean_ms, and offset + Poisson(λ) of
    ks_poisson (a Poisson timer only). None: no such null (or a summary of an older littlegrid)."""
    edges_ms: list[float]
    counts: list[int]
    overflow: int
    expected_exponential: list[float] | None = None
    expected_poisson: list[float] | None = None


class ThreadMeans(Record):
    min: float
    max: float


class ClockSteps(Record):
    """A thread's samples starting a few ms before its previous one ended, all at the instants JMeter
    re-measured its clock offset (analysis.workload.clock_steps): its clock's steps, not overlaps."""
    pairs: int
    instants: int
    re_measurements: int
    largest_ms: int


class ThinkSequence(Record):
    """Which samples think time was measured between (every sample, the outermost ones, or none) and why."""
    rule: str
    text: str
    rows: int
    contained: int
    transaction_rows: int
    partial_overlaps: int
    successive_pairs: int
    count: int | None
    throughput_per_s: float | None
    mean_ms: float | None
    active_threads: float | None
    clock_steps: ClockSteps | None = None  # None: no overlap taken for JMeter's clock


class ThinkTime(Record):
    gaps: int
    threads: int
    mean_ms: float | None
    sd_ms: float | None
    cv: float | None
    negative_gaps: int
    cycle_cv: float | None
    thread_mean_ms: ThreadMeans | None
    ks_exponential: KsExponential
    ks_poisson: PoissonFit | None
    histogram: GapHistogram
    sequence: ThinkSequence


# ----- the server's and the host's metrics over the window

class Server(Record):
    readings: int
    failed_scrapes: int
    longest_gap_s: float | None
    threads_max: int | None
    in_flight_mean: float | None
    in_flight_source: str | None
    in_flight_se: float | None
    in_flight_sampled_mean: float | None
    busy_threads_mean: float | None
    connections_mean: float | None
    throttle_queue_mean: float | None
    service_mean_ms: float | None
    throughput_per_s: float | None
    throttle_wait_ms: float | None
    in_service_ms: float | None
    client_in_flight: float | None
    waiting_in_front: float | None
    wait_in_front_ms: float | None
    in_front_reason: str | None
    client_minus_server_ms: float | None
    # by Little's law (analysis/queueing/little.boundaries): the requests in service (L_server, or X·R_server, less a
    # throttle's queue; or the pool's busy workers) and how that is known; with only a pool's busy workers scraped,
    # the rest of X·R wait outside that pool, each wait_outside_pool_ms. Null in older summaries.
    in_service_requests: float | None = None
    in_service_basis: str | None = None
    waiting_outside_pool: float | None = None
    wait_outside_pool_ms: float | None = None
    # what busy_threads_mean and threads_max measured (analysis/observed/mapping.py's mapping): the pool's kind ("tomcat",
    # "jetty", "executor", "named": the user's [observe.pools]), its name, and the URL it was scraped from; null: no pool
    pool_kind: str | None = None
    pool_name: str | None = None
    source: str | None = None


class Host(Record):
    """The generator's host: the machine littlegrid and JMeter ran on (host-metrics.csv). The server's host is this
    one only when Run.target.placement says so; the server's own figures are in Cell.observed."""
    readings: int
    load1_mean: float | None
    run_queue_mean: float | None
    cpu_util_mean: float | None
    cpu_user_mean: float | None
    cpu_system_mean: float | None
    cpu_iowait_mean: float | None
    # busy share of the CPUs the sample server was pinned to ([server] cpus); null: not pinned (it shared them all)
    server_cpu_util_mean: float | None = None


class ServerCpu(Record):
    """The server's CPU over the cell's window, as analysis/observed/server_cpu.py answers it (the one place that does):
    whose cores (`basis`: "server_pinned", "host_shared", "server_process", "server_host", "not_measured", as
    CpuPerRequest's), the host they are on, how many and how busy. Findings and models read this, never Cell.host
    (the generator's host) for the server."""
    basis: str
    host: str | None            # the host the figure measured ("this host" for the generator's own), null: none
    cores: float | None
    util: float | None          # busy share of `cores` over the window
    shared_with_generator: bool  # JMeter ran on these cores too, so the figure holds the generator's work
    words: str                  # whose cores, for a sentence


class CpuPerRequest(Record):
    """CPU per request at one cell, the demand law's D = U·cores/X over the steady window, in core-ms: the one
    definition every stage reads (analysis/observed/cpu_demand.py computes it, nothing else does). Everything that ran on
    those cores is in it, what runs whatever the load too. `basis` says whose cores they were:
    "server_pinned": the CPUs the grid pinned the server to, measured apart, JMeter on others;
    "host_shared": the host's cores, which the server shared with the generator, so it includes JMeter's own work;
    "server_process": the service process's own CPU as it reported it ([observe]: process_cpu_*), on its host;
    "server_host": the server host's CPUs as its node_exporter reported them ([observe]), the generator elsewhere;
    "generator_host": (older summaries only) the host JMeter ran on, the server elsewhere: never the server's;
    "not_measured": no CPU figure or no core count (core_ms null). `words` says the same for a sentence."""
    basis: str
    words: str
    cores: float | None
    cpu_util: float | None
    busy_cores: float | None  # U·cores: core-seconds busy per second
    throughput_per_s: float | None
    core_ms: float | None


# ----- what [observe] scraped (analysis/observed/mapping.py maps observed.csv; window means over the cell's steady window)

class ObservedSource(Record):
    """One scraped URL over the cell, and the host its figures measured (the URL's host); `target_host`: its
    figures are the cell's target's (it serves the cell's target, or it ran on the target's host and serves no
    other cell's target: analysis/observed/observed_sources.py)."""
    url: str
    host: str
    target_host: bool
    scrapes: int
    failed: int
    slow: int
    readings: int  # scrapes answered inside the window
    # "host:port" of the run's target this source is the process of (its URL's, or a Tomcat connector's port);
    # when that is another cell's target, the source's figures are left out of this cell. null: no target's
    serves: str | None = None


class ObservedPool(Record):
    """A pool of workers the service reports: Tomcat's, Jetty's, an executor's threads, or one the user named in
    [observe.pools] (kind "named"). busy: workers busy; size: the pool's maximum (null: unbounded or not exposed)."""
    source: str
    host: str
    kind: str
    name: str
    busy_mean: float
    busy_max: float
    size: float | None
    full_share: float | None  # share of the window's readings with busy ≥ size (null: no size)
    readings: int


class ObservedConnectionPool(Record):
    """A connection pool (HikariCP): connections in use, its maximum, requests waiting for one."""
    source: str
    host: str
    name: str
    active_mean: float | None
    max: float | None
    pending_mean: float | None
    readings: int


class ObservedProcessCpu(Record):
    """The service process's CPU: cores it kept busy (CPU-seconds per second), and the CPUs it sees when exposed."""
    source: str
    host: str
    metric: str
    cores_busy_mean: float
    cores: float | None
    readings: int


class ObservedHost(Record):
    """A host's own figures (node_exporter): busy share of all its CPUs, its CPU count, load, memory, network."""
    source: str
    host: str
    cpu_util_mean: float | None
    cores: int | None
    load1_mean: float | None
    mem_available_min_bytes: float | None
    network_bytes_per_s_mean: float | None
    readings: int
    # the node_exporter's node_boot_time_seconds: its kernel's boot time, null when not scraped (older summaries)
    boot_time_s: float | None = None


class ObservedGc(Record):
    """A JVM's garbage-collection pauses: the share of time it stood paused, and pauses per second."""
    source: str
    host: str
    pause_share: float
    pauses_per_s: float


class ObservedProxy(Record):
    """A proxy's backend (haproxy's exporter) over the window: the requests waiting in its queue and in service at its
    servers (means of the 1 Hz gauges), the servers' maxconn summed (null: a server without one) and the share of
    readings with every slot taken; its sessions per second (Δ of its counter: connections in tcp mode, requests in
    http mode) and, by Little's law, the wait in its queue W_q = L_q/X and the time in service at the servers
    S = L_served/X; and haproxy's own averages over its last 1024 sessions, as last read in the window."""
    source: str
    host: str
    kind: str
    backend: str
    servers: list[str]
    queue_mean: float | None
    queue_max: float | None
    served_mean: float | None
    limit: float | None
    full_share: float | None
    sessions_per_s: float | None
    queue_wait_ms: float | None
    in_service_ms: float | None
    queue_time_avg_ms: float | None
    connect_time_avg_ms: float | None
    response_time_avg_ms: float | None
    total_time_avg_ms: float | None
    readings: int


class ObservedDatabase(Record):
    """A database's own view (prometheus-postgres-exporter) over the window: backends running a query (the requests
    in service at the database, the exporter's own scrape left out) and all client backends, means of 1 Hz gauges."""
    source: str
    host: str
    kind: str
    active_mean: float | None
    active_max: float | None
    backends_mean: float | None
    readings: int


class Observed(Record):
    """Everything [observe] scraped during the cell, over its steady window, each figure with its source and host."""
    sources: list[ObservedSource]
    thread_pools: list[ObservedPool] = []
    connection_pools: list[ObservedConnectionPool] = []
    process_cpu: list[ObservedProcessCpu] = []
    hosts: list[ObservedHost] = []
    gc: list[ObservedGc] = []
    proxies: list[ObservedProxy] = []
    databases: list[ObservedDatabase] = []


# ----- exact histograms (what comparisons resample)

class ValueCounts(Record):
    """Every distinct elapsed value of the window (ascending) with its count: exact percentiles of any rank."""
    values: list[int]
    counts: list[int]


class Blocks(Record):
    """Per block of `seconds` seconds: indexes into elapsed_ms.values and their counts (sparse)."""
    seconds: int
    index: list[list[int]]
    counts: list[list[int]]


class Completions(Record):
    """Completions in each whole second of the window, sparse: only the seconds that had any (second: index from
    the window's start, ascending), the other of the `seconds` seconds had none. A long window with few samples
    (two sessions days apart in one JTL) stays small."""
    seconds: int
    second: list[int]
    count: list[int]


class Histogram(Record):
    elapsed_ms: ValueCounts
    completions_per_s: Completions
    blocks: Blocks


# ----- checks, criteria, models, findings

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


class CriterionResult(Record):
    """One criterion in one cell of its scope (cell null: no cell in scope, passed null: not evaluated)."""
    criterion: str
    scope: str
    cell: str | None
    metric: str
    value: float | None
    threshold: float
    passed: bool | None
    reason: str | None
    unit: str


class Evidence(Record):
    name: str
    value: float | None
    unit: str
    cell: str | None


class Finding(Record):
    """group: "answer" (what limits the system and where requests wait), "trust" (whether the figures can be
    taken as they stand) or "action" (what to do next); minor: folded under its group's first findings; curve: the
    key of the curve it is about (its evidence: that curve's charts), null when it is about no one curve."""
    kind: str
    statement: str
    standing: str
    why: str
    where: dict[str, AxisValue]
    cells: list[str]
    figures: dict[str, float | str | None]
    evidence: list[Evidence]
    recommendation: str | None
    resource: str | None
    group: str = "answer"
    minor: bool = False
    curve: str | None = None


class Headline(Record):
    """The answer in at most two sentences, composed from the findings (their indexes in `findings`): what limits
    throughput, at what rate and where the rest wait; then what changes or completes it (a reason not to trust the
    figures, the arms' choice, the other curves, the checks). Older summaries may hold three."""
    sentences: list[str]
    findings: list[int]
    # the cells whose figures those findings cite (their Finding.cells), in the summary's cell order: the report's
    # first chart rings them; empty in summaries written before it was recorded
    cells: list[str] = []


class Expectation(Record):
    expectation: str
    passed: bool | None
    explanation: str
    findings: list[str | None]


# ----- the run and the whole summary

class HostFacts(Record):
    hostname: str | None = None
    cpus: int | None = None
    memory_bytes: int | None = None
    os: str | None = None
    boot_time_s: float | None = None  # the kernel's boot time (epoch s): null in older run folders


class Unfinished(Record):
    """A run folder whose grid stopped before every cell ran to its end (interrupted, killed, or still running):
    the cells that did (complete or failed) out of the grid's, why it stopped, and the command that finishes it."""
    cells_finished: int
    cells_total: int
    reason: str | None
    resume: str

    def text(self) -> str:
        return (f"incomplete run: {self.cells_finished} of {self.cells_total} cells finished"
                + (f" ({self.reason})" if self.reason else "") + f"; finish it with `{self.resume}`")


class Run(Record):
    """What was run: from the run folder's manifest and grid, or the JTL files' names (source "jtl")."""
    id: str
    grid_name: str | None
    plan: str | None
    description: str | None
    arms: str | None
    expect: list[str]
    started: str | None
    ended: str | None
    versions: dict[str, str | None]
    host: HostFacts
    server_knobs: dict[str, AxisValue] | None
    source: str
    inputs: list[str]
    unfinished: Unfinished | None = None  # null: every cell ran to its end (or no grid: JTL files)
    # the CPUs the sample server was pinned to ([server] cpus) and those JMeter ran on; null: both ran anywhere
    server_cpus: list[int] | None = None
    generator_cpus: list[int] | None = None
    # whether the runner started the sample server on the host it measured ([server] start = true); false: the
    # target was a server elsewhere, the host's CPU is the generator's; null: not said (JTL files, a grid with neither)
    server_started: bool | None = None
    target: TargetPlacement | None = None  # null: not recorded (JTL files, older run folders)
    # the grid's relative criteria as written ("p90 regress < 10%"): `check --baseline` judges them against a
    # baseline run; analyze cannot (one run), and `check` without a baseline reports them not judged
    relative_criteria: list[str] = []


class Trim(Record):
    """The warm-up and cool-down applied (null: they differ per cell, see each cell's window)."""
    warmup_s: float | None
    cooldown_s: float | None
    basis: str


class Summary(Record):
    schema_: str = Field(alias="schema")
    littlegrid_version: str
    run: Run
    trim: Trim
    axes: dict[str, list[AxisValue]]
    tolerances: dict[str, float]
    cells: list[Cell]
    curves: list[Curve]
    checks: list[Check]
    criteria: list[CriterionResult]
    findings: list[Finding]
    headline: Headline | None = None
    expectations: list[Expectation]
