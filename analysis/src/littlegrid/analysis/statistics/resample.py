"""Seeded bootstrap replicates of a window's figures: the mean and percentiles of its exact histogram (one by one,
or by blocks of seconds, which keep queued requests together), its throughput (moving blocks of per-second
completions) and its error rate. The analysis draws each cell's own intervals with them (intervals.py); the comparison
draws the intervals of a difference (comparison/bootstrap.py), the search its probes' (search/slo.py)."""

from __future__ import annotations

import math
import zlib

import numpy as np

from littlegrid.analysis.reading.histogram import Latencies, SecondHistograms
from littlegrid.analysis.steady import blocks

LEVEL = 0.95
REPS = 1000
BATCH = 250  # replicates drawn at a time: bounds memory to BATCH × distinct values


def rng_for(seed: int, key: str) -> np.random.Generator:
    """An independent, reproducible stream per (seed, cell and run): same inputs, same intervals."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(key.encode("utf-8"))]))


def nearest_rank(values: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """Exact nearest-rank q-quantile of each row of `counts` (one replicate per row) over `values`."""
    return nearest_ranks(values, counts, [q])[q]


def nearest_ranks(values: np.ndarray, counts: np.ndarray, qs: list[float]) -> dict:
    """nearest_rank for each of `qs` (q -> the rows' quantiles), the rows' cumulative counts summed once for all."""
    counts = np.atleast_2d(counts)
    n = counts.sum(axis=1)
    below = np.cumsum(counts, axis=1)
    out = {}
    for q in qs:
        rank = np.maximum(np.ceil(q * n - 1e-9), 1)  # the 1e-9 keeps q·n that is an integer from rounding up
        idx = (below < rank[:, None]).sum(axis=1)
        out[q] = values[np.minimum(idx, len(values) - 1)]
    return out


def replicate_latencies(lat: Latencies, qs: list[float], rng: np.random.Generator, reps: int = REPS) -> dict:
    """Bootstrap replicates of the mean and of each quantile: resampling n samples with replacement is drawing
    multinomial counts over the distinct values, which costs O(distinct) instead of O(n) per replicate."""
    out = {"mean": np.empty(reps), **{q: np.empty(reps) for q in qs}}
    p = lat.counts / lat.n
    for start in range(0, reps, BATCH):
        size = min(BATCH, reps - start)
        counts = rng.multinomial(lat.n, p, size=size)
        out["mean"][start:start + size] = counts @ lat.values_ms / lat.n
        for q, got in nearest_ranks(lat.values_ms, counts, qs).items():
            out[q][start:start + size] = got
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
    return _moving_from(_running_sums(per_second), block)


def _running_sums(per_second: np.ndarray) -> np.ndarray:
    """0, then the cumulative sums of the rows: any run of seconds is the difference of two of them. Summed into
    place after the zero row, in the type cumsum gives, rather than copied after it: a window of months is 13.6 M
    seconds, 109 MB to copy."""
    running = np.empty((len(per_second) + 1, *per_second.shape[1:]), np.cumsum(per_second[:0], axis=0).dtype)
    running[0] = 0
    np.cumsum(per_second, axis=0, out=running[1:])
    return running


def _moving_from(running: np.ndarray, block: int) -> np.ndarray:
    return running[block:] - running[:-block]


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
        for q, got in nearest_ranks(values_ms, counts, qs).items():
            out[q][start:start + size] = got
    return out


def replicate_throughput(per_second: np.ndarray, rng: np.random.Generator, reps: int = REPS) -> np.ndarray:
    """Moving-block bootstrap of the mean of per-second completions (blocks keep the series' autocorrelation)."""
    c = np.asarray(per_second)
    # counts (a summary's completions are int64) are summed as integers, exactly, so the same replicates as in
    # float64 (whose sums of whole numbers are exact too) from moving sums in the narrowest integer type: a JTL
    # spanning months is 13.6 M seconds, and drawing 57 k blocks a replicate from 109 MB of float64 waits on memory
    whole = np.issubdtype(c.dtype, np.integer)
    c = c if whole else c.astype(float)
    t = len(c)
    block = max(1, round(t ** (1 / 3)))
    blocks = math.ceil(t / block)
    # each replicate is `blocks` runs of seconds, the last cut to the t seconds of the window: summed from the
    # moving sums, a batch of replicates at a time, so memory does not grow with reps × t
    last = t - (blocks - 1) * block
    running = _running_sums(c)  # once: a window of months has millions of seconds
    full = _moving_from(running, block)
    drawn_sums = DrawnSums(_narrowest(full) if whole else full, running.dtype, exact=whole)
    out = np.empty(reps)
    batch = max(1, min(reps, (1 << 22) // blocks))
    for start in range(0, reps, batch):
        starts = rng.integers(0, t - block + 1, size=(min(batch, reps - start), blocks))
        ends = starts[:, -1]
        cut = running[ends + last] - running[ends]  # the last, shorter run: only the drawn ones are summed
        out[start:start + len(starts)] = (drawn_sums(starts[:, :-1]) + cut) / t
    return out


class DrawnSums:
    """Each row's sum of the moving sums its indices draw, for integer counts. A window of months between two runs
    (insta-rzd: 13.6 M seconds, 0.02 % of its moving blocks hold a completion) draws 57 M blocks a cell from 27 MB
    of moving sums, each draw a cache miss that nearly always reads 0. So which runs of 64 moving blocks hold any
    completion is looked up first, in a table small enough to stay in cache, and the moving sums only for the draws
    inside such a run: the draws summed 9x faster there, the same integers (a sum of integers is one number whatever
    the order).
    A window busy throughout is summed directly, as that lookup would find every run busy, and so are float counts,
    whose sums depend on their order."""

    RUN_SHIFT = 6  # runs of 64 moving blocks: a window of months is 213 k runs, a 213 kB table
    SPARSE = 1 / 8  # at most this share of runs busy: the draws outside them are worth skipping

    def __init__(self, moving: np.ndarray, dtype: np.dtype, exact: bool):
        self.moving, self.dtype, self.busy = moving, dtype, None
        if exact:
            run = 1 << self.RUN_SHIFT
            whole = len(moving) // run  # runs of `run` blocks, then a shorter last one (read in place: no copy)
            busy = np.zeros(-(-len(moving) // run), bool)
            busy[:whole] = moving[:whole * run].reshape(whole, run).any(axis=1)
            busy[whole:] = moving[whole * run:].any()
            self.busy = busy if busy.mean() <= self.SPARSE else None

    def __call__(self, drawn: np.ndarray) -> np.ndarray:
        if self.busy is None:
            return self.moving[drawn].sum(axis=1, dtype=self.dtype)
        rows, cols = np.divmod(np.flatnonzero(self.busy[drawn >> self.RUN_SHIFT]), drawn.shape[1])
        sums = np.zeros(len(drawn), self.dtype)
        np.add.at(sums, rows, self.moving[drawn[rows, cols]])
        return sums


def _narrowest(counts: np.ndarray) -> np.ndarray:
    """Non-negative integer counts in the narrowest integer type that holds them (as they are otherwise)."""
    if not len(counts) or counts.min() < 0:
        return counts
    return counts.astype(np.min_scalar_type(int(counts.max())), copy=False)
