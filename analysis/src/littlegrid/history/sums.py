"""Sums and means of a series' few figures as Python floats, added in the order numpy adds a float64 array, so each
is numpy's to the last bit without numpy's cost per call on a handful of values (most of the gate's time went to
such calls: issue 64). The gate's figures stay the ones numpy gave; tests/history/test_sums.py checks the order
against numpy itself."""

from __future__ import annotations

BLOCK = 128  # numpy's pairwise summation: blocks of up to this many values, each in eight running sums


def total(values) -> float:
    """Σ values as np.sum gives it for a one-dimensional float64 array."""
    return _pairwise(values if isinstance(values, list) else list(values), 0, len(values))


def mean(values) -> float:
    """The mean as np.mean gives it: the sum over the count."""
    return total(values) / len(values)


def _pairwise(a: list, lo: int, hi: int) -> float:
    n = hi - lo
    if n < 8:
        out = 0.0
        for v in a[lo:hi]:
            out += v
        return out
    if n <= BLOCK:
        r = a[lo:lo + 8]
        i, stop = lo + 8, hi - n % 8
        while i < stop:
            r = [s + v for s, v in zip(r, a[i:i + 8])]
            i += 8
        out = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in a[i:hi]:
            out += v
        return out
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, lo + half) + _pairwise(a, lo + half, hi)
