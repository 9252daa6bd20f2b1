"""The gate against a baseline as Markdown (RUN/baseline.md and the report's summary.md section): each criterion and
cell with both figures, the regression and its 95% interval, what the interval holds and the verdict, drawn from the
gate's typed record (summary/baseline.py), whose methods give every shown string; the report's HTML section
(_baseline.html.j2) reads the same record and the same methods."""

from __future__ import annotations

from littlegrid.render.markdown import text
from littlegrid.summary.baseline import Baseline

SECTION = "## Against the baseline"  # the heading in baseline.md and in the report's summary.md
RULE = ("A criterion fails only when the whole interval of the regression lies past its margin, or when the series has "
        "shifted past it to stay; the interval includes the run-to-run noise, a prior until the series has measured "
        "it (docs/history.md).")
COLUMNS = ("criterion", "cell", "reference", "this run", "regression", "95% interval", "noise", "detects", "verdict")


def markdown(gate: Baseline, heading: str = SECTION) -> str:
    """The section: the baseline, the rule, one row per (criterion, cell), then the notes. Every text from the run
    (cell ids, notes) is escaped as render.markdown.text escapes the rest of summary.md."""
    lines = [heading, ""]
    if gate.baseline_id is None:
        return "\n".join(lines + [text(gate.verdict_text()), ""])
    lines += [f"Baseline: `{gate.baseline_id.replace('`', '')}`: {text(gate.verdict_text())}. {RULE}", "",
              "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in gate.rows:
        lines.append("| " + " | ".join(text(x) for x in (
            r.criterion, r.cell, r.shown(r.baseline), r.shown(r.value), r.change_text(r.regression),
            r.interval_text(), r.noise_short(), r.detectable_text(), r.verdict_line())) + " |")
    said = [f"- {text(n)}" for n in gate.notes]
    said += [f"- {text(line)}" for line in gate.detectable_lines()]
    lines += [""] + said + ([""] if said else [])
    return "\n".join(lines)
