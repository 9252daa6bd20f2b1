"""The answer in GitHub-flavoured Markdown, for a CI job summary or a pull-request comment: the headline, the
criteria verdict, the top findings and a small table of the curves. Text from the run (labels, messages, axis
values) is escaped: it reaches the page as text, never as markup."""

from __future__ import annotations

import re

from littlegrid.render import fmt, overview, proof, words
from littlegrid.summary.model import Summary

TOP = 5          # findings listed (the rest are in the report)
TABLE_ROWS = 24  # points of the curves tabled; more are summed up in a line

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def text(value) -> str:
    """Any text from the run as Markdown text: its markup characters escaped, HTML's as entities, one line."""
    s = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", " ".join(s.split()))


def _verdict(summary: Summary) -> str:
    """The verdict and the checks in the report's words (render/words.py), with the first failed criteria."""
    o = overview.outcomes(summary)
    failed = [c for c in o["criteria"] if c["passed"] is False][:TOP]
    lines = [f"**{text(words.VERDICT)}: {text(words.verdict(o))}**"]
    lines += [f"- FAIL `{text(c['criterion'])}` at {text(c['cell'] or 'grid')}: "
              f"{text(fmt.metric(c['value'], c['metric'], c['unit']))}" for c in failed]
    lines.append(f"\n{text(words.CHECKS)}: {text(words.checks(o))}.")
    return "\n".join(lines)


def _table(summary: Summary) -> list[str]:
    by_id = {c.id: c for c in summary.cells}
    rows = [(k, cid, x) for k in summary.curves for cid, x in zip(k.cells, k.x)]
    if not rows:  # a single test: its one cell
        rows = [(None, c.id, None) for c in summary.cells if c.overall is not None]
    cited = set(summary.headline.cells) if summary.headline is not None else set()
    out = ["| curve | load | X (/s) | R | p90 | p99 | errors | steady window |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for k, cid, x in rows[:TABLE_ROWS]:
        c = by_id[cid]
        o = c.overall
        window = "; ".join(filter(None, (words.warmup(c.window), words.precision(c.precision),
                                         words.stopped(c.stop))))
        load = "" if k is None else (f"N = {x:g}" if k.workload == "closed" else f"λ = {x:g}/s")
        load = f"**{load}**" if load and cid in cited else load
        out.append(f"| {text(k.label) if k else text(cid)} | {load} | {fmt.num(o.throughput_per_s)} | "
                   f"{fmt.ms(o.mean_ms)} | {fmt.ms(o.p90_ms)} | {fmt.ms(o.p99_ms)} | {fmt.pct(o.error_rate)} | "
                   f"{text(window)} |")
    if len(rows) > TABLE_ROWS:
        out.append(f"\n{len(rows) - TABLE_ROWS} more points in the report.")
    return out


def _chart(summary: Summary, image: str | None) -> list[str]:
    """The chart the headline rests on (render/proof.py) as summary.png draws it, when the image sits beside this
    file; its curves' knee or capacity in words, for a page that shows no images."""
    p = proof.proof(summary)
    if p is None:
        return []
    out = [f"![{text(proof.ALT)}]({image})", ""] if image else []
    marks = [f"{text(k.label)}: {text(k.mark.words)}" for k in p.curves if k.mark is not None]
    if marks:
        out += ["Marked on the chart: " + "; ".join(marks) + ".", ""]
    return out


def summary_markdown(summary: Summary, report_href: str | None = None, image: str | None = None) -> str:
    """The Markdown summary of an analysed run (report/summary.md, `littlegrid explain --markdown`): the headline,
    the verdict, the chart the headline rests on (`image`: summary.png's address from where this file is read),
    the top findings and the table of the curves, the cells the headline cites in bold."""
    lines = [f"## {text(overview.run_title(summary))}", ""]
    if summary.run.unfinished is not None:
        lines += [f"> **Incomplete run**: {text(summary.run.unfinished.text())}", ""]
    if summary.headline is not None:
        lines += ["**" + text(" ".join(summary.headline.sentences)) + "**", ""]
    lines += [_verdict(summary), ""]
    lines += _chart(summary, image)
    top = [f for f in summary.findings if not f.minor][:TOP]
    if top:
        lines.append("### Findings")
        for group, items in words.by_group(top):
            lines.append(f"\n**{text(words.group_title(group))}**\n")
            lines += [f"- **{text(words.kind(f))}**: {text(f.statement)} "
                      f"({text(words.HOW_SURE)}: {text(words.sure(f.standing))})" for _, f in items]
        rest = len(summary.findings) - len(top)
        if rest:
            lines.append(f"\n{rest} more finding{'s' if rest > 1 else ''} in the report.")
        lines.append("")
    lines += ["### Cells", *_table(summary), ""]
    if summary.headline is not None and summary.headline.cells:
        lines += ["In bold: the cells the headline cites.", ""]
    if report_href:
        lines.append(f"Full report: [{text(report_href)}]({report_href.replace(' ', '%20').replace(')', '%29')})")
    return "\n".join(lines).rstrip() + "\n"
