"""Outages and stalls in words (analysis/steady/outage.py found and told them apart): an outage (requests failed or timed
out, or the server never came back) said first, so that nobody reads its failures as a bottleneck or its instant
refusals as throughput; a stall (requests held, then answered) said as what it is, with what it did to R."""

from __future__ import annotations

from littlegrid.findings.base import Figure, Finding, cell_words, fields, ms, pct, rate, where_of
from littlegrid.summary.model import Cell, Outage, OutagePart, Stall, Summary

# What "every request from then on …" did, by error class (analysis/reading/error_classes.py).
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
    """Whether the curves left the cell out (analysis/modelling/curves.py owns the rule and says why)."""
    return any(o.cell == cell.id for k in summary.curves for o in k.left_out)


def outages(summary: Summary) -> list[Finding]:
    """One finding per outage of every cell (Cell.outages, each of them): when it began, how long it lasted, what
    failed class by class, and for the recorded one what the cell's figures are (the whole window with the parts
    before and after it, or the part before a server that never came back)."""
    out = []
    for c in summary.cells:
        every = c.outages or ([c.outage] if c.outage is not None else [])  # an older summary recorded one
        for o in every:
            out.append(_outage(summary, c, o, recorded=o == c.outage))
    return out


def _plural(words: str) -> str:
    """FAILED_AS's words said of several requests: "were refused", "had their connection dropped"."""
    return words.replace("was ", "were ", 1).replace("had its ", "had their ", 1)


def _what(o: Outage) -> str:
    """What the outage's requests did, class by class, never one class's words for another's: "every request in it
    was refused (connection refused): 1,070 samples at 107/s", or with several classes "every request in it failed:
    1,070 were refused (connection refused) and 5 had their connection dropped (connection reset), 1,075 samples at
    108/s"."""
    if not o.failed or o.error_class is None:
        return "no request completed"
    when = "in it" if o.recovered else "from then on"
    rate_words = f" at {o.failed_per_s:.3g}/s" if o.failed_per_s else ""
    if len(o.failed_by_class) <= 1:
        return f"every request {when} {_failed_as(o.error_class)}: {o.failed:,} samples{rate_words}"
    parts = [f"{n:,} {_plural(_failed_as(name)) if n != 1 else _failed_as(name)}"
             for name, n in o.failed_by_class.items()]
    listed = ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"every request {when} failed: {listed}, {o.failed:,} samples{rate_words}"


def _outage(summary: Summary, c: Cell, o: Outage, recorded: bool) -> Finding:
    """One outage in words. The recorded one (Cell.outage) says what the cell's figures are; another (a cell holds
    every outage it had: Cell.outages) that its failures stay among the window's errors."""
    where = f"{o.began_s:.3g} s into {cell_words(c)}" if o.began_s > 0 else f"from the start of {cell_words(c)}"
    what = _what(o)
    if not recorded:
        head = (f"The server stopped answering {where} for {o.lasted_s:.3g} s, then answered again: {what}"
                if o.recovered else
                f"The server stopped answering {where} and never came back: {what}")
        figures = ("its failures stay among the window's errors" if o.figures == "whole"
                   else "it lies outside the window")
    elif o.recovered:
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
    return Finding("outage", statement, "holds", why, evidence,
                   fields({"began_s": o.began_s, "lasted_s": o.lasted_s, "failed": o.failed,
                           "error_class": o.error_class or "none completed",
                           "recovered": "yes" if o.recovered else "no"}
                          | ({"after_throughput_per_s": after.throughput_per_s,
                              "after_mean_ms": after.mean_ms, "after_error_rate": after.error_rate}
                             if after is not None else {})),
                   where_of([c]), (c.id,), recommendation=(
                       "Find out why the server stopped (its log, its exit code), then run the cell again "
                       "(`littlegrid run --resume` re-runs it)."))


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


