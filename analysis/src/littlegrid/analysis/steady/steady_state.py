"""Where a cell's steady state begins (MSER-5), how precisely its window knows X and mean R (batch means), and the rule
that says a cell is answered: one module, so the runner that stops a cell and the analysis that reads it apply the
same rule to the same per-second series (docs/analysis.md, "Warm-up from the data, precision from batch means").

Both work on a cell's seconds counted from its first sample's start, by completion second: `counts[i]` answered
requests and `sums_ms[i]` the sum of their elapsed times.

Warm-up, MSER-5 (White 1997; White, Cobb and Spratt 2000): the seconds are batched into means Z_1..Z_m, a batch
holding about 5 answers as MSER-5's holds 5 observations (`mser_batch`: one second at 5 or more answers a second);
the truncation d (in batches) minimises the marginal standard error of what is left,
    MSER(d) = Σ_{j>d} w_j·(Z_j − Z̄_d)² / (Σ_{j>d} w_j)²,
(the weights w_j are the batch's answers for the mean response time, whose seconds count unequally, and 1 for the
completions; with equal weights this is the textbook (1/(m−d)²)·Σ(Z_j − Z̄_d)², up to a constant factor). Dropping a
batch pays when the squared deviations it removes outweigh the loss of one batch from the denominator: a transient
far from the steady mean is cut, noise is kept. The minimum is looked for over the whole series as published (all
truncations but the last MSER_END batches', where the statistic rests on too few), and one in the second half is
MSER's sign that the series never settled (a trend, an overload, a cell too short) — when it is more than a quiet
stretch: an autocorrelated stationary series (a queue's) often ends in one, and the statistic's minimum falls there,
so the second-half minimum stands only when, after the first half's minimum, what it would cut differs from the rest
beyond noise (`_tested`); else the warm-up is the first half's minimum. Unless what still moves is immaterial
(`immaterial_drift`: a series nearly without noise makes a JIT's last tenths of a percent a trend). Both series are
searched and the later truncation is taken: a warm-up is over when both the rate and the response time have
settled. MSER alone cuts noise too: on a stationary M/M/1 (ρ = 0.8) it cut a high-R start in 14% of 120-s windows,
leaving R biased low. So a truncation stands only when the cut start differs from the rest beyond a t test at
TRANSIENT_LEVEL (`transient`), Bonferroni-corrected over the truncations MSER chose among (it picks the most
extreme), and when keeping the start would move the mean by more than MATERIAL_BIAS (a noise-free synthetic series
makes any edge significant). Fewer than MSER_MIN_BATCHES batches, or MSER_MIN_S seconds, are "too short" to judge,
and seconds with no answer for more than half of them "silent" (not one run): neither is a series that never
settled.

Precision, non-overlapping batch means (Law and Kelton §9.5.3; Schmeiser 1982): the window's seconds are cut into k
batches of b seconds, b at least the autocorrelation-scaled length of blocks.memory_length on both series, without
its T^(1/3) floor (a queue's memory must sit inside a batch for the batch means to be near independent; a series
with no lag-1 correlation has none to hold, and the floor, a bootstrap block's, made 30 s the shortest window) and k
about BATCHES = 10 (more, shorter batches undercover a queue's long memory). X = Σn/T and its half-width
t_{k−1}·s(X_j)/√k; mean R is a ratio ΣS/ΣN, its half-width the wider of the delta method's over the batches and
Cox's for a skewed mean (`ratio_rel`). The half-widths stated are the wider of the window's and its first half's
scaled to the whole (÷√2): two estimates of one variance, and the runner's rule, asked every second, stops where
the window's happens to be small (`judge`). Fewer than MIN_BATCHES batches give no interval. Measured coverage at
their nominal 95% (bench/bench_coverage.py, docs/analysis.md's table): X 96-100% everywhere; mean R 96-99% on closed
loops and on an open M/M/1 at ρ = 0.5, 91.5-96% at precise stops; on open queues holding 1.5 requests or more (L = X·R)
down to 79% in short windows near saturation, which no figure of one window tells apart, so such a window's
Precision says so (mean_coverage).

The stopping rule (`judge`) asks relative half-widths at most γ' = γ/(1+γ) (Law and Kelton's relative-error
procedure: a half-width γ' of the estimate bounds the error relative to the *true* value by γ) of X and of R, with
at least STOP_BATCHES batches, over the window and, by the sequential rule every stop answers by (`confirmed`), over
its first half, and for a closed workload the closed law's edge error within its tolerance (closed_law_edge)."""
# Over 450 lines as one job: the rule the runner and the analysis share (warm-up, precision, stop), and its derivation.

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from littlegrid.analysis.steady.blocks import memory_length
from littlegrid.analysis.steady.window import regular_edge_error, window_error
from littlegrid.summary.model import Precision  # the summary's record: the runner and the cell read the same one

