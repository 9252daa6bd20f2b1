"""E-divisive's energy statistic over an interval's splits (history/energy.py): Q̂ from prefix sums (added as Python
floats for a short part, by numpy for a long one), found by a scan of Python floats on short intervals and by one
numpy matrix on long ones, against Q̂ summed block by block from its definition, and the two ways against each
other to the last bit (ties, whole numbers, inf and nan included)."""

import math

import numpy as np
import pytest

from littlegrid.history import energy


def drawn(rng, n):
    """A series of n points with up to two steps: real, or whole numbers in few values (ties everywhere)."""
    x = rng.normal(100, 3, n)
    for _ in range(int(rng.integers(0, 3))):
        x[int(rng.integers(1, n)):] += rng.normal(0, 10)
    return x


def interval(rng, n):
    start = int(rng.integers(0, n - 1))
    return start, int(rng.integers(start + 2, n + 1))


def q_hat_by_definition(x, start, end):
    """Q̂(τ, κ) of Matteson and James straight from blocks of the distance matrix, in Otava's layout (row τ from
    start + 1, column κ from start + 2, 0 where κ ≤ τ), and numpy's argmax of it."""
    d = np.abs(x[:, None] - x[None, :])
    q = np.zeros((end - start - 1, end - start - 1))
    for t in range(start + 1, end):
        for k in range(t + 1, end + 1):
            n, m = t - start, k - t
            between = d[start:t, t:k].sum()
            within_x, within_y = d[start:t, start:t].sum() / 2, d[t:k, t:k].sum() / 2  # each pair once
            coef_x = 2 * m / ((m + n) * (n - 1)) if n > 1 else 0.0
            coef_y = 2 * n / ((m + n) * (m - 1)) if m > 1 else 0.0
            q[t - start - 1, k - start - 2] = 2 / (m + n) * between - coef_x * within_x - coef_y * within_y
    i, _ = np.unravel_index(np.argmax(q), q.shape)
    return start + 1 + int(i), float(q.max())


@pytest.mark.parametrize("way", ["scan", "matrix"])
def test_the_best_split_is_q_hat_s_first_maximum_by_its_definition(way):
    """The same split and value as Q̂ summed block by block: exactly on whole-number series (every sum is exact, so
    the ties are real and go to the first in row-major order, as Otava's argmax has them), to rounding on real
    ones."""
    find = energy._scan if way == "scan" else energy._matrix
    rng = np.random.default_rng(64)
    for trial in range(300):
        x = drawn(rng, int(rng.integers(2, 40)))
        whole = trial % 2 == 0
        if whole:
            x = np.round(x / 4)
        start, end = interval(rng, len(x))
        mine = find(energy._prefix_rows(x.tolist()) if way == "scan" else energy._prefix_matrix(x), start, end)
        theirs = q_hat_by_definition(x, start, end)
        if whole:
            assert mine == theirs, (trial, list(x), start, end)
        else:
            assert mine[0] == theirs[0] and mine[1] == pytest.approx(theirs[1], rel=1e-9), (trial, list(x))


def test_the_scan_and_the_matrix_find_the_same_split_to_the_last_bit():
    """Either way on the same interval, whichever side of SCAN_LIMIT it lies: the same prefix sums and the same τ and
    float Q̂, on real, whole-number and flat series and on series holding inf or nan (numpy's argmax takes the first
    nan)."""
    rng = np.random.default_rng(66)
    kinds = {"real": lambda x: x, "whole": lambda x: np.round(x / 4), "flat": lambda x: np.full(len(x), 152.0),
             "inf": lambda x: np.where(np.arange(len(x)) == len(x) // 2, math.inf, x),
             "nan": lambda x: np.where(np.arange(len(x)) == len(x) // 3, math.nan, x)}
    for trial in range(500):
        kind = list(kinds)[trial % len(kinds)]
        x = kinds[kind](drawn(rng, int(rng.integers(2, 2 * energy.SCAN_LIMIT))))
        start, end = interval(rng, len(x))
        with np.errstate(invalid="ignore"):  # inf − inf: the nan under test
            matrix = energy._prefix_matrix(x)
            whole = energy._matrix(matrix, start, end)
        rows = energy._prefix_rows(x.tolist())
        assert repr(rows) == repr(matrix.tolist()), (trial, kind, list(x))  # the same sums, nan where numpy has it
        scanned = energy._scan(rows, start, end)
        assert scanned[0] == whole[0] and repr(scanned[1]) == repr(whole[1]), (trial, kind, list(x), start, end)
