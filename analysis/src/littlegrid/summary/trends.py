"""The typed trends of the history (littlegrid.history.trends builds them, render/trends.py draws them and computes
nothing): per grid, its runs in the order they were recorded (with their series and the gate's verdicts) and, per
cell and metric, each run's figure with its within-run interval, the gate's noise band and the change points."""

from __future__ import annotations

from littlegrid.summary.model import Record


class TrendRun(Record):
    """One recorded run: what it was, its series (1, 2, … in the grid's order: another plan, configuration or kind
    of host starts one), the gate's verdict (None: not gated; "passed", "failed", "unjudged"), whether it is a
    reference by itself (accepted: "start" of its series, "pinned" by `history accept`) and its report folder."""
    number: int  # 1, 2, …: its place among the grid's runs, the charts' x
    run_id: str
    commit: str | None
    started: str | None
    recorded_at: str
    series: int
    gate: str | None
    accepted: str | None
    report: str | None


class TrendShift(Record):
    """A change point of one metric in one series: the run that starts the new level, and the new level against the
    one before it as a change (+: up) with its 95% interval (the series' pooled noise over the runs on each side)."""
    run: int  # the run's number: the charts' x
    run_id: str
    change: float
    lo: float
    hi: float


class TrendMetric(Record):
    """One metric of one cell across the grid's runs (one value per run, None where the run has none). The band is
    where the gate lets a run be (95%): the median of the reference set before it ± the gate's noise (None without a
    reference); a run past it regressed or improved beyond the noise (the gate then asks the criterion's margin)."""
    key: str
    name: str
    unit: str
    values: list[float | None]
    lo: list[float | None]
    hi: list[float | None]
    band_lo: list[float | None]
    band_hi: list[float | None]
    regressed: list[float | None]  # the value where the gate failed the run, else None: the marked points
    shifts: list[TrendShift]


class TrendCell(Record):
    cell: str
    metrics: list[TrendMetric]


class GridTrend(Record):
    name: str
    grid_hash: str  # the latest run's
    runs: list[TrendRun]
    cells: list[TrendCell]


class Trends(Record):
    store: str  # the history, as the user named it
    grids: list[GridTrend]
    reference_runs: int  # k: the reference set's size
