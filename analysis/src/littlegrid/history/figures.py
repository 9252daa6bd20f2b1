"""Each cell's figures of one run as the history keeps them and the gate compares them: the figure, its within-run
95% interval and standard error, read from the summary (Cell.intervals, computed once by the analysis:
analysis/statistics/intervals.py), and the samples it was measured from."""

from __future__ import annotations

from littlegrid.history.store import METRIC_KEYS, Figure
from littlegrid.summary.model import Cell, Summary


def run_figures(summary: Summary) -> tuple[Figure, ...]:
    """Every finished cell's METRIC_KEYS, in the summary's cell order."""
    out = []
    for cell in summary.cells:
        if cell.overall is None or cell.status == "incomplete":
            continue
        out += cell_figures(cell)
    return tuple(out)


def cell_figures(cell: Cell) -> list[Figure]:
    """The cell's figures; without intervals (an older summary, or no steady-window histogram) each figure has none,
    and the gate says it cannot judge it."""
    out = []
    for key in METRIC_KEYS:
        held = getattr(cell.intervals, key) if cell.intervals is not None else None
        value = getattr(cell.overall, key)
        lo, hi, se = (held.lo, held.hi, held.se) if held is not None else (None, None, None)
        out.append(Figure(cell.id, dict(cell.axes), key, value, lo, hi, se, cell.overall.count))
    return out
