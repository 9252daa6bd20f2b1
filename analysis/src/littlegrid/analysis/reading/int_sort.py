"""Exact ascending sort of integer samples in O(n + range): the sort behind every percentile and gap test.

JTL times are whole milliseconds, so millions of elapsed or think times take a few thousand distinct
values. Counting them (np.bincount) and writing each value out as often as it occurred (np.repeat) gives
the same array as np.sort, 5-7x faster at 5 M values. When the values spread wider than there are values
(a run with a 19-hour pause), the counts would cost more memory than the data: np.sort instead.
"""

import numpy as np


def sort_ints(values: np.ndarray) -> np.ndarray:
    """A sorted copy of a 1-D integer array (its dtype kept), exactly what np.sort returns."""
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        raise TypeError(f"sort_ints sorts integers, not {values.dtype}")
    counted = counts_of(values)
    if counted is None:
        return np.sort(values)
    low, counts = counted
    return np.repeat(np.arange(low, low + len(counts), dtype=values.dtype), counts)


def counts_of(values: np.ndarray) -> tuple[int, np.ndarray] | None:
    """(low, counts): counts[i] is how many values equal low + i, from min to max; None when the range
    max − min + 1 exceeds the number of values (the counts would outweigh the data) or is empty."""
    if len(values) == 0:
        return None
    low, high = int(values.min()), int(values.max())
    if high - low + 1 > len(values):
        return None
    if high - low > np.iinfo(values.dtype).max:  # the shifted values would overflow a narrow type
        values = values.astype(np.int64)
    shifted = values - values.dtype.type(low) if low else values  # bincount counts from 0, as intp
    return low, np.bincount(shifted.astype(np.intp, copy=False), minlength=high - low + 1)


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, each value's index among them): np.unique(values, return_inverse=True), counted
    over the range (no sort) when it is no wider than the values (counts_of's rule)."""
    values = np.asarray(values)
    if len(values) == 0 or values.dtype.kind not in "iu":
        return np.unique(values, return_inverse=True)
    low, high = int(values.min()), int(values.max())
    if high - low + 1 > len(values):
        return np.unique(values, return_inverse=True)
    shifted = (values.astype(np.int64) - low).astype(np.intp, copy=False)
    seen = np.zeros(high - low + 1, bool)
    seen[shifted] = True
    present = np.flatnonzero(seen)
    index = np.zeros(len(seen), np.intp)
    index[present] = np.arange(len(present))
    return (present + low).astype(values.dtype), index[shifted]


def pair_counts(major: np.ndarray, minor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(major, minor, count) of every distinct pair, ascending by major then minor, counted over the pairs' box
    (no sort) when it holds no more cells than there are pairs; None otherwise. Integer arrays of one length."""
    if len(major) == 0:
        return None
    lo_a, hi_a, lo_b, hi_b = int(major.min()), int(major.max()), int(minor.min()), int(minor.max())
    width = hi_b - lo_b + 1
    if (hi_a - lo_a + 1) * width > len(major):
        return None
    cell = (major.astype(np.int64) - lo_a) * width + (minor.astype(np.int64) - lo_b)
    counts = np.bincount(cell.astype(np.intp, copy=False), minlength=(hi_a - lo_a + 1) * width)
    present = np.flatnonzero(counts)
    return present // width + lo_a, present % width + lo_b, counts[present].astype(np.int64)
