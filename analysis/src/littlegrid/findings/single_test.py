"""What one test (a JTL from anywhere, not a grid) shows: its throughput, the slowest transactions, where the errors
are, whether response time shifted through the test, and bursts of errors. No advice about cells or tolerances:
a user who brought a JTL asked for none."""

from __future__ import annotations

import math

from littlegrid.analysis.steady.trend import DRIFT_TOLERANCE, TREND_P
from littlegrid.findings.base import Figure, Finding, fields, ms, num, pct, rate
from littlegrid.summary.model import Cell, Summary

SLOWEST = 3          # transactions (or labels) named as the slowest
MIN_SHARE = 0.01     # a label needs this share of the samples (and MIN_SAMPLES) to be named slowest: no outlier of 2
MIN_SAMPLES = 20
BURST_SIGMAS = 5.0   # a bucket with more errors than mean + this many Poisson standard errors
BURST_MIN = 5        # and at least this many errors


def is_single_test(summary: Summary) -> bool:
    """A JTL given to `analyze` or `report` by itself: one cell, not from a grid."""
    return summary.run.source == "jtl" and len(summary.cells) == 1


def single_test(summary: Summary) -> list[Finding]:
    cell = summary.cells[0]
    if cell.overall is None or not cell.overall.count:
        return []
    return [f for f in (throughput(cell), slowest(cell), errors(cell), latency_shift(cell), error_bursts(cell))
            if f is not None]


def _window_s(cell: Cell) -> float | None:
    return num(cell.window.length_s) if cell.window is not None else None


def throughput(cell: Cell) -> Finding:
    o, window = cell.overall, _window_s(cell)
    statement = (f"The test completed {o.count:,} requests in its {window:.3g} s window: X = "
                 f"{rate(o.throughput_per_s)}, mean R = {ms(o.mean_ms)}, p90 = {ms(o.p90_ms)}, p99 = {ms(o.p99_ms)}, "
                 f"{pct(o.error_rate)} errors.")
    return Finding("throughput", statement, "holds", "every sample of the steady window, exact percentiles",
                   (Figure("X", o.throughput_per_s, "/s"), Figure("p90", o.p90_ms, "ms")),
                   fields({"throughput_per_s": o.throughput_per_s, "mean_ms": o.mean_ms, "p90_ms": o.p90_ms,
                           "error_rate": o.error_rate}), (), (cell.id,))


def _named(cell: Cell) -> list[tuple[str, object]]:
    """Labels with enough samples to be named: the transactions when any has (they hold the others)."""
    floor = max(MIN_SAMPLES, MIN_SHARE * cell.overall.count)
    labels = [(k, s) for k, s in cell.labels.items() if s.count >= floor and num(s.p90_ms) is not None]
    transactions = [(k, s) for k, s in labels if s.transaction]
    return transactions or labels


def slowest(cell: Cell) -> Finding | None:
    named = sorted(_named(cell), key=lambda kv: -kv[1].p90_ms)[:SLOWEST]
    if not named:
        return None
    what = "transactions" if named[0][1].transaction else "labels"
    parts = [f"'{k}' p90 {ms(s.p90_ms)} (mean {ms(s.mean_ms)}, {s.count:,} samples)" for k, s in named]
    k0, s0 = named[0]
    return Finding("slowest", f"The slowest {what}: " + "; ".join(parts) + ".", "holds",
                   f"{what} with at least {MIN_SAMPLES} samples and {MIN_SHARE:.0%} of the test, by exact p90",
                   tuple(Figure(f"p90 {k}", s.p90_ms, "ms") for k, s in named),
                   fields({"label": k0, "p90_ms": s0.p90_ms, "mean_ms": s0.mean_ms}), (), (cell.id,))


def file_errors(cell: Cell) -> tuple[int, int]:
    """(failed, requests) over every sample of the cell's files, window or not (the reading's count; the window's
    for a summary written before it was counted)."""
    r, o = cell.reading, cell.overall
    if r is not None and r.samples is not None and r.failed is not None:
        return r.failed, r.samples
    return (o.errors, o.count) if o is not None else (0, 0)


def outage_share(in_outage: float, failed: float, lasted_s: float, began_s: float) -> str:
    """", 1,985 of them in the 10 s outage at 60 s": the outage's share of the failures, said apart."""
    share = "all of them" if in_outage == failed else f"{in_outage:,.0f} of them"
    return f", {share} in the {lasted_s:.3g} s outage at {began_s:.3g} s"


