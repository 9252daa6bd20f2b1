"""The run report's pages from a summary: index.html (overview), distributions.html, cells/<cell>.html."""

from __future__ import annotations

from pathlib import Path

from littlegrid.render import baseline as baseline_md
from littlegrid.render import cellpage, distributions, findings_view, html, labels, layout, overview, proof, words
from littlegrid.summary.baseline import NO_BASELINE, Baseline, not_judged
from littlegrid.summary.model import Cell, Summary


def build_report(summary: Summary | dict, out_dir: Path, *, generated: str | None = None,
                 arms_note: str | None = None, baseline: Baseline | None = None) -> Path:
    """Write every page of the report into `out_dir`; returns the path of index.html. A summary given as plain data
    (summary.json's) is read into the typed model first: the pages read fields, never dig in dicts. arms_note: why
    the grid's arms are not compared (comparison.arms.arm_without_cells), said on the overview. baseline: the gate
    `check --baseline` judged (summary/baseline.py), drawn as the overview's "Against the baseline" section; without
    it the grid's relative criteria are listed there as not judged."""
    summary = summary if isinstance(summary, Summary) else Summary.model_validate(summary)
    cells = summary.cells
    pages = layout.page_names(cells)
    title = overview.run_title(summary)
    stamp = {"generated": generated} if generated else {}
    common = {"run_title": title, **stamp}

    def cell_href(prefix):
        return {c.id: prefix + pages[c.id] for c in cells}

    curve_charts = overview.curve_charts(summary)
    outcomes = overview.outcomes(summary)
    glance = proof.proof(summary)  # the chart the headline rests on, first on the page
    glance_charts = proof.page_charts(glance) if glance is not None else []
    # JTL files are one test: its overview is the statistics per label, its errors and its charts over time
    single = summary.run.source == "jtl" and len(cells) == 1
    test = label_context(cells[0]) if single else {}
    over_time = _cell_charts(cells[0]) if single else []
    index = html.render(
        "overview.html.j2", root="", chart_data=glance_charts + curve_charts + over_time, curve_charts=curve_charts,
        glance_charts=glance_charts, glance_cited=glance is not None and glance.cited_anywhere,
        over_time=over_time, label_view=test,
        outcomes=outcomes, verdict_words=f"{words.VERDICT}: {words.verdict(outcomes)}",
        checks_words=f"{words.CHECKS}: {words.checks(outcomes)}", facts=overview.run_facts(summary),
        heatmaps=overview.heatmap_sections(cells, pages), models=overview.model_tables(summary),
        model_rows=overview.model_rows(summary), cell_rows=overview.cell_rows(cells, pages),
        cell_href=cell_href("cells/"), headline=summary.headline,
        finding_groups=findings_view.groups(summary.findings, summary.curves, {c["id"] for c in curve_charts}),
        expectations=summary.expectations, baseline=baseline, baseline_rule=baseline_md.RULE,
        relative_criteria=summary.run.relative_criteria, no_baseline=not_judged(NO_BASELINE),
        unfinished=summary.run.unfinished, arms_note=arms_note, **common)
    html.write(out_dir / "index.html", index)

    pdf, ccdf = distributions.overlay_charts(summary, "pdf"), distributions.overlay_charts(summary, "ccdf")
    think = distributions.think_charts(cells)
    html.write(out_dir / "distributions.html", html.render(
        "distributions.html.j2", root="", pdf=pdf, ccdf=ccdf, think=think, tails=distributions.tail_rows(cells),
        chart_data=pdf["fixed_n"] + pdf["fixed_z"] + ccdf["fixed_z"] + think, **common))

    for i, c in enumerate(cells):
        ts = _cell_charts(c)
        html.write(out_dir / "cells" / pages[c.id], html.render(
            "cell.html.j2", root="../", cell_id=c.id, chart_data=ts, facts=cellpage.facts(c),
            label_view=label_context(c),
            server_view=cellpage.server_view(c),
            checks=[overview.normalise(k, overview.CHECK_KEYS) for k in c.checks],
            stats_header=[h for _, h, _ in cellpage.PERCENTILE_COLUMNS], stats=cellpage.stats_rows(c),
            errors=cellpage.error_rows(c), engines=cellpage.engine_rows(c),
            prev_href=pages[cells[i - 1].id] if i > 0 else None,
            next_href=pages[cells[i + 1].id] if i + 1 < len(cells) else None, **common))
    return out_dir / "index.html"


def label_context(cell: Cell) -> dict:
    """What _labels.html.j2 needs for one cell; empty when the cell has no statistics per label."""
    view = labels.table_view(cell)
    if view is None:
        return {}
    return {"lt": view, "label_data": labels.label_data(cell), "lerrors": labels.error_view(cell)}


def _cell_charts(cell: Cell) -> list[dict]:
    """The cell's charts over time: its series, then response codes per second when the summary has them."""
    return cellpage.time_series_charts(cell) + [c for c in [labels.codes_chart(cell)] if c]
