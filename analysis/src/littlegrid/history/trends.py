"""The trends of the history: per grid (its name), its runs in recorded order and, per cell and metric, each run's
figure and interval, the gate's band before it (the median of its series' reference set ± the gate's noise), the
runs the gate failed, and each series' change points with the size of the shift (summary.trends.Trends)."""

from __future__ import annotations

import math

from littlegrid.history import noise as run_noise, series as run_series, shifts
from littlegrid.history.changepoints import GATE_PVALUE, change_points
from littlegrid.history.store import METRIC_KEYS, StoredRun, by_cell
from littlegrid.summary.trends import GridTrend, TrendCell, TrendMetric, TrendRun, Trends, TrendShift

NAMES = {"throughput_per_s": ("X", "req/s"), "mean_ms": ("mean R", "ms"), "p50_ms": ("p50", "ms"),
         "p90_ms": ("p90", "ms"), "p99_ms": ("p99", "ms"), "error_rate": ("error rate", "fraction")}


def build(runs: list[StoredRun], store: str, k: int = run_series.REFERENCE_RUNS) -> Trends:
    grids = list(dict.fromkeys(run_series.grid_of(r.record) for r in runs))
    return Trends(store=store, grids=[grid_trend(g, [r for r in runs if run_series.grid_of(r.record) == g], k)
                                      for g in grids], reference_runs=k)


def grid_trend(grid: str, runs: list[StoredRun], k: int) -> GridTrend:
    cells = list(dict.fromkeys(f.cell for r in runs for f in r.record.figures))
    held = [by_cell(r.record.figures) for r in runs]
    keys = list(dict.fromkeys(r.record.series for r in runs))
    noises = [run_noise.of_series(r.record, runs, run_series.of_candidate(runs, r.record)) for r in runs]
    trend_cells = []
    for cell in cells:
        metrics = []
        for key in METRIC_KEYS:
            figures = [h.get(cell, {}).get(key) for h in held]
            bands = [_band(runs, i, cell, key, noises[i][key], k) for i in range(len(runs))]
            name, unit = NAMES[key]
            metrics.append(TrendMetric(
                key=key, name=name, unit=unit, values=[f and f.value for f in figures],
                lo=[f and f.lo for f in figures], hi=[f and f.hi for f in figures],
                band_lo=[b and b[0] for b in bands], band_hi=[b and b[1] for b in bands],
                regressed=[f.value if f is not None and r.gate == "failed" else None for f, r in zip(figures, runs)],
                shifts=[s for key_ in keys for s in _shifts(runs, figures, key_, key, noises[-1][key])]))
        trend_cells.append(TrendCell(cell=cell, metrics=metrics))
    return GridTrend(
        name=grid, grid_hash=runs[-1].record.grid_hash,
        runs=[TrendRun(number=i + 1, run_id=r.record.run_id, commit=r.record.commit, started=r.record.started,
                       recorded_at=r.recorded_at, series=keys.index(r.record.series) + 1, gate=r.gate,
                       accepted=r.accepted, report=r.record.report) for i, r in enumerate(runs)],
        cells=trend_cells)


def _band(runs: list[StoredRun], i: int, cell: str, key: str, noise: run_noise.Noise,
          k: int) -> tuple[float, float] | None:
    """The gate's band at run i: from the reference set of its series before it."""
    reference = run_series.reference_set(run_series.of_candidate(runs[:i], runs[i].record), k)
    figures = [by_cell(r.record.figures).get(cell, {}).get(key) for r in reference]
    return run_noise.prediction_band([f for f in figures if f is not None], noise)


def _shifts(runs: list[StoredRun], figures: list, series_key: str, metric: str,
            noise: run_noise.Noise) -> list[TrendShift]:
    """The change points of one series' figures (each segment between pins on its own) with the level after each
    against the level before it; a level only one run holds is not a change that stayed (shifts.MIN_AFTER)."""
    out = []
    members = [i for i, r in enumerate(runs) if r.record.series == series_key]
    for part in run_series.segments([runs[i] for i in members]):
        index = [members[[runs[i] for i in members].index(r)] for r in part]
        kept = [i for i in index if figures[i] is not None]
        y, s2 = run_noise.log_values([figures[i] for i in kept])
        if len(y) != len(kept) or len(y) < 3:
            continue
        points = [p.index for p in change_points(y, max_pvalue=GATE_PVALUE)]
        edges = [0, *points, len(y)]
        for j, at in enumerate(points):
            if edges[j + 2] - at < shifts.MIN_AFTER:
                continue  # one run at a level is that run's own, not a change that stayed (the gate's rule)
            d, h = shifts.level_change(y, s2, slice(edges[j], at), slice(at, edges[j + 2]), noise)
            log = metric in run_noise.LOG_SCALE
            change, lo, hi = ((math.exp(x) - 1 if log else x) for x in (d, d - h, d + h))
            run = kept[at]
            out.append(TrendShift(run=run + 1, run_id=runs[run].record.run_id, change=change, lo=lo, hi=hi))
    return out
