"""Waves: a spike of N requests at once served c at a time, so responses come at S, 2S, 3S... (the classic
connection-limits experiment: 40 users against 10 threads of a 2 s page answer in 4 waves of 10).

Read from the summary's CCDF, which holds every distinct elapsed value with its exact share while the cell has
no more samples than the CCDF's point budget (then it cannot have more distinct values than points). A larger
cell is not read: its CCDF keeps chosen points only, and counts between them cannot be placed on a wave.
"""

from __future__ import annotations

from littlegrid.analysis.reading.tail import CCDF_POINT_BUDGET
from littlegrid.findings.base import Figure, Finding, fields, ms, num, threads_max, users, where_of
from littlegrid.summary.model import Stats, Summary

WAVE_SLACK = 0.15   # a response within ±15% of k·S rides wave k (S = the fastest response, the first wave)
WAVE_SHARE = 0.9    # at least this share of the successful responses on waves, and 2 waves or more
SIZE_SLACK = 0.2    # a wave "matches the pool" when its size is within 20% of threads.max


def exact_counts(overall: Stats) -> list[tuple[float, int]] | None:
    """(elapsed ms, how many samples) for every distinct value, when the CCDF holds them all; else None."""
    n = num(overall.count)
    xs, ps = overall.ccdf.x_ms, overall.ccdf.p
    if not n or n > CCDF_POINT_BUDGET or not xs or len(xs) != len(ps):
        return None
    counts = [n * (p - q) for p, q in zip(ps, [*ps[1:], 0.0])]
    if any(abs(c - round(c)) > 1e-6 or round(c) < 1 for c in counts) or round(sum(counts)) != n:
        return None  # not a CCDF of n samples
    return [(float(x), int(round(c))) for x, c in zip(xs, counts)]


def waves(summary: Summary) -> list[Finding]:
    """One finding per spike cell whose successful responses ride 2 or more waves k·S."""
    out = []
    for c in summary.cells:
        o = c.overall
        if c.intended.workload != "spike" or o is None:
            continue
        values = exact_counts(o)
        successes = num(o.successes)
        if not values or not successes or values[0][0] <= 0:
            continue
        s = values[0][0]
        by_wave: dict[int, list[tuple[float, int]]] = {}
        for x, k in values:
            wave = round(x / s)
            if abs(x - wave * s) <= WAVE_SLACK * s:
                by_wave.setdefault(wave, []).append((x, k))
        on = sum(k for v in by_wave.values() for _, k in v)
        if len(by_wave) < 2 or on < WAVE_SHARE * successes:
            continue
        sizes = {w: sum(k for _, k in v) for w, v in sorted(by_wave.items())}
        at = {w: sum(x * k for x, k in v) / sizes[w] for w, v in sorted(by_wave.items())}
        full = [size for w, size in sizes.items() if w < max(sizes)]  # the last wave takes what is left
        size = max(set(full), key=full.count)
        pool, pool_words = threads_max(summary, c)
        matches = pool is not None and abs(size - pool) <= SIZE_SLACK * pool
        parts = ", ".join(f"{sizes[w]} at {ms(at[w])}" for w in sizes)
        statement = (f"At N = {users(c):g} (a spike) the responses came in {len(sizes)} waves of S ≈ {ms(s)}: "
                     f"{parts}. The server served about {size} at a time")
        if matches:
            statement += (f", its thread pool ({pool_words}); each request after the first {size} waited in "
                          f"front of the server for the waves before it, (k−1)·S for the k-th wave.")
        else:
            statement += (f", while its thread pool has {pool:g} threads ({pool_words}): something else admits "
                          f"{size} at a time." if pool is not None else ".")
        errors = num(o.errors) or 0
        if errors:
            statement += f" The other {errors:g} of {num(o.count):g} requests failed and rode no wave."
        out.append(Finding(
            "waiting", statement, "holds" if matches else "suggests",
            f"{on} of {successes:g} successful responses within ±{WAVE_SLACK:.0%} of a multiple of the fastest"
            + ("" if matches else "; the wave size is not the thread pool's"),
            tuple(Figure(f"wave {w}", sizes[w], "responses", c.id) for w in sizes),
            fields({"waves": len(sizes), "wave_size": size, "service_ms": s, "users": users(c)}),
            where_of([c]), (c.id,), "waves"))
    return out
