"""A probe's second stopping condition: its SLO verdict decided while it still runs, by the sequential rule the
precise stop answers by (docs/search.md, "Probes that stop when their verdict is clear").

The runner's watcher asks it beside the precision rule (run/stopping.py), over the same complete seconds and the
same window: the warm-up steady_state.judge found, its cool-down left out, at least `min_s` and STOP_BATCHES
batches. Each criterion of the SLO becomes a ratio of per-second sums with steady_state's batch-means interval
(ratio_rel: the wider of the delta method's and Cox's for a skewed mean, as for mean R):

- `mean < T`: mean R = Σ elapsed / Σ answers;
- `pq < T` (a percentile, q < 1): the share of answers at or above T (above T for `<=`), a = Σ slow / Σ answers.
  The q-th percentile is below T exactly when fewer than a share 1 − q of the answers reach T, so the percentile's
  verdict is the share's against 1 − q (the duality of a quantile and its distribution function). With no slow
  answer at all the batches have no spread; the zero-event bound −ln(α)/n (the rule of three's 3/n at α = 5%)
  then stands for the share's upper bound, α the look's one-sided error;
- `error_rate < f`: failures / completions, against f;
- `max < T`: no interval can show a maximum below T before the cell ends (one more answer may reach it), so a pass
  is never decided early; a fail is a fact, not an estimate: one answer of T or more in the window already makes
  the window's max reach T, and the probe's verdict with it.

How a look decides (the looks come every second, so each one spends error): the probe is decided when every
criterion's interval lies wholly on its passing side ("met"), or one criterion's wholly on its failing side ("not
met"), with intervals at CLAIM_LEVEL (99%: a one-sided 0.5% a look, t with the batches' degrees of freedom, a
boundary as strict at every look; the final analysis, the probe's 95% bootstrap interval over the finished cell,
search/slo.py, keeps its nominal level), and the same decision taken over the window's first half
(steady_state.confirmed, the precise stop's confirmation). Measured near the threshold (true p90 within ±5% of the
SLO, ±2% asked, max_s 60; M/M/1 at ρ = 0.5 and a closed M/M/10//N loop; bench/bench_coverage.py,
tests/search/test_early_stop.py): one look at 95% without confirmation decided wrongly on 5-12% of the probes, with
the confirmation 0.3-5.3%, this rule on 0-0.5% (2 of 400 M/M/1 probes, 0 of 400 closed); far from it (p90 at 0.6×
or 1.6× the SLO) it still decides 60-100% of the probes early, in a median 10-46 s (at 3 standard errors instead,
25% of the M/M/1's at 1.6×). A fact (a max reached) decides at once.

Once decided, the stop ends the load and its record says so (Stop.slo, "met" or "not met", and the words); the
probe's figures and intervals are still the analysis' over the finished cell.
"""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.steady.steady_state import CONFIRM, STOP_BATCHES, Rule, Verdict, confirmed, judge, precision
from littlegrid.criteria.grammar import Criterion
from littlegrid.run.answered import Seconds
from littlegrid.search.slo import slo_words

CLAIM_LEVEL = 0.99  # each look's intervals, two-sided: a one-sided error of 0.5% a look (2.58 standard errors)
# The upper bound of a share with no event in n trials at CLAIM_LEVEL's one-sided error α: −ln(α)/n, 5.3/n (the rule
# of three, 3/n, is the same bound at α = 5%)
NO_EVENT_BOUND = -math.log((1 - CLAIM_LEVEL) / 2)
MET, NOT_MET = "met", "not met"


