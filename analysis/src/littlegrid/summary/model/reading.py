"""How a cell was read, trimmed and loaded: its reading, its steady window and its precision, its intervals, how it
stopped, its users and what was intended."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


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
