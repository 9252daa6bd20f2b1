"""The comparison page: two runs' summaries and what the comparison stage (littlegrid.comparison) found for
them, laid out: run facts side by side, paired cells with deltas and intervals, curves over users, PDFs."""

from __future__ import annotations

from pathlib import Path

from littlegrid.render import charts, findings_view, html, overview
from littlegrid.summary.comparison import Comparison
from littlegrid.summary.model import Cell, Summary


def _curve_chart(chart_id, title, y_label, key, sa, sb, workload="closed") -> dict | None:
    """A metric against the load for both runs' curves of one workload: A solid with dots, B dashed; a curve
    with the same label in both runs has one colour (None when neither run has such a curve)."""
    curves, labels, colours = [], [], {}
    for tag, style, summary in (("A", "points", sa), ("B", "dash", sb)):
        by_id = {c.id: c for c in summary.cells}
        for k in summary.curves:
            if k.workload != workload:
                continue
            curves.append((k.x, [getattr(by_id[i].overall, key, None) if i in by_id and by_id[i].overall else None
                                 for i in k.cells]))
            labels.append((f"{tag}: {k.label}", style, colours.setdefault(k.label, len(colours))))
    if not curves:
        return None
    x, ys = charts.align(curves)
    return charts.chart(chart_id, title, "users N" if workload == "closed" else "offered rate λ (req/s)", y_label, x,
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
    curve_charts = [chart for workload, x_name, suffix in (("closed", "users N", ""), ("open", "offered rate λ", "-rate"))
                    for chart in (
                        _curve_chart(f"cmp-x{suffix}", f"Throughput X vs {x_name} (A solid, B dashed)", "X (req/s)",
                                     "throughput_per_s", sa, sb, workload),
                        _curve_chart(f"cmp-p90{suffix}", f"p90 vs {x_name}", "ms", "p90_ms", sa, sb, workload),
                        _curve_chart(f"cmp-p99{suffix}", f"p99 vs {x_name}", "ms", "p99_ms", sa, sb, workload))
                    if chart is not None]
    pdf_charts = [_pdf_chart(i, a, b) for i, (a, b) in enumerate(pairs)]
    title_a, title_b = overview.run_title(sa), overview.run_title(sb)
    page = html.render(
        "compare.html.j2", root="", has_distributions=False,
        run_title=f"{title_a} vs {title_b}", title_a=title_a, title_b=title_b,
        facts_a=overview.run_facts(sa), facts_b=overview.run_facts(sb), rows=result.rows,
        counts=result.counts, words=result.verdict_words, cell_words=result.cell_words, metric_names=result.metric_names,
        only_a=result.only_a, only_b=result.only_b, intervals=result.interval_words, coverage=result.coverage_words,
        margin=result.margin_text, curve_charts=curve_charts, pdf_charts=pdf_charts,
        finding_groups=findings_view.groups(result.findings, [], set()),
        no_findings="No metric of a paired cell is shown different: every 95% interval includes zero, or there "
                    "are no intervals.",
        chart_data=curve_charts + pdf_charts, **({"generated": generated} if generated else {}))
    html.write(out_dir / "index.html", page)
    return out_dir / "index.html"
