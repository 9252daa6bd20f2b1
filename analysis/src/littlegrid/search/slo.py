"""The SLO of a capacity search: per-cell upper bounds from the criteria grammar, and each one's figure in a
probe with its seeded bootstrap interval (blocks of whole seconds: a queue's responses are correlated in time)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from littlegrid.analysis.reading.histogram import SecondHistograms
from littlegrid.analysis.statistics.resample import (LEVEL, replicate_error_rate_in_blocks,
                                                     replicate_latencies_in_blocks, rng_for)
from littlegrid.criteria.evaluate import measure
from littlegrid.criteria.grammar import Criterion, parse
from littlegrid.usererror import UserError

if TYPE_CHECKING:
    from littlegrid.summary.model import Cell

SEED = 20260101  # the bootstrap's seed: the same probe gives the same interval, on resume too
SEARCHABLE = ("time", "fraction")  # a time or a share of errors grows with the load; a rate does not bound it


@dataclass(frozen=True)
class Figure:
    """One criterion's figure in one probe: the value in canonical units (ms, fraction) and its interval."""

    criterion: str      # the criterion as written, e.g. "p90 < 300ms"
    metric: str         # "p90", "mean", "error_rate"
    value: float
    lo: float
    hi: float
    threshold: float
    strict: bool        # "<" (True) or "<=" (False)

    def holds(self, value: float | None = None) -> bool:
        v = self.value if value is None else value
        return v < self.threshold if self.strict else v <= self.threshold


def parse_slo(texts: list[str]) -> tuple[Criterion, ...]:
    """The SLO's criteria; a criterion that is not a per-cell upper bound is refused in one line (a search
    decides each load by itself, from its own cell)."""
    if not texts:
        raise UserError('--slo: give the objective, e.g. --slo "p90 < 300ms"')
    out = []
    for text in texts:
        for part in _split_and(text):
            crit = parse(part)
            why = None
            if crit.scope.where:
                why = f"its scope ({crit.scope}) chooses cells; the search decides each load from its own cell"
            elif crit.scope.label is not None:
                why = "a label's criterion is not searched yet (the search bounds the whole cell); use `check`"
            elif not crit.spec.per_label:
                why = f"{crit.metric} is a check of the data, not a service objective"
            elif crit.spec.kind not in SEARCHABLE or crit.metric in ("min", "errors"):
                why = f"{crit.metric} does not grow with the load (use a percentile, mean, max or error_rate)"
            elif crit.op not in ("<", "<="):
                why = "an objective is an upper bound: write it with < or <="
            if why:
                raise UserError(f"--slo '{crit.text}': not a per-cell bound: {why}")
            out.append(crit)
    return tuple(out)


def _split_and(text: str) -> list[str]:
    """"p99 <= 1s and error_rate < 1%" is two criteria; an `and` inside a where-scope stays (and is refused)."""
    if re.search(r"\bwhere\b", text):
        return [text]
    return [p.strip() for p in re.split(r"\band\b", text) if p.strip()]


def figures(criteria: tuple[Criterion, ...], entry: Cell, window: SecondHistograms | None,
            key: str) -> tuple[Figure, ...] | None:
    """Each criterion's figure in a cell (its summary entry), with a 95 % moving-block bootstrap interval from the
    steady window's response times and failures per second of completion; None when the cell has no figures."""
    lat = window if window is not None and window.n else None
    out = []
    for crit in criteria:
        value, _ = measure(crit, entry)  # the one place a criterion's figure is read from a summary entry
        if value is None or lat is None:
            return None
        lo, hi = _interval(crit, entry, lat, rng_for(SEED, f"{key}|{crit.text}"))
        out.append(Figure(crit.text, crit.metric, float(value), lo, hi, float(crit.threshold), crit.op == "<"))
    return tuple(out)


def _interval(crit: Criterion, entry: Cell, lat: SecondHistograms, rng: np.random.Generator) -> tuple[float, float]:
    tail = ((1 - LEVEL) / 2, (1 + LEVEL) / 2)
    if crit.spec.kind == "fraction":  # error_rate: failures per second, resampled in blocks as latencies are
        reps = replicate_error_rate_in_blocks(lat, rng)
    else:
        q = _quantile(crit.metric)
        reps = replicate_latencies_in_blocks(lat, [] if q is None else [q], rng)["mean" if q is None else q]
    lo, hi = np.quantile(reps, tail)
    return float(lo), float(hi)


def _quantile(metric: str) -> float | None:
    """p90 -> 0.9, max -> 1.0; None for the mean."""
    if metric == "max":
        return 1.0
    if metric.startswith("p"):
        return float(metric[1:]) / 100.0
    return None


def slo_words(crit_or_figure) -> str:
    """"p90 < 300 ms", "error_rate < 1 %": the criterion with its threshold in the canonical unit."""
    f = crit_or_figure
    metric, threshold = f.metric, f.threshold
    op = ("<" if f.strict else "<=") if isinstance(f, Figure) else f.op
    kind = "fraction" if metric == "error_rate" else "time"
    return f"{metric} {op} {value_words(threshold, kind)}"


def value_words(value: float, kind: str = "time") -> str:
    if kind == "fraction":
        return f"{value * 100:.3g} %"
    return f"{value:.0f} ms" if value >= 10 else f"{value:.3g} ms"