class SloClear:
    """The condition: called with the complete seconds, says whether the SLO is decided. `above_ms`: the cuts whose
    per-second counts it reads (the percentiles' and max's thresholds)."""

    def __init__(self, criteria: tuple[Criterion, ...], rule: Rule):
        self.criteria, self.rule = tuple(criteria), rule
        self.above_ms = tuple(sorted({_cut(c) for c in self.criteria if _share_of_slow(c) is not None}))

    def __call__(self, seconds: Seconds) -> Verdict:
        return self.decide(seconds, judge(seconds.counts, seconds.sums_ms, self.rule, running=not seconds.final))

    def decide(self, seconds: Seconds, v: Verdict) -> Verdict:
        """The decision on these seconds, given the precision rule's verdict on them `v` (its window and warm-up:
        the watcher asks that rule first, on the same seconds)."""
        p = v.precision
        if p is None or p.batches < STOP_BATCHES:
            return Verdict(False, v.warmup, p, v.why)
        start = int(math.ceil(v.warmup.seconds))
        window = slice(start, start + p.window_s)
        reached = [c for c in self.criteria if c.metric == "max" and seconds.above[_cut(c)][window].sum() > 0]
        if reached:
            words = "; ".join(f"{slo_words(c)}: {int(seconds.above[_cut(c)][window].sum())} answers of "
                              f"{_cut(c)} ms or more in the window" for c in reached)
            return Verdict(True, v.warmup, p, f"SLO not met over {p.window_s} s, a fact: {words}", NOT_MET)
        drift = v.warmup.drift
        decision, words = self._decision(seconds, window, drift)
        if decision is None:
            return Verdict(False, v.warmup, p, f"SLO not yet clear: {words}")
        half = int(p.window_s // CONFIRM)
        if confirmed(decision, lambda part: self._decision(seconds, part, drift)[0], start, p.window_s) is None:
            return Verdict(False, v.warmup, p, f"SLO {decision} over {p.window_s} s but not yet over its first "
                                               f"{half} s (the rule confirms over 1/{CONFIRM:g} of it): {words}")
        return Verdict(True, v.warmup, p, f"SLO {decision}, decided early: {CLAIM_LEVEL:.0%} intervals (asked at every "
                                          f"look) on that side over {p.window_s} s and over its first {half} s: "
                                          f"{words}", decision)

    def _decision(self, s: Seconds, window: slice, drift: tuple[str, ...]) -> tuple[str | None, str]:
        """(MET | NOT_MET | None, every criterion's interval in words) over these seconds; `drift`: the series the
        warm-up settled only as an immaterial drift (mean R's interval holds its bias, as precision's does)."""
        sides = [self._side(c, s, window, drift) for c in self.criteria]
        words = "; ".join(w for _, w in sides)
        if all(side == "pass" for side, _ in sides):
            return MET, words
        if any(side == "fail" for side, _ in sides):
            return NOT_MET, words
        return None, words

    def _side(self, crit: Criterion, s: Seconds, window: slice, drift: tuple[str, ...]) -> tuple[str | None, str]:
        """("pass" | "fail" | None, the interval in words) of one criterion over the window."""
        n = s.counts[window]
        if crit.metric == "mean":
            lo, hi, value = _share(n, s.sums_ms[window], ("response time",) if "response time" in drift else ())
            limit, what = crit.threshold, f"mean R {value:.3g} ms, {lo:.3g} to {hi:.3g}"
        elif crit.metric == "error_rate":
            lo, hi, value = _share(n + s.failed[window], s.failed[window])
            hi = min(hi, 1.0)
            limit, what = crit.threshold, f"error rate {value:.2%}, {lo:.2%} to {hi:.2%}"
        else:
            q = _share_of_slow(crit)
            lo, hi, value = _share(n, s.above[_cut(crit)][window])
            hi, limit = min(hi, 1.0), 1 - q  # a share: Cox's skewed upper side may pass 1
            what = f"answers ≥ {_cut(crit)} ms {value:.2%}, {lo:.2%} to {hi:.2%} (limit {limit:.3g})"
        side = "pass" if hi < limit and crit.metric != "max" else ("fail" if lo > limit else None)
        return side, f"{slo_words(crit)}: {what}" + ("" if side else ", across the limit")


def _share(trials: np.ndarray, events: np.ndarray, drift: tuple[str, ...] = ()) -> tuple[float, float, float]:
    """(low, high, value) of Σevents/Σtrials over the seconds at CLAIM_LEVEL: the batch means' ratio interval
    (mean R too: events the elapsed sums, trials the answers, `drift` its warm-up's); with no event, 0 to the
    zero-event bound."""
    total = float(np.sum(trials))
    if total == 0:
        return 0.0, math.inf, 0.0
    hits = float(np.sum(events))
    if hits == 0:
        return 0.0, NO_EVENT_BOUND / total, 0.0
    p = precision(trials, events, level=CLAIM_LEVEL, drift=drift)
    if p.mean_ms is None or p.mean_rel is None:
        return 0.0, math.inf, hits / total
    return max(0.0, p.mean_ms * (1 - p.mean_rel)), p.mean_ms * (1 + p.mean_rel), p.mean_ms


def _share_of_slow(crit: Criterion) -> float | None:
    """q of a percentile criterion (max: 1), None for the others."""
    if crit.metric == "max":
        return 1.0
    if crit.metric.startswith("p"):
        return float(crit.metric[1:]) / 100
    return None


def _cut(crit: Criterion) -> int:
    """The elapsed time (whole ms, as JMeter writes it) from which an answer counts against `crit`: the threshold
    for `<` (an answer of exactly T does not meet "< T"), the next millisecond for `<=`."""
    return int(math.ceil(crit.threshold)) if crit.op == "<" else int(math.floor(crit.threshold)) + 1
