"""The capacity search's strategy, a pure function of the probes so far: start low, predict the boundary from
the measured demand and the queueing bounds, bracket it, bisect to the resolution, repeat near it until the
intervals separate from the threshold (docs/search.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from littlegrid.search.slo import Figure

KNEE = 0.9  # a probe whose X is below this share of N/(D+Z) is past the knee: 1/X then measures D_max


@dataclass(frozen=True)
class Space:
    """What is searched: the axis, its range, the resolution and how much doubt the search may spend."""

    axis: str                 # "users" (closed) or "rate_per_s" (open)
    low: float
    high: float
    resolution: float | None = None  # users: absolute (default 1); rate: relative (default 0.02)
    max_repeats: int = 3      # probes at one load near the boundary, to separate its interval from the threshold
    max_reruns: int = 2       # reruns of an invalid probe (lengthened) before the load is given up
    service: tuple | None = None  # (servers c, service ms S) when the grid states them: D_max = S/c from the start
    # A precise search's precision asked (relative half-width; None: fixed probes). A figure known that precisely
    # whose interval still reaches the threshold is on the threshold at the precision asked: repeating its load
    # would buy a precision nobody asked for, and on a boundary that sits on the threshold it never separates.
    precision: float | None = None

    @property
    def closed(self) -> bool:
        return self.axis == "users"

    @property
    def step(self) -> float:
        return self.resolution if self.resolution is not None else (1 if self.closed else 0.02)

    def resolved(self, lo: float, hi: float) -> bool:
        return hi - lo <= self.step if self.closed else hi - lo <= self.step * lo

    def point(self, x: float, lo: float, hi: float) -> float:
        """x as a load strictly between lo and hi (users: whole; rate: 3 significant figures)."""
        if self.closed:
            return min(max(round(x), lo + 1), hi - 1)
        y = float(f"{x:.3g}")
        return y if lo < y < hi else (lo + hi) / 2


@dataclass(frozen=True)
class Probe:
    """One cell of the search as the strategy sees it."""

    load: float                      # users, or requests per second
    figures: tuple[Figure, ...] | None  # one per SLO criterion; None when the cell gave none
    valid: bool
    why_invalid: str | None = None
    mean_ms: float | None = None     # R, the mean response time in the window
    throughput_per_s: float | None = None  # X
    think_ms: float | None = None    # Z (closed)
    duration_s: float | None = None
    stopped: str | None = None       # how the probe's load ended, in words (render.words.stopped: "SLO met early …")


@dataclass(frozen=True)
class Evidence:
    """The valid probes at one load, combined: each figure the mean of the repeats, its interval's half-widths
    divided by √k (k independent repeats of one length)."""

    load: float
    figures: tuple[Figure, ...]
    repeats: int

    @property
    def passes(self) -> bool:
        return all(f.holds() for f in self.figures)

    def on_threshold(self, precision: float | None) -> bool:
        """Undecided, and every figure whose interval reaches its threshold known to `precision` (its interval's
        wider side relative to the figure): the load sits on the threshold at the precision asked."""
        if precision is None or self.decided:
            return False
        reaching = [f for f in self.figures if f.lo <= f.threshold <= f.hi]
        return bool(reaching) and all(f.value > 0 and max(f.value - f.lo, f.hi - f.value) / f.value <= precision
                                      for f in reaching)

    @property
    def decided(self) -> bool:
        """Its interval lies on one side of the threshold: wholly inside for a pass, one criterion wholly
        outside for a failure."""
        if self.passes:
            return all(f.holds(f.hi) for f in self.figures)
        return any(not f.holds(f.lo) for f in self.figures)


@dataclass(frozen=True)
class Next:
    load: float
    why: str
    lengthen: bool = False  # a rerun of an invalid probe: twice as long


@dataclass(frozen=True)
class Answer:
    kind: str               # "found" | "none" (fails at min) | "all" (meets it at max) | "invalid"
    load: float | None      # the largest load meeting the SLO (found, all)
    at: Evidence | None     # the evidence at that load
    above: Evidence | None  # at the first failing load above it
    separated: bool         # both intervals lie on their side of the threshold
    why: str
    extra: dict = field(default_factory=dict)


def combine(probes: list[Probe]) -> Evidence:
    k = len(probes)
    figs = []
    for i, first in enumerate(probes[0].figures):
        rows = [p.figures[i] for p in probes]
        value = sum(f.value for f in rows) / k
        below = sum(f.value - f.lo for f in rows) / k / math.sqrt(k)
        above = sum(f.hi - f.value for f in rows) / k / math.sqrt(k)
        figs.append(Figure(first.criterion, first.metric, value, value - below, value + above, first.threshold,
                           first.strict))
    return Evidence(probes[0].load, tuple(figs), k)


def evidence(probes: list[Probe]) -> dict[float, Evidence]:
    by_load: dict[float, list[Probe]] = {}
    for p in probes:
        if p.valid and p.figures:
            by_load.setdefault(p.load, []).append(p)
    return {load: combine(ps) for load, ps in sorted(by_load.items())}


def bracket(space: Space, ev: dict[float, Evidence]) -> tuple[float | None, float | None]:
    """(largest passing load below the lowest failing one, lowest failing load); None where there is none.
    A pass above a failure (noise, or a system that recovers) does not move the boundary up."""
    failing = [load for load, e in ev.items() if not e.passes]
    hi = min(failing) if failing else None
    passing = [load for load, e in ev.items() if e.passes and (hi is None or load < hi)]
    return (max(passing) if passing else None), hi


def next_step(space: Space, probes: list[Probe]) -> Next | Answer:
    """The next probe, or the answer. Deterministic: the same probes give the same step (which is what lets
    `--resume` replay a search from its finished cells)."""
    if probes and not (probes[-1].valid and probes[-1].figures):
        last = probes[-1]
        tries = sum(1 for p in probes if p.load == last.load and not (p.valid and p.figures))
        if not any(p.load == last.load and p.valid and p.figures for p in probes):
            if tries <= space.max_reruns:
                return Next(last.load, f"rerun, twice as long: {last.why_invalid or 'no figures'}", lengthen=True)
            return Answer("invalid", None, None, None, False,
                          f"{tries} probes at {_load(space, last.load)} failed their validity checks "
                          f"({last.why_invalid}); the search cannot trust that load")
    ev = evidence(probes)
    if not ev:
        return Next(space.low, "start low")
    lo, hi = bracket(space, ev)
    if lo is None:  # the lowest probed load fails
        e = ev[hi]
        if hi > space.low:
            return Next(space.low, "the first failure is above min: probe min")
        if _repeat(space, e):
            return Next(hi, "repeat: the interval at min reaches the threshold")
        return Answer("none", None, None, e, e.decided, f"min ({_load(space, space.low)}) does not meet the SLO")
    if hi is None:
        if lo >= space.high:
            e = ev[lo]
            if _repeat(space, e):
                return Next(lo, "repeat: the interval at max reaches the threshold")
            return Answer("all", lo, e, None, e.decided, f"max ({_load(space, space.high)}) meets the SLO")
        return Next(*_above(space, probes, ev, lo))
    if not space.resolved(lo, hi):
        return Next(*_inside(space, probes, ev, lo, hi))
    a, b = ev[lo], ev[hi]
    for e, side in ((a, "meets"), (b, "fails")):  # the less certain first
        if _repeat(space, e):
            return Next(e.load, f"repeat: the interval at {_load(space, e.load)} ({side}) reaches the threshold")
    return Answer("found", lo, a, b, a.decided and b.decided, _separation(space, a, b))


def _repeat(space: Space, e: Evidence) -> bool:
    """Whether the load is probed again: its interval reaches the threshold, fewer than max_repeats probed it, and
    (a precise search) its figures are not yet as precise as asked."""
    return not e.decided and e.repeats < space.max_repeats and not e.on_threshold(space.precision)


def _separation(space: Space, a: Evidence, b: Evidence) -> str:
    """Why the answer is as sure as it is."""
    if a.decided and b.decided:
        return "the intervals separate from the threshold"
    on = [e for e in (a, b) if e.on_threshold(space.precision)]
    if on:
        where = " and ".join(_load(space, e.load) for e in on)
        return (f"the boundary sits on the threshold: at {where} the figure is known to the ±{space.precision:.0%} "
                f"asked and its interval still reaches it, so the answer may move by one step with noise")
    return f"the intervals do not separate from the threshold after {space.max_repeats} probes per load"


def _above(space: Space, probes: list[Probe], ev: dict, lo: float) -> tuple[float, str]:
    """Above every probe so far, all passing: double, or jump to the model's prediction when it is further.
    Once the bounds are calibrated past the knee the prediction is trusted even when nearer (the next load
    above it then brackets the boundary), unless the last two such jumps both passed: then double again."""
    guess, calibrated = predict(space, probes, ev)
    grown = lo * 2 if lo > 0 else space.low + space.step
    trusted = calibrated and guess is not None and not _creeping(space, probes, ev)
    if trusted:
        # closed: D_max came from a probe past the knee; open: from a probe whose R shows queueing
        basis = "past the knee" if space.closed else "queueing measured"
        target = min(max(guess, lo + space.step), grown)
        why = f"model ({basis}): boundary near {_load(space, guess)}" + \
            (", at most doubling the load" if guess > grown else "")
    elif guess is not None and guess > grown:
        target, why = guess, f"bracket: model predicts {_load(space, guess)}"
    else:
        target, why = grown, "bracket: doubling"
    target = min(space.high, target)
    if space.closed:
        target = max(math.ceil(target) if trusted else round(target), lo + 1)
    else:
        target = max(float(f"{target:.3g}"), lo * (1 + space.step))
    return min(target, space.high), why


def _creeping(space: Space, probes: list[Probe], ev: dict) -> bool:
    """The two highest loads probed both pass and the model called both: it keeps predicting too low."""
    top = sorted(ev)[-2:]
    return len(top) == 2 and all(ev[t].passes for t in top) and \
        all(predict(space, [p for p in probes if p.load < t], evidence([p for p in probes if p.load < t]))[1]
            for t in top)


def _inside(space: Space, probes: list[Probe], ev: dict, lo: float, hi: float) -> tuple[float, str]:
    """Inside the bracket: the model's prediction, unless the previous model step failed to halve the bracket
    (then bisect, which bounds the probes by log2 of the width)."""
    mid = space.point((lo + hi) / 2 if space.closed else math.sqrt(lo * hi), lo, hi)
    guess = predict(space, probes, ev)[0] or _interpolate(ev[lo], ev[hi])
    if guess is None or not lo < guess < hi or _stalled(space, probes):
        return mid, "bisect"
    return space.point(guess, lo, hi), f"model: boundary near {_load(space, guess)}"


def _stalled(space: Space, probes: list[Probe]) -> bool:
    """Whether the last probe left the bracket more than half as wide as before it."""
    if len(probes) < 2:
        return False
    before = bracket(space, evidence(probes[:-1]))
    after = bracket(space, evidence(probes))
    if None in before or None in after:
        return False
    return (after[1] - after[0]) > (before[1] - before[0]) / 2


def _interpolate(a: Evidence, b: Evidence) -> float | None:
    """Where the first figure crosses its threshold on the straight line between two loads."""
    fa, fb = a.figures[0], b.figures[0]
    if fb.value <= fa.value:
        return None
    return a.load + (fa.threshold - fa.value) * (b.load - a.load) / (fb.value - fa.value)


def predict(space: Space, probes: list[Probe], ev: dict) -> tuple[float | None, bool]:
    """The load where the first latency criterion should reach its threshold, from the asymptotic bounds:
    closed, R(N) ≥ max(D, N·D_max − Z) with D = R at the lightest probe and D_max the grid's S/c or, once a
    probe is past the knee, 1/X there (before that 1/X_max over-states D_max, so the guess errs low); open,
    R(λ) = D/(1 − λ·D_max) with D_max from the probe with the most queueing. The figure/R ratio measured at
    the probe used (past the knee: the one whose figure is nearest the threshold) scales R to the percentile.
    Returns (load or None without a latency figure or demand, whether D_max was measured past the knee)."""
    measured = [p for p in probes if p.valid and p.figures and p.mean_ms and p.throughput_per_s]
    if not measured or not ev or ev[min(ev)].figures[0].metric == "error_rate":
        return None, False
    lightest = min(measured, key=lambda p: p.load)
    d = lightest.mean_ms
    threshold = ev[min(ev)].figures[0].threshold
    if space.closed:
        z = lightest.think_ms or 0.0
        past = [p for p in measured if p.throughput_per_s < KNEE * p.load / ((d + z) / 1000.0)]
        ref = (min(past, key=lambda p: abs(p.figures[0].value - threshold)) if past
               else max(measured, key=lambda p: p.load))
        if past:
            d_max = 1000.0 / ref.throughput_per_s
        elif space.service:
            d_max = space.service[1] / space.service[0]
        else:
            d_max = 1000.0 / max(p.throughput_per_s for p in measured)
        shape = ref.figures[0].value / ref.mean_ms
        return ((threshold / shape + z) / d_max if d_max > 0 else None), bool(past)
    queued = [p for p in measured if p.mean_ms > d * 1.05]
    if not queued:  # no queueing seen yet: nothing to extrapolate from
        return None, False
    ref = min(queued, key=lambda p: abs(p.figures[0].value - threshold))
    d_max = (1 - d / ref.mean_ms) / ref.load  # seconds per request at the bottleneck
    shape = ref.figures[0].value / ref.mean_ms
    if threshold / shape <= d:
        return None, True
    return (1 - d * shape / threshold) / d_max, True


def remaining(space: Space, probes: list[Probe]) -> int:
    """A rough count of the probes still to come (for the ETA): bracketing by doubling, bisecting, and two
    probes at the boundary to confirm it."""
    ev = evidence(probes)
    if not ev:
        return 2 + math.ceil(math.log2(max(2.0, space.high / max(space.low, 1e-9))))
    lo, hi = bracket(space, ev)
    if lo is None or (hi is None and lo >= space.high):
        return 0
    if hi is None:
        hi = space.high
        doubling = math.ceil(math.log2(max(2.0, space.high / max(lo, 1e-9))))
    else:
        doubling = 0
    width = (hi - lo) / (space.step if space.closed else space.step * lo)
    return doubling + max(0, math.ceil(math.log2(max(width, 1.0)))) + 1


def _load(space: Space, load: float | None) -> str:
    if load is None:
        return "?"
    return f"N = {load:.0f}" if space.closed else f"{load:.3g}/s"
