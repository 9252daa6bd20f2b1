"""Outages and stalls in words (analysis/outage.py found and told them apart): an outage (requests failed or timed
out, or the server never came back) said first, so that nobody reads its failures as a bottleneck or its instant
refusals as throughput; a stall (requests held, then answered) said as what it is, with what it did to R."""

from __future__ import annotations

from littlegrid.findings.base import Figure, Finding, cell_words, fields, ms, pct, rate, where_of
from littlegrid.summary.model import Cell, OutagePart, Stall, Summary

# What "every request from then on …" did, by error class (analysis/error_classes.py).
FAILED_AS = {
    "connection_refused": "was refused (connection refused)",
    "connect_timeout": "timed out connecting (connect timeout)",
    "read_timeout": "timed out waiting for an answer (read timeout)",
    "connection_reset": "had its connection dropped (connection reset)",
}
# R's figures, in the order a stall reaches them (the largest last)
REACH = (("p50", "p50_ms"), ("p90", "p90_ms"), ("p95", "p95_ms"), ("p99", "p99_ms"), ("p99.9", "p999_ms"),
         ("max", "max_ms"))


def _failed_as(error_class: str) -> str:
    if error_class in FAILED_AS:
        return FAILED_AS[error_class]
    if error_class.startswith("http_"):
        return f"was answered with an HTTP {error_class.removeprefix('http_')} error"
    return f"failed ({error_class})"


def _part(name: str, p: OutagePart | None) -> str | None:
    """"before it (60 s): 5,990 requests, X = 99.8/s, mean R = 100 ms, no error"."""
    if p is None:
        return None
    errors = "no error" if not p.errors else f"{p.errors:,} errors ({pct(p.error_rate)})"
    return (f"{name} ({p.length_s:.3g} s): {p.count:,} requests, X = {rate(p.throughput_per_s)}, mean R = "
            f"{ms(p.mean_ms)}, {errors}")


def _left_out(summary: Summary, cell: Cell) -> bool:
    """Whether the curves left the cell out (analysis/curves.py owns the rule and says why)."""
    return any(o.cell == cell.id for k in summary.curves for o in k.left_out)


def outages(summary: Summary) -> list[Finding]:
    """One finding per cell with an outage: when it began, how long it lasted, what failed, what the cell's
    figures are (the whole window with the parts before and after it, or the part before a server that never
    came back)."""
    out = []
    for c in summary.cells:
        o = c.outage
        if o is None:
            continue
        where = f"{o.began_s:.3g} s into {cell_words(c)}" if o.began_s > 0 else f"from the start of {cell_words(c)}"
        if o.failed and o.error_class is not None:
            classes = "" if len(o.failed_by_class) == 1 else " (" + ", ".join(
                f"{n:,} {name}" for name, n in o.failed_by_class.items()) + ")"
            what = (f"every request {'in it' if o.recovered else 'from then on'} {_failed_as(o.error_class)}: "
                    f"{o.failed:,} samples"
                    + (f" at {o.failed_per_s:.3g}/s" if o.failed_per_s else "") + classes)
        else:
            what = "no request completed"
        if o.recovered:
            head = f"The server stopped answering {where} for {o.lasted_s:.3g} s, then answered again: {what}"
            parts = [p for p in (_part("before it", o.before), _part("after it", o.after)) if p]
            figures = ("its figures are the whole window's, the outage inside it"
                       + (f"; {'; '.join(parts)}" if parts else ""))
        else:
            head = (f"The server stopped answering {where} and never came back: {what}, until the cell ended "
                    f"{o.lasted_s:.3g} s later")
            figures = {"before": "its figures are those of the part before it",
                       "after": "its figures are those of the part after it",
                       "none": "no part of its window is left beside it, so the cell has no figures"}[o.figures]
        statement = (f"{head}; {figures}" + (", and the cell is left out of the curves" if _left_out(summary, c)
                                             else "") + ".")
        why = f"an outage, not a bottleneck nor a stall: {o.rule}"
        evidence = (Figure("outage began", o.began_s, "s", c.id), Figure("outage lasted", o.lasted_s, "s", c.id),
                    Figure("requests failed in it", float(o.failed), "", c.id))
        after = o.after
        out.append(Finding("outage", statement, "holds", why, evidence,
                           fields({"began_s": o.began_s, "lasted_s": o.lasted_s, "failed": o.failed,
                                   "error_class": o.error_class or "none completed",
                                   "recovered": "yes" if o.recovered else "no"}
                                  | ({"after_throughput_per_s": after.throughput_per_s,
                                      "after_mean_ms": after.mean_ms, "after_error_rate": after.error_rate}
                                     if after is not None else {})),
                           where_of([c]), (c.id,), recommendation=(
                               "Find out why the server stopped (its log, its exit code), then run the cell again "
                               "(`littlegrid run --resume` re-runs it).")))
    return out


def _on_curve(summary: Summary, cell: Cell) -> bool:
    return any(cell.id in k.cells for k in summary.curves)


def _reach(cell: Cell, s: Stall) -> str:
    """Which of R's figures the held requests reach (at least as slow as the quickest of them), in words."""
    stats = cell.overall
    if stats is None or not s.in_window:
        return "it was trimmed with the warm-up or cool-down, so the window's figures do not hold it"
    figures = [(name, getattr(stats, key)) for name, key in REACH if getattr(stats, key) is not None]
    reached = [(name, v) for name, v in figures if v >= s.shortest_ms]
    if not reached:
        return f"the held requests stay in R's figures (mean R {ms(stats.mean_ms)})"
    name, value = reached[0]
    text = f"R's {name} includes it ({name} = {ms(value)})"
    below = [(n, v) for n, v in figures if v < s.shortest_ms]
    if below:
        n, v = below[-1]
        held = "request is" if s.held == 1 else "requests are"
        text += (f"; its {n} ({ms(v)}) does not reach it: the {s.held:,} held {held} {pct(s.held / stats.count)} "
                 f"of the window's {stats.count:,}")
    return text


def stalls(summary: Summary) -> list[Finding]:
    """One finding per stall: how many requests were held, for how long, when, and what it did to R's figures.
    The cell keeps its whole window (and its place on its curve, unless something else leaves it out)."""
    out = []
    for c in summary.cells:
        for s in c.stalls:
            failed = f" ({s.held_failed:,} of them failed when released)" if s.held_failed else ""
            held = ("the one request in flight was held" if s.held == 1
                    else f"all {s.held:,} requests in flight were held")
            curve = " and its place on its curve" if _on_curve(summary, c) else ""
            statement = (f"In {cell_words(c)}, {held} for {s.lasted_s:.3g} s at {s.began_s:.3g} s, then answered"
                         f"{failed}; {_reach(c, s)}. A stall, not an outage: nothing failed in it, so the cell keeps "
                         f"its whole window{curve}.")
            out.append(Finding("stall", statement, "holds", f"a stall: {s.rule}",
                               (Figure("stall began", s.began_s, "s", c.id),
                                Figure("stall lasted", s.lasted_s, "s", c.id),
                                Figure("requests held", float(s.held), "", c.id)),
                               fields({"began_s": s.began_s, "lasted_s": s.lasted_s, "held": s.held,
                                       "longest_ms": s.longest_ms}),
                               where_of([c]), (c.id,), recommendation=(
                                   "Look at what the server did then (a garbage collector's log, a lock, a full "
                                   "disk): a pause of this length recurs.")))
    return out
