"""Exact histograms: what comparisons resample."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class ValueCounts(Record):
    """Every distinct elapsed value of the window (ascending) with its count: exact percentiles of any rank."""
    values: list[int]
    counts: list[int]


class Blocks(Record):
    """Per block of `seconds` seconds: indexes into elapsed_ms.values and their counts (sparse)."""
    seconds: int
    index: list[list[int]]
    counts: list[list[int]]


class Completions(Record):
    """Completions in each whole second of the window, sparse: only the seconds that had any (second: index from
    the window's start, ascending), the other of the `seconds` seconds had none. A long window with few samples
    (two sessions days apart in one JTL) stays small."""
    seconds: int
    second: list[int]
    count: list[int]


class Histogram(Record):
    elapsed_ms: ValueCounts
    completions_per_s: Completions
    blocks: Blocks