MSER_BATCH_S = 5        # the most seconds an MSER batch gathers (a cell answering less than once a second)
MSER_MIN_BATCHES = 4    # fewer batches: too short to tell a warm-up from noise
MSER_MIN_S = 10         # nor fewer seconds, however busy each is
MSER_OBSERVATIONS = 5   # MSER-5 batches 5 observations: a second holding that many answers is a batch by itself
MSER_END = 5            # the last batches whose truncations MSER does not consider (searched)
LEVEL = 0.95
BATCHES = 10            # batches a window is cut into, unless the series' memory asks for longer ones
MIN_BATCHES = 3         # the fewest batches with an interval at all (t with 2 degrees of freedom)
CONFIRM = 2.0           # the rule must already hold over the first 1/CONFIRM of the seconds (judge)
STOP_BATCHES = 5        # the fewest with which the stopping rule answers, over the window and over its first half
                        # (10 asked over both made a 20-s window the least; with the confirmation 5 keep the stopped
                        # intervals' coverage: docs/analysis.md)
MATERIAL_BIAS = 0.005  # a start moving the mean less than this (a quarter of the 2% closed-law tolerance and of a
                       # 2% precision asked) is no warm-up worth its seconds, however significant
# Mean R's interval of an open workload's window holding OPEN_QUEUE_L requests or more (Little's L = X·R): open
# M/M/1 queues at ρ ≥ 0.6 (L ≥ 1.5) are where it fell short of LEVEL in simulation, lowest in short windows near
# saturation, and no figure of one window tells a lucky quiet one from a typical one (bench/bench_coverage.py; the
# closed loops and the M/M/1 at ρ = 0.5, L = 1, all covered 96% or more). Precision.mean_coverage then holds the
# lowest coverage measured there less two standard errors (79.2% ± 2.0 of 400 windows: ρ = 0.9, 30 s), which the
# report prints beside the level.
COX_MAX_VAR = 1.0  # ratio_rel: the variance of the batch means' logs beyond which Cox's interval is not used
OPEN_QUEUE_L = 1.5
OPEN_MEAN_COVERAGE = 0.75
TRANSIENT_LEVEL = 0.997  # a truncated start counts as warm-up when it differs from the rest beyond this two-sided
                         # t interval (3σ's level; t with the batches' k−1 degrees of freedom, as the variance is estimated)


TOO_SHORT = "too short"  # Warmup.by of seconds too few for MSER to judge


SILENT = "silent"  # Warmup.by of seconds without a single answer for more than half of them


DECIDED = "stop"  # Warmup.by when the runner's stop record set the warm-up: the window its rule answered on


@dataclass(frozen=True)
class Decided:
    """What the runner's rule answered a cell on (its stop record, reason "precise" or "slo"): the warm-up it
    found, and the seconds it judged (from the first sample's start; every one complete and at full load when it
    decided). The analysis looks for the warm-up over those same seconds, so it finds what the rule found: the
    file's later seconds (the stop's tail, less the cool-down trimmed) can move MSER's minimum across the half on
    a series that only just settled, and a cell the rule answered as settled was then reported as never settled."""
    warmup_s: float
    judged_s: float
    ends_window: bool = True  # False: the user asked a cool-down of their own (analyze --cooldown), which trims


def longest_silence(counts: np.ndarray) -> int:
    """The longest run of seconds without an answer: more than half the cell's seconds, and the cell is not one
    run (sessions hours apart in one file, a server that answered only at its start or end), which MSER's premise,
    a transient followed by one steady state, does not describe; its t test would read the silence as the steady
    state and the answers before it as a warm-up."""
    busy = np.flatnonzero(np.asarray(counts) > 0)
    if len(busy) == 0:
        return len(counts)
    gaps = np.diff(np.concatenate(([-1], busy, [len(counts)]))) - 1
    return int(gaps.max())


@dataclass(frozen=True)
class Warmup:
    """The warm-up found in a cell's seconds: `seconds` to trim from the first sample's start (a whole number of
    MSER batches, or the floor asked for when that is later); `settled` False when either series' minimum lay in
    its second half (no steady state found: `seconds` is then the floor), or the seconds were too few to judge;
    `by` names the series whose truncation was taken ("completions", "response time", "floor"), or why none was
    looked for: "too short" (fewer than MSER_MIN_BATCHES whole batches), "silent" (no answer for more than half the
    seconds: not one run, longest_silence); neither is a series that never settled. `drift`: the series ("completions",
    "response time") settled only as an immaterial drift (`immaterial_drift`): their window keeps a bias of up to
    MATERIAL_BIAS, which their intervals must hold (`precision`)."""
    seconds: float
    settled: bool
    by: str
    detected_s: float | None   # MSER-5's own truncation (None: it found none, too few batches or not settled)
    drift: tuple[str, ...] = ()