# A stall longer than this share of the window moves the cell's X by about as much (nothing completes while it
# lasts): as much as the 10% a level is judged by (capacity.LEVEL_GROWTH), so the cell's place on its curve, whose
# points are steady states at one load, is in question.
LARGE_STALL_SHARE = 0.10


def _held_words(s: Stall) -> str:
    """Who the stall held, as the figures say: the requests in flight at its start (how many then answered, how many
    failed), and those that started while it lasted."""
    if s.held:
        who = ("the one request in flight at its start was" if s.held == 1
               else f"all {s.held:,} requests in flight at its start were")
        answered = s.held - s.held_failed
        outcome = ("then answered" if not s.held_failed
                   else f"then {answered:,} answered and {s.held_failed:,} failed" if answered
                   else f"then {'it' if s.held == 1 else 'all of them'} failed")
        text = f"{who} held for {s.lasted_s:.3g} s at {s.began_s:.3g} s, {outcome}"
    else:
        text = f"no request was in flight when the answers stopped at {s.began_s:.3g} s, and none came for {s.lasted_s:.3g} s"
    if s.joined:
        more = "more " if s.held else ""
        took = (f" (it took {ms(s.joined_longest_ms)})" if s.joined == 1 else
                f" (the longest took {ms(s.joined_longest_ms)})") if s.joined_longest_ms else ""
        text += (f"; {s.joined:,} {more}request{'s' if s.joined != 1 else ''} that started while it lasted "
                 f"{'were' if s.joined != 1 else 'was'} answered after it{took}")
    return text


def stalls(summary: Summary) -> list[Finding]:
    """One finding per stall: how many requests were held (in flight at its start) and what became of them, how
    many started while it lasted, for how long, when, what it did to R's figures and what share of the window it
    took. The cell keeps its whole window (and its place on its curve, unless something else leaves it out, or
    the stall took more than LARGE_STALL_SHARE of the window: then that place is questioned)."""
    out = []
    for c in summary.cells:
        window = c.window.length_s if c.window is not None else None
        for s in c.stalls:
            share = s.lasted_s / window if window and s.in_window else None
            on_curve = _on_curve(summary, c)
            reach = _reach(c, s) if s.held else (
                "the window's figures do not hold it" if not s.in_window else
                f"R's max ({ms(c.overall.max_ms)}) holds {'it' if s.joined == 1 else 'the longest of those'}"
                if c.overall is not None
                and c.overall.max_ms is not None and s.joined_longest_ms
                and c.overall.max_ms >= s.joined_longest_ms else "")
            taken = (f" It took {pct(share)} of the {window:.3g} s window" if share is not None else "")
            if share is not None and share > LARGE_STALL_SHARE:
                keeps = (f".{taken}: nothing completed while it lasted, so the window's X and R describe the stall "
                         f"as much as the load" + (", and the cell's place on its curve is in question" if on_curve
                                                   else "")
                         + ". A stall, not an outage: nothing failed in it, so the cell keeps its whole window.")
            else:
                keeps = ((f".{taken}." if taken else ".")
                         + " A stall, not an outage: nothing failed in it, so the cell keeps its whole window"
                         + (" and its place on its curve" if on_curve else "") + ".")
            statement = f"In {cell_words(c)}, {_held_words(s)}" + (f"; {reach}" if reach else "") + keeps
            out.append(Finding("stall", statement, "holds", f"a stall: {s.rule}",
                               (Figure("stall began", s.began_s, "s", c.id),
                                Figure("stall lasted", s.lasted_s, "s", c.id),
                                Figure("requests held", float(s.held), "", c.id)),
                               fields({"began_s": s.began_s, "lasted_s": s.lasted_s, "held": s.held,
                                       "held_failed": s.held_failed, "joined": s.joined,
                                       "longest_ms": s.longest_ms, "window_share": share}),
                               where_of([c]), (c.id,), recommendation=(
                                   "Look at what the server did then (a garbage collector's log, a lock, a full "
                                   "disk): a pause of this length recurs.")))
    return out
