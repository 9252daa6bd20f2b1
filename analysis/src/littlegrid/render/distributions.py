"""The distribution page's content: latency PDFs and CCDFs overlaid across the grid, realised think-time histograms."""

from __future__ import annotations

import math

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
    """Overlays per think time at each fixed N (other axes kept apart), and one per curve with a line per load."""
    by_n: dict[tuple, list[Cell]] = {}
    for c in summary.cells:
        if c.overall is not None and c.overall.count:
            by_n.setdefault((layout.users_of(c), layout.facet_of(c)), []).append(c)
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


def _expected_counts(edges, gaps, mean_ms, dist, offset_ms: float = 0.0) -> list[float] | None:
    """Counts per bin a distribution with the realised mean predicts: exponential, or JMeter's Poisson timer
    (offset + a Poisson integer of mean λ = realised mean − offset)."""
    if not gaps or not mean_ms or mean_ms <= 0:
        return None
    if dist == "exponential":
        return [gaps * (math.exp(-a / mean_ms) - math.exp(-b / mean_ms)) for a, b in zip(edges[:-1], edges[1:])]
    lam = mean_ms - offset_ms
    if lam <= 0:
        return None
    from scipy.stats import poisson  # only when a Poisson timer was used

    # the pause is offset + an integer k; a bin [a, b) holds k = ceil(a - offset) .. ceil(b - offset) - 1
    cdf = poisson.cdf([math.ceil(e - offset_ms) - 1 for e in edges], lam)
    return [gaps * float(hi - lo) for lo, hi in zip(cdf[:-1], cdf[1:])]


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
        expo = _expected_counts(edges, tt.gaps, tt.mean_ms, "exponential")
        if expo:
            lines.append(charts.series("exponential, same mean", expo, style="line", group=1))
        dist = (c.intended.think_dist or "").lower()
        if "poisson" in dist:
            pois = _expected_counts(edges, tt.gaps, tt.mean_ms, "poisson", c.intended.think_offset_ms or 0.0)
            if pois:
                lines.append(charts.series("Poisson, same mean (JMeter Poisson timer)", pois, style="line", group=2))
        ks = tt.ks_exponential
        note = (f"{tt.gaps} gaps, mean {fmt.ms(tt.mean_ms)}, CV {fmt.num(tt.cv)}, "
                f"KS vs exponential D = {fmt.num(ks.d)}, p = {fmt.num(ks.p)}")
        kp = tt.ks_poisson
        if kp:
            note += f"; KS vs Poisson D = {fmt.num(kp.d)}, p = {fmt.num(kp.p)}"
        out.append(charts.chart(f"think-{i}", f"{c.id}: realised think time (intended {fmt.ms(c.intended.think_ms)}, {dist or 'unknown'})",
                                "think time (ms)", "gaps per bin", x, lines, note=note))
    return out
