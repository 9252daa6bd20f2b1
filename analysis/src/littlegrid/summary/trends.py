"""The typed trends of the history (littlegrid.history.trends builds them, render/trends.py draws them and computes
nothing): per grid, its runs in the order they were recorded and, per cell and metric, each run's figure with its
within-run interval, the noise band and the gate's verdicts."""

from __future__ import annotations

from littlegrid.summary.model import Record


class TrendRun(Record):
    """One recorded run: what it was, the gate's verdict (None: not gated) and its report folder (None: unknown)."""
    number: int  # 1, 2, …: its place among the grid's runs, the charts' x
    run_id: str
    commit: str | None
    started: str | None
    recorded_at: str
    gate: str | None
    report: str | None


class TrendMetric(Record):
    """One metric of one cell across the grid's runs (one value per run, None where the run has none). The band is
    the 95% prediction interval of a run from the comparable runs before it that the gate did not fail (None
    before K_MIN of them): where the next run of an unchanged system falls."""
    key: str
    name: str
    unit: str
    values: list[float | None]
    lo: list[float | None]
    hi: list[float | None]
    band_lo: list[float | None]
    band_hi: list[float | None]
    regressed: list[float | None]  # the value where the gate failed the run, else None: the marked points


class TrendCell(Record):
    cell: str
    metrics: list[TrendMetric]


class GridTrend(Record):
    name: str
    grid_hash: str
    runs: list[TrendRun]
    cells: list[TrendCell]


class Trends(Record):
    store: str  # the history, as the user named it
    grids: list[GridTrend]
    k_min: int
    k_max: int
