"""Simulated systems with answers known on paper, probed like cells (no JMeter): a closed M/M/c//N with no think
time, and an open M/M/1 queue."""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.histogram import SecondHistograms
from littlegrid.criteria.grammar import parse
from littlegrid.search.slo import figures
from littlegrid.search.strategy import Answer, Probe, next_step
from littlegrid.summary.model import Cell
from summary_contract import typed


def _erlang_cdf(k: int, rate: float, t: float) -> float:
    if t <= 0:
        return 0.0
    x = rate * t  # the Poisson terms in log space: (rate·t)^n overflows a float for long waits
    return 1.0 - sum(math.exp(-x + n * math.log(x) - math.lgamma(n + 1)) for n in range(k))


class ClosedMMc:
    """N users, Z = 0, c exponential servers of mean S: every user is always at the server, so a request finds
    the N−1 others there and waits for N−c departures (rate c/S each) before its own service:
    R = Erlang(N−c, c/S) + Exp(1/S) for N > c, Exp(1/S) otherwise."""

    def __init__(self, servers: int = 10, service_ms: float = 100.0):
        self.c, self.s = servers, service_ms

    def cdf(self, n: int, t: float) -> float:
        b = 1.0 / self.s
        if n <= self.c:
            return 1.0 - math.exp(-b * t)
        k, a = n - self.c, self.c / self.s
        return _erlang_cdf(k, a, t) - math.exp(-b * t) * (a / (a - b)) ** k * _erlang_cdf(k, a - b, t)

    def quantile(self, n: int, q: float) -> float:
        lo, hi = 0.0, self.s * (n / self.c + 30)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.cdf(n, mid) < q else (lo, mid)
        return (lo + hi) / 2

    def mean_ms(self, n: int) -> float:
        return max(self.s, n * self.s / self.c)

    def throughput_per_s(self, n: int) -> float:
        return min(n, self.c) / self.s * 1000.0

    def samples(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        wait = rng.gamma(max(n - self.c, 0), self.s / self.c, count) if n > self.c else np.zeros(count)
        return np.ceil(wait + rng.exponential(self.s, count)).astype(np.int64)  # whole ms, as JMeter writes


def entry_of(**overall) -> Cell:
    """A cell (summary entry) whose steady-window statistics are the figures given, every other field blank."""
    return typed({"overall": overall}, Cell)


def in_seconds(elapsed: np.ndarray, seconds: float) -> SecondHistograms:
    """Independent samples completing evenly over a window of `seconds`, in the order given."""
    end = np.linspace(0, seconds * 1000, len(elapsed), endpoint=False).astype(np.int64)
    return SecondHistograms.from_samples(elapsed, end, 0, seconds * 1000)


def exact_probe(system: ClosedMMc, slo: str, n: int, rel: float = 0.01) -> Probe:
    """The exact p90 with a ±rel interval, as a long cell would measure it."""
    crit = parse(slo)
    q = float(crit.metric[1:]) / 100
    value = system.quantile(n, q)
    fig = figures((crit,), entry_of(**{crit.spec.key: value, "count": 1}), in_seconds(np.array([1]), 1.0), "x")[0]
    fig = type(fig)(fig.criterion, fig.metric, value, value * (1 - rel), value * (1 + rel), fig.threshold, fig.strict)
    return Probe(n, (fig,), True, mean_ms=system.mean_ms(n), throughput_per_s=system.throughput_per_s(n),
                 think_ms=0.0, duration_s=30)


def sampled_probe(system: ClosedMMc, slo: str, n: int, seed: int, seconds: float = 20.0) -> Probe:
    """A cell of `seconds`: X·T samples drawn (seeded), the SLO figure and its bootstrap interval from them."""
    crit = parse(slo)
    rng = np.random.default_rng([seed, n])
    count = int(system.throughput_per_s(n) * seconds)
    elapsed = np.sort(system.samples(n, count, rng))
    q = float(crit.metric[1:]) / 100
    rank = max(1, math.ceil(q * count - 1e-9))
    entry = entry_of(**{crit.spec.key: float(elapsed[rank - 1]), "count": count})
    window = in_seconds(rng.permutation(elapsed), seconds)
    return Probe(n, figures((crit,), entry, window, f"{seed}|{n}"), True, mean_ms=float(elapsed.mean()),
                 throughput_per_s=count / seconds, think_ms=0.0, duration_s=seconds)


def drive(space, probe_at, limit: int = 40) -> tuple[Answer, list]:
    """Run the strategy against `probe_at(load, attempt, lengthen)` until it answers."""
    probes = []
    for _ in range(limit):
        step = next_step(space, probes)
        if isinstance(step, Answer):
            return step, probes
        attempt = sum(1 for p in probes if p.load == step.load)
        probes.append(probe_at(step.load, attempt, step.lengthen))
    raise AssertionError(f"no answer after {limit} probes: {[p.load for p in probes]}")