def errors(cell: Cell) -> Finding | None:
    """The file's errors (every sample, the window's trim and an outage included), the outage's share named, then
    where the window's errors concentrate, by label and by type. None only when no request of the file failed."""
    failed, requests = file_errors(cell)
    if not failed:
        return None
    o, outage = cell.overall, cell.outage
    in_outage = outage.failed if outage is not None else 0
    window_errors = o.errors if o is not None else 0
    by_label = sorted(((k, s) for k, s in cell.labels.items() if s.errors and not s.transaction),
                      key=lambda kv: -kv[1].errors) or \
        sorted(((k, s) for k, s in cell.labels.items() if s.errors), key=lambda kv: -kv[1].errors)
    top = by_label[:SLOWEST] if window_errors else []
    parts = [f"'{k}' ({s.errors:,} of {window_errors:,} errors, {s.errors / window_errors:.0%}; "
             f"{pct(s.error_rate)} of its requests)" for k, s in top]
    types = cell.errors.by_type[:3] if cell.errors is not None and window_errors else []
    share = outage_share(in_outage, failed, outage.lasted_s, outage.began_s) if in_outage else ""
    detail = (": they concentrate in " + ", ".join(parts) if parts else "") + \
        ("; by type: " + ", ".join(f"{t.type} ({t.count:,})" for t in types) if types else "")
    statement = f"{failed:,} of {requests:,} requests failed ({pct(failed / requests)}){share}"
    if detail and window_errors != failed:  # the labels and types are the window's: said apart
        statement += ". In the window, " + detail.lstrip(":; ")
    statement += (detail if window_errors == failed else "") + "."
    figures = {"errors": failed, "requests": requests, "error_rate": failed / requests, "outage_errors": in_outage,
               "window_errors": window_errors}
    if outage is not None and in_outage:
        figures |= {"outage_lasted_s": outage.lasted_s, "outage_began_s": outage.began_s}
    if top:
        figures |= {"label": top[0][0], "label_errors": top[0][1].errors}
    return Finding("errors", statement, "holds",
                   "failed samples of the whole file (the outage's apart); by label and by type, the window's",
                   tuple(Figure(f"errors {k}", s.errors, "") for k, s in top), fields(figures), (), (cell.id,))


def latency_shift(cell: Cell) -> Finding | None:
    """R rose or fell through the test by the one drift rule (analysis/steady/trend.drift, the cell stage's verdict
    Trend.drift): the same the steady check judges, so a test never reads both "steady" and "R rose"."""
    t = cell.trend
    if t is None or t.drift is None or not t.first_ms or not t.last_ms:
        return None
    ratio = t.last_ms / t.first_ms
    way = t.drift
    statement = (f"Response time {way} through the test: the median of each second was {ms(t.first_ms)} in the "
                 f"window's first third and {ms(t.last_ms)} in its last ({ratio:.2g}×; Kendall τ = {t.tau:.2f}, "
                 f"p = {t.p:.1g} over {t.buckets} buckets), so the test's percentiles mix two regimes.")
    tolerance = t.drift_tolerance if t.drift_tolerance is not None else DRIFT_TOLERANCE
    return Finding("latency_shift", statement, "holds",
                   f"the drift rule the steady check applies: Kendall's test of the per-bucket median against time "
                   f"(p < {TREND_P:g}), the thirds' intervals apart, and a change beyond {tolerance:.0%}",
                   (Figure("median R, first third", t.first_ms, "ms"), Figure("median R, last third", t.last_ms, "ms")),
                   fields({"first_ms": t.first_ms, "last_ms": t.last_ms, "tau": t.tau}), (), (cell.id,))


def error_bursts(cell: Cell) -> Finding | None:
    """Buckets with far more errors than the test's mean rate: runs of them, the largest first. Only the buckets
    wholly inside the window count: one the window's end cuts holds errors after it (the first second of an
    outage, when the window ends where the server stopped answering); and none an outage overlaps (a recovered
    one lies inside the window: its failures are its own finding's)."""
    s = cell.series
    if s is None or not s.errors:
        return None
    o = cell.outage  # its failures are the outage finding's: a burst is what the server did while it answered
    began, ended = (o.began_s, o.began_s + o.lasted_s) if o is not None else (0.0, -1.0)
    inside = [(t, e) for t, e in zip(s.t_s, s.errors) if s.window_start_s <= t and t + s.bucket_s <= s.window_end_s
              and not (t < ended and t + s.bucket_s > began)]
    total = sum(e for _, e in inside)
    if total < BURST_MIN or len(inside) < 4:
        return None
    mean = total / len(inside)
    limit = max(BURST_MIN, mean + BURST_SIGMAS * math.sqrt(mean))
    runs, current = [], []
    for t, e in inside:
        if e >= limit:
            current.append((t, e))
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    if not runs:
        return None
    runs.sort(key=lambda r: -sum(e for _, e in r))
    parts = [f"{sum(e for _, e in r):.0f} in {len(r) * s.bucket_s:g} s from {r[0][0] - s.window_start_s:.0f} s"
             for r in runs[:3]]
    burst = sum(e for r in runs for _, e in r)
    statement = (f"Errors came in bursts: {burst:.0f} of {total:.0f} errors of the window fell in {len(runs)} "
                 f"burst{'s' if len(runs) > 1 else ''} (" + "; ".join(parts) + ") — look at what happened then.")
    return Finding("error_burst", statement, "holds",
                   f"buckets with more errors than the mean {mean:.2g} + {BURST_SIGMAS:g} Poisson standard errors",
                   tuple(Figure("errors in burst", sum(e for _, e in r), "", cell.id) for r in runs[:3]),
                   fields({"burst_errors": burst, "errors": total, "bursts": len(runs)}), (), (cell.id,))
