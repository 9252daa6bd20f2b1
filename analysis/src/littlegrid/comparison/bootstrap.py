"""Seeded bootstrap confidence intervals for run-to-run deltas of percentiles, mean response time and throughput."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from littlegrid.analysis import blocks
from littlegrid.analysis.histogram import Latencies, SecondHistograms
from littlegrid.summary import comparison as equivalence

LEVEL = 0.95
REPS = 1000
# What these "95%" intervals were measured to cover (bench/bench_coverage.py: 400 windows of 60 s a row from an open
# M/M/1 at ρ = 0.5 and 0.8 and a closed M/M/1//N at N = 20, X from per-second completions, the rest resampled over
# blocks of seconds; the error rate on bursty failures over 60 and 300 s): (lowest, highest), by metric. Short of
# the 93% a "95%" is held to wherever a queue's memory is long against its window, so the pages that print them
# say these beside them (coverage_words).
MEASURED = {"throughput_per_s": (0.935, 0.94), "mean_ms": (0.78, 0.92), "p50_ms": (0.898, 0.982),
            "p90_ms": (0.778, 0.95), "p99_ms": (0.425, 0.86), "error_rate": (0.685, 0.858)}
MEASURED_NAMES = {"throughput_per_s": "X", "mean_ms": "mean R", "p50_ms": "p50", "p90_ms": "p90", "p99_ms": "p99",
                  "error_rate": "error rate"}
BATCH = 250  # replicates drawn at a time: bounds memory to BATCH × distinct values


def rng_for(seed: int, key: str) -> np.random.Generator:
    """An independent, reproducible stream per (seed, cell and run): same inputs, same intervals."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(key.encode("utf-8"))]))


