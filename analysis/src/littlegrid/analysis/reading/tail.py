"""Shape of a latency distribution from exact data: log-binned PDF, CCDF, Hill tail index and a tail verdict."""

import math

import numpy as np

from littlegrid.analysis.reading.histogram import ExactHistogram

PDF_BINS_PER_DECADE = 20
PDF_MIN_BINS = 30
PDF_MAX_BINS = 120
PDF_RULE = (f"a spread of at most {PDF_MAX_BINS} ms: one bin per millisecond; wider: log-spaced bins, "
            f"{PDF_BINS_PER_DECADE} per decade, at least {PDF_MIN_BINS} and at most {PDF_MAX_BINS}, edges "
            f"rounded to whole milliseconds (so the narrowest bins, at the low end, are 1 ms)")
CCDF_POINT_BUDGET = 240
TAIL_MIN_SAMPLES = 100
TAIL_RULE = (
    "k = floor(sqrt(n)) largest samples above the (k+1)-th largest u; Hill alpha = k / sum(ln(x_i/u)); "
    "verdict from the coefficient of variation of the excesses x_i - u, which is 1 for an exponential tail "
    "(standard error 1/sqrt(k)): above 1 + 3/sqrt(k) heavier, below 1 - 3/sqrt(k) lighter, else consistent"
)


def log_pdf(h: ExactHistogram) -> dict:
    """Density (per ms) of integer-ms samples on bins chosen for the data, with whole-millisecond edges (PDF_RULE).

    A sample of v ms stands for [v, v+1) (JMeter truncates), so edges are integers and no bin is narrower
    than 1 ms: narrower bins would alternate between empty and full (a comb) at the low end. The first edge
    is the minimum (0 ms included); sum(density · width) = 1.
    """
    n = h.n
    if n == 0:
        return {"edges_ms": [], "density": []}
    lo, hi = int(h.values[0]), int(h.values[-1]) + 1
    if hi - lo <= PDF_MAX_BINS:  # a narrow distribution: every millisecond its own bin, nothing merged
        edges = np.arange(lo, hi + 1, dtype=np.int64)
    else:
        start = max(lo, 1)
        decades = max(math.log10(hi / start), 1e-9)
        nbins = int(min(PDF_MAX_BINS, max(PDF_MIN_BINS, math.ceil(decades * PDF_BINS_PER_DECADE))))
        edges = np.unique(np.round(np.geomspace(start, hi, nbins + 1)).astype(np.int64))
        edges = np.unique(np.concatenate(([lo], edges, [hi])))
    counts = np.diff(h.below(edges))
    density = counts / (n * np.diff(edges))
    return {"edges_ms": edges.astype(float).tolist(), "density": density.tolist()}


def ccdf(h: ExactHistogram, budget: int = CCDF_POINT_BUDGET) -> dict:
    """p = P(elapsed ≥ x) at up to `budget` sample values, exact at every point.

    Points are chosen half evenly in log(x) (the body) and half evenly in log(p) down to 1/n (the tail), so a
    log-log plot shows both; P(elapsed ≥ max) = (copies of max)/n is never 0 and plots on log axes.
    """
    n = h.n
    if n == 0:
        return {"x_ms": [], "p": []}
    values = h.values
    if len(values) > budget:
        half = budget // 2
        by_x = np.geomspace(max(values[0], 1), values[-1], half)
        ranks = np.searchsorted(values, by_x, side="right") - 1
        # rank from the top r ⇒ the sample with about r samples at or above it
        tail_r = np.unique(np.round(np.geomspace(1, n, half)).astype(np.int64))
        by_p = h.at_rank(n - tail_r + 1)
        values = np.unique(np.concatenate((values[np.clip(ranks, 0, None)], by_p, values[[0, -1]])))
    at_or_above = n - h.below(values)
    return {"x_ms": values.astype(float).tolist(), "p": (at_or_above / n).tolist()}


def tail_index(h: ExactHistogram) -> dict:
    """Hill estimate of the tail index with its k, and a verdict against an exponential tail (TAIL_RULE)."""
    n = h.n
    if n < TAIL_MIN_SAMPLES:
        return {"hill_alpha": None, "k": 0, "threshold_ms": None, "excess_cv": None,
                "verdict": f"not estimated: {n} samples, fewer than {TAIL_MIN_SAMPLES}"}
    k = math.isqrt(n)
    largest = h.largest(k + 1)
    top = largest[1:].astype(float)
    u = float(largest[0])
    out = {"hill_alpha": None, "k": k, "threshold_ms": u, "excess_cv": None}
    if u <= 0:
        return out | {"verdict": "not estimated: the tail threshold is 0 ms"}
    log_sum = float(np.log(top / u).sum())
    out["hill_alpha"] = k / log_sum if log_sum > 0 else None
    excess = top - u
    if excess.mean() == 0:
        return out | {"verdict": f"not estimated: the {k} largest samples all equal the threshold"}
    cv = float(excess.std(ddof=1) / excess.mean())
    out["excess_cv"] = cv
    band = 3 / math.sqrt(k)
    if cv > 1 + band:
        verdict = "heavier than exponential (power-law-like)"
    elif cv < 1 - band:
        verdict = "lighter than exponential"
    else:
        verdict = "consistent with an exponential tail"
    return out | {"verdict": verdict}
