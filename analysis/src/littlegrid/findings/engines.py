"""A remote engine that did not deliver its share of a distributed cell: a generator problem, not the server's.

In a closed workload every thread runs the same loop against the same server, so an engine's throughput should be
its threads' share of the cell's, and its response time the cell's. When a user's plan runs several load groups and
the engines run different mixes of them, the analysis weighs each engine's threads by its group's rate per thread
(EngineShare.expected_share). An engine short of CPU, memory or network
sends less and measures slower; the merged JTL hides it unless the engines are looked at one by one."""

from __future__ import annotations

import math

from littlegrid.findings.base import Figure, Finding, fields
from littlegrid.summary.model import Summary

SHARE_FLOOR = 0.05      # an engine within 5% of its share is on it, however many samples it has
RESPONSE_FLOOR = 0.10   # response times within 10% of the cell's: the same, whatever their noise
NOISE_SIGMAS = 3.0      # beyond this many standard errors a difference is not noise


def engine_shares(summary: Summary) -> list[Finding]:
    """One finding per distributed cell with an engine clearly short of its share, or whose response time differs
    from the cell's beyond the noise of both."""
    out = []
    for cell in summary.cells:
        shares = [s for s in (cell.engine_shares or []) if s.threads]
        overall = cell.overall
        if len(shares) < 2 or overall is None or not overall.throughput_per_s or not overall.mean_ms:
            continue
        total_threads = sum(s.threads for s in shares)
        short, slow = [], []
        for s in shares:
            share = s.expected_share if s.expected_share is not None else s.threads / total_threads
            expected, expected_count = overall.throughput_per_s * share, overall.count * share
            # a count's Poisson noise: √count, so 3/√count relative, and never less than the floor
            tolerance = max(SHARE_FLOOR, NOISE_SIGMAS / math.sqrt(expected_count)) if expected_count > 0 else 1.0
            if s.throughput_per_s is not None and s.throughput_per_s < expected * (1 - tolerance):
                short.append((s, expected, tolerance))
            if s.mean_ms is not None and s.count > 1 and s.sd_ms is not None:
                noise = NOISE_SIGMAS * s.sd_ms / math.sqrt(s.count)
                if abs(s.mean_ms - overall.mean_ms) > max(RESPONSE_FLOOR * overall.mean_ms, noise):
                    slow.append(s)
        if not short and not slow:
            continue
        parts = []
        for s, expected, tolerance in short:
            mix = "" if s.expected_share is None else " (weighed by the load groups its threads ran)"
            parts.append(f"engine {s.engine} ran {s.threads} of the {total_threads} threads but delivered "
                         f"{s.throughput_per_s:.1f}/s where its share{mix} was {expected:.1f}/s "
                         f"({s.throughput_per_s / expected - 1:+.0%}, beyond the {tolerance:.0%} its samples allow)")
        for s in slow:
            if any(s is t for t, _, _ in short):
                parts.append(f"its mean response time was {s.mean_ms:.0f} ms against the cell's {overall.mean_ms:.0f} ms")
            else:
                parts.append(f"engine {s.engine} measured a mean response time of {s.mean_ms:.0f} ms against the "
                             f"cell's {overall.mean_ms:.0f} ms, beyond the noise")
        statement = (f"In {cell.id}, " + "; ".join(parts) + ". The same server answered every engine, so this is "
                     "the load generator, not the server: look at that engine's CPU, heap and network, or give it "
                     "fewer threads; the cell's figures mix a slower generator into the server's.")
        engines_named = short and [s for s, _, _ in short] or slow
        out.append(Finding(
            "validity", statement, "holds",
            f"each engine's throughput against its threads' share of the cell's {overall.throughput_per_s:.1f}/s, "
            "and its mean response time against the cell's, from the rows each engine wrote",
            tuple(Figure(f"throughput of {s.engine}", s.throughput_per_s, "/s", cell.id) for s in shares),
            fields({"engine_throughput_per_s": engines_named[0].throughput_per_s,
                    "engine_mean_ms": engines_named[0].mean_ms, "cell_mean_ms": overall.mean_ms}),
            tuple((k, v) for k, v in cell.axes.items()), (cell.id,), resource="generator"))
    return out
