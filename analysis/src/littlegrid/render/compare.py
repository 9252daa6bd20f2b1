"""The comparison page: two runs' summaries and what the comparison stage (littlegrid.comparison) found for
them, laid out: run facts side by side, paired cells with deltas and intervals, curves over users, PDFs."""

from __future__ import annotations

from pathlib import Path

from littlegrid.render import charts, html, layout, overview
from littlegrid.summary.comparison import Comparison
from littlegrid.summary.model import Cell, Summary


def _curve_chart(chart_id, title, y_label, key, sa, sb) -> dict:
    """A metric vs users for both runs: A solid with dots, B dashed, one colour per think time."""
    curves, labels, thinks = [], [], {}
    for tag, style, summary in (("A", "points", sa), ("B", "dash", sb)):
        for think, facet, cs in layout.curves(summary.cells):
            curves.append(([layout.users_of(c) for c in cs], [getattr(c.overall, key, None) for c in cs]))
            labels.append((f"{tag}: {layout.curve_label(think, facet)}", style, thinks.setdefault((think, facet), len(thinks))))
    x, ys = charts.align(curves)
    return charts.chart(chart_id, title, "users N", y_label, x,
                        [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(labels, ys)])


def _pdf_chart(i: int, a: Cell, b: Cell) -> dict:
    curves = []
    for c in (a, b):
        edges, dens = (c.overall.pdf.edges_ms, c.overall.pdf.density) if c.overall is not None else ([], [])
        curves.append((charts.centres(edges), dens) if len(edges) == len(dens) + 1 else ([], []))
    x, ys = charts.align(curves)
    return charts.chart(f"pdf-{i}", f"{a.id}: response-time PDF, A vs B", "response time (ms)", "density (1/ms)", x,
                        [charts.series("A", ys[0], group=0), charts.series("B", ys[1], style="dash", group=1)])


def draw(result: Comparison, sa: Summary | dict, sb: Summary | dict, out_dir: Path, *,
         generated: str | None = None) -> Path:
    """The comparison stage's result (littlegrid.comparison.deltas.compare_runs: pairs, deltas, verdicts, findings) for
    the summaries `sa` and `sb` (read into the typed model when given as plain data), drawn into out_dir/index.html;
    returns its path."""
    sa, sb = (s if isinstance(s, Summary) else Summary.model_validate(s) for s in (sa, sb))
    in_a, in_b = {c.id: c for c in sa.cells}, {c.id: c for c in sb.cells}
    pairs = [(in_a[r.a], in_b[r.b]) for r in result.rows]
    curve_charts = [_curve_chart("cmp-x", "Throughput X vs users N (A solid, B dashed)", "X (req/s)", "throughput_per_s", sa, sb),
                    _curve_chart("cmp-p90", "p90 vs users N", "ms", "p90_ms", sa, sb),
                    _curve_chart("cmp-p99", "p99 vs users N", "ms", "p99_ms", sa, sb)]
    pdf_charts = [_pdf_chart(i, a, b) for i, (a, b) in enumerate(pairs)]
    title_a, title_b = overview.run_title(sa), overview.run_title(sb)
    page = html.render(
        "compare.html.j2", root="", has_distributions=False,
        run_title=f"{title_a} vs {title_b}", title_a=title_a, title_b=title_b,
        facts_a=overview.run_facts(sa), facts_b=overview.run_facts(sb), rows=result.rows,
        counts=result.counts, words=result.verdict_words, metric_names=result.metric_names,
        only_a=result.only_a, only_b=result.only_b, seed=result.seed, reps=result.reps, min_effect=result.min_effect,
        curve_charts=curve_charts, pdf_charts=pdf_charts, findings=result.findings, no_findings="No metric of a paired cell differs significantly: every 95% interval "
                                           "reaches within the minimum effect, or there are no intervals.",
        chart_data=curve_charts + pdf_charts, **({"generated": generated} if generated else {}))
    html.write(out_dir / "index.html", page)
    return out_dir / "index.html"