def nearest_rank(values: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """Exact nearest-rank q-quantile of each row of `counts` (one replicate per row) over `values`."""
    counts = np.atleast_2d(counts)
    n = counts.sum(axis=1)
    rank = np.maximum(np.ceil(q * n - 1e-9), 1)  # the 1e-9 keeps q·n that is an integer from rounding up
    idx = (np.cumsum(counts, axis=1) < rank[:, None]).sum(axis=1)
    return values[np.minimum(idx, len(values) - 1)]


def replicate_latencies(lat: Latencies, qs: list[float], rng: np.random.Generator, reps: int = REPS) -> dict:
    """Bootstrap replicates of the mean and of each quantile: resampling n samples with replacement is drawing
    multinomial counts over the distinct values, which costs O(distinct) instead of O(n) per replicate."""
    out = {"mean": np.empty(reps), **{q: np.empty(reps) for q in qs}}
    p = lat.counts / lat.n
    for start in range(0, reps, BATCH):
        size = min(BATCH, reps - start)
        counts = rng.multinomial(lat.n, p, size=size)
        out["mean"][start:start + size] = counts @ lat.values_ms / lat.n
        for q in qs:
            out[q][start:start + size] = nearest_rank(lat.values_ms, counts, q)
    return out


def block_seconds(h: SecondHistograms) -> int:
    """The block length in seconds for a window's per-second histograms (blocks.block_length's rule)."""
    return blocks.block_length(h.counts.sum(axis=1), h.counts @ h.values_ms)


def replicate_latencies_in_blocks(h: SecondHistograms, qs: list[float], rng: np.random.Generator,
                                  reps: int = REPS) -> dict:
    """Moving-block bootstrap of the mean and of each quantile over the seconds of a window. Requests that queue
    together share their fate (a burst lifts every response behind it), so resampling them one by one treats n
    correlated samples as n independent ones and gives an interval too narrow by the square root of the
    correlation length (an open M/M/2 at ρ = 0.55 measured twice for 20 s: p90 185 and 115 ms, each with a
    ±25 ms one-by-one interval). Runs of whole seconds keep the correlation within them (block_seconds)."""
    block = block_seconds(h)
    return _replicate_from_blocks(h.values_ms, _moving_sums(h.counts, block), math.ceil(len(h.counts) / block), qs,
                                  rng, reps)


def _moving_sums(per_second: np.ndarray, block: int) -> np.ndarray:
    """The sums over each run of `block` consecutive seconds (rows): the t − block + 1 moving blocks."""
    cum = np.cumsum(per_second, axis=0)
    cum = np.concatenate([np.zeros((1, *cum.shape[1:]), cum.dtype), cum])
    return cum[block:] - cum[:-block]


def replicate_error_rate_in_blocks(h: SecondHistograms, rng: np.random.Generator, reps: int = REPS) -> np.ndarray:
    """Moving-block bootstrap of the window's error rate (failures / samples) over its seconds. Failures come in
    bursts (a backlog that times out, refusals while a pool is full), so drawing them as independent trials (the
    binomial) gives an interval too narrow by the square root of the burst length. The block is the longer of the
    latency series' rule and the per-second error fraction's own: a failure often follows the backlog that the
    response times show."""
    n = h.counts.sum(axis=1)
    t = len(n)
    block = max(block_seconds(h), blocks.block_length(n, h.failures))
    moving_n, moving_f = _moving_sums(n, block), _moving_sums(h.failures, block)
    idx = rng.integers(0, len(moving_n), size=(reps, math.ceil(t / block)))
    return moving_f[idx].sum(axis=1) / np.maximum(moving_n[idx].sum(axis=1), 1)


def replicate_latencies_in_stored_blocks(h: blocks.BlockHistograms, qs: list[float], rng: np.random.Generator,
                                         reps: int = REPS) -> dict:
    """Non-overlapping block bootstrap over the blocks a summary keeps (blocks.py): as many blocks as the
    window has, drawn with replacement. Fewer candidate blocks than the moving-block bootstrap has, so a
    slightly wider interval for the same window; the summary stays small."""
    return _replicate_from_blocks(h.values_ms, h.counts, len(h.counts), qs, rng, reps)


def _replicate_from_blocks(values_ms: np.ndarray, candidates: np.ndarray, draws: int, qs: list[float],
                           rng: np.random.Generator, reps: int) -> dict:
    """Replicates of the mean and each quantile, each the sum of `draws` rows of `candidates` (block histograms
    over `values_ms`) drawn with replacement."""
    k, d = candidates.shape
    # A replicate's counts are how often it drew each block times the blocks' histograms: a product over the blocks
    # that have samples only (months of window with a few thousand samples: 16 k blocks, most empty), instead of
    # gathering draws × distinct values per replicate. Integer counts, exact in float64.
    used = candidates.any(axis=1)
    held = candidates[used].astype(float)
    out = {"mean": np.empty(reps), **{q: np.empty(reps) for q in qs}}
    batch = max(1, min(BATCH, (1 << 24) // max(1, draws + k + d)))  # bounds each batch to ~16 M numbers
    for start in range(0, reps, batch):
        size = min(batch, reps - start)
        drawn = rng.integers(0, k, size=(size, draws)) + (k * np.arange(size))[:, None]
        times = np.bincount(drawn.ravel(), minlength=size * k).reshape(size, k)[:, used]
        counts = np.rint(times @ held).astype(np.int64)
        n = np.maximum(counts.sum(axis=1), 1)
        out["mean"][start:start + size] = counts @ values_ms / n
        for q in qs:
            out[q][start:start + size] = nearest_rank(values_ms, counts, q)
    return out


def replicate_throughput(per_second: np.ndarray, rng: np.random.Generator, reps: int = REPS) -> np.ndarray:
    """Moving-block bootstrap of the mean of per-second completions (blocks keep the series' autocorrelation)."""
    c = np.asarray(per_second, float)
    t = len(c)
    block = max(1, round(t ** (1 / 3)))
    blocks = math.ceil(t / block)
    # each replicate is `blocks` runs of seconds, the last cut to the t seconds of the window: summed from the
    # moving sums, a batch of replicates at a time, so memory does not grow with reps × t (13.6 M seconds in a
    # JTL spanning months)
    last = t - (blocks - 1) * block
    full, cut = _moving_sums(c, block), _moving_sums(c, last)
    out = np.empty(reps)
    batch = max(1, min(reps, (1 << 22) // blocks))
    for start in range(0, reps, batch):
        starts = rng.integers(0, t - block + 1, size=(min(batch, reps - start), blocks))
        out[start:start + len(starts)] = (full[starts[:, :-1]].sum(axis=1) + cut[starts[:, -1]]) / t
    return out


@dataclass(frozen=True)
class Delta:
    """B − A for one metric, relative to A, with the bootstrap interval of the relative change."""

    a: float | None
    b: float | None
    rel: float | None
    rel_lo: float | None
    rel_hi: float | None

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "delta": None if self.a is None or self.b is None else self.b - self.a,
                "rel": self.rel, "rel_lo": self.rel_lo, "rel_hi": self.rel_hi}


def delta(a: float | None, b: float | None, reps_a: np.ndarray | None = None, reps_b: np.ndarray | None = None,
          level: float = LEVEL) -> Delta:
    """Relative change b/a − 1 and its percentile interval from independent replicates of both runs."""
    if a is None or b is None or not a:
        return Delta(a, b, None, None, None)
    rel = b / a - 1
    if reps_a is None or reps_b is None:
        return Delta(a, b, rel, None, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = reps_b / reps_a - 1
    ratios = ratios[np.isfinite(ratios)]
    if not len(ratios):
        return Delta(a, b, rel, None, None)
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    return Delta(a, b, rel, float(lo), float(hi))


def verdict(d: Delta, higher_is_better: bool, margin: float) -> str:
    """What d's interval shows against the margin ±margin (littlegrid.comparison.equivalence: different when it
    excludes zero, equivalent when it lies inside ±margin, "unknown" without an interval)."""
    return equivalence.verdict(d.rel_lo, d.rel_hi, higher_is_better, margin)


def coverage_words(keys=tuple(MEASURED)) -> str:
    """"measured coverage of these 95% intervals on simulated queues: X 93.5–94%, p99 42.5–86% …": what a page printing
    the bootstrap's intervals says beside them (MEASURED)."""
    parts = []
    for key in keys:
        lo, hi = MEASURED[key]
        low, high = f"{round(lo * 100, 1):g}", f"{round(hi * 100, 1):g}"
        parts.append(f"{MEASURED_NAMES[key]} {low}" + ("" if low == high else f"–{high}") + "%")
    return ("measured coverage of these 95% intervals on simulated queues (bench/bench_coverage.py): "
            + ", ".join(parts) + "; lowest where a queue's memory is long against the window")
