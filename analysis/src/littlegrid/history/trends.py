"""The trends of the history: per grid (its hash), its runs in recorded order and, per cell and metric, each run's
figure and interval, the noise band before it and the gate's failed runs marked (summary.trends.Trends)."""

from __future__ import annotations

from littlegrid.history import gate, noise
from littlegrid.history.store import METRIC_KEYS, StoredRun
from littlegrid.summary.trends import GridTrend, TrendCell, TrendMetric, TrendRun, Trends

NAMES = {"throughput_per_s": ("X", "req/s"), "mean_ms": ("mean R", "ms"), "p50_ms": ("p50", "ms"),
         "p90_ms": ("p90", "ms"), "p99_ms": ("p99", "ms"), "error_rate": ("error rate", "fraction")}


def build(runs: list[StoredRun], store: str) -> Trends:
    grids: dict[str, list[StoredRun]] = {}
    for r in runs:
        grids.setdefault(r.record.grid_hash, []).append(r)
    return Trends(store=store, grids=[grid_trend(h, rs) for h, rs in grids.items()], k_min=noise.K_MIN,
                  k_max=noise.K_MAX)


def grid_trend(grid_hash: str, runs: list[StoredRun]) -> GridTrend:
    cells = list(dict.fromkeys(f.cell for r in runs for f in r.record.figures))
    held = [{(f.cell, f.metric): f for f in r.record.figures} for r in runs]
    trend_cells = []
    for cell in cells:
        metrics = []
        for key in METRIC_KEYS:
            figures = [h.get((cell, key)) for h in held]
            bands = [_band(runs, held, i, cell, key) for i in range(len(runs))]
            name, unit = NAMES[key]
            metrics.append(TrendMetric(
                key=key, name=name, unit=unit, values=[f and f.value for f in figures],
                lo=[f and f.lo for f in figures], hi=[f and f.hi for f in figures],
                band_lo=[b and b[0] for b in bands], band_hi=[b and b[1] for b in bands],
                regressed=[f.value if f is not None and r.gate == "failed" else None for f, r in zip(figures, runs)]))
        trend_cells.append(TrendCell(cell=cell, metrics=metrics))
    return GridTrend(
        name=runs[-1].record.grid_name or grid_hash, grid_hash=grid_hash,
        runs=[TrendRun(number=i + 1, run_id=r.record.run_id, commit=r.record.commit, started=r.record.started,
                       recorded_at=r.recorded_at, gate=r.gate, report=r.record.report) for i, r in enumerate(runs)],
        cells=trend_cells)


def _band(runs: list[StoredRun], held: list[dict], i: int, cell: str, key: str) -> tuple[float, float] | None:
    """The noise band at run i: from the comparable runs before it (gate.comparable_history's rule)."""
    earlier = gate.comparable_history(runs[i].record, runs[:i])
    index = {id(r): j for j, r in enumerate(runs)}
    figures = [held[index[id(r)]].get((cell, key)) for r in earlier]
    return noise.prediction_band([f for f in figures if f is not None])