def mser_minimum(values: np.ndarray, weights: np.ndarray | None = None, batch: int = MSER_BATCH_S,
                 first_half: bool = False) -> int | None:
    """MSER-`batch`'s minimising truncation of `values` over the whole series (White 1997; White, Cobb and Spratt
    2000), in observations (a multiple of `batch`), wherever it lies: None only when the series has fewer than
    MSER_MIN_BATCHES whole batches. The trailing partial batch is left out, and so are the last MSER_END batches'
    truncations (`searched`); first_half: only those up to m/2. `weights` (e.g. answers per second, for a series of
    per-second means) weight both the batch means and the statistic; a batch of zero weight counts for nothing."""
    v = np.asarray(values, float)
    w = np.ones_like(v) if weights is None else np.asarray(weights, float)
    m = len(v) // batch
    if m < min_batches(batch):
        return None
    v, w = v[:m * batch].reshape(m, batch), w[:m * batch].reshape(m, batch)
    wb = w.sum(axis=1)
    zb = np.divide((v * w).sum(axis=1), wb, out=np.zeros(m), where=wb > 0)
    # suffix sums give every truncation's weighted mean and sum of squares in one pass
    sw = np.cumsum((wb)[::-1])[::-1]
    swz = np.cumsum((wb * zb)[::-1])[::-1]
    swz2 = np.cumsum((wb * zb * zb)[::-1])[::-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = swz / sw
        stat = (swz2 - sw * mean * mean) / (sw * sw)
    stat = np.where(sw > 0, np.maximum(stat, 0.0), np.inf)
    return int(np.argmin(stat[:m // 2 + 1 if first_half else searched(m)])) * batch


def mser_truncation(values: np.ndarray, weights: np.ndarray | None = None,
                    batch: int = MSER_BATCH_S) -> int | None:
    """MSER-`batch`'s truncation as published: its minimum (mser_minimum), or None when the series has too few
    batches or the minimum lies in its second half (beyond m/2 batches: not settled, the run too short for it)."""
    d = mser_minimum(values, weights, batch)
    return None if d is None or in_second_half(d, len(values), batch) else d


def in_second_half(d: int, observations: int, batch: int) -> bool:
    """Whether truncation d (observations) lies beyond half of the whole batches: MSER's sign of a series not settled."""
    return d // batch > (observations // batch) / 2


def searched(m: int) -> int:
    """How many of m batches' truncations MSER looks among: every one but the last MSER_END (d = 0 … m − MSER_END − 1),
    the whole series as published, less the end where too few batches are left for the statistic to mean anything."""
    return max(1, m - MSER_END)


def immaterial_drift(sums: np.ndarray, weights: np.ndarray, batch: int) -> int | None:
    """A truncation for a series MSER finds still moving at its half, when what moves is too small to matter: a
    nearly noise-free series (a deterministic service, thousands of answers a second) makes a JIT's last tenths of a
    percent a trend MSER keeps cutting. The series counts as settled when its second half's two quarters differ by
    at most MATERIAL_BIAS of its mean (no trend there worth a figure), and the warm-up is then the first whole MSER
    batch from which the mean of what is left lies within MATERIAL_BIAS of that second half's (the bias kept is
    what `transient` calls immaterial). None: still moving beyond that, not settled. Per second: `sums` the figure's
    sum, `weights` its answers (1 per second for the completions)."""
    s, w = np.asarray(sums, float), np.asarray(weights, float)
    t = len(s)
    half, quarter = t // 2, t - (t - t // 2) // 2

    def mean(a: int, b: int) -> float | None:
        total = float(w[a:b].sum())
        return float(s[a:b].sum()) / total if total > 0 else None

    level, third, fourth = mean(half, t), mean(half, quarter), mean(quarter, t)
    if not level or third is None or fourth is None or abs(third - fourth) > MATERIAL_BIAS * abs(level):
        return None
    rest_s, rest_w = np.cumsum(s[::-1])[::-1], np.cumsum(w[::-1])[::-1]  # what is left after each second
    for d in range(0, half + 1, batch):
        if rest_w[d] > 0 and abs(rest_s[d] / rest_w[d] - level) <= MATERIAL_BIAS * abs(level):
            return d
    return None


def transient(sums: np.ndarray, weights: np.ndarray, d: int, candidates: int = 1, material: bool = True) -> bool:
    """Whether the first `d` seconds' mean, ΣS/ΣW, differs from the rest's by more than the TRANSIENT_LEVEL t quantile
    (k−1 degrees of freedom) times the standard error of the difference, and by enough to matter: kept, the start
    would move the whole series' mean by more than MATERIAL_BIAS (a series nearly without noise, a synthetic one,
    makes any difference significant; material False: beyond noise is enough). `candidates`: how many truncations MSER chose `d` among; the start it chose
    is the one that differs most, so the test's level is divided among them (Bonferroni), or noise would pass it as
    often as the most extreme of that many tries. The variance per second comes from the batch residuals (as
    `precision` computes them) of the longer part, and it stands for both parts': under the null hypothesis they are
    one stationary series. That is the rest after a cut in the first half; before a minimum in the second half it
    is the start, less its least-squares line (MSER chose the short tail for how little it varies, a queue's quiet
    stretch, so its variance is too low; and a series still rising to its end would, undetrended, pass its rise for
    noise). For the completions S is the count and W one per second; for the mean R, S is the elapsed sum and W the
    answers. First seconds without a single answer are a start-up, not noise."""
    head_w, head_s = float(weights[:d].sum()), float(sums[:d].sum())
    rest_s, rest_w = sums[d:], weights[d:]
    if head_w == 0:
        return True
    if rest_w.sum() == 0:
        return False  # nothing answered after it to compare the start with
    t = len(rest_s)
    spread = _per_second_variance(rest_s, rest_w) if t >= d else _per_second_variance(sums[:d], weights[:d], True)
    if spread is None:
        return False  # too little to tell a transient from noise
    per_second, k = spread
    mean = float(rest_s.sum() / rest_w.sum())
    se = math.sqrt(per_second * (d / head_w ** 2 + t / float(rest_w.sum()) ** 2))
    gap = abs(head_s / head_w - mean)
    bias = head_w / (head_w + float(rest_w.sum())) * gap / mean if mean > 0 else math.inf
    level = 1 - (1 - TRANSIENT_LEVEL) / candidates  # Bonferroni: MSER chose d as the most extreme of them
    return gap > t_quantile(k - 1, level) * se and (bias > MATERIAL_BIAS or not material)


def _per_second_variance(sums: np.ndarray, weights: np.ndarray, detrend: bool = False) -> tuple[float, int] | None:
    """(the variance per second of ΣS/ΣW's numerator about its ratio, the degrees of freedom) from non-overlapping
    batch residuals, or None with fewer than MIN_BATCHES batches or none with an answer. detrend: the per-second
    residuals about their least-squares line in time instead (two parameters fitted), batched by that remainder's
    own memory."""
    t = len(sums)
    if detrend:
        if weights.sum() == 0:
            return None
        time = np.arange(t, dtype=float)
        residuals = sums - float(sums.sum() / weights.sum()) * weights
        residuals = residuals - np.polyval(np.polyfit(time, residuals, 1), time)
        # at least 5 batches: a line fitted leaves two degrees of freedom fewer, and a series without noise about
        # it (a steady rise) looks like one of unbounded memory
        b = max(1, min(memory_length(np.ones(t), residuals, floor=False), t // 5), t // BATCHES)
        k = t // b
        if k < MIN_BATCHES + 1:
            return None
        rb = residuals[t - k * b:].reshape(k, b).sum(axis=1)
        return float(rb @ rb) / ((k - 2) * b), k - 1
    b = batch_size(weights, sums)
    k = t // b
    if k < MIN_BATCHES:
        return None
    lead = t - k * b
    sb, wb = sums[lead:].reshape(k, b).sum(axis=1), weights[lead:].reshape(k, b).sum(axis=1)
    if wb.sum() == 0:
        return None
    residuals = sb - float(sb.sum() / wb.sum()) * wb
    return float(residuals @ residuals) / ((k - 1) * b), k


def warmup(counts: np.ndarray, sums_ms: np.ndarray, floor_s: float = 0.0, *, left_out: np.ndarray | None = None,
           unit_s: int = 1, decided_s: float | None = None) -> Warmup:
    """The warm-up of a cell's seconds (see the module's text): the later of MSER-5's truncations of the completions
    and of the mean response time that `transient` confirms, never less than `floor_s` (the grid's `warmup_s`).
    left_out: True for the seconds that are no part of either series (a stall's: the analysis marks a stall inside
    the window, it is no warm-up and no noise); the truncation is still counted in the cell's seconds. unit_s: the
    seconds each entry sums (a cell of days looked at in coarser units); the warm-up is returned in seconds.
    decided_s: the warm-up the runner's rule found when it stopped the cell (its stop record; the caller passes
    the seconds it judged, Decided). The window then starts no earlier: the cell was answered on the window after
    it. By DECIDED when that is the later cut, settled or not here: the trim is the runner's, and it is no floor."""
    found = _warmup(counts, sums_ms, floor_s, left_out, unit_s)
    if decided_s is not None and decided_s > found.seconds:
        return replace(found, seconds=float(decided_s), by=DECIDED)
    return found


def _warmup(counts, sums_ms, floor_s, left_out, unit_s) -> Warmup:
    """warmup's own finding, from these seconds alone."""
    counts = np.asarray(counts, float)
    sums = np.asarray(sums_ms, float)
    kept = np.arange(len(counts)) if left_out is None else np.flatnonzero(~np.asarray(left_out, bool))
    counts, sums = counts[kept], sums[kept]
    batch = mser_batch(counts)
    if len(counts) // batch < min_batches(batch):
        return Warmup(float(floor_s), False, TOO_SHORT, None)
    if 2 * longest_silence(counts) > len(counts):
        return Warmup(float(floor_s), False, SILENT, None)
    candidates = searched(len(counts) // batch)  # the truncations MSER looks among
    by_rate = _tested(counts, np.ones_like(counts), batch, candidates)
    by_r = _tested(sums, counts, batch, candidates)
    # not settled by MSER: settled all the same when what still moves is immaterial; that cut needs no t test, as
    # it is material by construction (kept, the start would move the mean by more than MATERIAL_BIAS)
    drift = tuple(name for name, cut in (("completions", by_rate), ("response time", by_r)) if cut is None)
    if by_rate is None:
        by_rate = immaterial_drift(counts, np.ones_like(counts), batch)
    if by_r is None:
        by_r = immaterial_drift(sums, counts, batch)
    settled = by_rate is not None and by_r is not None
    if not settled:
        return Warmup(float(floor_s), False, "floor", None)
    truncation, by = (by_rate, "completions") if by_rate >= by_r else (by_r, "response time")
    detected = float(kept[truncation] * unit_s) if truncation else 0.0  # back in the cell's own seconds
    if detected <= floor_s:
        return Warmup(float(floor_s), True, "floor", detected, drift)
    return Warmup(detected, True, by, detected, drift)


def _tested(sums: np.ndarray, weights: np.ndarray, batch: int, candidates: int) -> int | None:
    """MSER's truncation of the series ΣS/ΣW per second, tested (None: not settled). A minimum in the second half
    is MSER's sign that the series still moves, and it stands when the first half's own minimum is its last
    truncation (still falling at the half), or when after that minimum (where a warm-up would end) what the second
    half's would cut differs from the rest beyond noise (`transient`); else the series has settled, and its warm-up
    is the first half's minimum. An autocorrelated stationary series (a queue's) often ends in a quiet stretch where
    the statistic's minimum then falls: on M/M/1 at ρ = 0.8 and 0.9, 20-300-s windows from an empty queue, MSER alone
    called 3-35% of them never settled, tested 0-8% (the first half alone, before: 0-16%). A cut stands only when
    the start it cuts is a transient (`transient`), else the series has no warm-up (0)."""
    values = np.divide(sums, weights, out=np.zeros_like(sums), where=weights > 0)
    d = mser_minimum(values, weights, batch)
    if d and in_second_half(d, len(values), batch):
        first = mser_minimum(values, weights, batch, first_half=True)  # where a warm-up would end
        if first // batch == (len(values) // batch) // 2 or transient(sums[first:], weights[first:], d - first,
                                                                        candidates, material=False):
            return None  # still falling at the half, or moving after it (immaterial_drift may yet settle it)
        d = first
    if d and not transient(sums, weights, d, candidates):
        return 0
    return d


def mser_batch(counts: np.ndarray) -> int:
    """Seconds per MSER batch: MSER-5's batch is 5 observations, so a cell answering 5 or more a second has
    batches of one second (each second's mean is already a mean of at least 5), a slower one batches of as many
    seconds as hold about 5 answers, at most MSER_BATCH_S."""
    rate = float(np.mean(counts)) if len(counts) else 0.0
    if rate <= 0:
        return MSER_BATCH_S
    return int(min(MSER_BATCH_S, max(1, math.ceil(MSER_OBSERVATIONS / rate))))


def min_batches(batch: int) -> int:
    """The fewest MSER batches of `batch` seconds judged: MSER_MIN_BATCHES, and MSER_MIN_S seconds."""
    return max(MSER_MIN_BATCHES, -(-MSER_MIN_S // batch))


@functools.lru_cache(maxsize=1024)
def t_quantile(df: int, level: float = LEVEL) -> float:
    """Student's t quantile for a two-sided interval at `level` with `df` degrees of freedom (cached: a rule asked
    every second of every simulated cell asks the same few)."""
    from scipy.special import stdtrit  # noqa: PLC0415 (lazy: scipy.special takes 0.17 s to import)
    return float(stdtrit(df, 0.5 + level / 2))


def batch_size(counts: np.ndarray, sums_ms: np.ndarray) -> int:
    """Seconds per batch: the longer of the block lengths that the completions' and the mean R's lag-1
    autocorrelations ask (blocks.memory_length: the rule, not the summary's units of storage), and at least a BATCHES-th of the window (about BATCHES batches: fewer, longer batches are
    the robust choice for a queue's long memory; Schmeiser 1982)."""
    t = len(counts)
    memory = max(memory_length(counts, sums_ms, floor=False), memory_length(np.ones(t), counts, floor=False))
    return max(1, memory, t // BATCHES)


def precision(counts: np.ndarray, sums_ms: np.ndarray, level: float = LEVEL, unit_s: int = 1,
              drift: tuple[str, ...] = (), users: float | None = None) -> Precision:
    """X and mean R of the window's seconds with their batch-means half-widths, relative to each estimate. The
    leading seconds a whole number of batches leaves over are left out of the batches (they are the ones nearest
    the warm-up), not out of the estimates.
    unit_s: the seconds each entry sums (warmup_seconds' units of a cell longer than a day). drift: the series the
    warm-up settled only as an immaterial drift (Warmup.drift): the bias it accepted, MATERIAL_BIAS, is added to
    their half-widths (no variance estimate sees a bias), and `drift_rel` says so. users: a closed workload's N.
    Its window's count is also off by the cycles in flight at its two edges, which batch means of a regular loop
    do not see: batches that hold whole cycles count the same every time and claim X to ±0.0% (twice in 16 cells
    of the acceptance run, each then missing the configuration's mean). X's half-width is the batch means' and
    z·window.regular_edge_error (cycle N/X) in quadrature, the latter kept as `edge_rel`."""
    n = np.asarray(counts, float)
    s = np.asarray(sums_ms, float)
    t = len(n)
    total = float(n.sum())
    x = total / (t * unit_s) if t else 0.0
    r = float(s.sum()) / total if total > 0 else None
    if t == 0 or total == 0:
        return _precision(level, t * unit_s, 0, 0, x, None, r, None)
    whole = _batch_means(n, s, level)
    k, b = whole.batches, whole.batch_s
    if whole.x_rel is None:
        return _precision(level, t * unit_s, k, b * unit_s, x, None, r, None)
    x_rel, r_rel = whole.x_rel, whole.r_rel
    first = _batch_means(n[:t // 2], s[:t // 2], level)
    if first.x_rel is not None:  # the wider of two estimates of one variance (the module's text, "the first half")
        x_rel = max(x_rel, first.x_rel / math.sqrt(2))
        r_rel = None if r_rel is None else max(r_rel, (first.r_rel or 0.0) / math.sqrt(2))
    edge = (normal_quantile(level) * regular_edge_error(users / x, t * unit_s, users)
            if users and users > 0 and x > 0 else None)
    x_rel = math.hypot(x_rel, edge or 0.0)
    if drift:
        x_rel += MATERIAL_BIAS if "completions" in drift else 0.0
        r_rel = None if r_rel is None else r_rel + (MATERIAL_BIAS if "response time" in drift else 0.0)
    # an open queue holding requests (Little's L = X·R): its mean R's interval is short of what it states, and the
    # summary says by how much it was measured to be
    queued = not users and r_rel is not None and r is not None and x * r / 1000.0 >= OPEN_QUEUE_L
    return _precision(level, t * unit_s, k, b * unit_s, x, x_rel, r, r_rel, MATERIAL_BIAS if drift else None, edge,
                      OPEN_MEAN_COVERAGE if queued else None)


@dataclass(frozen=True)
class _Batched:
    batches: int
    batch_s: int
    x_rel: float | None  # None: fewer than MIN_BATCHES batches
    r_rel: float | None


def _batch_means(n: np.ndarray, s: np.ndarray, level: float) -> _Batched:
    """The batch-means relative half-widths of X and of mean R over these seconds (in seconds' units)."""
    t = len(n)
    total = float(n.sum())
    if t == 0 or total == 0:
        return _Batched(0, 0, None, None)
    b = batch_size(n, s)
    k = t // b
    if k < MIN_BATCHES:
        return _Batched(k, b, None, None)
    lead = t - k * b
    nb = n[lead:].reshape(k, b).sum(axis=1)
    sb = s[lead:].reshape(k, b).sum(axis=1)
    q = t_quantile(k - 1, level)
    counts = nb.tolist()  # a few batches: plain floats beat arrays
    mean = sum(counts) / k
    sd = math.sqrt(sum((c - mean) ** 2 for c in counts) / (k - 1))
    x_rel = q * sd / math.sqrt(k) / (b * total / t)
    return _Batched(k, b, x_rel, ratio_rel(sb, nb, q) if mean > 0 else None)


def ratio_rel(sums: np.ndarray, weights: np.ndarray, q: float) -> float | None:
    """The relative half-width of the ratio ΣS/ΣW from k batches (S_j, W_j) with the t quantile q: the wider of two.
    The delta method: the batch residuals e_j = S_j − R̂·W_j give Var(R̂) ≈ Σe_j² / (k(k−1)·W̄²). And Cox's interval
    for a skewed mean (the log of each batch's mean, its mean ȳ and variance s², ln E = ȳ + s²/2 ± q·√(s²/k +
    s⁴/(2(k−1)))), whose upper side is the longer: a response time's batch means are skewed (a burst lifts a batch
    far above the rest, never as far below), so a window short of bursts has both a low R̂ and a low variance, and
    the delta method's misses were nearly all on that side (the true R above the interval). Measured on simulated
    M/M/1 queues and closed loops (bench/bench_coverage.py): closed loops of exponential or regular service from 91%
    up to 94-98%, M/M/1 at ρ = 0.5 from 92.5% up to 94.5-99%, for intervals 5-15% wider. Batches whose logs vary by
    more than COX_MAX_VAR (means a factor e apart and more: a series alternating between two regimes) are no
    log-normal sample, and Cox's upper side there grows without bound: the delta method's alone. None when R̂ is 0."""
    S, W = [float(v) for v in sums], [float(v) for v in weights]  # a few batches: plain floats beat arrays
    k, total_w = len(S), sum(W)
    r_hat = sum(S) / total_w
    if r_hat <= 0:
        return None
    delta = q * math.sqrt(sum((a - r_hat * b) ** 2 for a, b in zip(S, W)) / (k * (k - 1))) / (total_w / k) / r_hat
    if min(S) <= 0 or min(W) <= 0:
        return delta  # a batch without answers or without time: no logarithm
    y = [math.log(a / b) for a, b in zip(S, W)]
    mean = sum(y) / k
    var = sum((v - mean) ** 2 for v in y) / (k - 1)
    if var < 1e-18 or var > COX_MAX_VAR:
        return delta  # every batch alike (to rounding): nothing skewed; or too unlike for a log-normal's skew
    centre, se = mean + var / 2, math.sqrt(var / k + var * var / (2 * (k - 1)))
    return max(delta, math.exp(centre + q * se) / r_hat - 1, 1 - math.exp(centre - q * se) / r_hat)


@functools.lru_cache(maxsize=64)
def normal_quantile(level: float = LEVEL) -> float:
    """The standard normal quantile of a two-sided interval at `level` (for an error modelled, not estimated)."""
    from scipy.special import ndtri  # noqa: PLC0415 (lazy, as t_quantile)
    return float(ndtri(0.5 + level / 2))


def _precision(level, window_s, batches, batch_s, x, x_rel, r, r_rel, drift_rel=None, edge_rel=None,
               mean_coverage=None) -> Precision:
    return Precision(level=level, window_s=window_s, batches=batches, batch_s=batch_s, throughput_per_s=x,
                     throughput_rel=x_rel, mean_ms=r, mean_rel=r_rel, drift_rel=drift_rel, edge_rel=edge_rel,
                     mean_coverage=mean_coverage)


@dataclass(frozen=True)
class Rule:
    """`[cell] until = "precise"`: relative half-width asked of X and mean R (`precision`, e.g. 0.02), the window's
    fewest seconds (`min_s`), the cell's most (`max_s`, a ceiling the runner enforces), the warm-up floor and the
    cool-down the analysis will trim."""
    precision: float
    min_s: float
    max_s: float
    warmup_floor_s: float = 0.0
    cooldown_s: float = 0.0
    # A closed workload's N (None: open, or N unknown) and the closed law's tolerance: the law checked over the
    # window has an error of its own from the requests in flight at its edges (window.window_error), which only a
    # longer window makes small; the cell is not answered while 3 times that error exceeds the tolerance, so the
    # analysis' check never has to widen it ("window too short").
    users: float | None = None
    law_tolerance: float = 0.02

    @property
    def target_rel(self) -> float:
        """γ' = γ/(1+γ): the half-width relative to the estimate that bounds the error relative to the true value
        by γ."""
        return self.precision / (1 + self.precision)


@dataclass(frozen=True)
class Verdict:
    answered: bool
    warmup: Warmup
    precision: Precision | None
    why: str
    decision: str | None = None  # what an answered condition decided, when it is a claim (the SLO's "met", "not met")


def confirmed(decision, decide: Callable[[slice], object], start: int, window_s: int):
    """The one sequential rule every stopping condition answers by (the precise stop, `judge`; a search probe's SLO
    stop, search/early_stop.py), asked every second: a decision taken over the window [start, start + window_s)
    stands only when `decide` takes the same one over the window's first 1/CONFIRM seconds (None: not confirmed).
    The first half sizes the run and the whole estimates, the two-stage idea: a rule that stops at the first look
    where its condition holds stops on a lucky look (a small variance estimate, a quiet stretch), and the half it
    confirms over is the same data a look later, so a lucky look seldom holds over both (measured: judge and
    docs/analysis.md, the SLO stop and docs/search.md). The first half is the window's, not the cell's: a long
    warm-up is not paid twice."""
    if decision is None:
        return None
    return decision if decide(slice(start, start + int(window_s // CONFIRM))) == decision else None


def judge(counts: np.ndarray, sums_ms: np.ndarray, rule: Rule, running: bool = False) -> Verdict:
    """Whether a cell's seconds so far (from its first sample's start, the last whole second included) answer it:
    the warm-up found and settled, the cool-down's seconds left out as the analysis will (not while the cell is
    `running`: every complete second judged then was at full load, and the cool-down the analysis trims is the
    file's tail after the stop, the samples in flight and the seconds the stop took to arrive), a window of at least
    `min_s`, at least STOP_BATCHES batches, and X and mean R each within `rule.target_rel` — over the whole window
    now, and already over its first 1/CONFIRM (the same warm-up trimmed); for a closed workload, the closed law's
    edge error within its tolerance over the whole window (closed_law_edge).

    Why both: asked every few seconds, a rule that stops at the first narrow interval stops on a lucky small variance
    estimate (about 10 batches give it 9 degrees of freedom), and mean R's skew ties a small variance to a low R: on
    M/M/1 (ρ = 0.5, 5% asked, 200 replications) the stopped intervals covered R 85% of the time. The confirmation
    (`confirmed`, the rule the SLO stop answers by too) brought it to 91–93.5%, for about 2.1× the seconds of the
    first narrow interval, and the interval stated being the wider of the window's and its first half's (`precision`)
    to 95% and more (docs/analysis.md's table, bench/bench_coverage.py). The edge error is no variance estimate, so
    it is not asked of the first half (it would double a closed cell's window).
    """
    verdict = _judge_now(counts, sums_ms, replace(rule, cooldown_s=0.0) if running else rule)
    if not verdict.answered:
        return verdict
    counts, sums_ms = np.asarray(counts, float), np.asarray(sums_ms, float)

    def precise(part: slice) -> bool:
        p = precision(counts[part], sums_ms[part], drift=verdict.warmup.drift)
        return p.batches >= STOP_BATCHES and p.worst_rel is not None and p.worst_rel <= rule.target_rel

    start, window_s = int(math.ceil(verdict.warmup.seconds)), verdict.precision.window_s
    if confirmed(True, precise, start, window_s):
        return verdict
    return Verdict(False, verdict.warmup, verdict.precision,
                   f"{verdict.why}, but not yet over the window's first {int(window_s // CONFIRM)} s (the rule "
                   f"confirms over 1/{CONFIRM:g} of it)")


def closed_law_edge(rule: Rule, p: Precision) -> float | None:
    """3 × the closed law's window error (window.window_error, the analysis' own) over this window, the cycle R+Z
    taken as N/X (the law itself: no think time needed); None when the workload is not closed or nothing answered."""
    if not rule.users or not p.throughput_per_s or not p.window_s:
        return None
    return 3 * window_error(rule.users / p.throughput_per_s, p.window_s, rule.users)


def _judge_now(counts: np.ndarray, sums_ms: np.ndarray, rule: Rule) -> Verdict:
    """judge's conditions on these seconds alone."""
    counts = np.asarray(counts, float)
    sums = np.asarray(sums_ms, float)
    cool = int(math.ceil(rule.cooldown_s))
    kept = max(0, len(counts) - cool)
    counts, sums = counts[:kept], sums[:kept]
    found = warmup(counts, sums, rule.warmup_floor_s)
    if not found.settled and found.by == TOO_SHORT:
        batch = mser_batch(counts)
        return Verdict(False, found, None, f"{kept} s, too few to look for a warm-up "
                                           f"(MSER-5 needs {min_batches(batch) * batch} s here)")
    if not found.settled:
        return Verdict(False, found, None, "warm-up not over (MSER-5 found no steady state yet)")
    start = int(math.ceil(found.seconds))
    window_n, window_s = counts[start:], sums[start:]
    if len(window_n) < rule.min_s:
        return Verdict(False, found, None, f"window {len(window_n)} s, shorter than min_s {rule.min_s:g} s")
    p = precision(window_n, window_s, drift=found.drift, users=rule.users)
    worst = p.worst_rel
    if p.batches < STOP_BATCHES or worst is None:
        return Verdict(False, found, p, f"{p.batches} batches of {p.batch_s} s, fewer than {STOP_BATCHES}")
    if worst > rule.target_rel:
        return Verdict(False, found, p, f"±{worst:.1%} of X or mean R, not yet ±{rule.target_rel:.1%}")
    law = closed_law_edge(rule, p)
    if law is not None and law > rule.law_tolerance:
        return Verdict(False, found, p, f"X ±{p.throughput_rel:.1%} and mean R ±{p.mean_rel:.1%}, but the closed "
                                        f"law's edge error over {len(window_n)} s, 3 × {law / 3:.2%}, exceeds its "
                                        f"{rule.law_tolerance:.0%} tolerance")
    return Verdict(True, found, p, f"X ±{p.throughput_rel:.1%} and mean R ±{p.mean_rel:.1%} over "
                                   f"{len(window_n)} s ({p.batches} batches of {p.batch_s} s)")
