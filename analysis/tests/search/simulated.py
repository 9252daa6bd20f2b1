"""Simulated systems with answers known on paper, probed like cells (no JMeter): a closed M/M/c//N with no think
time, and an open M/M/1 queue."""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.reading.histogram import SecondHistograms
from littlegrid.criteria.grammar import parse
from littlegrid.search.slo import figures
from littlegrid.search.strategy import Answer, Probe, next_step
from littlegrid.summary.model import Cell
from queues import ClosedMMc  # noqa: F401 (the known-answer system the search's tests and benchmark probe)
from summary_contract import typed


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
