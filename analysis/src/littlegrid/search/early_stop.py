"""A probe's second stopping condition: its SLO verdict is clear while it still runs (docs/search.md, "Probes
that stop when their verdict is clear").

The runner's watcher asks it beside the precision rule (run/stopping.py), over the same complete seconds and the
same window: the warm-up steady_state.judge found, its cool-down left out, at least `min_s` and STOP_BATCHES
batches. Each criterion of the SLO becomes a ratio of per-second sums, whose batch-means interval is
steady_state.precision's (the delta method over batches, as for mean R):

- `mean < T`: mean R = Σ elapsed / Σ answers, its interval judge's own;
- `pq < T` (a percentile, q < 1): the share of answers at or above T (above T for `<=`), a = Σ slow / Σ answers.
  The q-th percentile is below T exactly when fewer than a share 1 − q of the answers reach T, so the percentile's
  verdict is the share's against 1 − q (the duality of a quantile and its distribution function). With no slow
  answer at all the batches have no spread; the rule of three's 3/n then stands for the share's upper bound;
- `error_rate < f`: failures / completions, against f;
- `max < T`: a share against 0, which a pass can never clear early (a failure can: one slow answer is enough).

The probe is answered when every criterion's interval lies wholly on its passing side, or one criterion's wholly
on its failing side: the Evidence.decided of the strategy, on the running figures. The probe's verdict itself is
still the analysis' (search/slo.py's bootstrap intervals over the finished cell); this only says when running on
cannot change which side it falls.
"""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.steady_state import STOP_BATCHES, Rule, Verdict, judge, precision
from littlegrid.criteria.grammar import Criterion
from littlegrid.run.answered import Seconds
from littlegrid.search.slo import slo_words

RULE_OF_THREE = 3.0  # the 95% upper bound of a share with no event in n trials is about 3/n


class SloClear:
    """The condition: called with the complete seconds, says whether every criterion's side is clear. `above_ms`:
    the cuts whose per-second counts it reads (the percentiles' and max's thresholds)."""

    def __init__(self, criteria: tuple[Criterion, ...], rule: Rule):
        self.criteria, self.rule = tuple(criteria), rule
        self.above_ms = tuple(sorted({_cut(c) for c in self.criteria if _share_of_slow(c) is not None}))

    def __call__(self, seconds: Seconds) -> Verdict:
        v = judge(seconds.counts, seconds.sums_ms, self.rule, running=not seconds.final)
        p = v.precision
        if p is None or p.batches < STOP_BATCHES:
            return Verdict(False, v.warmup, p, v.why)
        start = int(math.ceil(v.warmup.seconds))
        window = slice(start, start + p.window_s)
        sides = [self._side(c, seconds, window, p) for c in self.criteria]
        words = "; ".join(w for _, w in sides)
        if all(side == "pass" for side, _ in sides) or any(side == "fail" for side, _ in sides):
            verdict = "met" if all(side == "pass" for side, _ in sides) else "not met"
            return Verdict(True, v.warmup, p, f"SLO {verdict} beyond doubt over {p.window_s} s: {words}")
        return Verdict(False, v.warmup, p, f"SLO not yet clear: {words}")

    def _side(self, crit: Criterion, s: Seconds, window: slice, p) -> tuple[str | None, str]:
        """("pass" | "fail" | None, the interval in words) of one criterion over the window."""
        n = s.counts[window]
        if crit.metric == "mean":
            if p.mean_ms is None or p.mean_rel is None:
                return None, f"{slo_words(crit)}: no interval yet"
            lo, hi = p.mean_ms * (1 - p.mean_rel), p.mean_ms * (1 + p.mean_rel)
            limit, what = crit.threshold, f"mean R {p.mean_ms:.3g} ms, {lo:.3g} to {hi:.3g}"
        elif crit.metric == "error_rate":
            lo, hi, value = _share(n + s.failed[window], s.failed[window])
            limit, what = crit.threshold, f"error rate {value:.2%}, {lo:.2%} to {hi:.2%}"
        else:
            q = _share_of_slow(crit)
            lo, hi, value = _share(n, s.above[_cut(crit)][window])
            limit = 1 - q
            what = f"answers ≥ {_cut(crit)} ms {value:.2%}, {lo:.2%} to {hi:.2%} (limit {limit:.3g})"
        side = "pass" if hi < limit else ("fail" if lo > limit else None)
        return side, f"{slo_words(crit)}: {what}" + ("" if side else ", across the limit")


def _share(trials: np.ndarray, events: np.ndarray) -> tuple[float, float, float]:
    """(low, high, value) of Σevents/Σtrials over the window's seconds at 95%: the batch means' ratio interval; with
    no event, 0 to the rule of three's bound."""
    total = float(np.sum(trials))
    if total == 0:
        return 0.0, 1.0, 0.0
    hits = float(np.sum(events))
    if hits == 0:
        return 0.0, min(1.0, RULE_OF_THREE / total), 0.0
    p = precision(trials, events)
    if p.mean_ms is None or p.mean_rel is None:
        return 0.0, 1.0, hits / total
    return max(0.0, p.mean_ms * (1 - p.mean_rel)), min(1.0, p.mean_ms * (1 + p.mean_rel)), p.mean_ms


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
