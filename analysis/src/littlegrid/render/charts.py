"""Plain chart-data dicts (what the page script hands to uPlot): aligned x, series, rounding, point budgets."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

# Points per time-series chart: enough for a 1 px line on a wide screen, few enough to keep 12-cell reports small.
POINT_BUDGET = 600
SIG_DIGITS = 4  # 4 significant digits: far below what a reader can see on a chart, halves the page size
# One colour per curve, by its index in Summary.curves: the same list as littlegrid.js's PALETTE and the
# .swatch.cN classes of littlegrid.css (a test holds the three equal).
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22")


def sig(v, digits: int = SIG_DIGITS):
    """Round to significant digits; NaN/inf/None become None (JSON null: a gap in the line)."""
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(f):
        return None
    if f == 0:
        return 0
    r = round(f, digits - 1 - int(math.floor(math.log10(abs(f)))))
    return int(r) if r == int(r) and abs(r) < 2**53 else r


def series(label: str, values: Iterable, *, style: str = "line", group: int | None = None) -> dict:
    """One series: `style` is line, dash (models, second run), points (measured dots) or step (histograms).

    `group` picks the colour: series of one group (e.g. one think time) share it across styles.
    """
    return {"label": str(label), "values": [sig(v) for v in values], "style": style, "group": group}


def chart(chart_id: str, title: str, x_label: str, y_label: str, x: Sequence, lines: list[dict], *,
          log_x: bool = False, log_y: bool = False, x_time: bool = False, note: str = "",
          window: tuple[float, float] | None = None) -> dict:
    """A chart-data dict; every series has as many values as x (None marks a gap).

    `window` (x from, x to) is the steady window: the page shades what lies outside it (what was trimmed).
    """
    for s in lines:
        if len(s["values"]) != len(x):
            raise ValueError(f"chart {chart_id}: series {s['label']!r} has {len(s['values'])} values for {len(x)} x")
    return {"id": chart_id, "title": title, "x_label": x_label, "y_label": y_label,
            "x": [sig(v, 6) for v in x], "series": lines, "log_x": log_x, "log_y": log_y, "x_time": x_time,
            "note": note, "window": None if window is None else [sig(window[0], 6), sig(window[1], 6)]}


def align(curves: Sequence[tuple[Sequence, Sequence]], *, positive: bool = False) -> tuple[list, list[list]]:
    """Put curves with their own x onto one shared, sorted x (uPlot's data model), None where a curve has no point.

    `positive` drops x <= 0 and y <= 0 (log axes cannot show them).
    """
    xs = sorted({float(x) for xv, yv in curves for x, y in zip(xv, yv)
                 if x is not None and (not positive or (x > 0 and y is not None and y > 0))})
    where = {x: i for i, x in enumerate(xs)}
    out = []
    for xv, yv in curves:
        col = [None] * len(xs)
        for x, y in zip(xv, yv):
            if x is not None and float(x) in where and (not positive or (y is not None and y > 0)):
                col[where[float(x)]] = y
        out.append(col)
    return xs, out


def centres(edges: Sequence[float]) -> list[float]:
    """Bin centres of a histogram given by its edges."""
    return [(a + b) / 2 for a, b in zip(edges[:-1], edges[1:])]


def downsample(t: Sequence[float], columns: dict[str, Sequence], budget: int = POINT_BUDGET,
               peak: Iterable[str] = ()) -> tuple[list, dict[str, list]]:
    """Reduce a time series to at most `budget` points by fixed buckets of consecutive points.

    Each bucket keeps its first time and the mean of each column, except `peak` columns (percentiles)
    which keep the bucket maximum: averaging a p99 over time would hide exactly the spikes one looks for.
    Missing values (None) are skipped; a bucket with none left is a gap.
    """
    n = len(t)
    if n <= budget:
        return list(t), {k: list(v) for k, v in columns.items()}
    size = math.ceil(n / budget)
    peak = set(peak)
    out_t = [t[i] for i in range(0, n, size)]
    out = {}
    for name, values in columns.items():
        col = []
        for i in range(0, n, size):
            chunk = [v for v in values[i:i + size] if v is not None]
            col.append(None if not chunk else (max(chunk) if name in peak else sum(chunk) / len(chunk)))
        out[name] = col
    return out_t, out
