"""The gate's deltas against the baseline as a Markdown table (RUN/baseline.md and report/summary.md's section): each
criterion and cell with both figures, the regression and its 95% interval, what the interval holds and the verdict,
all as the gate computed them (history/gate.py)."""

from __future__ import annotations


def markdown(results, notes: list[str], baseline_id: str, heading: str) -> str:
    """results: history.gate.GateResult, each with its message's parts."""
    lines = [heading, "", f"Baseline: `{_cell(baseline_id)}`. A criterion fails only when the whole interval of the "
             "regression lies past its margin; the interval includes the run-to-run noise when the history holds "
             "enough comparable runs (docs/history.md).", "",
             "| criterion | cell | baseline | this run | regression | 95% interval | noise | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append("| " + " | ".join(_cell(x) for x in (
            r.criterion, r.cell, r.shown(r.baseline), r.shown(r.value), r.change_text(r.regression),
            f"{r.change_text(r.lo)} to {r.change_text(r.hi)}" if r.lo is not None else "none",
            f"{r.noise_runs} runs" if r.noise_used else f"within-run only ({r.noise_runs} runs)",
            r.verdict())) + " |")
    lines += [""] + [f"- {_cell(n)}" for n in notes] + ([""] if notes else [])
    return "\n".join(lines)


def _cell(text) -> str:
    """Text as one Markdown table cell: a pipe or a line break in a cell id would break the row."""
    return str(text).replace("|", "\\|").replace("\n", " ")
