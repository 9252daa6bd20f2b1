"""JMeter's clock-offset steps: the overlaps of a thread's samples that JMeter's clock made, not the plan.

A JMeter timestamp is floor(System.nanoTime() in ms) plus an offset to the wall clock, which each SampleResult
takes when it is created; a daemon thread (SampleResult$NanoOffset) re-measures that offset,
currentTimeMillis() - nanoTime, soon after the test starts and then every sampleresult.nanoThreadSleep = 5 s.
A re-measurement moves every later timestamp by the same step: -1 ms from the two clocks' fractions alone,
more when the thread is preempted between its two reads (3-6 ms seen on a busy host). With think time near 0,
a step of -d makes a thread's next sample start up to d ms before its previous one ended, in every thread
whose pair of samples straddles the re-measurement.

So overlaps are the clock's when each is at most STEP_MAX_MS and all of them fit in as many instants as
JMeter re-measured its clock while the cell ran. An overlap spans the instants from its earlier sample's start
(when that SampleResult took the offset) to its own start (+ STEP_MAX_MS: written in the stepped clock). Parallel or embedded requests overlap all through
a run, by their own length, which a few instants do not explain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NANO_OFFSET_PERIOD_MS = 5000  # JMeter's sampleresult.nanoThreadSleep default
# The largest step taken for the clock's: a preemption between the two reads of a re-measurement. Steps of
# 3-6 ms were seen at host load 6; a larger overlap is a sample's own.
STEP_MAX_MS = 20


def re_measurements(first_ms: int, last_ms: int) -> int:
    """How many times JMeter re-measured its clock offset while a cell ran from first_ms to last_ms: one soon
    after its start, one each period, and one more for a cell that did not start with JMeter's clock."""
    return math.floor(max(0, last_ms - first_ms) / NANO_OFFSET_PERIOD_MS) + 2


def instants_spanned(low: np.ndarray, high: np.ndarray, limit: int | None = None) -> int:
    """The fewest instants such that every interval [low, high] holds one of them (greedy stabbing by the
    earliest end, which is optimal). Stops counting past `limit` (the answer is then limit + 1)."""
    steps, last = 0, -math.inf
    order = np.argsort(high, kind="stable")
    for lo, hi in zip(low[order].tolist(), high[order].tolist()):
        if lo > last:
            steps, last = steps + 1, hi
            if limit is not None and steps > limit:
                break
    return steps


@dataclass(frozen=True)
class ClockSteps:
    """A thread's samples that started more than the rounding tolerance before its previous one ended: per
    pair the earlier sample's start (low), the later one's (high) and by how much it overlapped (ms)."""

    low: np.ndarray
    high: np.ndarray
    overlap_ms: np.ndarray

    @property
    def pairs(self) -> int:
        return len(self.high)

    @classmethod
    def merged(cls, parts: list["ClockSteps"]) -> "ClockSteps | None":
        parts = [p for p in parts if p is not None and p.pairs]
        if not parts:
            return None
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("low", "high", "overlap_ms")))

    def instants(self, first_ms: int, last_ms: int) -> int:
        """instants_spanned, counted up to one past the cell's re-measurements. A later start is written in
        the stepped clock, up to STEP_MAX_MS before the instant as the earlier clock had it."""
        return instants_spanned(self.low, self.high + STEP_MAX_MS, re_measurements(first_ms, last_ms))

    def explained(self, first_ms: int, last_ms: int) -> bool:
        """Whether JMeter's clock explains every overlap of a cell that ran from first_ms to last_ms."""
        return (int(self.overlap_ms.max()) <= STEP_MAX_MS
                and self.instants(first_ms, last_ms) <= re_measurements(first_ms, last_ms))

    def as_dict(self, first_ms: int, last_ms: int) -> dict:
        return {"pairs": self.pairs, "instants": self.instants(first_ms, last_ms),
                "re_measurements": re_measurements(first_ms, last_ms), "largest_ms": int(self.overlap_ms.max())}
