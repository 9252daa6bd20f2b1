"""Outages in words: a cell in which the server stopped answering (analysis/outage.py found the stretch), said
first, so that nobody reads its failures as a bottleneck or its instant refusals as throughput."""

from __future__ import annotations

from littlegrid.findings.base import Figure, Finding, cell_words, fields, where_of
from littlegrid.summary.model import Summary

# What "every request from then on …" did, by error class (analysis/error_classes.py).
FAILED_AS = {
    "connection_refused": "was refused (connection refused)",
    "connect_timeout": "timed out connecting (connect timeout)",
    "read_timeout": "timed out waiting for an answer (read timeout)",
    "connection_reset": "had its connection dropped (connection reset)",
}


def _failed_as(error_class: str) -> str:
    if error_class in FAILED_AS:
        return FAILED_AS[error_class]
    if error_class.startswith("http_"):
        return f"was answered with an HTTP {error_class.removeprefix('http_')} error"
    return f"failed ({error_class})"


def outages(summary: Summary) -> list[Finding]:
    """One finding per cell with an outage: when it began, how long it lasted, what failed, what the cell's
    figures are."""
    out = []
    for c in summary.cells:
        o = c.outage
        if o is None:
            continue
        where = f"{o.began_s:.3g} s into {cell_words(c)}" if o.began_s > 0 else f"from the start of {cell_words(c)}"
        if o.failed and o.error_class is not None:
            classes = "" if len(o.failed_by_class) == 1 else " (" + ", ".join(
                f"{n:,} {name}" for name, n in o.failed_by_class.items()) + ")"
            what = (f"every request from then on {_failed_as(o.error_class)}: {o.failed:,} samples"
                    + (f" at {o.failed_per_s:.3g}/s" if o.failed_per_s else "") + classes)
        else:
            what = "no request completed"
        how_long = (f"for {o.lasted_s:.3g} s, then requests were answered again" if o.recovered
                    else f"until the cell ended, {o.lasted_s:.3g} s later")
        figures = {"before": "its figures are those of the part before it",
                   "after": "its figures are those of the part after it",
                   "none": "no part of its window is left beside it, so the cell has no figures"}[o.figures]
        statement = (f"The server stopped answering {where}: {what}, {how_long}; {figures}, and the cell is left "
                     f"out of the curves.")
        why = f"an outage, not a bottleneck: {o.rule}"
        evidence = (Figure("outage began", o.began_s, "s", c.id), Figure("outage lasted", o.lasted_s, "s", c.id),
                    Figure("requests failed in it", float(o.failed), "", c.id))
        out.append(Finding("outage", statement, "holds", why, evidence,
                           fields({"began_s": o.began_s, "lasted_s": o.lasted_s, "failed": o.failed,
                                   "error_class": o.error_class or "none completed"}),
                           where_of([c]), (c.id,), recommendation=(
                               "Find out why the server stopped (its log, its exit code), then run the cell again "
                               "(`littlegrid run --resume` re-runs it).")))
    return out
