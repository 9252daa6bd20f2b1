"""The distribution page's content: latency PDFs and CCDFs overlaid across the grid, realised think-time histograms."""

from __future__ import annotations

from littlegrid.render import charts, fmt, layout
from littlegrid.summary.model import Cell, Summary, Stats


def _pdf_curve(stats: Stats):
    edges, dens = stats.pdf.edges_ms, stats.pdf.density
    return (charts.centres(edges), dens) if len(edges) == len(dens) + 1 else ([], [])


def _ccdf_curve(stats: Stats):
    return stats.ccdf.x_ms, stats.ccdf.p


def _tail_text(stats: Stats) -> str:
    a = stats.tail.hill_alpha
    return "" if a is None else f" (α = {fmt.num(a)})"


def _overlay(chart_id, title, cells, label, kind) -> dict:
    """PDFs (linear) or CCDFs (log-log) of several cells on one shared x."""
    if kind == "pdf":
        x, ys = charts.align([_pdf_curve(c.overall) for c in cells])
        return charts.chart(chart_id, title, "response time (ms)", "density (1/ms)", x,
                            [charts.series(label(c), y, group=i) for i, (c, y) in enumerate(zip(cells, ys))])
    x, ys = charts.align([_ccdf_curve(c.overall) for c in cells], positive=True)
    return charts.chart(chart_id, title, "response time (ms)", "P(R > x)", x,
                        [charts.series(label(c) + _tail_text(c.overall), y, group=i)
                         for i, (c, y) in enumerate(zip(cells, ys))], log_x=True, log_y=True)


def overlay_charts(summary: Summary, kind: str) -> dict:
    """Overlays per think time at each fixed N and facet (Cell.facet: the analysis's), and one per curve with a line
    per load."""
    by_n: dict[tuple, list[Cell]] = {}
    for c in summary.cells:
        if c.overall is not None and c.overall.count:
            by_n.setdefault((layout.users_of(c), c.facet or ""), []).append(c)
    fixed_n = [_overlay(f"{kind}-n-{i}", f"N = {n}" + (f", {facet}" if facet else "") + ": one line per think time",
                        sorted(cs, key=lambda c: layout._sort_key(layout.think_of(c))),
                        lambda c: layout.think_label(layout.think_of(c)), kind)
               for i, ((n, facet), cs) in enumerate(by_n.items()) if len(cs) > 1]
    by_id = {c.id: c for c in summary.cells}
    fixed_z = []
    for i, curve in enumerate(summary.curves):
        loads = dict(zip(curve.cells, curve.x))
        word = "N = {:g}" if curve.workload == "closed" else "λ = {:g}/s"
        fixed_z.append(_overlay(f"{kind}-z-{i}", f"{curve.label}: one line per {curve.x_name}",
                                [by_id[cid] for cid in curve.cells
                                 if cid in by_id and by_id[cid].overall is not None and by_id[cid].overall.count],
                                lambda c, loads=loads, word=word: word.format(loads[c.id]), kind))
    return {"fixed_n": fixed_n, "fixed_z": fixed_z}


def tail_rows(cells: list[Cell]) -> list[dict]:
    return [{"cell": c.id, "hill_alpha": c.overall.tail.hill_alpha, "k": c.overall.tail.k,
             "verdict": c.overall.tail.verdict} for c in cells if c.overall is not None]


def think_charts(cells: list[Cell]) -> list[dict]:
    """Per cell with think time: realised histogram, with exponential and (Poisson timer) Poisson overlays."""
    out = []
    for i, c in enumerate(cells):
        tt = c.think_time
        if tt is None:
            continue
        edges, counts = tt.histogram.edges_ms, tt.histogram.counts
        if len(edges) != len(counts) + 1 or not counts:
            continue
        x = charts.centres(edges)
        lines = [charts.series("realised", counts, style="bars", group=0)]
        # the counts the analysis's nulls predict (think_fits.expected_exponential / expected_poisson), as stored
        expo, pois = tt.histogram.expected_exponential, tt.histogram.expected_poisson
        if expo:
            lines.append(charts.series("exponential, same mean", expo, style="line", group=1))
        if pois:
            lines.append(charts.series("Poisson, same mean (JMeter Poisson timer)", pois, style="line", group=2))
        dist = (c.intended.think_dist or "").lower()
        ks = tt.ks_exponential
        note = (f"{tt.gaps} gaps, mean {fmt.ms(tt.mean_ms)}, CV {fmt.num(tt.cv)}, "
                f"KS vs exponential D = {fmt.num(ks.d)}, p = {fmt.num(ks.p)}")
        kp = tt.ks_poisson
        if kp:
            note += f"; KS vs Poisson D = {fmt.num(kp.d)}, p = {fmt.num(kp.p)}"
        out.append(charts.chart(f"think-{i}", f"{c.id}: realised think time (intended {fmt.ms(c.intended.think_ms)}, {dist or 'unknown'})",
                                "think time (ms)", "gaps per bin", x, lines, note=note))
    return out
