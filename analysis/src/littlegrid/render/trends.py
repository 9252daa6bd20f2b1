"""The history's trends page: per grid, its runs (the gate's verdict, a link to each report) and per cell a chart per
metric across the runs, with each run's interval, the noise band and the failed runs marked, all as
summary.trends.Trends holds them."""

from __future__ import annotations

import os
from pathlib import Path

from littlegrid.render import charts, html
from littlegrid.summary.trends import Trends


def _chart(chart_id: str, title: str, runs, m) -> dict:
    x = [r.number for r in runs]
    lines = [
        charts.series(m.name, m.values, style="points", group=0),
        charts.series("95% interval, low", m.lo, style="dot", group=0),
        charts.series("95% interval, high", m.hi, style="dot", group=0),
        charts.series("noise band, low", m.band_lo, style="dash", group=1),
        charts.series("noise band, high", m.band_hi, style="dash", group=1),
        charts.series("gate failed", m.regressed, style="points", group=3),
        charts.series("change point", [_at(m, r.number) for r in runs], style="points", group=4)]
    # a band before the series' first reference, or a mark when no run failed, is not drawn: a legend entry with
    # nothing behind it
    return charts.chart(chart_id, title, "run (in the order recorded)", m.unit, x,
                        [s for s in lines if any(v is not None for v in s["values"])])


def _at(m, number: int) -> float | None:
    """The figure at a run that starts a new level (a change point), else None: the chart's marks."""
    return m.values[number - 1] if any(sh.run == number for sh in m.shifts) else None


def _shift_words(name: str, unit: str, sh) -> str:
    """"p90 +21.3% (+15.0% to +27.9%) from run 5 (r5)": a change point in words."""
    if unit == "fraction":
        fig = f"{sh.change * 100:+.2f} points ({sh.lo * 100:+.2f} to {sh.hi * 100:+.2f})"
    else:
        fig = f"{sh.change:+.1%} ({sh.lo:+.1%} to {sh.hi:+.1%})"
    return f"{name} {fig} from run {sh.run} ({sh.run_id})"


def _link(report: str | None, out_dir: Path) -> str | None:
    """The run's report page relative to the trends page (so the folder can move with the reports), or None."""
    if not report:
        return None
    return Path(os.path.relpath(Path(report) / "index.html", out_dir.resolve())).as_posix()


def draw(trends: Trends, out_dir: Path, *, generated: str | None = None) -> Path:
    """The page into out_dir/index.html; returns its path."""
    grids, chart_data = [], []
    for gi, g in enumerate(trends.grids):
        cells = []
        for ci, c in enumerate(g.cells):
            made = [_chart(f"g{gi}-c{ci}-{m.key}", f"{c.cell}: {m.name}", g.runs, m) for m in c.metrics]
            chart_data += made
            cells.append({"cell": c.cell, "charts": made,
                          "shifts": [_shift_words(m.name, m.unit, sh) for m in c.metrics for sh in m.shifts]})
        grids.append({"grid": g, "cells": cells, "links": [_link(r.report, out_dir) for r in g.runs],
                      "failed": [r for r in g.runs if r.gate == "failed"]})
    page = html.render("trends.html.j2", root="", has_distributions=False, run_title=f"history: {trends.store}",
                       trends=trends, grids=grids, chart_data=chart_data,
                       **({"generated": generated} if generated else {}))
    html.write(out_dir / "index.html", page)
    return out_dir / "index.html"
