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
far from the steady mean is cut, noise is kept. The minimum is looked for in the first half only; one in the second
half means the series never settled (MSER's own guard: a trend, an overload, or a cell too short) and no warm-up is
claimed, unless what still moves is immaterial (`immaterial_drift`: a series nearly without noise makes a JIT's last
tenths of a percent a trend). Both series are searched and the later truncation is taken: a warm-up is over when
both the rate and the response time have settled. MSER alone cuts noise too: on a stationary M/M/1 (ρ = 0.8) it cut
a high-R start in 14% of 120-s windows, leaving R biased low (coverage 89% against 94% uncut). So a truncation
stands only when the cut start differs from the rest beyond a t test at TRANSIENT_LEVEL (`transient`),
Bonferroni-corrected over the m/2 truncations MSER chose among (it picks the most extreme), and when keeping the
start would move the mean by more than MATERIAL_BIAS (a noise-free synthetic series makes any edge significant):
false cuts of an M/M/1 started empty fell to 0-2.5% of 300-s windows. Fewer than MSER_MIN_BATCHES batches, or
MSER_MIN_S seconds, are "too short" to judge, and seconds with no answer for more than half of them "silent" (not
one run): neither is a series that never settled. Measured coverage of the intervals below (docs/analysis.md's
table): ρ = 0.8, 600 s: X 92.5-97%, mean R 91-95%; 300 s: R 88.5-94%; shorter or heavier cells cover R less, and the
sequential stop covers R 80-87%.

Precision, non-overlapping batch means (Law and Kelton §9.5.3; Schmeiser 1982): the window's seconds are cut into k
batches of b seconds, b at least the autocorrelation-scaled length of blocks.memory_length on both series, without
its T^(1/3) floor (a queue's memory must sit inside a batch for the batch means to be near independent; a series
with no lag-1 correlation has none to hold, and the floor, a bootstrap block's, made 30 s the shortest window) and k
about BATCHES = 10 (more, shorter batches undercover a queue's long memory: on M/M/1 at ρ = 0.9, 30 batches covered
mean R 80% of the time, 10 batches 86%, in 120-s windows). X = Σn/T and its half-width t_{k−1}·s(X_j)/√k; mean R is
a ratio ΣS/ΣN, whose batch residuals e_j = S_j − R̂·N_j give Var(R̂) ≈ Σe_j² / (k(k−1)·N̄²) (the delta method over
batches; N̄ the mean answers per batch). Fewer than MIN_BATCHES batches give no interval.

The stopping rule (`judge`) asks relative half-widths at most γ' = γ/(1+γ) (Law and Kelton's relative-error
procedure: a half-width γ' of the estimate bounds the error relative to the *true* value by γ) of X and of R, with
at least STOP_BATCHES batches, over the window and over its first half (CONFIRM), and for a closed workload the
closed law's edge error within its tolerance (closed_law_edge): checking again and again and stopping at the first
narrow interval would otherwise stop on a lucky small variance estimate. The floor is not enough for mean R: stopped
when ±5% every 2 s, an M/M/1 at ρ = 0.5 covered X 92-95% but R only 80-87% (tests/analysis/test_steady_state.py, an
xfail that says so): about 10 batches give the variance 9 degrees of freedom, and a low R̂ comes with a low variance
estimate."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from littlegrid.analysis.blocks import memory_length
from littlegrid.analysis.laws import regular_edge_error, window_error
from littlegrid.summary.model import Precision  # the summary's record: the runner and the cell read the same one

MSER_BATCH_S = 5        # the most seconds an MSER batch gathers (a cell answering less than once a second)
MSER_MIN_BATCHES = 4    # fewer batches: too short to tell a warm-up from noise
MSER_MIN_S = 10         # nor fewer seconds, however busy each is
MSER_OBSERVATIONS = 5   # MSER-5 batches 5 observations: a second holding that many answers is a batch by itself
LEVEL = 0.95
BATCHES = 10            # batches a window is cut into, unless the series' memory asks for longer ones
MIN_BATCHES = 3         # the fewest batches with an interval at all (t with 2 degrees of freedom)
CONFIRM = 2.0           # the rule must already hold over the first 1/CONFIRM of the seconds (judge)
STOP_BATCHES = 5        # the fewest with which the stopping rule answers, over the window and over its first half
                        # (10 asked over both made a 20-s window the least; with the confirmation 5 keep the stopped
                        # intervals' coverage: docs/analysis.md)
MATERIAL_BIAS = 0.005  # a start moving the mean less than this (a quarter of the 2% closed-law tolerance and of a
                       # 2% precision asked) is no warm-up worth its seconds, however significant
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


def mser_truncation(values: np.ndarray, weights: np.ndarray | None = None,
                    batch: int = MSER_BATCH_S) -> int | None:
    """MSER-`batch`'s truncation of `values`, in observations (a multiple of `batch`): None when the series has
    fewer than MSER_MIN_BATCHES whole batches or its minimum lies in the second half (not settled). The trailing
    partial batch is left out. `weights` (e.g. answers per second, for a series of per-second means) weight both the
    batch means and the statistic; a batch of zero weight (no answers) counts for nothing."""
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
    half = m // 2
    d = int(np.argmin(stat[:half + 1]))
    if d == half:  # still falling at the half: the series has not settled within it
        return None
    return d * batch


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


def transient(sums: np.ndarray, weights: np.ndarray, d: int, candidates: int = 1) -> bool:
    """Whether the first `d` seconds' mean, ΣS/ΣW, differs from the rest's by more than the TRANSIENT_LEVEL t quantile
    (k−1 degrees of freedom) times the standard error of the difference, and by enough to matter: kept, the start
    would move the whole series' mean by more than MATERIAL_BIAS (a series nearly without noise, a synthetic one,
    makes any difference significant). `candidates`: how many truncations MSER chose `d` among; the start it chose
    is the one that differs most, so the test's level is divided among them (Bonferroni), or noise would pass it as
    often as the most extreme of that many tries. The rest's variance per second comes from its batch residuals (as `precision` computes
    them), and it also stands for the first seconds' variance: under the null hypothesis both parts are one
    stationary series. For the completions S is the count and W one per second; for the mean R, S is the elapsed
    sum and W the answers. First seconds without a single answer are a start-up, not noise."""
    head_w, head_s = float(weights[:d].sum()), float(sums[:d].sum())
    rest_s, rest_w = sums[d:], weights[d:]
    if head_w == 0:
        return True
    t = len(rest_s)
    b = batch_size(rest_w, rest_s)
    k = t // b
    if k < MIN_BATCHES or rest_w.sum() == 0:
        return False  # too little after it to tell a transient from noise
    lead = t - k * b
    sb, wb = rest_s[lead:].reshape(k, b).sum(axis=1), rest_w[lead:].reshape(k, b).sum(axis=1)
    if wb.sum() == 0:
        return False  # the batches after it hold no answer: nothing to compare the start with
    mean = float(sb.sum() / wb.sum())
    residuals = sb - mean * wb
    per_second = float(residuals @ residuals) / ((k - 1) * b)
    se = math.sqrt(per_second * (d / head_w ** 2 + t / float(rest_w.sum()) ** 2))
    gap = abs(head_s / head_w - mean)
    bias = head_w / (head_w + float(rest_w.sum())) * gap / mean if mean > 0 else math.inf
    level = 1 - (1 - TRANSIENT_LEVEL) / candidates  # Bonferroni: MSER chose d as the most extreme of them
    return gap > t_quantile(k - 1, level) * se and bias > MATERIAL_BIAS


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
    mean_r = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    candidates = len(counts) // batch // 2  # the truncations MSER looks among (its first half)
    by_rate = mser_truncation(counts, batch=batch)
    if by_rate and not transient(counts, np.ones_like(counts), by_rate, candidates):
        by_rate = 0
    by_r = mser_truncation(mean_r, counts, batch=batch)
    if by_r and not transient(sums, counts, by_r, candidates):
        by_r = 0
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


def t_quantile(df: int, level: float = LEVEL) -> float:
    """Student's t quantile for a two-sided interval at `level` with `df` degrees of freedom."""
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
    z·laws.regular_edge_error (cycle N/X) in quadrature, the latter kept as `edge_rel`."""
    n = np.asarray(counts, float)
    s = np.asarray(sums_ms, float)
    t = len(n)
    total = float(n.sum())
    x = total / (t * unit_s) if t else 0.0
    r = float(s.sum()) / total if total > 0 else None
    if t == 0 or total == 0:
        return _precision(level, t * unit_s, 0, 0, x, None, r, None)
    b = batch_size(n, s)
    k = t // b
    if k < MIN_BATCHES:
        return _precision(level, t * unit_s, k, b * unit_s, x, None, r, None)
    lead = t - k * b
    nb = n[lead:].reshape(k, b).sum(axis=1)
    sb = s[lead:].reshape(k, b).sum(axis=1)
    q = t_quantile(k - 1, level)
    x_rel = q * float(np.std(nb, ddof=1)) / math.sqrt(k) / (b * unit_s) / x
    r_hat = float(sb.sum() / nb.sum())
    residuals = sb - r_hat * nb
    var_r = float(residuals @ residuals) / (k * (k - 1)) / float(nb.mean()) ** 2
    r_rel = q * math.sqrt(var_r) / r_hat if r_hat > 0 else None
    edge = (normal_quantile(level) * regular_edge_error(users / x, t * unit_s, users)
            if users and users > 0 and x > 0 else None)
    x_rel = math.hypot(x_rel, edge or 0.0)
    if drift:
        x_rel += MATERIAL_BIAS if "completions" in drift else 0.0
        r_rel = None if r_rel is None else r_rel + (MATERIAL_BIAS if "response time" in drift else 0.0)
    return _precision(level, t * unit_s, k, b * unit_s, x, x_rel, r, r_rel, MATERIAL_BIAS if drift else None, edge)


def normal_quantile(level: float = LEVEL) -> float:
    """The standard normal quantile of a two-sided interval at `level` (for an error modelled, not estimated)."""
    from scipy.special import ndtri  # noqa: PLC0415 (lazy, as t_quantile)
    return float(ndtri(0.5 + level / 2))


def _precision(level, window_s, batches, batch_s, x, x_rel, r, r_rel, drift_rel=None, edge_rel=None) -> Precision:
    return Precision(level=level, window_s=window_s, batches=batches, batch_s=batch_s, throughput_per_s=x,
                     throughput_rel=x_rel, mean_ms=r, mean_rel=r_rel, drift_rel=drift_rel, edge_rel=edge_rel)


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
    # window has an error of its own from the requests in flight at its edges (laws.window_error), which only a
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
    M/M/1 (ρ = 0.5, 5% asked, 200 replications) the stopped intervals covered R 85% of the time. Deciding on the
    first half and reporting the interval of the whole, half of it data the decision never saw, is the two-stage
    idea (the first stage sizes the run, the second estimates): R covered 91–93.5% over four seeds (X 94.5–97%), for
    about 2.1× the seconds of the first narrow interval; confirming over the first 2/3 instead covered R 89.5–94.5%
    (docs/analysis.md). The first half is the window's, not the cell's: a long warm-up is not paid twice. The edge
    error is no variance estimate, so it is not asked of the first half (it would double a closed cell's window).
    """
    verdict = _judge_now(counts, sums_ms, replace(rule, cooldown_s=0.0) if running else rule)
    if not verdict.answered:
        return verdict
    start, window_s = int(math.ceil(verdict.warmup.seconds)), verdict.precision.window_s
    half = int(window_s // CONFIRM)
    first = precision(np.asarray(counts, float)[start:start + half], np.asarray(sums_ms, float)[start:start + half],
                      drift=verdict.warmup.drift)
    if first.batches >= STOP_BATCHES and first.worst_rel is not None and first.worst_rel <= rule.target_rel:
        return verdict
    return Verdict(False, verdict.warmup, verdict.precision,
                   f"{verdict.why}, but not yet over the window's first {half} s (the rule confirms over "
                   f"1/{CONFIRM:g} of it)")


def closed_law_edge(rule: Rule, p: Precision) -> float | None:
    """3 × the closed law's window error (laws.window_error, the analysis' own) over this window, the cycle R+Z
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
